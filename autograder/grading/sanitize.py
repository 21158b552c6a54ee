"""Student HTML made harmless before anyone looks at it: no script, no handler, no link that runs code.

A submission's outputs and its Markdown are the student's, and so are parts of the Markdown the grader
writes (a grading note quotes the name of a refused file).  Whatever becomes HTML from them is shown in
the formgrader (the instructor's logged-in Jupyter: a script there can do anything the instructor can)
and in the feedback page.  Markdown can only be judged once it is HTML: ``[x](javascript:...)`` is
plain text to an HTML sanitizer, and a link after rendering.  So the guard works on rendered HTML,
where nbconvert renders it, through nbconvert's own extension points (nbgrader_config.py names them):

- ``SafeMarkdown`` replaces the exporter's ``markdown2html`` filter: the exporter renders as before,
  then ``HTMLGuard`` cleans the result.  Every Markdown cell, the course's included, goes through it
  (nbgrader's formgrader and feedback templates render Markdown cells with that filter and nothing
  else), and so do the Markdown outputs and the instructor's comments.
- ``CleanHTML`` replaces the exporter's ``clean_html`` filter, which ``HTMLExporter.sanitize_html``
  applies to HTML outputs, raw cells and the rendered Markdown of outputs.
- ``SanitizeStudentHTML`` runs while autograding and again before feedback: it cleans the HTML of
  the student's outputs in the notebook itself with the same ``HTMLGuard`` (so the graded copy on
  disk holds none either), drops output types that carry script (nbconvert's ``SanitizeHTML``), and
  keeps only numeric image sizes in output metadata, which nbconvert's templates write into an
  unquoted ``<img width=...>``.

``HTMLGuard`` is bleach's cleaner (bleach comes with nbconvert; its maintainers no longer develop it,
but it is what nbconvert's own sanitizer runs on) with an allowlist of tags and attributes, plus
``LinkTargets``, which decides every URL the way a browser reads it: character references decoded,
ASCII tabs and newlines removed, control characters and spaces trimmed, scheme compared without
case.  A link keeps its target only for ``http:``, ``https:``, ``mailto:`` or an in-page ``#...``
(relative and protocol-relative ``//host`` links lose theirs too: a page in the grader's server has
no business sending the instructor elsewhere on it); an image keeps its source only as a
``data:image/...`` of a raster type, which is how a notebook's own figures are embedded (an image
without one shows its alt text).  The value written back is the one that was checked.  Tags outside
the allowlist (``form``, ``iframe``, ``svg``, ``meta``, ``base``, ``script``, ...) are shown as
text, so an instructor sees what was attempted, and a link that loses its target keeps its text.
"""

from __future__ import annotations

import html
import re
from functools import cached_property, partial

from bleach.css_sanitizer import ALLOWED_CSS_PROPERTIES, CSSSanitizer
from bleach.html5lib_shim import Filter
from bleach.sanitizer import Cleaner
from jinja2 import pass_context
from nbconvert.filters import markdown2html as plain_markdown2html
from nbconvert.preprocessors.sanitize import SanitizeHTML
from traitlets import Instance, List, Set, Unicode, default
from traitlets.config import LoggingConfigurable

# What the allowed link schemes may be written as after the browser's clean-up: a scheme is a letter
# followed by letters, digits, "+", "-" or ".", then a colon (the URL standard's rule).
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
# The URL parser removes ASCII tab and newline anywhere, and trims C0 controls and spaces at both ends.
_REMOVED_ANYWHERE = re.compile(r"[\t\n\r]")
_TRIMMED = "".join(chr(c) for c in range(0x21))
# Attributes whose value a browser loads or navigates to; only href and src pass the allowlist, the
# others are listed so that widening the allowlist cannot let one through unchecked.
URL_ATTRIBUTES = frozenset(
    {"href", "src", "action", "formaction", "poster", "background", "cite", "data", "srcset", "ping",
     "lowsrc", "dynsrc", "longdesc", "usemap", "codebase", "classid", "archive", "manifest", "icon", "profile"}
)  # fmt: skip

# The policy the course's own HTML pages carry (feedback, class report): nothing may load or run but
# the page's inline styles and its embedded images; no <base>, no form submission.
PAGE_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


def browser_url(value: str) -> str:
    """An attribute's value as the browser's URL parser gets it."""
    return _REMOVED_ANYWHERE.sub("", html.unescape(value)).strip(_TRIMMED)


class HTMLGuard(LoggingConfigurable):
    """Clean an HTML fragment: allowed tags and attributes only, and only safe link and image targets."""

    tags = Set(
        Unicode(),
        default_value=set(
            "a abbr b blockquote br caption code dd del details div dl dt em h1 h2 h3 h4 h5 h6 hr i img ins kbd li "
            "mark ol p pre s samp small span strong sub summary sup table tbody td tfoot th thead tr u ul var".split()
        ),
        help="Tags kept; any other is shown as text (what rendered Markdown, tables and styled text need).",
    ).tag(config=True)
    link_schemes = Set(
        Unicode(),
        default_value={"http", "https", "mailto"},
        help="URL schemes a link (href) may keep, besides in-page '#...' links. Anything else loses its target.",
    ).tag(config=True)
    image_types = Set(
        Unicode(),
        default_value={"png", "jpeg", "gif", "webp"},
        help="data:image/<type>;base64 sources an image may keep: a notebook's own figures. No other source.",
    ).tag(config=True)
    css_properties = Set(
        Unicode(),
        # cursor is bleach's only allowed property that can load a URL
        default_value=set(ALLOWED_CSS_PROPERTIES) - {"cursor"},
        help="CSS properties kept in a style attribute (none of them can load anything).",
    ).tag(config=True)

    # Attributes per tag ("*": every tag); URL attributes are then checked by LinkTargets.
    ATTRIBUTES = {
        "*": ["class", "id", "title"],
        "a": ["href"],
        "img": ["src", "alt", "width", "height"],
        "ol": ["start"],
        "li": ["value"],
        "td": ["align", "colspan", "rowspan", "style"],
        "th": ["align", "colspan", "rowspan", "style"],
        "span": ["style"],
        "div": ["style"],
        "p": ["style"],
        "details": ["open"],
    }

    def link(self, value: str) -> str | None:
        """The target a link may keep (as the browser will read it), or None."""
        url = browser_url(value)
        if url.startswith("#"):
            return url
        scheme = _SCHEME.match(url)
        return url if scheme and scheme[1].lower() in self.link_schemes else None

    def image(self, value: str) -> str | None:
        """The source an image may keep, or None."""
        url = browser_url(value)
        kind = re.match(r"data:image/([a-z]+);base64,[A-Za-z0-9+/=\s]*$", url, re.IGNORECASE)
        return url if kind and kind[1].lower() in self.image_types else None

    def clean(self, fragment: str) -> str:
        return self._cleaner.clean(str(fragment)) if fragment else ""

    @cached_property
    def _cleaner(self) -> Cleaner:
        return Cleaner(
            tags=self.tags,
            attributes=self.ATTRIBUTES,
            # bleach's own check first (data: only so that images reach LinkTargets, which is stricter)
            protocols=self.link_schemes | {"data"},
            strip=False,
            strip_comments=True,
            css_sanitizer=CSSSanitizer(allowed_css_properties=self.css_properties),
            filters=[partial(LinkTargets, guard=self)],
        )


class LinkTargets(Filter):
    """bleach filter (after its sanitizer): every URL attribute keeps a target the guard allows, written
    back exactly as checked, or is removed."""

    def __init__(self, source, guard: HTMLGuard):
        super().__init__(source)
        self.guard = guard

    def __iter__(self):
        for token in super().__iter__():
            if token["type"] in ("StartTag", "EmptyTag") and token.get("data"):
                kept = {}
                for (namespace, name), value in token["data"].items():
                    if name in URL_ATTRIBUTES:
                        # xlink:href and the like have a namespace: never allowed
                        value = self._target(token["name"], name, value) if namespace is None else None
                        # bleach writes "&" followed by a name as it is, which the browser would decode
                        # once more: escaped here, the browser reads exactly the URL that was checked
                        value = value and value.replace("&", "&amp;")
                    if value is not None:
                        kept[(namespace, name)] = value
                token["data"] = kept
                if token["name"] == "img" and (None, "src") not in kept:
                    # an image without a source is a broken-image icon: its alt text is what it had to say
                    alt = html.unescape(kept.get((None, "alt"), ""))  # as text it is escaped again
                    if alt:
                        yield {"type": "Characters", "data": alt}
                    continue
            yield token

    def _target(self, tag: str, name: str, value: str) -> str | None:
        if tag == "a" and name == "href":
            return self.guard.link(value)
        if tag == "img" and name == "src":
            return self.guard.image(value)
        return None


class CleanHTML(HTMLGuard):
    """Replaces nbconvert's ``clean_html`` filter (HTML outputs, raw cells, Markdown outputs)."""

    def __call__(self, fragment) -> str:
        return self.clean(fragment.decode() if isinstance(fragment, bytes) else str(fragment))


class SafeMarkdown(HTMLGuard):
    """Replaces the exporter's ``markdown2html`` filter: rendered as the exporter renders it, then cleaned.

    Registered by nbconvert with the exporter as its parent; its rendering keeps the exporter's settings
    (anchor links, embedded attachments, code highlighting)."""

    @pass_context
    def __call__(self, context, source: str) -> str:
        render = getattr(self.parent, "markdown2html", None)
        rendered = render(context, source) if render is not None else plain_markdown2html(source)
        return self.clean(rendered)

    # Jinja looks for this mark on the callable it is given (this object), not on its __call__.
    jinja_pass_arg = __call__.jinja_pass_arg


class SanitizeStudentHTML(SanitizeHTML):
    """The student's outputs in the notebook itself: HTML cleaned by ``HTMLGuard``, output types that
    carry script removed (nbconvert's rule), image sizes kept only when they are numbers."""

    guard = Instance(HTMLGuard)

    @default("guard")
    def _guard(self):
        return HTMLGuard(parent=self)

    @default("enabled")
    def _enabled(self):
        return True  # nbconvert's preprocessors are off unless enabled; in nbgrader's lists, on

    @default("safe_output_keys")
    def _safe_output_keys(self):
        # Markdown outputs stay as written: they are cleaned once rendered (SafeMarkdown, CleanHTML);
        # cleaning their source would show a student's `a<b` as `a&lt;b`.
        return {"metadata", "text/plain", "text/latex", "application/json", "image/png", "image/jpeg", "text/markdown"}

    @default("sanitized_output_types")
    def _sanitized_output_types(self):
        return {"text/html"}

    image_size_keys = List(
        Unicode(),
        default_value=["width", "height"],
        help="Output metadata that nbconvert writes into an unquoted <img> attribute: kept only as numbers.",
    ).tag(config=True)

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type == "markdown":
            return cell, resources  # cleaned once rendered (SafeMarkdown): its source is not HTML yet
        for output in cell.get("outputs", []):
            if isinstance(output.get("metadata"), dict):
                self._numeric_sizes(output["metadata"])
        return super().preprocess_cell(cell, resources, cell_index)

    def _numeric_sizes(self, metadata: dict) -> None:
        # nbconvert reads sizes at the top level and per mimetype, and file names (which would become an
        # <img src>) only from "filenames": no output of a graded notebook comes from a file.
        metadata.pop("filenames", None)
        for level in [metadata, *(v for v in metadata.values() if isinstance(v, dict))]:
            for key in self.image_size_keys:
                value = level.get(key)
                if key in level and not (isinstance(value, (int, float)) and not isinstance(value, bool)):
                    del level[key]

    def sanitize_html_tags(self, html_str):
        return self.guard.clean(html_str)
