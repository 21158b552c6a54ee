"""Helpers for driving JupyterLab in Chromium: a throwaway copy of the course, a JupyterLab server
started from the project's environment, and a notebook page object (open, run cells, read outputs).

Everything here waits on conditions (an element, a prompt, a kernel status), never on a fixed sleep.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from urllib.parse import quote

from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.conftest import ROOT
from tests.course_copy import grade_id, read

# Chromium's headless build (Debian's chromium-headless-shell): the browser's Blink and V8 without its
# window layer, as Playwright itself runs Chromium headless. The pages the tests drive (JupyterLab, the
# hub's) run in it; CHROMIUM, the whole browser, is for what a learner's browser profile decides (its
# cookie settings: tests/hub/test_lti_frame.py), which the headless build does not keep.
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "browser")
VIEWPORT = {"width": 1400, "height": 1600}

# Generous but bounded waits (milliseconds): two cores, shared with other jobs.
LOAD_MS = 120_000  # JupyterLab's page and a notebook's cells
RUN_ALL_MS = 420_000  # a whole lesson
CELL_MS = 180_000  # one cell, kernel start (import torch) included
WIDGET_MS = 60_000  # a widget's round trip to the kernel and back
DIALOG_MS = 300_000  # nbgrader's validation runs the whole notebook on the server

STDERR = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'


# --------------------------------------------------------------------------- notebook JSON


def source_of(cell: dict) -> str:
    return "".join(cell["source"])


# --------------------------------------------------------------------------- the server

# JupyterLab settings for the test server (its own settings folder, so nobody's own settings count):
USER_SETTINGS = {
    # No "Would you like to receive official Jupyter news?" toast over the notebook (no network anyway).
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false"},
    # No autosave: a test that runs a notebook must not write its outputs into the copy that the next
    # test opens (each test starts from the committed notebook).
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LabServer:
    """A JupyterLab server on 127.0.0.1 serving ``root`` (a copy of the course)."""

    root: str
    home: str  # private settings, workspaces, runtime and config folders, and the log
    port: int = field(default_factory=free_port)
    token: str = field(default_factory=lambda: secrets.token_hex(24))
    process: subprocess.Popen | None = None
    settings: dict = field(default_factory=dict)  # more user settings, by plugin (a language: the translation's)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> str:
        return os.path.join(self.home, "jupyterlab.log")

    def start(self, timeout: float = 180.0) -> None:
        bin_dir = os.path.dirname(sys.executable)
        settings = os.path.join(self.home, "settings")
        for plugin, values in {**USER_SETTINGS, **self.settings}.items():
            path = os.path.join(settings, f"{plugin}.jupyterlab-settings")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                json.dump(values, f)
        env = dict(os.environ)
        env.pop("JUPYTER_TOKEN", None)
        env.update(
            # This interpreter's bin folder first: the kernel and nbgrader's helpers are this environment's.
            PATH=bin_dir + os.pathsep + env.get("PATH", ""),
            # Nothing of the user's own Jupyter state comes in, nothing goes out.
            JUPYTERLAB_SETTINGS_DIR=settings,
            JUPYTERLAB_WORKSPACES_DIR=os.path.join(self.home, "workspaces"),
            JUPYTER_RUNTIME_DIR=os.path.join(self.home, "runtime"),
            JUPYTER_CONFIG_DIR=os.path.join(self.home, "config"),
            IPYTHONDIR=os.path.join(self.home, "ipython"),
            MPLCONFIGDIR=os.path.join(self.home, "matplotlib"),
            PYTHONUNBUFFERED="1",
        )
        command = [
            os.path.join(bin_dir, "jupyter"),
            "lab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            "--ServerApp.allow_root=True",
            f"--ServerApp.root_dir={self.root}",
            # No network here: do not ask the internet for news or updates.
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ]
        with open(self.log_path, "w") as log:
            # Started in the course copy: nbgrader's extensions read nbgrader_config.py from there.
            self.process = subprocess.Popen(
                command, cwd=self.root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"JupyterLab exited with status {self.process.returncode} while starting "
                    f"({' '.join(command[:2])} in {self.root}). Server log:\n{self.log()}"
                )
            try:
                self.api("GET", "/api/status", timeout=5)
                return
            except OSError:  # not listening yet
                time.sleep(0.25)  # polling the port; no test outcome depends on this pause
        self.stop()
        raise RuntimeError(
            f"JupyterLab did not answer on {self.base} within {timeout:.0f} s. Server log:\n{self.log()}"
        )

    def api(self, method: str, path: str, timeout: float = 30.0):
        request = urllib.request.Request(
            f"{self.base}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read().decode()
        return json.loads(text) if text.strip() else None

    def log(self, tail: int = 12_000) -> str:
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return f.read()[-tail:]
        except OSError:
            return "(no server log)"

    def shutdown_kernels(self) -> None:
        """End every notebook session (and its kernel): the next test gets fresh kernels."""
        for session in self.api("GET", "/api/sessions"):
            self.api("DELETE", f"/api/sessions/{session['id']}")
        for kernel in self.api("GET", "/api/kernels"):
            self.api("DELETE", f"/api/kernels/{kernel['id']}")

    def stop(self, timeout: float = 60.0) -> None:
        """Shut the kernels and the server down through the API; terminate, then kill, if it hangs."""
        if self.process is None or self.process.poll() is not None:
            return
        try:
            self.api("POST", "/api/shutdown", timeout=timeout)
        except OSError:
            pass
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)

    def url(self, path: str = "", workspace: str | None = None) -> str:
        """The address that opens ``path`` (relative to the root) in a fresh workspace of its own, so
        that JupyterLab restores no tab another test left open."""
        workspace = workspace or f"test-{uuid.uuid4().hex[:12]}"
        tree = f"/tree/{quote(path)}" if path else ""
        return f"{self.base}/lab/workspaces/{workspace}{tree}?reset&token={self.token}"


# --------------------------------------------------------------------------- menus and dialogs


def serving(server: LabServer):
    """Start ``server`` for a fixture (a failed start fails the test with JupyterLab's own words), yield
    it, and stop it afterwards: ``yield from serving(LabServer(...))``."""
    import pytest

    try:
        server.start()
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)
    yield server
    server.stop()


def menu(page: Page, *path: str) -> None:
    """Click through the menu bar, e.g. ``menu(page, "Run", "Run All Cells")``."""
    page.locator(f"div.lm-MenuBar-itemLabel:text-is('{path[0]}')").click()
    for label in path[1:]:
        page.locator(f".lm-Menu div.lm-Menu-itemLabel:text-is('{label}')").click()


def screenshot(target: Page | Locator, name: str) -> str:
    """Save a PNG under test-artifacts/browser/ (overwriting an older one); returns its path."""
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, f"{name}.png")
    target.screenshot(path=path)
    return path


# --------------------------------------------------------------------------- a notebook in the page

# Reads what the page shows of every cell: kind, prompt, source (from the editor) and output text.
_CELLS_JS = """() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')].map(cell => {
    const prompt = cell.querySelector('.jp-InputArea-prompt');
    const editor = cell.querySelector('.jp-InputArea-editor .cm-content');
    const outputs = cell.querySelector('.jp-Cell-outputArea');
    return {
        code: cell.classList.contains('jp-CodeCell'),
        prompt: prompt ? prompt.textContent.trim() : null,
        source: editor ? [...editor.querySelectorAll('.cm-line')].map(line => line.textContent).join('\\n') : null,
        outputs: outputs ? outputs.textContent : '',
    };
})"""

# True once a run has settled: the kernel idle, no cell queued or running, and either every code cell
# executed or an error (or text on stderr) shown, which stops "Run All" early.
_RUN_SETTLED_JS = """([stderr]) => {
    const indicator = document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator');
    if (!indicator || indicator.dataset.status !== 'idle') return false;
    const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputArea-prompt')]
        .map(p => p.textContent.trim());
    if (prompts.some(p => p.includes('*'))) return false;
    return prompts.every(p => /^\\[\\d+\\]:$/.test(p)) || document.querySelector(stderr) !== null;
}"""


class Notebook:
    """A notebook open in a JupyterLab page, with its JSON (read from the course copy) at hand to find
    cells by content or nbgrader grade id rather than by position."""

    def __init__(self, page: Page, server: LabServer, path: str) -> None:
        self.page = page
        self.server = server
        self.path = path
        self.json = read(os.path.join(server.root, path))

    # ------------------------------------------------------------------ opening

    def open(self) -> Notebook:
        self.page.goto(self.server.url(self.path), timeout=LOAD_MS)
        self.page.locator(".jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(
            state="attached", timeout=LOAD_MS
        )
        # JupyterLab attaches the cells of a long notebook a few at a time: wait for all of them.
        expected = len(self.json["cells"])
        self.page.wait_for_function(
            "n => document.querySelectorAll('.jp-Notebook .jp-Cell .jp-InputArea-editor .cm-content').length === n",
            arg=expected,
            timeout=LOAD_MS,
        )
        return self

    # ------------------------------------------------------------------ finding cells

    def index(self, *, grade_id_is: str | None = None, contains: str | None = None) -> int:
        """The position of the one cell with this nbgrader grade id, or whose source contains the text."""
        found = [
            i
            for i, cell in enumerate(self.json["cells"])
            if (grade_id_is is None or grade_id(cell) == grade_id_is)
            and (contains is None or contains in source_of(cell))
        ]
        assert len(found) == 1, f"{self.path}: {len(found)} cells match grade_id={grade_id_is!r} contains={contains!r}"
        return found[0]

    def cell(self, index: int) -> Locator:
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def cells(self) -> list[dict]:
        return self.page.evaluate(_CELLS_JS)

    def code_cell_count(self) -> int:
        return sum(1 for cell in self.json["cells"] if cell["cell_type"] == "code")

    # ------------------------------------------------------------------ running

    def run_all(self) -> None:
        """Run → Run All Cells, then wait until every cell ran or one failed."""
        menu(self.page, "Run", "Run All Cells")
        self.wait_until_settled(RUN_ALL_MS)

    def run_all_above(self, index: int) -> None:
        """Select cell ``index``, then Run → Run All Above Selected Cell."""
        self.select(index)
        menu(self.page, "Run", "Run All Above Selected Cell")
        self.page.wait_for_function(
            """([i]) => {
                const indicator = document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator');
                const cells = [...document.querySelectorAll('.jp-Notebook .jp-Cell')].slice(0, i);
                const prompts = cells.filter(c => c.classList.contains('jp-CodeCell'))
                    .map(c => c.querySelector('.jp-InputArea-prompt').textContent.trim());
                return indicator && indicator.dataset.status === 'idle'
                    && prompts.every(p => /^\\[\\d+\\]:$/.test(p));
            }""",
            arg=[index],
            timeout=RUN_ALL_MS,
        )

    def wait_until_settled(self, timeout: float) -> None:
        self.page.wait_for_function(_RUN_SETTLED_JS, arg=[STDERR], timeout=timeout)

    def select(self, index: int) -> None:
        """Select a cell in command mode (a click on its prompt, as a person would)."""
        self.cell(index).locator(".jp-InputArea-prompt").click()
        expect(self.cell(index)).to_have_class(re.compile(r"\bjp-mod-selected\b"), timeout=WIDGET_MS)

    def prompt(self, index: int) -> str:
        return self.cell(index).locator(".jp-InputArea-prompt").inner_text().strip()

    def run_cell(self, index: int) -> Locator:
        """Run one cell (Ctrl+Enter in its editor) and wait for its new execution count; returns the cell."""
        cell = self.cell(index)
        before = self.prompt(index)
        cell.locator(".jp-InputArea-editor").click()
        self.page.keyboard.press("Control+Enter")
        self.page.wait_for_function(
            """([i, before]) => {
                const cell = document.querySelectorAll('.jp-Notebook .jp-Cell')[i];
                const p = cell.querySelector('.jp-InputArea-prompt').textContent.trim();
                return /^\\[\\d+\\]:$/.test(p) && p !== before;
            }""",
            arg=[index, before],
            timeout=CELL_MS,
        )
        return cell

    # ------------------------------------------------------------------ editing

    def source(self, index: int) -> str:
        """The text in a cell's editor (its lines, as CodeMirror shows them)."""
        self.cell(index).scroll_into_view_if_needed()
        return self.page.evaluate(_SOURCE_JS, [index])

    def set_source(self, index: int, code: str) -> None:
        """Replace a cell's text through its editor, as typed (no auto-indent or auto-closed brackets),
        and check that the editor holds exactly that text."""
        self.cell(index).locator(".jp-InputArea-editor").click()
        self.page.keyboard.press("Control+a")
        self.page.keyboard.insert_text(code)
        try:
            self.page.wait_for_function(
                f"([i, code]) => ({_SOURCE_JS})([i]).trim() === code",
                arg=[index, code.strip()],
                timeout=WIDGET_MS,
            )
        except PlaywrightTimeoutError:
            raise AssertionError(
                f"the editor of cell {index} holds:\n{self.source(index)}\ninstead of:\n{code}"
            ) from None

    # ------------------------------------------------------------------ reading outputs

    def output_text(self, index: int) -> str:
        """What a cell's outputs show (scrolled into view: the page renders only what is near the viewport)."""
        outputs = self.cell(index).locator(".jp-Cell-outputArea")
        outputs.scroll_into_view_if_needed()
        return outputs.inner_text()

    def problems(self) -> list[str]:
        """Every error or stderr output on the page, with its cell's position and the first lines."""
        found = []
        for i, cell in enumerate(self.page.evaluate(_PROBLEMS_JS, [STDERR])):
            for text in cell:
                found.append(f"cell {i}: {text[:600]}")
        return found


_PROBLEMS_JS = """([stderr]) => [...document.querySelectorAll('.jp-Notebook .jp-Cell')]
    .map(cell => [...cell.querySelectorAll(stderr)].map(o => o.textContent))"""

# A cell's editor text: the lines CodeMirror drew, joined (innerText is empty for cells the browser skips
# rendering because they are far from the viewport).
_SOURCE_JS = """([i]) => [...document.querySelectorAll('.jp-Notebook .jp-Cell')[i]
    .querySelectorAll('.jp-InputArea-editor .cm-content > .cm-line')].map(line => line.textContent).join('\\n')"""


# --------------------------------------------------------------------------- widgets


def img_src(output: Locator) -> str:
    """The data URL of the (single) figure an ipywidgets ``Output`` shows."""
    image = output.locator("img")
    expect(image).to_have_count(1, timeout=WIDGET_MS)
    return image.get_attribute("src") or ""


def expect_new_image(output: Locator, old_src: str) -> str:
    """Wait until the figure in ``output`` is replaced by a different one; returns the new src."""
    image = output.locator("img")
    expect(image).to_have_count(1, timeout=WIDGET_MS)
    expect(image).not_to_have_attribute("src", old_src, timeout=WIDGET_MS)
    src = image.get_attribute("src") or ""
    assert src.startswith("data:image/png;base64,"), src[:80]
    return src


def kernel_log_count(page: Page) -> int:
    """Messages in JupyterLab's log console: output that belongs to no cell, such as an exception raised
    in a widget's callback, goes there (not into the notebook), and its status bar item shows the count."""
    item = page.locator(".jp-LogConsoleStatusItem")
    text = item.first.inner_text().strip() if item.count() else ""
    return int(text) if text.isdigit() else 0


def drag_slider(slider: Locator, fraction: float) -> None:
    """Drag a noUiSlider's handle (ipywidgets' IntSlider/FloatSlider) to ``fraction`` of its track."""
    page = slider.page
    handle = slider.locator(".noUi-handle")
    handle.scroll_into_view_if_needed()
    track = slider.locator(".noUi-base").bounding_box()
    grip = handle.bounding_box()
    assert track and grip, "the slider is not visible"
    y = grip["y"] + grip["height"] / 2
    page.mouse.move(grip["x"] + grip["width"] / 2, y)
    page.mouse.down()
    page.mouse.move(track["x"] + fraction * track["width"], y, steps=8)
    page.mouse.up()
