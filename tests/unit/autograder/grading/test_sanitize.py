"""The HTML guard: a link or an image keeps its target only when it cannot run code or leave the page
for somewhere unexpected, however the target is spelled; the rest of the markup stays readable.

The tables below are shared with the browser test (tests/browser/test_feedback_links.py), which
clicks every one of these links in Chromium; each payload would set ``top.pwned`` to its case name.
"""

from __future__ import annotations

import glob
import json
import os
import re
from html.parser import HTMLParser

import nbformat
import pytest
from nbconvert import HTMLExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from autograder.grading.feedback import FeedbackPage, with_policy
from autograder.grading.sanitize import PAGE_POLICY, CleanHTML, HTMLGuard, SafeMarkdown, SanitizeStudentHTML
from tests.conftest import ROOT


def payload(name: str) -> str:
    return f"void(top.pwned='{name}')"


# name -> HTML a student can put in a display(HTML(...)) output or in a Markdown cell; the name is the
# text that must stay readable.
HOSTILE_HTML = {
    "html-javascript": '<a href="javascript:{p}">{n}</a>',
    "html-mixed-case": '<a href="JaVaScRiPt:{p}">{n}</a>',
    "html-decimal-entity": '<a href="&#106;avascript:{p}">{n}</a>',
    "html-hex-entity": '<a href="&#x6A;avascript:{p}">{n}</a>',
    "html-entity-no-semicolon": '<a href="&#x6Aavascript:{p}">{n}</a>',
    "html-named-colon": '<a href="javascript&colon;{p}">{n}</a>',
    "html-tab-in-scheme": '<a href="java\tscript:{p}">{n}</a>',
    "html-tab-entity": '<a href="java&#9;script:{p}">{n}</a>',
    "html-newline-in-scheme": '<a href="java\nscript:{p}">{n}</a>',
    "html-newline-entity": '<a href="java&#x0A;script:{p}">{n}</a>',
    "html-control-character": '<a href="&#1;javascript:{p}">{n}</a>',
    "html-leading-spaces": '<a href="   javascript:{p}">{n}</a>',
    "html-unquoted": "<a href=javascript:{p}>{n}</a>",
    "html-data-page": '<a href="data:text/html,&lt;script&gt;top.pwned=1&lt;/script&gt;">{n}</a>',
    "html-vbscript": '<a href="vbscript:msgbox(1)">{n}</a>',
    "html-file": '<a href="file:///etc/passwd">{n}</a>',
    "html-protocol-relative": '<a href="//evil.example/steal">{n}</a>',
    "html-backslashes": '<a href="\\\\evil.example/steal">{n}</a>',
    "html-relative": '<a href="../../api/contents">{n}</a>',
    "html-onclick": '<a href="https://example.org/" onclick="{p}">{n}</a>',
    "html-svg-xlink": '<svg><a xlink:href="javascript:{p}"><text y="15">{n}</text></a></svg>',
    "html-svg-href": '<svg><a href="javascript:{p}"><text y="15">{n}</text></a></svg>',
    "html-form-action": '<form action="javascript:{p}"><button>{n}</button></form>',
    "html-button-formaction": '<button formaction="javascript:{p}">{n}</button>',
    "html-iframe": '<iframe src="javascript:{p}"></iframe>{n}',
    "html-iframe-srcdoc": '<iframe srcdoc="&lt;script&gt;top.pwned=1&lt;/script&gt;"></iframe>{n}',
    "html-meta-refresh": '<meta http-equiv="refresh" content="0;url=javascript:{p}">{n}',
    "html-base": '<base href="javascript:{p}//"><a href="x">{n}</a>',
    "html-img-onerror": '<img src=x onerror="{p}">{n}',
    "html-object": '<object data="javascript:{p}"></object>{n}',
    "html-area": '<map name="m"><area href="javascript:{p}" shape="default"></map>{n}',
    "html-script": "<script>{p}</script>{n}",
}
# name -> Markdown (rendered by nbconvert first, then cleaned).
HOSTILE_MARKDOWN = {
    "md-javascript": "[{n}](javascript:{p})",
    "md-mixed-case": "[{n}](JaVaScRiPt:{p})",
    "md-entity": "[{n}](&#106;avascript:{p})",
    "md-angle-brackets": "[{n}](<javascript:{p}>)",
    "md-leading-space": "[{n}]( javascript:{p})",
    "md-reference": "[{n}][r1]\n\n[r1]: javascript:{p}",
    "md-data": "[{n}](data:text/html;base64,PHNjcmlwdD50b3AucHduZWQ9MTwvc2NyaXB0Pg==)",
    "md-vbscript": "[{n}](vbscript:msgbox)",
    "md-file": "[{n}](file:///etc/passwd)",
    "md-protocol-relative": "[{n}](//evil.example/steal)",
    "md-raw-html": '<a href="javascript:{p}">{n}</a>',
    "md-raw-html-entity": '<a href="&#x6A;avascript:{p}">{n}</a>',
    "md-image-link": "[![{n}](data:image/png;base64,iVBORw0KGgo=)](javascript:{p})",
}
# name -> a link that keeps its target, exactly.
SAFE_LINKS = {
    "ok-https": "https://example.org/page?a=1&b=2",
    "ok-http": "http://example.org/",
    "ok-mailto": "mailto:teacher@example.org",
    "ok-in-page": "#top",
}
# The autolink <javascript:...> shows its own target as its text: checked apart (no case name in it).
MARKDOWN_AUTOLINK = "<javascript:void(top.pwned='md-autolink')>"

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def hostile_html() -> dict[str, str]:
    return {name: markup.format(n=name, p=payload(name)) for name, markup in HOSTILE_HTML.items()}


def hostile_markdown() -> dict[str, str]:
    return {name: markup.format(n=name, p=payload(name)) for name, markup in HOSTILE_MARKDOWN.items()}


def safe_links_markdown() -> str:
    return "\n\n".join(f"[{name}]({target})" for name, target in SAFE_LINKS.items())


def safe_links_html() -> str:
    return " ".join(f'<a href="{target.replace("&", "&amp;")}">{name}</a>' for name, target in SAFE_LINKS.items())


# --------------------------------------------------------------------------- reading the result as a browser would


class Targets(HTMLParser):
    """Every URL-valued attribute in a page (values decoded as the browser decodes them), and the text a
    reader sees (an image's alt text included)."""

    URL_ATTRIBUTES = {"href", "xlink:href", "src", "action", "formaction", "data", "srcdoc", "content", "poster"}

    def __init__(self, markup: str):
        super().__init__(convert_charrefs=True)
        self.targets: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.tags: list[str] = []
        self.text = ""
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in self.URL_ATTRIBUTES or name.startswith("on"):
                self.targets.append((tag, name, value or ""))
            elif name == "alt":
                self.text += value or ""

    def handle_data(self, data):
        self.text += data


def as_the_url_parser_reads_it(value: str) -> str:
    return re.sub(r"[\t\n\r]", "", value).strip("".join(map(chr, range(0x21)))).lower()


def dangerous(markup: str) -> list[tuple[str, str, str]]:
    """The targets a click or a load could follow somewhere other than http(s), mailto or this page."""
    found = []
    for tag, name, value in Targets(markup).targets:
        url = as_the_url_parser_reads_it(value)
        safe_link = name == "href" and tag == "a" and url.startswith(("http:", "https:", "mailto:", "#"))
        embedded_image = name == "src" and tag == "img" and re.match(r"data:image/(png|jpeg|gif|webp);", url)
        if not (safe_link or embedded_image):
            found.append((tag, name, value))
    return found


@pytest.fixture(scope="module")
def guard():
    return HTMLGuard()


@pytest.fixture(scope="module")
def markdown():
    """The feedback and formgrader's Markdown filter, on an exporter built from the course's settings."""
    return SafeMarkdown(parent=HTMLExporter(config=course_config()))


def course_config() -> Config:
    return PyFileConfigLoader("nbgrader_config.py", path=ROOT).load_config()


# --------------------------------------------------------------------------- the tables


@pytest.mark.parametrize("name", HOSTILE_HTML)
def test_hostile_html_keeps_text(guard, name):
    cleaned = guard.clean(hostile_html()[name])
    assert dangerous(cleaned) == [], cleaned
    assert name in Targets(cleaned).text, cleaned
    assert "pwned" not in " ".join(value for _, _, value in Targets(cleaned).targets)


@pytest.mark.parametrize("name", HOSTILE_MARKDOWN)
def test_hostile_markdown_defused(markdown, name):
    html = markdown({"cell": {}}, hostile_markdown()[name])
    assert dangerous(html) == [], html
    assert name in Targets(html).text, html


def test_js_autolink_keeps_text(markdown):
    html = markdown({"cell": {}}, MARKDOWN_AUTOLINK)
    assert dangerous(html) == [] and "top.pwned" in Targets(html).text, html


def test_rendering_alone_is_unsafe():
    rendered = HTMLExporter().markdown2html({"cell": {}}, hostile_markdown()["md-javascript"])
    assert dangerous(rendered)  # nbconvert renders Markdown with harmful protocols allowed


@pytest.mark.parametrize("name", SAFE_LINKS)
def test_safe_links_keep_target(guard, markdown, name):
    target = SAFE_LINKS[name]
    for html in (guard.clean(safe_links_html()), markdown({"cell": {}}, safe_links_markdown())):
        hrefs = {value for tag, attribute, value in Targets(html).targets if attribute == "href"}
        assert target in hrefs, html
        assert dangerous(html) == []


def test_only_embedded_png_kept(guard):
    figure = f'<img src="data:image/png;base64,{PNG}" alt="loss curve" width="320">'
    assert guard.clean(figure) == figure
    for source in ("x", "https://tracker.example/pixel.png", "data:image/svg+xml;base64,PHN2Zz4=", "javascript:1"):
        assert guard.clean(f'<img src="{source}" alt="its alt &amp; text">') == "its alt &amp; text"
        assert guard.clean(f'<img src="{source}" onerror="top.pwned=1">') == ""


def test_written_url_is_checked_url(guard):
    # an escaped "&lt;" stays escaped: the browser does not decode the query a second time
    assert 'href="https://example.org/?q=&amp;lt;"' in guard.clean('<a href="https://example.org/?q=&amp;lt;">q</a>')
    assert 'href="https://example.org/"' in guard.clean('<a href="https:&#x2F;&#x2F;example.org/">e</a>')


def test_url_styles_go_harmless_stay(guard):
    markup = '<p><b>bold</b> <span style="color: red; cursor: url(https://x/c.cur), auto">red</span></p>'
    cleaned = guard.clean(markup)
    assert "<b>bold</b>" in cleaned and "color: red" in cleaned and "url(" not in cleaned


def test_unlisted_tags_shown_as_text(guard):
    cleaned = guard.clean(hostile_html()["html-form-action"])
    assert "<form" not in cleaned and "&lt;form" in cleaned


# --------------------------------------------------------------------------- the filters in nbconvert


def test_config_swaps_in_the_guard():
    config = course_config()
    assert config.HTMLExporter.sanitize_html is True
    exporter = HTMLExporter(config=config)
    filters = exporter.environment.filters
    assert isinstance(filters["markdown2html"], SafeMarkdown) and isinstance(filters["clean_html"], CleanHTML)
    assert filters["markdown2html"].parent is exporter


def formgrader_exporter() -> HTMLExporter:
    """The exporter nbgrader's formgrader builds: its template, the course's settings on top."""
    from nbgrader.server_extensions.formgrader import handlers

    config = Config()
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    config.merge(course_config())
    return HTMLExporter(config=config)


def student_notebook():
    added = new_markdown_cell("\n\n".join([*hostile_markdown().values(), safe_links_markdown()]))
    added.metadata["autograder"] = {"added": True}
    note = new_markdown_cell("**Grading notes**\n\n- '[note-link](javascript:void(top.pwned='note'))' was not graded")
    outputs = [
        new_output("display_data", data={"text/html": "".join(hostile_html().values()), "text/plain": "html"}),
        new_output("display_data", data={"text/markdown": "\n\n".join(hostile_markdown().values()), "text/plain": "m"}),
        new_output("display_data", data={"image/png": PNG, "text/plain": "figure"}),
    ]
    return new_notebook(cells=[note, added, new_code_cell("display(...)", outputs=outputs)])


def test_formgrader_view_is_safe():
    page, _ = formgrader_exporter().from_notebook_node(student_notebook(), resources={"index": 0, "total": 1})
    body = page[page.index('id="notebook-container"') :]
    assert dangerous(body) == [], dangerous(body)
    for name in [*HOSTILE_MARKDOWN, "note-link", *SAFE_LINKS]:
        assert name in Targets(body).text, name
    assert f'src="data:image/png;base64,{PNG}"' in body


def test_feedback_safe_policy_first():
    from nbgrader.server_extensions.formgrader import handlers

    config = Config()  # what nbgrader's GenerateFeedback sets up
    config.HTMLExporter.template_name = "feedback"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    config.HTMLExporter.extra_template_paths = [os.path.join(handlers.static_path, "node_modules/bootstrap/dist/css")]
    config.merge(course_config())
    resources = {"nbgrader": {"notebook": "lesson", "score": 1, "max_score": 2, "late_penalty": 0}}
    page, _ = FeedbackPage(config=config).from_notebook_node(student_notebook(), resources=resources)
    head = page[page.index("<head>") : page.index("</head>")]
    assert re.match(r"<head>\s*<meta http-equiv=\"Content-Security-Policy\"", head)
    assert f'content="{PAGE_POLICY.replace(chr(39), "&#x27;")}"' in head
    body = page[page.index("<body") :]
    assert dangerous(body) == [], dangerous(body)


def test_headless_page_refused():
    with pytest.raises(ValueError, match="no <head>"):
        with_policy("<html><body>hi</body></html>", PAGE_POLICY)
    assert "<meta http-equiv" in with_policy('<html><HEAD lang="en"><title>t</title></HEAD></html>', PAGE_POLICY)


def test_course_markdown_intact():
    """The lessons' own Markdown loses nothing but the Colab badge's remote image, which becomes its alt text."""
    plain, guarded = HTMLExporter(), SafeMarkdown(parent=HTMLExporter())
    checked = 0
    for path in glob.glob(os.path.join(ROOT, "notebooks", "*", "*.ipynb")):
        for cell in json.load(open(path, encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            source = "".join(cell["source"])
            before, after = Targets(plain.markdown2html({"cell": {}}, source)), Targets(guarded({"cell": {}}, source))
            assert after.text == before.text, source[:200]
            assert after.tags == [tag for tag in before.tags if tag != "img"], source[:200]
            assert [t for t in after.targets if t[0] != "img"] == [t for t in before.targets if t[0] != "img"]
            checked += 1
    assert checked > 50


# --------------------------------------------------------------------------- the notebook itself


def test_no_injection_into_img(guard):
    """nbconvert writes an output's width and height unquoted into <img ...>: only numbers may stay."""
    metadata = {
        "image/png": {"width": "1 onerror=top.pwned=1", "height": 240},
        "width": "2 onerror=top.pwned=2",
        "filenames": {"image/png": "javascript:top.pwned=3"},
    }
    output = new_output("display_data", data={"image/png": "not a png", "text/plain": "x"}, metadata=metadata)
    nb = new_notebook(cells=[new_code_cell("x", outputs=[output])])
    config = course_config()
    nb, _ = SanitizeStudentHTML(config=config).preprocess(nb, {})
    assert nb.cells[0].outputs[0].metadata == {"image/png": {"height": 240}}
    page, _ = HTMLExporter(config=config, template_name="classic").from_notebook_node(nb)
    assert dangerous(page[page.index("<body") :]) == []


def test_graded_notebook_cleans_html():
    """Markdown stays as written; HTML outputs are cleaned."""
    added = new_markdown_cell("Here `a<b` holds. " + hostile_markdown()["md-raw-html"])
    added.metadata["autograder"] = {"added": True}
    outputs = [
        new_output("display_data", data={"text/html": hostile_html()["html-decimal-entity"], "text/plain": "h"}),
        new_output("display_data", data={"text/markdown": "`c<d` " + hostile_markdown()["md-javascript"]}),
        new_output("display_data", data={"application/javascript": "top.pwned = 'js-output'"}),
    ]
    raw = new_raw_cell(hostile_html()["html-iframe"], metadata={"raw_mimetype": "text/html"})
    nb = new_notebook(cells=[added, new_code_cell("x", outputs=outputs), raw])
    original = nbformat.from_dict(json.loads(json.dumps(nb)))
    nb, _ = SanitizeStudentHTML().preprocess(nb, {})
    assert nb.cells[0].source == original.cells[0].source  # cleaned once rendered: `a<b` reads a<b
    html_out, markdown_out, script_out = nb.cells[1].outputs
    assert dangerous(html_out.data["text/html"]) == [] and "html-decimal-entity" in html_out.data["text/html"]
    assert markdown_out.data["text/markdown"] == original.cells[1].outputs[1].data["text/markdown"]
    assert "application/javascript" not in script_out.data
    assert "<iframe" not in nb.cells[2].source
