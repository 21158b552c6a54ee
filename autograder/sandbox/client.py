"""The grader's side of the sandbox: start the warm server (``server.py``) in bubblewrap, ask it
for jobs, and wait for them.

``shared_server(profile)`` is the process-wide server of a profile (started on first use,
stopped when the process exits); ``template_server(cells)`` one that has run a lesson's shared
cells.  ``run_exercise`` is what ``diagnose`` uses: one Python file, one exercise, one record.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import glob
import hashlib
import itertools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import psutil

from .limits import DEFAULTS, Limits
from .outcome import Outcome
from .policy import SandboxError, bwrap_command, describe_signal, package_roots
from .server import OUTPUT_LIMIT_EXIT, SETUP_FAILED

FIRST_UID = 61000  # as root, jobs run as FIRST_UID ... FIRST_UID + UIDS - 1, one user id per running job
UIDS = 2000
UID_LOCKS = "/run/lock/autograder-uids"  # one lock file per user id, shared by every grader on the machine
MAX_RECORD_BYTES = 64 * 2**20


def scratch_parent() -> str:
    """Where servers' private folders live.  Not under /tmp, because every job gets a fresh
    private /tmp of its own, which would hide them.  AUTOGRADER_SCRATCH overrides it."""
    chosen = os.environ.get("AUTOGRADER_SCRATCH")
    if chosen:
        return chosen
    return "/var/tmp" if os.access("/var/tmp", os.W_OK) else tempfile.gettempdir()


def _remove_stale_scratch(parent: str) -> None:
    """Remove the folders of servers whose grader was killed before it could clean up."""
    for folder in glob.glob(os.path.join(parent, "autograder-*")):
        try:
            with open(os.path.join(folder, "owner.pid")) as f:
                owner = int(f.read())
        except (OSError, ValueError):
            continue  # not ours to judge (no record, or another user's)
        if not psutil.pid_exists(owner):
            shutil.rmtree(folder, ignore_errors=True)


class UidPool:
    """User ids for jobs, unique across every server and every grading run on the machine: a job's
    id is held by an exclusive lock on the file of that id for as long as the job runs (the lock
    goes with the process that held it, however it ends)."""

    def __init__(self, folder: str = UID_LOCKS, first: int = FIRST_UID, count: int = UIDS) -> None:
        self.first, self.count = first, count
        self.folder = folder if _writable(folder) else os.path.join(tempfile.gettempdir(), "autograder-uids")
        os.makedirs(self.folder, mode=0o700, exist_ok=True)
        self.next = random.randrange(count)  # servers start at different ids: fewer locks to try

    def take(self) -> tuple[int, int]:
        """(uid, the open lock file to close when the job is over)."""
        for step in range(self.count):
            uid = self.first + (self.next + step) % self.count
            fd = os.open(os.path.join(self.folder, str(uid)), os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.next = (self.next + step + 1) % self.count
            return uid, fd
        raise SandboxError(f"all {self.count} user ids for sandboxed jobs are in use on this machine")


def _writable(folder: str) -> bool:
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def _bootstrap(profile: str) -> list[str]:
    """The server's command: Python in isolated mode, importing the grader from wherever this
    process imported it (so that any clone or course folder grades with its own code)."""
    code = (
        f"import sys; sys.path[:0] = {package_roots()!r}; "
        "from autograder.sandbox.server import main; main(sys.argv[1:])"
    )
    return [sys.executable, "-I", "-c", code, "--profile", profile]


class Server:
    """A running warm server, shared by every job this process starts."""

    def __init__(self, profile: str = "kernel", template: list[str] | None = None) -> None:
        self.profile = profile
        self.template = template  # the shared cells this server ran, if any
        _remove_stale_scratch(scratch_parent())
        self.scratch = tempfile.mkdtemp(prefix="autograder-", dir=scratch_parent())
        os.chmod(self.scratch, 0o711)
        with open(os.path.join(self.scratch, "owner.pid"), "w") as f:
            f.write(str(os.getpid()))
        os.makedirs(os.path.join(self.scratch, "tmp"))
        # Job records live outside the jobs' folders, in a folder only the grader's user may open,
        # and the grader reads each one from a descriptor it opened before the job started: a job
        # that deletes or replaces every file it can reach cannot take its record with it.
        self.records = os.path.join(self.scratch, "records")
        os.makedirs(self.records, mode=0o700)
        command = _bootstrap(profile)
        if template is not None:
            spec = os.path.join(self.scratch, "template.json")
            with open(spec, "w", encoding="utf-8") as f:
                json.dump({"cells": template, "work_dir": os.path.join(self.scratch, "template-work")}, f)
            command += ["--template", spec]
        self.log = open(os.path.join(self.scratch, "server.log"), "wb")  # noqa: SIM115
        try:
            sandboxed = bwrap_command(self.scratch, command)
        except SandboxError:
            self.log.close()
            shutil.rmtree(self.scratch, ignore_errors=True)
            raise
        self.process = subprocess.Popen(sandboxed, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
        self.lock = threading.Lock()
        self.ids = itertools.count(1)
        self.uids = UidPool() if os.geteuid() == 0 else None
        ready = self.process.stdout.readline()
        if ready and not json.loads(ready).get("ready"):
            self.close()
            raise SandboxError(f"the warm template did not start: {json.loads(ready).get('error')}")
        if not ready:
            self.process.wait()
            self.log.flush()
            with open(self.log.name, errors="replace") as log:
                tail = log.read()[-2000:]
            raise SandboxError(f"the grading sandbox did not start (exit {self.process.returncode}): {tail}")
        self.startup_seconds = json.loads(ready).get("seconds")

    def alive(self) -> bool:
        return self.process.poll() is None

    def request(self, op: str, **fields) -> dict:
        with self.lock:
            if not self.alive():
                raise SandboxError("the grading sandbox has stopped")
            message = {"id": next(self.ids), "op": op, **fields}
            self.process.stdin.write((json.dumps(message) + "\n").encode())
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        if not line:
            raise SandboxError("the grading sandbox stopped while answering")
        answer = json.loads(line)
        if "error" in answer:
            raise SandboxError(answer["error"])
        return answer

    def new_job_dir(self) -> str:
        job_dir = tempfile.mkdtemp(prefix="job-", dir=self.scratch)
        os.makedirs(os.path.join(job_dir, "work"))
        return job_dir

    def _environment(self) -> dict:
        env = {key: value for key, value in os.environ.items() if key in ("LANG", "LC_ALL", "TZ")}
        env["PATH"] = f"{os.path.dirname(sys.executable)}:/usr/bin:/bin"
        return env

    def _uid(self) -> tuple[int, int | None]:
        """A user id for a new job, and the lock that holds it (None when we are not root: every
        job then runs as our own user, in its own namespaces)."""
        return self.uids.take() if self.uids is not None else (os.getuid(), None)

    def _spawn(self, limits: Limits, **fields) -> JobProcess:
        uid, lock = self._uid()
        record = None
        try:
            if fields.get("record") is True:
                fields["record"] = os.path.join(self.records, os.path.basename(fields["job_dir"]))
                record = os.fdopen(os.open(fields["record"], os.O_RDONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                                           0o600), "rb")  # fmt: skip
            answer = self.request("spawn", uid=uid, limits=limits.as_dict(), env=fields.pop("env", None)
                                  or self._environment(), **fields)  # fmt: skip
        except BaseException:
            if lock is not None:
                os.close(lock)
            if record is not None:
                record.close()
            raise
        return JobProcess(self, answer["job"], limits, lock, record, fields.get("record"))

    def spawn_kernel(self, job_dir: str, work_dir: str, connection_file: str, limits: Limits) -> JobProcess:
        # What nbgrader tells a kernel, and that the checks in test cells are scored outside it.
        env = {**self._environment(), "NBGRADER_EXECUTION": "autograde", "AUTOGRADER_CHECKS": "outside"}
        return self._spawn(limits, kind="kernel", job_dir=job_dir, work_dir=work_dir, connection_file=connection_file,
                           env=env)  # fmt: skip

    def spawn_exercise(self, job_dir: str, source: str, exercise: str, start: str, seed: int, limits: Limits):
        """A job that judges-to-be the function ``exercise`` of the file ``source`` (in job_dir)."""
        return self._spawn(limits, kind="exercise", job_dir=job_dir, work_dir=os.path.join(job_dir, "work"),
                           exercise=exercise, source=source, start=start, seed=int(seed),
                           record=True)  # fmt: skip

    def spawn_score(self, job_dir: str, plan: dict, limits: Limits) -> JobProcess:
        """A job that scores a notebook's checks outside its kernel (``server.run_score``); its
        records come back with ``read_records(job)``."""
        path = os.path.join(job_dir, "plan.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(plan, f)
        return self._spawn(limits, kind="score", job_dir=job_dir, work_dir=os.path.join(job_dir, "work"), plan=path,
                           record=True)  # fmt: skip

    def close(self) -> None:
        if self.alive():
            self.process.stdin.close()  # the server stops its jobs and exits
            try:
                self.process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


class JobProcess:
    """A ``subprocess.Popen`` look-alike for one job, so jupyter_client can manage a kernel."""

    stdin = stdout = stderr = None  # jupyter_client closes these if present

    def __init__(
        self, server: Server, job: int, limits: Limits = DEFAULTS, uid_lock: int | None = None, record=None,
        record_path: str | None = None,
    ):  # fmt: skip
        self.server = server
        self.record = record  # the grader's own descriptor on the job's record file, if it has one
        self.record_path = record_path
        self.pid = job
        self.limits = limits
        self.uid_lock = uid_lock  # released once the job has ended
        self.returncode: int | None = None
        self.reason = ""
        self.stop_reason = ""  # why the grader itself stopped the job, if it did

    def close_record(self) -> None:
        """Forget the job's record file (read or not)."""
        if self.record is not None:
            self.record.close()
            self.record = None
        if self.record_path:
            with contextlib.suppress(OSError):
                os.remove(self.record_path)
            self.record_path = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                answer = self.server.request("poll", job=self.pid)
            except SandboxError:
                self.returncode, self.reason = -signal.SIGKILL, "the grading sandbox stopped"
                return self.returncode
            if answer["returncode"] is not None:
                self.returncode, self.reason = answer["returncode"], answer["reason"]
                self.server.request("forget", job=self.pid)
        if self.returncode is not None and self.uid_lock is not None:
            os.close(self.uid_lock)  # the job and everything in its namespace are gone: its user id is free
            self.uid_lock = None
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = 0.005
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired("job", timeout)
            time.sleep(pause)
            pause = min(pause * 1.5, 0.05)
        return self.returncode

    def send_signal(self, signum: int, reason: str = "") -> None:
        if self.returncode is None:
            try:
                self.server.request("signal", job=self.pid, signal=int(signum), reason=reason)
            except SandboxError:
                pass

    def kill(self, reason: str = "") -> None:
        if reason and not self.stop_reason:
            self.stop_reason = reason
        self.send_signal(signal.SIGKILL, reason)

    def terminate(self) -> None:
        self.send_signal(signal.SIGKILL)

    def describe_end(self) -> str:
        """Why the job is gone, in words for the student's feedback."""
        code = self.poll()
        if self.stop_reason:
            return self.stop_reason
        if self.reason:
            return self.reason
        if code is None:
            return "the kernel is still running"
        if code == OUTPUT_LIMIT_EXIT:
            return f"the notebook printed more than {self.limits.output_mb:g} MiB of output"
        if code == SETUP_FAILED:
            return "the sandbox could not be set up for this notebook"
        if code < 0:
            return f"the kernel stopped: {describe_signal(-code)}"
        return f"the kernel exited with code {code} (for example through os._exit or sys.exit in a thread)"


_servers: dict[str, Server] = {}
_servers_lock = threading.Lock()


def shared_server(profile: str = "kernel") -> Server:
    """The process-wide server of a profile, started on first use and stopped at exit."""
    with _servers_lock:
        server = _servers.get(profile)
        if server is None or not server.alive():
            server = _servers[profile] = Server(profile)
            atexit.register(server.close)
        return server


_templates: dict[str, Server | None] = {}
_template_locks: dict[str, threading.Lock] = {}


def template_server(cells: list[str], wait: bool = True) -> Server | None:
    """A kernel server that has already run these shared cells (started on first use), or None
    if they cannot run there, or (with ``wait=False``) if it is still starting."""
    key = hashlib.sha256(json.dumps(cells).encode()).hexdigest()
    with _servers_lock:
        lock = _template_locks.setdefault(key, threading.Lock())
    if not lock.acquire(blocking=wait):
        return None  # another thread is starting it
    try:
        server = _templates.get(key, False)
        if server is False or (server is not None and not server.alive()):
            if not wait:
                threading.Thread(target=template_server, args=(cells,), daemon=True).start()
                return None
            try:
                server = Server("kernel", template=cells)
                atexit.register(server.close)
            except SandboxError:
                server = None
            _templates[key] = server
        return server
    finally:
        lock.release()


def run_exercise(source: str, exercise: str, start: str, seed: int, limits: Limits = DEFAULTS) -> Outcome:
    """Run the exercise's scenarios on the function the Python file ``source`` defines, in a job
    of the warm ``exercises`` server, within ``limits.check_seconds``; the record comes back."""
    began = time.monotonic()
    server = shared_server("exercises")
    job_dir = server.new_job_dir()
    job = None
    try:
        shutil.copyfile(source, os.path.join(job_dir, "work", "submission.py"))
        job = server.spawn_exercise(job_dir, "submission.py", exercise, start, seed, limits)
        try:
            code = job.wait(timeout=limits.check_seconds)
        except subprocess.TimeoutExpired:
            job.kill("timeout")
            job.wait()
            return Outcome(None, "timeout", f"{limits.check_seconds:g} s", time.monotonic() - began)
        data = read_records(job).get("record")
        if not data:
            return Outcome(None, "died", _death(job, code, job_dir), time.monotonic() - began)
        return Outcome(data, seconds=time.monotonic() - began)
    finally:
        if job is not None:
            job.close_record()
        shutil.rmtree(job_dir, ignore_errors=True)


def read_records(job: JobProcess) -> dict[str, bytes]:
    """The records a job wrote (``server.write_frame``): name -> bytes, read from the descriptor the
    grader opened before the job started (then closed).  A frame cut short (the job was stopped
    while writing it) or garbled ends the reading; what came before it counts."""
    found: dict[str, bytes] = {}
    if job.record is None:
        return found
    try:
        _read_frames(job.record, found)
    finally:
        job.close_record()
    return found


def _read_frames(f, found: dict[str, bytes]) -> None:
    f.seek(0)
    while True:
        header = f.readline(4096)
        if not header.endswith(b"\n"):
            return
        try:
            meta = json.loads(header)
            name, size = str(meta["name"]), int(meta["size"])
        except (ValueError, KeyError, TypeError):
            return
        if not 0 < size <= MAX_RECORD_BYTES:
            return
        data = f.read(size)
        if len(data) != size:
            return
        found[name] = data


def _death(job: JobProcess, code: int, job_dir: str) -> str:
    if job.reason:
        return job.reason
    if code < 0:
        return describe_signal(-code)
    try:
        with open(os.path.join(job_dir, "output.log"), errors="replace") as f:
            tail = [line for line in f.read()[-2000:].splitlines() if line.strip()][-1:]
    except OSError:
        tail = []
    last = f" ({tail[0][:200]})" if tail else ""
    return f"exit code {code}{last}"
