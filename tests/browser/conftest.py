"""Fixtures for the browser tests: one JupyterLab server on a copy of the course and one Chromium for
all the browser tests (package scope: playwright's event loop must be gone before the rest of the suite
runs, or their asyncio.run() finds it still running), a fresh browser context (and fresh kernels) for
every test, and every JavaScript error of the page collected so that a test fails on it."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Route, expect, sync_playwright

from tests.browser.lab import (
    ARTIFACTS,
    CHROMIUM_ARGS,
    HEADLESS_SHELL,
    VIEWPORT,
    WIDGET_MS,
    LabServer,
    Notebook,
    screenshot,
    serving,
)
from tests.course_copy import copy_working_tree

# Console errors that are not the course's and cannot be avoided, each with its reason. Keep it short:
# anything else logged as an error fails the test.
ALLOWED_CONSOLE_ERRORS: list[tuple[re.Pattern, str]] = []

# A 1x1 transparent SVG: what an image from outside 127.0.0.1 gets (the badges), as there is no network.
BLANK_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'
EXTERNAL = re.compile(r"^(?!https?://(127\.0\.0\.1|localhost)[:/])https?://")


@dataclass
class Lab:
    """What a test gets: the page, the server, and what went wrong in the page so far."""

    page: Page
    server: LabServer
    errors: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)  # requests that tried to leave 127.0.0.1

    def open_notebook(self, path: str) -> Notebook:
        return Notebook(self.page, self.server, path).open()

    def assert_no_javascript_errors(self) -> None:
        assert self.errors == [], "JavaScript errors in the page:\n" + "\n".join(self.errors)


def _allowed(message: ConsoleMessage) -> bool:
    return any(pattern.search(message.text) for pattern, _reason in ALLOWED_CONSOLE_ERRORS)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"report_{report.when}", report)  # the page fixture screenshots failed tests
    return report


@pytest.fixture(scope="package")
def browser():
    if not os.path.exists(HEADLESS_SHELL):
        pytest.fail(
            f"The browser tests need Debian's headless Chromium at {HEADLESS_SHELL}: "
            "`apt-get install -y chromium-headless-shell` "
            "(Playwright's own browser download is not used).",
            pytrace=False,
        )
    # Screenshots of earlier failures would be mistaken for this run's.
    for name in os.listdir(ARTIFACTS) if os.path.isdir(ARTIFACTS) else []:
        if name.startswith("failed-") and name.endswith(".png"):
            os.remove(os.path.join(ARTIFACTS, name))
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=HEADLESS_SHELL, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="package")
def lab_server(tmp_path_factory):
    """JupyterLab from this environment, serving a copy of the course (the files `git ls-files` lists)."""
    # nbgrader's course root is the folder of nbgrader_config.py: the gradebook and everything else the
    # server writes (checkpoints, a student's notebook) land in the copy, never in the repository.
    root = copy_working_tree(str(tmp_path_factory.mktemp("course")))
    yield from serving(LabServer(root=root, home=str(tmp_path_factory.mktemp("jupyter-home"))))


@pytest.fixture
def lab(browser: Browser, lab_server: LabServer, request):
    """A new browser context and page for one test; its kernels are shut down afterwards."""
    expect.set_options(timeout=WIDGET_MS)
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WIDGET_MS)
    page = context.new_page()
    session = Lab(page, lab_server)

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error" and not _allowed(message):
            where = message.location.get("url", "")
            session.errors.append(f"console error: {message.text} ({where})")

    def on_external(route: Route) -> None:
        session.external.append(route.request.url)
        if route.request.resource_type == "image":
            route.fulfill(status=200, content_type="image/svg+xml", body=BLANK_SVG)
        else:
            route.abort()

    page.on("console", on_console)
    page.on("pageerror", lambda error: session.errors.append(f"uncaught exception: {error}"))
    context.route(EXTERNAL, on_external)
    try:
        yield session
    finally:
        report = getattr(request.node, "report_call", None)
        if report is not None and report.failed:
            try:
                screenshot(page, f"failed-{request.node.name}")
            except Exception as exc:  # the page may be gone; the test's own failure matters more
                print(f"no failure screenshot: {exc}")
        late_errors = list(session.errors)
        context.close()
        try:
            lab_server.shutdown_kernels()
        except OSError as exc:
            pytest.fail(f"JupyterLab no longer answers ({exc}). Server log:\n{lab_server.log()}", pytrace=False)
    if late_errors and not (report is not None and report.failed):
        pytest.fail("JavaScript errors in the page:\n" + "\n".join(late_errors), pytrace=False)
