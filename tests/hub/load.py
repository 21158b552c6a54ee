"""A class of students driving a real hub at once, over HTTP, as their browsers would: the load test
(tests/hub/test_class_arrives.py) and the load benchmark (benchmarks/class_arrives.py) share it.

A ``Student`` is one browser without the drawing: a ``requests`` session with its cookies, which
logs in through the hub's form, follows the redirects to its server's start, and then uses the same
URLs JupyterLab and nbgrader's Assignments tab use (the contents API, nbgrader's assignment list
handlers, a kernel through /api/kernels and its websocket).  Each step is timed on its own; what
went wrong is kept as the student saw it (status, page, progress event), never retried away:

* a 429 answer is the hub's "the class is starting" page: the student waits its ``Retry-After``
  and asks for the same URL again, as that page does by itself; it is counted, not a failure;
* a 5xx answer, a page saying "Spawn failed" or a progress event with ``failed: true`` is a
  failure, and that student stops there (a real one would click *Start* again; the issue measured
  that retrying makes things worse, so the benchmark counts the first failure).

``drive_class`` lets every student go at once (threads: the work is waiting on the hub), in an
order shuffled by a seed; ``ProcessSampler`` meanwhile reads the CPU time and memory of each part
of the hub (the hub, the proxy, the students' servers, their kernels, PostgreSQL, grading) from
/proc every half second; ``collect_and_grade`` and ``scores_right`` close the lesson as its
instructor would and read the gradebook.  Only loopback addresses are ever asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import random
import re
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

import psutil
import requests

from tests.course_copy import read, solutions
from tests.hub.conftest import COURSE_ID, GRADER

LESSON = "lesson3_zeroing_grad"
STEPS = ("login", "start", "lab", "list", "fetch", "answer", "self_check", "submit", "pages")
# What a failed spawn looks like to a browser (JupyterHub's spawn-pending and error pages).
SPAWN_FAILED = re.compile(r"Spawn failed|spawn failed", re.IGNORECASE)
REFRESH = re.compile(r"""<meta\s+http-equiv=["']refresh["']\s+content=["']\s*(\d+)""", re.IGNORECASE)
PASSED = "✅ train_step"  # the head line of a passed check (gradebox/display.py)
MAX_WAIT = 60.0  # the longest Retry-After a student honours at once (a page that asks for more is odd)


class StepFailed(Exception):
    """What a student met that a browser would show as an error (kept in the student's errors)."""


@dataclass
class Visit:
    """One student's class: seconds per step, the pages times, what went wrong."""

    student: str
    times: dict[str, float] = field(default_factory=dict)
    pages: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # failure pages or events seen while starting
    waits: int = 0  # 429 "class is starting" answers honoured
    # Each 429's Retry-After and the seconds its page's <meta http-equiv="refresh"> says (None: none)
    starting_pages: list[tuple[str, str | None]] = field(default_factory=list)
    reached_lab: bool = False
    checked: bool | None = None  # the self-check said passed (None: not asked)
    submitted: bool = False


class Student:
    """One student's browser on the hub at ``url``."""

    def __init__(self, url: str, name: str, password: str, *, course_id: str = COURSE_ID, lesson: str = LESSON,
                 deadline: float, request_timeout: float = 120) -> None:  # fmt: skip
        self.url, self.name, self.password = url.rstrip("/"), name, password
        self.course_id, self.lesson = course_id, lesson
        self.deadline, self.request_timeout = deadline, request_timeout
        self.session = requests.Session()
        self.visit = Visit(name)
        self.server = f"{self.url}/user/{name}"

    # -- what every request needs -------------------------------------------------------------------
    def xsrf(self, path: str) -> str:
        """The _xsrf cookie the hub (path /hub/) or the student's server (/user/<name>/) set."""
        for cookie in self.session.cookies:
            if cookie.name == "_xsrf" and cookie.path.rstrip("/") == path.rstrip("/"):
                return cookie.value
        return ""

    def browser_headers(self, path: str) -> dict[str, str]:
        """What a browser says of a request (JupyterHub's XSRF checks read it): a page is a navigation,
        an API call is a same-origin fetch carrying the XSRF token of the hub or of the server."""
        if "/api/" not in path and "/assignments" not in path:
            return {"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Site": "same-origin"}
        xsrf = self.xsrf("/hub/" if path.startswith("/hub/") else f"/user/{self.name}/")
        return {"Sec-Fetch-Mode": "cors", "Sec-Fetch-Site": "same-origin", "X-XSRFToken": xsrf}

    def remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise StepFailed("out of time")
        return min(left, self.request_timeout)

    def request(self, method: str, url: str, **kwargs) -> requests.Response:
        headers = {**self.browser_headers(urlsplit(url).path), **kwargs.pop("headers", {})}
        answer = self.session.request(method, url, headers=headers, timeout=self.remaining(), **kwargs)
        if answer.status_code >= 500:
            raise StepFailed(f"{method} {urlsplit(url).path}: {answer.status_code} {answer.text[:300]}")
        return answer

    def navigate(self, url: str) -> tuple[requests.Response, str]:
        """GET ``url`` as a browser does: follow redirects; on 429 wait Retry-After and GET it again."""
        for _ in range(60):
            answer = self.request("GET", url, allow_redirects=False)
            if answer.status_code == 429:
                self.visit.waits += 1
                refresh = REFRESH.search(answer.text)
                self.visit.starting_pages.append((answer.headers.get("Retry-After", ""), refresh and refresh[1]))
                wait = float(answer.headers.get("Retry-After") or 1)
                time.sleep(min(max(wait, 0.5), MAX_WAIT, self.remaining()))
                continue
            if answer.is_redirect:
                url = urljoin(url, answer.headers["Location"])
                continue
            if SPAWN_FAILED.search(answer.text):
                self.visit.failures.append(f"{urlsplit(url).path}: a Spawn failed page")
                raise StepFailed(f"{urlsplit(url).path} says the spawn failed")
            return answer, url
        raise StepFailed(f"too many redirects at {url}")

    # -- the steps -------------------------------------------------------------------------------------
    def login(self) -> str:
        """The login form, filled and sent; the URL the hub sends the student to next."""
        self.request("GET", f"{self.url}/hub/login")
        form = {"username": self.name, "password": self.password, "_xsrf": self.xsrf("/hub/")}
        answer = self.request("POST", f"{self.url}/hub/login", data=form, allow_redirects=False)
        if not answer.is_redirect:
            raise StepFailed(f"the login was refused ({answer.status_code})")
        return urljoin(f"{self.url}/hub/login", answer.headers["Location"])

    def start(self, url: str) -> None:
        """From the login's redirect to JupyterLab: the spawn, the "class is starting" page if the
        hub shows it, the progress of the start, then the OAuth redirects to the server."""
        lab = f"{self.server}/lab"
        for _ in range(10):
            answer, url = self.navigate(url)
            path = urlsplit(url).path
            if "/spawn-pending/" in path:
                self.watch_progress()
                url = lab
            elif path.rstrip("/") == urlsplit(lab).path and answer.status_code == 200:
                return
            elif answer.status_code in (200, 424, 503) and path.startswith("/hub/"):
                url = f"{self.url}/hub/spawn"  # the home page or "server not running": press Start
            else:
                raise StepFailed(f"the start ended at {path} ({answer.status_code})")
        raise StepFailed("the start went round in circles")

    def watch_progress(self) -> None:
        """The spawn-pending page's event stream, until the server is ready; a failed event ends it."""
        progress = f"{self.url}/hub/api/users/{self.name}/server/progress"
        headers = {"Accept": "text/event-stream", **self.browser_headers(urlsplit(progress).path)}
        with self.session.get(progress, headers=headers, stream=True, timeout=self.remaining()) as answer:
            if answer.status_code != 200:
                raise StepFailed(f"the start's progress answered {answer.status_code}: {answer.text[:200]}")
            for line in answer.iter_lines(decode_unicode=True):
                if not line or not line.startswith("data:"):
                    continue
                event = json.loads(line[5:])
                if event.get("failed"):
                    self.visit.failures.append(f"progress: {event.get('message', '')[:300]}")
                    raise StepFailed(f"the start failed: {event.get('message', '')[:300]}")
                if event.get("ready"):
                    return
                self.remaining()
        # The stream ends when the spawn has ended: the next GET of the lab says how.

    def lab(self) -> None:
        answer = self.request("GET", f"{self.server}/lab")
        if answer.status_code != 200 or urlsplit(answer.url).path.rstrip("/") != f"/user/{self.name}/lab":
            raise StepFailed(f"JupyterLab answered {answer.status_code} at {urlsplit(answer.url).path}")
        self.visit.reached_lab = True

    def assignments(self) -> dict[str, dict]:
        """nbgrader's list for the course, by assignment."""
        answer = self.request("GET", f"{self.server}/assignments", params={"course_id": self.course_id})
        listed = answer.json() if answer.status_code == 200 else {}
        if not listed.get("success"):
            raise StepFailed(f"the assignment list failed ({answer.status_code}): {answer.text[:300]}")
        return {item["assignment_id"]: item for item in listed["value"]}

    def action(self, action: str) -> dict[str, dict]:
        """Fetch or submit, as the Assignments tab's buttons do; the list the server answers with."""
        form = {"course_id": self.course_id, "assignment_id": self.lesson, "_xsrf": self.xsrf(f"/user/{self.name}/")}
        answer = self.request("POST", f"{self.server}/assignments/{action}", data=form)
        listed = answer.json() if answer.status_code == 200 else {}
        if not listed.get("success"):
            raise StepFailed(f"{action} failed ({answer.status_code}): {answer.text[:300]}")
        return {item["assignment_id"]: item for item in listed["value"] if isinstance(item, dict)}

    def notebook_url(self) -> str:
        return f"{self.server}/api/contents/{self.lesson}/{self.lesson}.ipynb"

    def answer(self, answers: dict[str, str]) -> dict:
        """The fetched notebook with each exercise's cell (by grade_id) set to the student's code, saved."""
        answer = self.request("GET", self.notebook_url(), params={"content": "1"})
        if answer.status_code != 200:
            raise StepFailed(f"the notebook did not open ({answer.status_code})")
        notebook = answer.json()["content"]
        missing = set(answers)
        for cell in notebook["cells"]:
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if grade_id in answers:
                cell["source"] = answers[grade_id]
                missing.discard(grade_id)
        if missing:
            raise StepFailed(f"the notebook has no cell {sorted(missing)}")
        body = {"type": "notebook", "format": "json", "content": notebook}
        saved = self.request("PUT", self.notebook_url(), json=body)
        if saved.status_code not in (200, 201):
            raise StepFailed(f"the notebook was not saved ({saved.status_code}): {saved.text[:300]}")
        return notebook

    def self_check(self, notebook: dict) -> bool:
        """The setup cell, the train_step cell and the notebook's check in a fresh kernel; True if the
        check printed that train_step passed."""
        cells = {cell.get("metadata", {}).get("nbgrader", {}).get("grade_id"): cell for cell in notebook["cells"]}
        code = ["".join(cells["setup"]["source"]), "".join(cells["train_step"]["source"]),
                "from autograder.checks import check_train_step\ncheck_train_step(train_step)"]  # fmt: skip
        started = self.request("POST", f"{self.server}/api/kernels", json={"name": "python3"})
        if started.status_code not in (200, 201):
            raise StepFailed(f"no kernel started ({started.status_code}): {started.text[:300]}")
        kernel = started.json()["id"]
        try:
            outputs = asyncio.run(self.execute(kernel, code))
        finally:
            gone = f"{self.server}/api/kernels/{kernel}"
            self.session.delete(gone, headers=self.browser_headers(urlsplit(gone).path), timeout=30)
        return PASSED in outputs[-1]

    async def execute(self, kernel: str, code: list[str]) -> list[str]:
        """Each piece of ``code`` run in turn over the kernel's websocket; what each printed."""
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        url = f"{self.server}/api/kernels/{kernel}/channels?session_id={uuid.uuid4().hex}".replace("http", "ws", 1)
        cookies = "; ".join(f"{c.name}={c.value}" for c in self.session.cookies if self.name in c.path or c.path == "/")
        headers = {"Cookie": cookies, "Sec-Fetch-Mode": "websocket", "Sec-Fetch-Site": "same-origin"}
        socket = await websocket_connect(HTTPRequest(url, headers=headers, request_timeout=self.remaining()))
        session, printed = uuid.uuid4().hex, []
        try:
            for source in code:
                message_id = uuid.uuid4().hex
                socket.write_message(json.dumps({
                    "header": {"msg_id": message_id, "username": self.name, "session": session, "date": "",
                               "msg_type": "execute_request", "version": "5.3"},
                    "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                    "content": {"code": source, "silent": False, "store_history": True, "user_expressions": {},
                                "allow_stdin": False, "stop_on_error": True},
                }))  # fmt: skip
                text = []
                while True:
                    raw = await asyncio.wait_for(socket.read_message(), timeout=self.remaining())
                    if raw is None:
                        raise StepFailed("the kernel's websocket closed")
                    message = json.loads(raw)
                    if message.get("parent_header", {}).get("msg_id") != message_id:
                        continue
                    kind, content = message["msg_type"], message["content"]
                    if kind == "stream":
                        text.append(content["text"])
                    elif kind == "error":
                        text.append(f"{content['ename']}: {content['evalue']}")
                    elif kind == "execute_reply":
                        break
                printed.append("".join(text))
                if content.get("status") != "ok" and source is not code[-1]:
                    raise StepFailed(f"the self-check's cell failed: {printed[-1][-300:]}")
        finally:
            socket.close()
        return printed

    def submit(self) -> None:
        listed = self.action("submit")
        if listed.get(self.lesson, {}).get("status") != "submitted":
            raise StepFailed(f"after submit the list says {listed.get(self.lesson, {}).get('status')!r}")
        self.visit.submitted = True

    def browse(self) -> None:
        """A few pages and API calls a student's JupyterLab makes after it has started, each timed."""
        for url in (f"{self.url}/hub/home", f"{self.server}/api/contents", f"{self.server}/lab",
                    f"{self.server}/api/kernelspecs", f"{self.server}/api/contents/{self.lesson}"):  # fmt: skip
            began = time.monotonic()
            answer = self.request("GET", url)
            self.visit.pages.append(time.monotonic() - began)
            if answer.status_code != 200:
                raise StepFailed(f"{urlsplit(url).path} answered {answer.status_code}")

    # -- the whole class, for one student --------------------------------------------------------------
    def timed(self, step: str, action: Callable, *args):
        began = time.monotonic()
        try:
            return action(*args)
        finally:
            self.visit.times[step] = time.monotonic() - began

    def attend(self, answers: dict[str, str], self_check: bool) -> Visit:
        """Every step in turn; the first that fails ends the student's class, named in its errors."""
        step = "login"
        try:
            after_login = self.timed("login", self.login)
            step = "start"
            self.timed("start", self.start, after_login)
            step = "lab"
            self.timed("lab", self.lab)
            step = "list"
            listed = self.timed("list", self.assignments)
            if self.lesson not in listed:
                raise StepFailed(f"{self.lesson} is not in the list ({sorted(listed)})")
            step = "fetch"
            fetched = self.timed("fetch", self.action, "fetch")
            if fetched.get(self.lesson, {}).get("status") != "fetched":
                raise StepFailed(f"after fetch the list says {fetched.get(self.lesson, {}).get('status')!r}")
            step = "answer"
            notebook = self.timed("answer", self.answer, answers)
            if self_check:
                step = "self_check"
                self.visit.checked = self.timed("self_check", self.self_check, notebook)
            step = "submit"
            self.timed("submit", self.submit)
            step = "pages"
            self.timed("pages", self.browse)
        except (StepFailed, requests.RequestException, OSError, asyncio.TimeoutError, ValueError, KeyError) as error:
            self.visit.errors.append(f"{step}: {type(error).__name__}: {error}"[:600])
        return self.visit


def answers_for(course: str, train_steps: dict[str, str], lesson: str = LESSON) -> dict[str, dict[str, str]]:
    """Each student's answers: their own train_step, and the instructor's answer for the lesson's
    other exercises (so the score tells train_step's verdict alone)."""
    good = solutions(read(os.path.join(course, "notebooks", lesson, f"{lesson}.ipynb")))
    others = {grade_id: code for grade_id, code in good.items() if not grade_id.startswith(("quiz_", "train_step"))}
    return {student: {**others, "train_step": code} for student, code in train_steps.items()}


@dataclass
class ClassRun:
    visits: dict[str, Visit]
    seconds: float
    order: list[str]


def drive_class(hub, students: list[str], answers: dict[str, dict[str, str]], *, self_check=(),
                stagger: float = 0.0, seed: int = 0, timeout: float = 600, lesson: str = LESSON,
                course_id: str = COURSE_ID) -> ClassRun:  # fmt: skip
    """Every student at once (each ``stagger`` seconds after the one before), in an order shuffled by
    ``seed``; the students in ``self_check`` run the notebook's check in a kernel before submitting."""
    order = list(students)
    random.Random(seed).shuffle(order)
    began = time.monotonic()
    deadline = began + timeout

    def attend(place: int, name: str) -> Visit:
        time.sleep(place * stagger)
        student = Student(hub.url, name, hub.password, course_id=course_id, lesson=lesson, deadline=deadline)
        return student.attend(answers[name], name in self_check)

    with ThreadPoolExecutor(max_workers=len(order)) as pool:
        visits = list(pool.map(attend, range(len(order)), order))
    return ClassRun({visit.student: visit for visit in visits}, time.monotonic() - began, order)


def release(hub, lesson: str = LESSON) -> None:
    """The lesson generated and released by the course's grader, as the formgrader's buttons do."""
    for step in ("generate_assignment", "release_assignment"):
        done = hub.as_grader("nbgrader", step, lesson, "--force")
        if done.returncode != 0:
            raise AssertionError(f"nbgrader {step} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")


def collect_and_grade(hub, lesson: str = LESSON) -> dict[str, float]:
    """nbgrader collect and the course's grader, as the instructor runs them; seconds of each."""
    times = {}
    for step, command in (("collect", ["nbgrader", "collect", lesson]),
                          ("grade", [sys.executable, "-m", "autograder", "grade", lesson])):  # fmt: skip
        began = time.monotonic()
        done = hub.as_grader(*command)
        times[step] = time.monotonic() - began
        if done.returncode != 0:
            raise AssertionError(f"{' '.join(command)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return times


def scores_right(hub, expected_loss: dict[str, float], lesson: str = LESSON) -> tuple[int, list[str]]:
    """How many of the students in ``expected_loss`` (student: points their answer should lose) have a
    submission in the gradebook scored max minus that; the problems found, by student."""
    from nbgrader.api import Gradebook, MissingEntry

    right, problems = 0, []
    with Gradebook(hub.db_url, COURSE_ID) as gradebook:
        maximum = gradebook.find_assignment(lesson).max_score
        for student, loss in sorted(expected_loss.items()):
            try:
                score = gradebook.find_submission(lesson, student).score
            except MissingEntry:
                problems.append(f"{student}: no submission in the gradebook")
                continue
            if score == maximum - loss:
                right += 1
            else:
                problems.append(f"{student}: scored {score:g}, expected {maximum - loss:g} of {maximum:g}")
    return right, problems


class ProcessSampler(threading.Thread):
    """CPU-seconds and memory of each part of the hub, read from /proc every ``interval`` seconds.

    Parts: ``hub`` (the JupyterHub process), ``proxy`` (configurable-http-proxy), ``servers`` (the
    students' jupyterhub-singleuser), ``kernels`` (ipykernel), ``postgres`` (the gradebook's server
    and its backends), ``grading`` (anything the grader account runs: its service, collect, grade
    and the sandboxes).  Each process's CPU time is its last reading less its first (so a process
    that exits between readings still counts up to its last one); the peak memory of a part is the
    largest sum of its processes' RSS at one reading."""

    PARTS = ("hub", "proxy", "servers", "kernels", "postgres", "grading")

    def __init__(self, hub_pid: int, students: list[str], postgres_folder: str | None = None, grader: str = GRADER,
                 interval: float = 0.5) -> None:  # fmt: skip
        super().__init__(daemon=True)
        self.hub_pid, self.students, self.grader = hub_pid, set(students), grader
        self.postgres_folder, self.interval = postgres_folder, interval
        self.first: dict[tuple[int, float], float] = {}
        self.last: dict[tuple[int, float], tuple[str, float]] = {}
        self.peak_rss = dict.fromkeys(self.PARTS, 0)
        self.stopping = threading.Event()
        self.readings = 0

    def part(self, process: psutil.Process, hub_tree: set[int], postgres_tree: set[int]) -> str | None:
        with process.oneshot():
            user, command = process.username(), " ".join(process.cmdline())
        if process.pid == self.hub_pid:
            return "hub"
        if process.pid in postgres_tree:
            return "postgres"
        if user == self.grader:
            return "grading"
        if process.pid in hub_tree and "configurable-http-proxy" in command:
            return "proxy"
        if user in self.students and "ipykernel" in command:
            return "kernels"
        if user in self.students and "jupyterhub-singleuser" in command:
            return "servers"
        return None

    def trees(self) -> tuple[set[int], set[int]]:
        def tree(pid: int) -> set[int]:
            try:
                return {pid, *(child.pid for child in psutil.Process(pid).children(recursive=True))}
            except psutil.Error:
                return set()

        postgres = set()
        if self.postgres_folder:
            data = os.path.join(self.postgres_folder, "data")
            for process in psutil.process_iter(["cmdline"]):
                if data in (process.info["cmdline"] or []):
                    postgres |= tree(process.pid)
        return tree(self.hub_pid), postgres

    def read(self) -> None:
        hub_tree, postgres_tree = self.trees()
        rss = dict.fromkeys(self.PARTS, 0)
        for process in psutil.process_iter():
            try:
                part = self.part(process, hub_tree, postgres_tree)
                if part is None:
                    continue
                with process.oneshot():
                    cpu = process.cpu_times()
                    memory = process.memory_info().rss
                    key = (process.pid, process.create_time())
            except psutil.Error:
                continue  # gone since the listing, or not ours to read
            seconds = cpu.user + cpu.system
            self.first.setdefault(key, seconds)
            self.last[key] = (part, seconds)
            rss[part] += memory
        for part, total in rss.items():
            self.peak_rss[part] = max(self.peak_rss[part], total)
        self.readings += 1

    def run(self) -> None:
        while not self.stopping.is_set():
            self.read()
            self.stopping.wait(self.interval)

    def stop(self) -> None:
        self.stopping.set()
        self.join()
        self.read()

    def cpu_seconds(self) -> dict[str, float]:
        totals = dict.fromkeys(self.PARTS, 0.0)
        for key, (part, seconds) in self.last.items():
            totals[part] += seconds - self.first[key]
        return totals


def student_settings(students: list[str]) -> dict[str, str]:
    """The JUPYTER_CONFIG_PATH each running student server was started with, by student: what a
    configuration says its students get, read from the servers themselves."""
    found = {}
    for process in psutil.process_iter(["username", "cmdline"]):
        if process.info["username"] in students and "jupyterhub-singleuser" in " ".join(process.info["cmdline"] or []):
            with contextlib.suppress(psutil.Error):
                found[process.info["username"]] = process.environ().get("JUPYTER_CONFIG_PATH", "")
    return found


def percentiles(values: list[float]) -> tuple[float, float, float]:
    """p50, p95 and max (nearest rank), or NaNs for no values."""
    if not values:
        return (float("nan"),) * 3
    ordered = sorted(values)
    p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]  # the nearest rank
    return statistics.median(ordered), p95, ordered[-1]


def step_table(run: ClassRun) -> list[tuple[str, int, float, float, float]]:
    """(step, how many timed, p50, p95, max) per step; ``pages`` counts every page GET."""
    rows = []
    for step in STEPS:
        if step == "pages":
            values = [seconds for visit in run.visits.values() for seconds in visit.pages]
        else:
            values = [visit.times[step] for visit in run.visits.values() if step in visit.times]
        rows.append((step, len(values), *percentiles(values)))
    return rows
