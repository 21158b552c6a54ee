"""The Portuguese edition's catalogues: what to translate, and the notebooks and packages built from them.

English is the one source (issue 37).  Translations live in gettext catalogues under
``locale/<lang>/LC_MESSAGES/``:
- one per lesson (``<lesson id>.po``), whose entries this module extracts from the English source
  notebook: each markdown paragraph, comment block, prose string and exercise docstring is one entry,
  ``msgctxt`` = ``<cell id>/<role>/<n>`` (where it is), ``msgid`` = the English text.  Change the
  English and the pair no longer matches: ``update_po`` keeps the old translation as *fuzzy*, with the
  old English beside it, and the catalogue test refuses fuzzy entries until a translator has looked.
- one per package (``autograder.po``, ``gradebox.po``, ``gradlessons.po``), extracted from the code by Babel's Python
  extractor (``_``, ``N_``, ``pgettext``, ``ngettext``), compiled by ``sync`` into the package's
  ``_locale`` folder, where ``gradebox.i18n`` reads it at run time with the standard library.
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
PACKAGES = ("autograder", "gradebox", "gradlessons")
PACKAGE_KEYWORDS = {"_": None, "N_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
                    "npgettext": ((1, "c"), 2, 3)}  # fmt: skip
CODE_SPAN = re.compile(r"`[^`\n]+`")


def po_path(domain: str, lang: str = "pt_BR", root: str | None = None) -> str:
    """A catalogue of this course (``root``: another copy of it, as course.py run from there passes)."""
    return os.path.join(LOCALE if root is None else os.path.join(root, "locale"), lang, "LC_MESSAGES", f"{domain}.po")


def pot_path(domain: str, root: str | None = None) -> str:
    return os.path.join(LOCALE if root is None else os.path.join(root, "locale"), f"{domain}.pot")


def mo_path(package: str, lang: str = "pt_BR", root: str = ROOT) -> str:
    return os.path.join(root, package, "_locale", lang, "LC_MESSAGES", f"{package}.mo")


# gettext's own rule for Brazilian Portuguese (one form for 0 and 1, another from 2), not CLDR's
# three forms (a third one for round millions), which translators' tools do not expect.
PLURAL_FORMS = {"pt_BR": (2, "(n > 1)")}


def new_catalog(domain: str, lang: str | None = None):

    catalog = _catalog(domain, lang)
    if lang in PLURAL_FORMS:
        catalog._num_plurals, catalog._plural_expr = PLURAL_FORMS[lang]
    return catalog


def _catalog(domain: str, lang: str | None):
    from babel.messages.catalog import Catalog

    return Catalog(locale=lang, domain=domain, project="autograd-course", version="1",
                   copyright_holder="the autograd-course authors", msgid_bugs_address="",
                   charset="utf-8", fuzzy=False)  # fmt: skip


def _python_files(package: str, root: str = ROOT) -> Iterator[str]:
    for folder, dirs, files in os.walk(os.path.join(root, package)):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")) or d in ("_lesson3", "_lesson4"))
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(folder, name)
    yield from _exercise_files(package, root)


def _exercise_files(package: str, root: str = ROOT) -> Iterator[str]:
    """The exercises' files whose words a package says (``gradexercises``, one folder per exercise):
    each ``job.py`` speaks through ``gradebox.i18n``, the judges and the declarations' meanings
    through ``autograder.i18n``."""
    if package not in ("autograder", "gradebox") or not os.path.isdir(os.path.join(root, "gradexercises")):
        return
    for path in _python_files("gradexercises", root):
        if (os.path.basename(path) == "job.py") == (package == "gradebox"):
            yield path


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
    for path in _template_files(package, root):
        with open(path, "rb") as file:
            for line, message, comments, context in extract(_jinja_extract, file, keywords=PACKAGE_KEYWORDS,
                                                            comment_tags=("i18n:",)):  # fmt: skip
                catalog.add(message, None, [(os.path.relpath(path, root), line)], auto_comments=comments,
                            context=context)  # fmt: skip
    if package == "gradebox":
        add_quiz_entries(catalog, root)
    return catalog


def _template_files(package: str, root: str = ROOT) -> Iterator[str]:
    """A package's Jinja2 templates (``*.j2``): the class report's page marks its sentences ``_(...)``."""
    for folder, dirs, files in os.walk(os.path.join(root, package)):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        yield from (os.path.join(folder, name) for name in sorted(files) if name.endswith(".j2"))


def _jinja_extract(fileobj, keywords, comment_tags, options):
    """Jinja2's own Babel extractor (the template's ``_``, ``ngettext`` and ``pgettext`` calls)."""
    from jinja2.ext import babel_extract

    return babel_extract(fileobj, keywords, comment_tags, options)


def quiz_entries(root: str = ROOT) -> Iterator[tuple[str, str, str, int | None]]:
    """(context, English text, file, line) of every quick check's ``why`` and ``hint``
    (``gradebox/quizzes/<lesson>.json``): the JSON stays English, and ``gradebox.quick_checks`` looks
    each text up under ``quiz:<lesson>:<qN>:why`` (or ``:hint``) where it shows it."""
    import json

    from gradebox.quick_checks import quiz_context

    folder = os.path.join(root, "gradebox", "quizzes")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as file:
            raw = file.read()
        lines = raw.splitlines()
        for question, item in json.loads(raw).items():
            for part in ("why", "hint"):
                text = item[part]
                encoded = json.dumps(text, ensure_ascii=False)
                line = next((n for n, row in enumerate(lines, 1) if f'"{part}": {encoded}' in row), None)
                yield quiz_context(name[: -len(".json")], question, part), text, os.path.relpath(path, root), line


def add_quiz_entries(catalog, root: str = ROOT) -> None:
    """The quick checks' ``why`` and ``hint`` into the ``gradebox`` template (see ``quiz_entries``)."""
    shown_after = {"why": "✅ {question}: right.", "hint": "❌ {question}: not quite yet. Hint:"}
    for context, text, path, line in quiz_entries(root):
        _quiz, lesson, question, part = context.split(":")
        comment = f"quick check {question} of {lesson}, shown after: {shown_after[part].format(question=question)}"
        catalog.add(text, None, [(path, line)], auto_comments=[comment], context=context)


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


# --- the lessons: units of a notebook, and the notebook built from their translations -------------

GENERATED = ("badges", "install", "time")  # cells `course.py sync` writes (its own catalogue: course.po)
REGION = re.compile(r"^[ \t]*### BEGIN (SOLUTION|HIDDEN TESTS)\b.*?^[ \t]*### END \1\b[^\n]*$", re.S | re.M)
FENCE = re.compile(r"^[ \t]*(```|~~~)", re.M)
BLANK = re.compile(r"(\n[ \t]*(?:\n[ \t]*)*\n)")
# Calls whose string arguments a learner reads: printed lines, figure text, messages of errors raised.
PROSE_CALLS = frozenset({"print", "set_title", "set_xlabel", "set_ylabel", "suptitle", "title", "xlabel", "ylabel",
                         "text", "annotate", "RuntimeError", "ValueError", "TypeError", "AssertionError"})  # fmt: skip
PROSE_KEYWORDS = frozenset({"label", "title"})
STRING_START = re.compile(r"^([rRfFuUbB]{0,2})('''|\"\"\"|'|\")")


class Unit:
    """One piece of a lesson to translate: where it is (``context``), its English, and how to put a
    translation back (``start``/``end`` in the cell's source, or a markdown block's index)."""

    __slots__ = ("cell", "role", "n", "text", "start", "end", "indent", "full_line")

    def __init__(self, cell: str, role: str, n: int, text: str, start: int, end: int, indent: str = "",
                 full_line: bool = False) -> None:  # fmt: skip
        self.cell, self.role, self.n, self.text = cell, role, n, text
        self.start, self.end, self.indent, self.full_line = start, end, indent, full_line

    @property
    def context(self) -> str:
        return f"{self.cell}/{self.role}/{self.n}"


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def skipped(cell: dict) -> bool:
    """Cells with nothing to translate: the generated ones, tests, and the quick checks' answer and
    check cells (the quiz key is hashed with the English assignment id: those cells stay as they are)."""
    if cell.get("id") in GENERATED:
        return True
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    grade_id = str(nbgrader.get("grade_id", ""))
    return bool(nbgrader.get("grade")) or grade_id.startswith(("quiz_", "test_"))


def _markdown_blocks(text: str) -> list[str]:
    """``text`` split into paragraphs and the blank runs between them (even indexes are paragraphs);
    a fenced code block is one paragraph, whatever blank lines it holds."""
    parts = BLANK.split(text)
    merged: list[str] = []
    open_fence = False
    for i, part in enumerate(parts):
        if open_fence:
            merged[-1] += part
        else:
            merged.append(part)
        if i % 2 == 0 and len(FENCE.findall(part)) % 2 == 1:
            open_fence = not open_fence
    return merged


def _fenced(block: str) -> bool:
    return bool(FENCE.match(block))


def _markdown_units(cell_id: str, text: str) -> list[Unit]:
    units = []
    for index, block in enumerate(_markdown_blocks(text)):
        if index % 2 == 0 and block.strip() and not _fenced(block) and re.search(r"[A-Za-z]{2}", block):
            units.append(Unit(cell_id, "md", len(units) + 1, block, index, index))
    return units


def _hidden_spans(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in REGION.finditer(text)]


def _masked(text: str) -> str:
    """``text`` with IPython's ``%magic`` and ``!shell`` lines blanked (same length), so Python's
    tokenizer and parser read the rest at the same offsets."""
    return re.sub(r"^([ \t]*)([%!].*)$", lambda m: m.group(1) + " " * len(m.group(2)), text, flags=re.M)


def _source_lines(text: str) -> list[str]:
    """``text``'s lines as Python counts them: split at ``\n`` only (``str.splitlines`` also splits at a
    form feed or U+2028, which would shift every later offset)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def _offsets(text: str) -> list[int]:
    starts = [0]
    for line in _source_lines(text):
        starts.append(starts[-1] + len(line))
    return starts


def _comment_units(cell_id: str, text: str, inside) -> list[Unit]:
    import tokenize

    starts = _offsets(text)
    blocks: list[list] = []
    last_line = None
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(_masked(text)).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        row, col = token.start
        start = starts[row - 1] + col
        if inside(start) or "### BEGIN" in token.string or "### END" in token.string:
            continue
        full_line = not token.line[:col].strip()
        body = token.string[1:]
        body = body[1:] if body.startswith(" ") else body
        if not re.search(r"[A-Za-z]{2}", body):
            continue
        piece = (row, col, start, start + len(token.string), body, full_line, token.line[:col])
        if full_line and blocks and blocks[-1][-1][5] and last_line == row - 1 and blocks[-1][-1][1] == col:
            blocks[-1].append(piece)
        else:
            blocks.append([piece])
        last_line = row
    units = []
    for n, block in enumerate(blocks, 1):
        text_of = "\n".join(piece[4] for piece in block)
        indent = block[0][6] if block[0][5] else ""
        units.append(Unit(cell_id, "comment", n, text_of, block[0][2], block[-1][3], indent, block[0][5]))
    return units


def _call_name(call) -> str | None:
    import ast

    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _string_units(cell_id: str, text: str, inside) -> list[Unit]:
    """Prose strings (arguments of ``print``, figure text, ``label=``, raised messages) and docstrings."""
    import ast

    masked = _masked(text)
    try:
        tree = ast.parse(masked)
    except SyntaxError:
        return []
    lines = _source_lines(masked)
    starts = _offsets(masked)

    def offset(row: int, byte_col: int) -> int:
        return starts[row - 1] + len(lines[row - 1].encode()[:byte_col].decode())

    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    docstrings = {
        node.body[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
    }  # fmt: skip

    def prose(node) -> bool:
        child = node
        while child in parents:
            up = parents[child]
            if isinstance(up, ast.keyword):
                return up.arg in PROSE_KEYWORDS and isinstance(parents.get(up), ast.Call)
            if isinstance(up, ast.Call):
                return child is not up.func and _call_name(up) in PROSE_CALLS
            if isinstance(up, ast.Subscript | ast.Compare | ast.Dict | ast.JoinedStr | ast.FormattedValue):
                return False
            child = up
        return False

    found = []
    for node in ast.walk(tree):
        is_text = isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))
        if not is_text or isinstance(parents.get(node), ast.JoinedStr | ast.FormattedValue):
            continue
        role = "doc" if node in docstrings else "str" if prose(node) else None
        if role is None:
            continue
        start = offset(node.lineno, node.col_offset)
        end = offset(node.end_lineno, node.end_col_offset)
        literal = masked[start:end]
        opening = STRING_START.match(literal)
        if not opening or inside(start) or not literal.endswith(opening.group(2)):
            continue  # an implicit concatenation of several literals: left as code
        inner_start = start + len(opening.group(0))
        inner_end = end - len(opening.group(2))
        if opening.group(2) in masked[inner_start:inner_end].replace("\\" + opening.group(2), ""):
            continue
        body = masked[inner_start:inner_end]
        if re.search(r"[A-Za-z]{2}", re.sub(r"\{[^{}]*\}", "", body) if "f" in opening.group(1).lower() else body):
            found.append((start, role, body, inner_start, inner_end))
    units = []
    counts = {"str": 0, "doc": 0}
    for _, role, body, inner_start, inner_end in sorted(found):
        counts[role] += 1
        units.append(Unit(cell_id, role, counts[role], body, inner_start, inner_end))
    return units


def cell_units(cell: dict) -> list[Unit]:
    """The units of one cell, in the order they appear."""
    cell_id = cell.get("id")
    if not cell_id or skipped(cell):
        return []
    text = _source(cell)
    if cell.get("cell_type") == "markdown":
        return _markdown_units(cell_id, text)
    if cell.get("cell_type") != "code":
        return []
    spans = _hidden_spans(text)

    def inside(offset: int) -> bool:
        return any(start <= offset < end for start, end in spans)

    return sorted(_comment_units(cell_id, text, inside) + _string_units(cell_id, text, inside),
                  key=lambda unit: unit.start)  # fmt: skip


def units(nb: dict) -> list[Unit]:
    return [unit for cell in nb.get("cells", []) for unit in cell_units(cell)]


def lesson_template(lesson: str, root: str = ROOT):
    """A lesson's template catalogue: every unit of its English source notebook, in notebook order."""
    import json

    relative = os.path.join("notebooks", lesson, f"{lesson}.ipynb")
    with open(os.path.join(root, relative), encoding="utf-8") as file:
        nb = json.load(file)
    catalog = new_catalog(lesson)
    for unit in units(nb):
        kind = {"md": "markdown", "comment": "code comment", "str": "printed or figure text", "doc": "docstring"}
        comments = [f"{unit.cell} · {kind[unit.role]} {unit.n}"]
        if unit.role in ("str", "doc"):
            comments.append("Python string: keep {fields}, \\n and other escapes exactly; do not add quotes")
        # The cell is named in the comment: a location is file:line to gettext's tools, and a notebook's
        # cell id is not a line (Babel drops such a location when it reads the file back).
        catalog.add(unit.text, None, [(relative, None)], auto_comments=comments,
                    context=unit.context)  # fmt: skip
    return catalog


def _comment_text(unit: Unit, translated: str) -> str:
    """The comment block for ``translated``: a block on lines of its own keeps the translation's lines,
    each at the block's indent; a comment after code stays on its line (a line break there would end
    the comment, so the lines are joined)."""
    if not unit.full_line:
        return "# " + " ".join(translated.split("\n"))
    return "\n".join((unit.indent if i else "") + ("# " + line if line else "#")
                     for i, line in enumerate(translated.split("\n")))  # fmt: skip


def translated_cell(cell: dict, lookup) -> dict:
    """``cell`` with every unit replaced by ``lookup(context, english)`` (``None``: keep the English)."""
    found = cell_units(cell)
    if not found:
        return cell
    text = _source(cell)
    if cell.get("cell_type") == "markdown":
        blocks = _markdown_blocks(text)
        for unit in found:
            translation = lookup(unit.context, unit.text)
            if translation is not None:
                blocks[unit.start] = translation
        new = "".join(blocks)
    else:
        new = text
        for unit in sorted(found, key=lambda u: u.start, reverse=True):
            translation = lookup(unit.context, unit.text)
            if translation is None:
                continue
            piece = _comment_text(unit, translation) if unit.role == "comment" else translation
            new = new[: unit.start] + piece + new[unit.end :]
    cell = dict(cell)
    cell["source"] = new.splitlines(keepends=True) if isinstance(cell.get("source"), list) else new
    return cell


def translated(nb: dict, catalog, lesson: str, lang: str = "pt_BR") -> dict:
    """The notebook in ``lang``: each unit from ``catalog`` (complete, not fuzzy), everything else kept."""

    def lookup(context: str, english: str) -> str | None:
        message = catalog.get(english, context=context)
        if message is None or not message.string or message.fuzzy:
            return None
        return message.string

    nb = dict(nb)
    nb["cells"] = [translated_cell(cell, lookup) for cell in nb.get("cells", [])]
    nb["metadata"] = {**nb.get("metadata", {}), "autograd_course": {"lesson": lesson, "language": lang}}
    return nb


# --- catalogue files -------------------------------------------------------------------------------

LESSONS = ("lesson1_requires_grad", "lesson2_backward", "lesson3_zeroing_grad", "lesson4_no_grad")
LANGS = ("pt_BR",)  # the editions beside English


def read_catalog(path: str, lang: str | None = None):
    from babel.messages.pofile import read_po

    with open(path, "rb") as file:
        return read_po(file, locale=lang, domain=os.path.splitext(os.path.basename(path))[0])


def catalog_text(catalog, template: bool = False) -> bytes:
    """The PO text, in source order, with the previous English of a fuzzy entry (what changed)."""
    from babel.messages.pofile import write_po

    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, omit_header=False, sort_output=False, sort_by_file=False,
             ignore_obsolete=False, include_previous=not template, include_lineno=False)  # fmt: skip
    return _stable_header(buffer.getvalue())


def _stable_header(text: bytes) -> bytes:
    """Babel stamps the creation and revision dates: drop them, so a rebuild changes no byte."""
    return re.sub(rb'^"(POT-Creation-Date|PO-Revision-Date): [^"\n]*\\n"\n', b"", text, flags=re.M)


def template_of(domain: str, root: str = ROOT):
    if domain == "course":
        return course_template(root)
    return lesson_template(domain, root) if domain in LESSONS else package_template(domain, root)


def updated(template, existing, lang: str):
    """``existing`` brought up to ``template``: new English is untranslated, changed English fuzzy (the
    old English kept beside it), removed English obsolete; the entries in the template's order."""
    catalog = new_catalog(template.domain, lang)
    found = [*existing, *existing.obsolete.values()] if existing is not None else []
    old = {(m.context, m.id): m for m in found}
    wanted = {(m.context, m.id) for m in template if m.id}
    reused: set = set()  # translations of gone English brought back as fuzzy: no longer obsolete
    previous = {}
    for m in found:
        if m.context:
            previous.setdefault(m.context, m)
    for message in template:
        if not message.id:
            continue
        found = old.get((message.context, message.id))
        if found is not None and found.string:
            catalog.add(message.id, found.string, message.locations, flags=set(found.flags) - {"fuzzy"} or (),
                        auto_comments=message.auto_comments, context=message.context,
                        user_comments=found.user_comments)  # fmt: skip
            if "fuzzy" in found.flags:
                kept = catalog.get(message.id, context=message.context)
                kept.flags.add("fuzzy")
                kept.previous_id = list(found.previous_id or [])
            continue
        # A lesson's context names one place: its old English is that entry's. A shared context ("report
        # column", "scenario") names many: only English that is gone is a candidate, the closest one.
        stale = previous.get(message.context) if message.context else None
        if stale is None or (stale.context, stale.id) in wanted:
            stale = _closest(message, old, wanted)
        if stale is not None and stale.string and stale.id != message.id and (stale.context, stale.id) in old:
            reused.add((stale.context, stale.id))
            catalog.add(message.id, stale.string, message.locations, flags={"fuzzy"},
                        auto_comments=message.auto_comments, context=message.context,
                        previous_id=[stale.id] if isinstance(stale.id, str) else list(stale.id))  # fmt: skip
            continue
        catalog.add(message.id, "" if isinstance(message.id, str) else ("",) * 2, message.locations,
                    auto_comments=message.auto_comments, context=message.context)  # fmt: skip
    kept = {(m.context, m.id) for m in catalog if m.id}
    for key, message in old.items():
        if message.id and key not in kept and key not in reused and message.string:
            catalog.obsolete[(message.id, message.context) if message.context else message.id] = message
    return catalog


def _closest(message, old: dict, wanted: set):
    """The translated entry whose English is gone and most like ``message``'s (as msgmerge finds one
    for an entry without a context): its translation comes back fuzzy, for a translator to check."""
    import difflib

    if not isinstance(message.id, str):
        return None
    best, score = None, 0.75
    for key, candidate in old.items():
        if key in wanted or key[0] != message.context or not isinstance(candidate.id, str) or not candidate.string:
            continue
        ratio = difflib.SequenceMatcher(None, candidate.id, message.id).ratio()
        if ratio > score:
            best, score = candidate, ratio
    return best


def write_if_changed(path: str, data: bytes) -> bool:
    try:
        with open(path, "rb") as file:
            if file.read() == data:
                return False
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as file:
        file.write(data)
    return True


def update_catalogues(domains: Iterable[str], root: str = ROOT) -> list[str]:
    """Write each domain's template and bring each language's catalogue up to it: what changed."""
    changed = []
    for domain in domains:
        template = template_of(domain, root)
        if write_if_changed(pot_path(domain, root), catalog_text(template, template=True)):
            changed.append(pot_path(domain, root))
        for lang in LANGS:
            path = po_path(domain, lang, root)
            existing = read_catalog(path, lang) if os.path.exists(path) else None
            if write_if_changed(path, catalog_text(updated(template, existing, lang))):
                changed.append(path)
    return changed


# --- what is wrong with a catalogue -----------------------------------------------------------------

FIELD = re.compile(r"(?<!\{)\{(?!\{)[^{}]*\}(?!\})")


def _fields(text: str, role: str) -> list[str]:
    """What a translation must keep verbatim: a notebook f-string's ``{expressions}``, a package
    message's named ``{placeholders}``."""
    return sorted(FIELD.findall(text)) if role in ("str", "doc", "package") else []


def problems(domain: str, lang: str = "pt_BR", root: str = ROOT) -> list[str]:
    """Everything that keeps ``domain``'s catalogue in ``lang`` from being complete and current, one line
    each: missing, untranslated, fuzzy (the English changed) or obsolete entries, entries the English
    no longer has, and translations that lost a ``{field}``, a code span, or the notebook's Python."""
    import ast

    path = po_path(domain, lang, None if root == ROOT else root)
    if not os.path.exists(path):
        return [f"{os.path.relpath(path, root)}: missing (run `python3 course.py sync`)"]
    catalog = read_catalog(path, lang)
    template = template_of(domain, root)
    wanted = {(m.context, m.id) for m in template if m.id}
    found = []
    name = os.path.relpath(path, root)
    for message in catalog:
        if not message.id:
            continue
        where = f"{name}: {message.context or ''} {str(message.id)[:60]!r}"
        if (message.context, message.id) not in wanted:
            found.append(f"{where}: not in the English any more (run `python3 course.py sync`)")
        strings = message.string if isinstance(message.string, tuple | list) else [message.string]
        if not all(strings):
            found.append(f"{where}: not translated")
            continue
        if message.fuzzy:
            found.append(f"{where}: fuzzy (the English changed: check the translation, then drop the fuzzy flag)")
        ids = message.id if isinstance(message.id, tuple | list) else [message.id]
        role = "package" if domain not in LESSONS else (message.context or "//").split("/")[1]
        for string in strings:
            if _fields(string, role) != _fields(ids[-1], role) and _fields(string, role) != _fields(ids[0], role):
                found.append(f"{where}: the {{fields}} differ from the English")
            if code_spans(string) != code_spans(ids[0]) and role in ("md", "comment", "package"):
                missing = sorted(set(code_spans(ids[0])) - set(code_spans(string)))
                if missing:
                    found.append(f"{where}: code spans lost: {' '.join(missing)}")
    if catalog.obsolete:
        found.append(f"{name}: {len(catalog.obsolete)} obsolete entries (#~): delete them")
    translated_keys = {(m.context, m.id) for m in catalog if m.id}
    for context, english in sorted(wanted - translated_keys, key=str):
        found.append(f"{name}: {context} {str(english)[:60]!r}: missing (run `python3 course.py sync`)")
    if domain in LESSONS:
        import json

        with open(os.path.join(root, "notebooks", domain, f"{domain}.ipynb"), encoding="utf-8") as file:
            english = json.load(file)
        for cell in english["cells"]:  # a cell the extractor cannot read would be left English, silently
            if cell.get("cell_type") == "code" and not skipped(cell):
                try:
                    ast.parse(_masked(_source(cell)))
                except SyntaxError as error:
                    found.append(f"{name}: cell {cell.get('id')}: its English cannot be read for translation ({error})")
    if domain in LESSONS and not found:
        nb = translated(english, catalog, domain, lang)
        for cell in nb["cells"]:
            if cell.get("cell_type") == "code":
                try:
                    ast.parse(_masked(_source(cell)))
                except SyntaxError as error:
                    found.append(f"{name}: cell {cell.get('id')}: the translated code does not parse: {error}")
    return found


def course_translation(lang: str, root: str = ROOT):
    """``course.po`` in ``lang`` as a ``gettext`` translation (English: none), for the text ``sync`` writes.
    Read from its compiled ``course.mo`` with the standard library, so that ``course.py`` needs no Babel
    outside ``sync`` (``student-edition`` checks the cells with it)."""
    import gettext

    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation("course", os.path.join(root, "locale"), languages=[lang], fallback=True)


def course_template(root: str = ROOT):
    """The messages course.py marks (``tr.gettext``, ``tr.ngettext``): the lesson-length cell, the badges."""
    from babel.messages.extract import extract

    catalog = new_catalog("course")
    keywords = {**PACKAGE_KEYWORDS, "say": (1, 2)}  # time_text's say(singular, plural, n)
    with open(os.path.join(root, "course.py"), "rb") as file:
        for line, message, comments, context in extract("python", file, keywords=keywords,
                                                        comment_tags=("i18n:",)):  # fmt: skip
            catalog.add(message, None, [("course.py", line)], auto_comments=comments, context=context)
    return catalog


def compiled(domain: str, lang: str, root: str = ROOT) -> bytes:
    """The ``.mo`` bytes of a package catalogue (untranslated and fuzzy entries left out: English shows)."""
    import datetime

    from babel.messages.mofile import write_mo as babel_write_mo

    catalog = read_catalog(po_path(domain, lang, root), lang)
    # The dates Babel stamps into the header are not kept in the PO files: fixed, so a build is reproducible.
    catalog.creation_date = catalog.revision_date = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    buffer = io.BytesIO()
    babel_write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def compile_packages(root: str = ROOT) -> list[str]:
    """Compile each package's catalogue into ``<package>/_locale`` (package data, read at run time), and
    ``course.po`` beside itself (course.py reads it)."""
    written = []
    for lang in LANGS:
        target = os.path.join(root, "locale", lang, "LC_MESSAGES", "course.mo")
        if os.path.exists(po_path("course", lang, root)) and write_if_changed(target, compiled("course", lang, root)):
            written.append(target)
    for package in PACKAGES:
        for lang in LANGS:
            if os.path.exists(po_path(package, lang, root)) and write_if_changed(mo_path(package, lang, root),
                                                                           compiled(package, lang, root)):  # fmt: skip
                written.append(mo_path(package, lang, root))
    return written


if __name__ == "__main__":
    import sys

    lines = [line for domain in sys.argv[1:] for line in problems(domain)]
    print("\n".join(lines) or "complete")
    print(f"{len(lines)} problem(s)", file=sys.stderr)
