"""Links that cannot run code, in Chromium: a lesson 3 submission carries every hostile link of
tests/unit/autograder/grading/test_sanitize.py in a Markdown cell the student added, in its code's HTML and Markdown
outputs, and in the name of a file the grader refuses (which its grading note quotes).  It is graded,
its feedback generated, and both the feedback page (as jupyter_server's /files/ serves it to a student's
JupyterLab) and the formgrader's view of the submission are opened and every link in them clicked.
Each payload would set ``top.pwned`` to its case name; none may.

A click on a ``javascript:`` link runs its code later, in a task of its own; so after every click the
test clicks a probe link of its own and waits for the probe's code to have run (or, where the page's
policy blocks it, for the policy's report): a payload clicked before it would have run by then.  The
probe is first shown to catch a hostile link, so that a pass means the links were harmless, not that
the test could not see.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from urllib.parse import urldefrag

import nbformat
import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.browser.lab import LOAD_MS, VIEWPORT, WIDGET_MS, LabServer, screenshot, serving
from tests.conftest import requires_bwrap
from tests.course_copy import answered, copy_working_tree, grade_id, nbgrader, read, solutions, write
from tests.unit.autograder.grading.test_sanitize import (
    HOSTILE_HTML,
    HOSTILE_MARKDOWN,
    SAFE_LINKS,
    hostile_html,
    hostile_markdown,
    safe_links_html,
    safe_links_markdown,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow, requires_bwrap]

LESSON = "lesson3_zeroing_grad"
STUDENT = "mallory"
NOTE_LINK = "note-link"  # a refused file's name, quoted by the grading note (shown as plain text)
REFUSED_NAME = f"[{NOTE_LINK}](javascript:void(top.pwned='{NOTE_LINK}'))"
OUTPUTS = f"""
from IPython.display import HTML, Markdown, display
display(HTML({"".join(hostile_html().values()) + safe_links_html()!r}))
display(Markdown({chr(10).join([*hostile_markdown().values(), safe_links_markdown()])!r}))
"""
ADDED_CELL = "\n\n".join(["My notes on train_step:", *hostile_markdown().values(), safe_links_markdown()])

# Where student content becomes HTML in both pages: rendered Markdown and outputs.
CONTENT = ".text_cell_render, .output_subarea"
ADDED = ".text_cell_render:has-text('My notes on train_step')"
CLICKABLE = "a, area, button, input, summary"

# Every URL-valued attribute in the notebook part of the page, judged by Chromium's own URL parser; and
# the elements that must not be there at all.  Returns what is wrong.
AUDIT_JS = """([container, content]) => {
    const wrong = [];
    const urlAttributes = ['href', 'xlink:href', 'src', 'action', 'formaction', 'data', 'srcdoc', 'poster',
                           'background', 'ping', 'srcset', 'content'];
    for (const el of document.querySelector(container).querySelectorAll('*')) {
        for (const attr of el.attributes) {
            const name = attr.name.toLowerCase();
            if (name.startsWith('on')) wrong.push(`${el.tagName} ${name}`);
            if (!urlAttributes.includes(name)) continue;
            let url = null;
            try { url = new URL(attr.value, document.baseURI); } catch (e) {}
            const link = el.tagName === 'A' && name === 'href' && url !== null && (attr.value.startsWith('#')
                || (['http:', 'https:', 'mailto:'].includes(url.protocol) && /^(https?|mailto):/i.test(attr.value)));
            const figure = el.tagName === 'IMG' && name === 'src'
                && /^data:image\\/(png|jpeg|gif|webp);/.test(attr.value);
            if (!link && !figure) wrong.push(`${el.tagName} ${name}=${attr.value.slice(0, 80)}`);
        }
    }
    for (const area of document.querySelectorAll(content)) {
        const forbidden = 'script, iframe, object, embed, form, meta, base, svg, math, area, button, input';
        for (const el of area.querySelectorAll(forbidden)) {
            wrong.push(`<${el.tagName.toLowerCase()}> in the content`);
        }
    }
    return wrong;
}"""

# Per case name: the targets of the links whose text is that name (null: no target).
LINKS_BY_TEXT_JS = """([content]) => {
    const found = {};
    for (const area of document.querySelectorAll(content)) {
        for (const a of area.querySelectorAll('a')) {
            const text = a.textContent.trim() || (a.querySelector('img') || {}).alt || '';
            (found[text] = found[text] || []).push(a.getAttribute('href'));
        }
    }
    return found;
}"""

WATCH_POLICY_JS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
    e => window.__violations.push([e.effectiveDirective, e.blockedURI, e.sample].join(' ')));
"""
LEAVES_JS = """e => e.tagName === 'A' && e.hasAttribute('href') && /^https?:$/.test(new URL(e.href).protocol)
    && e.href.split('#')[0] !== location.href.split('#')[0]"""
PROBE_JS = """() => {
    if (document.getElementById('__probe')) return;
    const probe = document.createElement('a');
    probe.id = '__probe';
    probe.textContent = 'probe';
    probe.href = "javascript:void(window.__probed = (window.__probed || 0) + 1)";
    document.body.appendChild(probe);
}"""
# The probe's code ran, or the policy reported blocking a javascript: URL (a report names no URL: the
# probe's and a payload's look alike, and either way nothing ran).
BLOCKED_JS = "window.__violations.filter(v => /^script-src\\S* inline/.test(v)).length"
PROBES_SEEN_JS = f"() => (window.__probed || 0) + {BLOCKED_JS}"


# --------------------------------------------------------------------------- the graded course


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A copy of the course with the hostile submission graded and its feedback generated, served by
    JupyterLab (formgrader included)."""
    root = copy_working_tree(str(tmp_path_factory.mktemp("links-course")))
    nbgrader(root, "generate_assignment", LESSON, "--force")  # release/ is committed; the gradebook is not
    good = solutions(read(os.path.join(root, "notebooks", LESSON, f"{LESSON}.ipynb")))
    release = read(os.path.join(root, "release", LESSON, f"{LESSON}.ipynb"))
    submission = answered(release, {**good, "train_step": good["train_step"] + "\n" + OUTPUTS})
    answer = [grade_id(cell) for cell in submission["cells"]].index("train_step")
    submission["cells"].insert(answer + 1, nbformat.v4.new_markdown_cell(ADDED_CELL))
    folder = os.path.join(root, "submitted", STUDENT, LESSON)
    write(os.path.join(folder, f"{LESSON}.ipynb"), submission)
    os.symlink("/etc/hostname", os.path.join(folder, REFUSED_NAME))
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", LESSON], cwd=root, capture_output=True,
                         text=True, timeout=900)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    nbgrader(root, "generate_feedback", LESSON)
    yield from serving(LabServer(root=root, home=str(tmp_path_factory.mktemp("links-jupyter-home"))))


def feedback_url(server: LabServer) -> str:
    return f"{server.base}/files/feedback/{STUDENT}/{LESSON}/{LESSON}.html?token={server.token}"


def formgrader_url(server: LabServer) -> str:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{os.path.join(server.root, 'gradebook.db')}") as gradebook:
        submission = gradebook.find_submission_notebook(LESSON, LESSON, STUDENT)
        return f"{server.base}/formgrader/submissions/{submission.id}/?token={server.token}"


@pytest.fixture
def open_page(browser: Browser):
    """A page in a fresh context; ``policy=False`` makes Chromium ignore the page's Content-Security-Policy,
    so that what is tested is the sanitizer alone.  No request leaves 127.0.0.1 (they are recorded)."""
    contexts, left = [], []

    def make(policy: bool = True) -> Page:
        context = browser.new_context(viewport=VIEWPORT, bypass_csp=not policy)
        context.set_default_timeout(WIDGET_MS)
        context.add_init_script(WATCH_POLICY_JS)
        context.route(re.compile(r"^(?!https?://127\.0\.0\.1[:/])[a-z]+://"), lambda route: (
            left.append(route.request.url), route.abort()))  # fmt: skip
        contexts.append(context)
        return context.new_page()

    make.left = left
    yield make
    for context in contexts:
        context.close()


# --------------------------------------------------------------------------- clicking


def load(page: Page, url: str):
    attempts = 5
    for attempt in range(attempts):
        try:
            response = page.goto(url, timeout=LOAD_MS)
            break
        except PlaywrightError as error:
            # A link that left the page was aborted (no network); Chromium may commit its error page,
            # or load this very page again, only after this navigation began, and that interrupts it.
            # Wait for that navigation to end: when it reached the page, the page is loaded.
            if "interrupted by another navigation" not in str(error) or attempt == attempts - 1:
                raise
            with contextlib.suppress(PlaywrightError):
                page.wait_for_load_state("load", timeout=LOAD_MS)
            if page.url == url:
                response = None
                break
    page.locator(CONTENT).first.wait_for(state="attached", timeout=LOAD_MS)
    page.evaluate(PROBE_JS)
    return response


def wait_until(page: Page, condition: str, arg=None, timeout: float = WIDGET_MS / 1000) -> None:
    """Poll a condition in the page.  (Playwright's wait_for_function polls with eval, which the feedback
    page's own policy forbids; page.evaluate is not subject to it.)"""
    deadline = time.monotonic() + timeout
    while not page.evaluate(condition, arg):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout:.0f} s: {condition}")
        time.sleep(0.05)  # polling the page; no test outcome depends on this pause


def probe(page: Page) -> None:
    """Click the probe and wait until its code ran, or the page's policy reported blocking it."""
    seen = page.evaluate(PROBES_SEEN_JS)
    page.evaluate("document.getElementById('__probe').click()")
    wait_until(page, f"() => ({PROBES_SEEN_JS})() > {seen}")


def pwned(page: Page):
    return page.evaluate("() => [window.pwned, document.title]")


def click(element) -> None:
    try:
        element.scroll_into_view_if_needed(timeout=2_000)
        element.click(timeout=5_000)
    except PlaywrightTimeoutError:  # not visible (an empty link): clicked all the same
        element.dispatch_event("click")


def click_every_link(page: Page, url: str) -> int:
    """Click every link, button and summary in the notebook's Markdown and outputs, as a person would;
    after each, the probe, then whether a payload ran.  Back to the page after a link that left it."""
    title = page.title()
    count = page.locator(CONTENT).locator(CLICKABLE).count()
    for i in range(count):
        element = page.locator(CONTENT).locator(CLICKABLE).nth(i)
        described = element.evaluate("e => e.outerHTML.slice(0, 160)")
        if element.evaluate(LEAVES_JS):  # http(s) to another page: its navigation is waited for, not raced
            try:
                with page.expect_navigation(wait_until="commit", timeout=WIDGET_MS):
                    click(element)
            except PlaywrightError:  # the request is aborted (no network): an error page, or none
                pass
            load(page, url)
            continue
        click(element)
        assert urldefrag(page.url)[0] == urldefrag(url)[0], f"clicking {described} left the page"
        probe(page)
        assert pwned(page) == [None, title], f"clicking {described} ran a payload"
    return count


def expect_the_probe_catches_a_hostile_link(page: Page) -> None:
    page.evaluate("""() => {
        const a = document.createElement('a');
        a.id = '__hostile'; a.textContent = 'hostile'; a.href = "javascript:void(top.pwned = 'control')";
        document.body.appendChild(a);
    }""")
    page.locator("#__hostile").click()
    probe(page)
    assert pwned(page)[0] == "control", "the probe did not see a javascript: link run"
    page.evaluate("() => { delete window.pwned; document.getElementById('__hostile').remove(); }")


def expect_every_case_without_its_target(page: Page, container: str) -> None:
    wrong = page.evaluate(AUDIT_JS, [container, CONTENT])
    assert wrong == [], "dangerous targets or elements:\n" + "\n".join(wrong)
    links = page.evaluate(LINKS_BY_TEXT_JS, [CONTENT])
    for name in HOSTILE_MARKDOWN:  # in the added cell and in the Markdown output, readable, no target
        assert len(links.get(name, [])) >= 2 and set(links[name]) == {None}, (name, links.get(name))
    for name in ("html-javascript", "html-decimal-entity", "html-onclick", "html-base"):
        assert name in links, name
    assert NOTE_LINK not in links  # the grading note shows a quoted name as plain text: no link at all
    for name, target in SAFE_LINKS.items():  # the added cell, the HTML output, the Markdown output
        assert links.get(name) == [target] * 3, (name, links.get(name))
    text = page.locator(CONTENT).all_inner_texts()
    for name in HOSTILE_HTML:
        assert any(name in t for t in text), f"{name} is no longer readable"


# --------------------------------------------------------------------------- the tests


def test_feedback_links_run_nothing(graded, open_page):
    page = open_page(policy=False)  # the sanitizer alone
    load(page, feedback_url(graded))
    expect_the_probe_catches_a_hostile_link(page)
    assert click_every_link(page, feedback_url(graded)) > len(HOSTILE_MARKDOWN) * 2
    expect_every_case_without_its_target(page, "#notebook-container")
    screenshot(page.locator(ADDED).first, "feedback_links_added_cell")
    assert not [url for url in open_page.left if "evil.example" in url]


def test_formgrader_links_run_nothing(graded, open_page):
    page = open_page()
    url = formgrader_url(graded)
    load(page, url)
    assert "Manual Grading" in page.locator(".breadcrumb").inner_text()  # the formgrader's own page
    expect_the_probe_catches_a_hostile_link(page)  # the formgrader's page has no policy that would stop it
    click_every_link(page, url)
    expect_every_case_without_its_target(page, "#notebook-container")
    notes = page.locator(".text_cell_render", has_text="Grading notes").first
    assert NOTE_LINK in notes.inner_text()
    screenshot(page.locator(ADDED).first, "formgrader_links_added_cell")
    screenshot(page.locator(".output_subarea", has_text="html-javascript").first, "formgrader_links_html_output")
    assert not [url for url in open_page.left if "evil.example" in url]


def test_policy_stops_scripts_not_figures(graded, open_page):
    page = open_page(policy=True)
    response = load(page, feedback_url(graded))
    # What jupyter_server itself sends for /files/: recorded in the report of this change.
    header = response.headers.get("content-security-policy", "")
    print(f"jupyter_server's Content-Security-Policy for /files/: {header}")
    assert "sandbox" in header
    policy = page.locator('head meta[http-equiv="Content-Security-Policy"]')
    assert policy.count() == 1
    content = policy.get_attribute("content")
    assert "default-src 'none'" in content and "img-src data:" in content
    # the page's figures (the lesson's matplotlib plots, embedded as PNG) are drawn
    figures = page.locator(".output_png img[src^='data:image/png;base64,']")
    assert figures.count() >= 1
    for i in range(figures.count()):
        figures.nth(i).scroll_into_view_if_needed()
        wait_until(page, "img => img.complete && img.naturalWidth > 0", figures.nth(i).element_handle())
    # and its inline styles apply (nbgrader's bootstrap panels, nbconvert's notebook styles)
    panel = page.locator(".panel-heading").first.evaluate("e => getComputedStyle(e).backgroundColor")
    assert panel not in ("", "rgba(0, 0, 0, 0)"), panel
    # a javascript: link, were one to get past the sanitizer, is blocked by the policy
    page.evaluate("""() => {
        const a = document.createElement('a');
        a.id = '__hostile'; a.textContent = 'hostile'; a.href = "javascript:void(top.pwned = 'control')";
        document.body.appendChild(a);
    }""")
    blocked = page.evaluate(f"() => {BLOCKED_JS}")
    page.locator("#__hostile").click()
    wait_until(page, f"() => {BLOCKED_JS} > {blocked}")
    assert pwned(page)[0] is None
    page.evaluate("() => document.getElementById('__hostile').remove()")
    click_every_link(page, feedback_url(graded))
    page.locator(".output_png img").first.scroll_into_view_if_needed()
    screenshot(page, "feedback_links_policy_figure")
