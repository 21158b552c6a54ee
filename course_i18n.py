"""The Portuguese edition's catalogues: what to translate, and the notebooks and packages built from them.

English is the one source (issue 37).  Translations live in gettext catalogues under
``locale/<lang>/LC_MESSAGES/``:
- one per lesson (``<lesson id>.po``), whose entries this module extracts from the English source
  notebook: each markdown paragraph, comment block, prose string and exercise docstring is one entry,
  ``msgctxt`` = ``<cell id>/<role>/<n>`` (where it is), ``msgid`` = the English text.  Change the
  English and the pair no longer matches: ``update_po`` keeps the old translation as *fuzzy*, with the
  old English beside it, and the catalogue test refuses fuzzy entries until a translator has looked.
- one per package (``autograder.po``, ``gradlessons.po``), extracted from the code by Babel's Python
  extractor (``_``, ``N_``, ``pgettext``, ``ngettext``), compiled by ``sync`` into the package's
  ``_locale`` folder, where ``autograder.i18n`` reads it at run time with the standard library.
- ``course.po``: the text ``course.py sync`` writes itself (the lesson-length cell, the badges).

Babel is needed only here, by the authors' tools (``requirements-dev.txt``), never by a learner.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterable, Iterator

ROOT = os.path.dirname(os.path.abspath(__file__))
LOCALE = os.path.join(ROOT, "locale")
PACKAGES = ("autograder", "gradlessons")
PACKAGE_KEYWORDS = {"_": None, "N_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
                    "npgettext": ((1, "c"), 2, 3)}  # fmt: skip
PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)(?:![rsa])?(?::[^{}]*)?\}(?!\})")
CODE_SPAN = re.compile(r"`[^`\n]+`")


def po_path(domain: str, lang: str = "pt_BR") -> str:
    return os.path.join(LOCALE, lang, "LC_MESSAGES", f"{domain}.po")


def pot_path(domain: str) -> str:
    return os.path.join(LOCALE, f"{domain}.pot")


def mo_path(package: str, lang: str = "pt_BR", root: str = ROOT) -> str:
    return os.path.join(root, package, "_locale", lang, "LC_MESSAGES", f"{package}.mo")


def new_catalog(domain: str, lang: str | None = None):
    from babel.messages.catalog import Catalog

    return Catalog(locale=lang, domain=domain, project="autograd-course", version="1",
                   copyright_holder="the autograd-course authors", msgid_bugs_address="",
                   charset="utf-8", fuzzy=False)  # fmt: skip


def _python_files(package: str, root: str = ROOT) -> Iterator[str]:
    for folder, dirs, files in os.walk(os.path.join(root, package)):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")) or d == "_lesson3")
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def package_template(package: str, root: str = ROOT):
    """Every message a package marks, as a template catalogue (Babel's Python extractor)."""
    from babel.messages.extract import extract

    catalog = new_catalog(package)
    for path in _python_files(package, root):
        with open(path, "rb") as file:
            for line, message, comments, context in extract("python", file, keywords=PACKAGE_KEYWORDS,
                                                            comment_tags=("i18n:",)):  # fmt: skip
                catalog.add(message, None, [(os.path.relpath(path, root), line)], auto_comments=comments,
                            context=context)  # fmt: skip
    return catalog


def placeholders(text: str) -> list[str]:
    """The named ``{fields}`` of a ``str.format`` text, sorted (a translation must keep the same set)."""
    return sorted(PLACEHOLDER.findall(text))


def code_spans(text: str) -> list[str]:
    return sorted(CODE_SPAN.findall(text))


def pseudo(text: str) -> str:
    """A pseudo-translation: ``⟦text⟧``, which a test finds wherever a marked string is shown."""
    return f"⟦{text}⟧"


def pseudo_catalog(template, lang: str = "xx"):
    """``template`` with every message pseudo-translated (plural forms too)."""
    catalog = new_catalog(template.domain, None)
    catalog.locale = None
    for message in template:
        if not message.id:
            continue
        if isinstance(message.id, tuple | list):
            string = tuple(pseudo(part) for part in message.id)
        else:
            string = pseudo(message.id)
        catalog.add(message.id, string, context=message.context)
    return catalog


def write_mo(catalog, path: str) -> None:
    from babel.messages.mofile import write_mo as babel_write_mo

    os.makedirs(os.path.dirname(path), exist_ok=True)
    buffer = io.BytesIO()
    babel_write_mo(buffer, catalog, use_fuzzy=False)
    with open(path, "wb") as file:
        file.write(buffer.getvalue())


def compile_pseudo(packages: Iterable[str], localedir: str, lang: str = "xx") -> dict[str, str]:
    """Pseudo ``.mo`` files of ``packages`` under ``localedir/<lang>/LC_MESSAGES``: {package: path}."""
    made = {}
    for package in packages:
        path = os.path.join(localedir, package, lang, "LC_MESSAGES", f"{package}.mo")
        write_mo(pseudo_catalog(package_template(package)), path)
        made[package] = os.path.join(localedir, package)
    return made
