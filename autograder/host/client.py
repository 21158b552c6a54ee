"""The grader's side of the sandbox: start the warm server (``gradebox.box.server``) in bubblewrap, ask it for
jobs, wait for them, and read what they sent back.

``shared_server(profile)`` is the process-wide server of a profile (started on first use, stopped
when the process exits); ``template_server(cells)`` a kernel server that has run a lesson's shared
cells.  ``run_exercise`` is what ``diagnose`` uses: one Python file, one exercise, one record per
scenario.

Every job gets three anonymous files made here before it starts (``protocol``): its plan, its log
and its records.  The grader keeps its own descriptors on them and reads them back from those: it
never opens, by name, a path a job could have written.
"""

from __future__ import annotations

import atexit
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
from dataclasses import dataclass

import psutil

from gradebox import protocol
from gradebox.jobs.profiles import PROFILES
from gradebox.limits import DEFAULTS, Limits

from ..settings import SETTINGS
from .bwrap import SandboxError, bwrap_command, describe_signal, package_roots
from .folders import UntrustedFolder, check_parent, trusted_folder
from .limit_settings import FIRST_UID, UIDS

# Where the user-id locks live: one lock file per user id, shared by every grader on the machine, so
# every root grader must find the same folder.  /run is root's alone (0755), so no account can make
# the folder there first (in /run/lock, which every account can write, a student could).
# Without /run (some containers) the folder is made in the temporary folder and checked like any
# trusted folder (folders.py): a student's folder there is refused, never used.
UID_LOCKS = "/run/autograder-uids"

__all__ = ["JobProcess", "SandboxError", "ServerProcess", "run_exercise", "shared_server", "template_server"]


def scratch_parent() -> str:
    """Where servers' private folders live.  Not under /tmp, because every job gets a fresh
    private /tmp of its own, which would hide them.  AUTOGRADER_SCRATCH overrides it.  Each server's
    folder is made new there (``mkdtemp``: never one found); the parent must be one no other account
    can move it out of (``folders.check_parent``: /var/tmp, sticky, is)."""
    chosen = SETTINGS.value("scratch")
    parent = chosen or ("/var/tmp" if os.access("/var/tmp", os.W_OK) else tempfile.gettempdir())
    try:
        check_parent(parent)
    except UntrustedFolder as error:
        raise SandboxError(f"the sandbox's scratch space: {error}") from None
    return parent


def _remove_stale_scratch(parent: str) -> None:
    """Remove the folders of servers whose grader was killed before it could clean up: only
    folders of our own account (another account's ``autograder-x`` with a dead pid in it is not
    ours to remove, nor to read)."""
    for folder in glob.glob(os.path.join(parent, "autograder-*")):
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            if os.fstat(fd).st_uid != os.geteuid():
                continue
            with open(os.open("owner.pid", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)) as f:
                owner = int(f.read(20))
        except (OSError, ValueError):
            continue  # not ours to judge (no record)
        finally:
            os.close(fd)
        if not psutil.pid_exists(owner):
            shutil.rmtree(folder, ignore_errors=True)


class UidPool:
    """User ids for jobs, unique across every server and every grading run on the machine: a job's
    id is held by an exclusive lock on the file of that id for as long as the job runs (the lock
    goes with the process that held it, however it ends)."""

    def __init__(self, folder: str | None = None, first: int = FIRST_UID, count: int = UIDS) -> None:
        self.first, self.count = first, count
        self.folder = uid_lock_folder(folder)
        self.next = random.randrange(count)  # servers start at different ids: fewer locks to try

    def take(self) -> tuple[int, int]:
        """(uid, the open lock file to close when the job is over)."""
        for step in range(self.count):
            uid = self.first + (self.next + step) % self.count
            fd = os.open(os.path.join(self.folder, str(uid)), os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.next = (self.next + step + 1) % self.count
            return uid, fd
        raise SandboxError(f"all {self.count} user ids for sandboxed jobs are in use on this machine")


def uid_lock_folder(folder: str | None = None) -> str:
    """The folder of the user-id locks (``UID_LOCKS``, or ``folder``), made or found and checked:
    a folder another account made first would let it hold every id's lock (refusing every job) or
    remove the locks (two jobs with one id), so it is refused with the way out, never used."""
    if folder is None:
        folder = UID_LOCKS if os.path.isdir(os.path.dirname(UID_LOCKS)) else os.path.join(
            tempfile.gettempdir(), "autograder-uids")  # fmt: skip
    try:
        return trusted_folder(folder)
    except UntrustedFolder as error:
        raise SandboxError(f"the sandboxed jobs' user-id locks: {error}") from None


def _bootstrap(profile: str, fd: int, scratch: str, options: dict) -> list[str]:
    """The server's command: Python in isolated mode, importing the job-side package from wherever this
    process imported it (so that any clone or course folder grades with its own code).  Its one entry
    point, ``gradebox.serve``, hands the server the profiles; ``profile`` is a name in that table."""
    code = f"import sys; sys.path[:0] = {package_roots()!r}; from gradebox.serve import main; main(sys.argv[1:])"
    return [sys.executable, "-I", "-c", code, "--fd", str(fd), "--profile", profile, "--scratch", scratch,
            "--options", json.dumps(options)]  # fmt: skip


class ServerProcess:
    """The grader's side of a running warm server (the server itself is ``server.Server``): its
    process and socket, shared by every job this process starts."""

    def __init__(self, profile: str = "kernel", template: list[str] | None = None) -> None:
        if profile not in PROFILES:  # the server would refuse it too, after a start for nothing
            raise ValueError(f"no server profile {profile!r}; there are {', '.join(sorted(PROFILES))}")
        self.profile = profile
        self.template = template  # the shared cells this server ran, if any
        _remove_stale_scratch(scratch_parent())
        self.scratch = tempfile.mkdtemp(prefix="autograder-", dir=scratch_parent())
        os.chmod(self.scratch, 0o711)
        with open(os.path.join(self.scratch, "owner.pid"), "w") as f:
            f.write(str(os.getpid()))
        os.makedirs(os.path.join(self.scratch, "tmp"))
        options = {}
        if template is not None:
            spec = os.path.join(self.scratch, "template.json")
            with open(spec, "w", encoding="utf-8") as f:
                json.dump({"cells": template, "work_dir": os.path.join(self.scratch, "template-work")}, f)
            options["template"] = spec
        self.sock, theirs = protocol.channel()
        self.log = open(os.path.join(self.scratch, "server.log"), "wb")  # noqa: SIM115 - the server's own
        try:
            command = bwrap_command(self.scratch, _bootstrap(profile, theirs.fileno(), self.scratch, options))
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                            pass_fds=(theirs.fileno(),))  # fmt: skip
        except (SandboxError, OSError) as error:
            theirs.close()
            self._remove()
            raise SandboxError(str(error)) from None
        theirs.close()
        self.lock = threading.Lock()
        self.ids = itertools.count(1)
        self.uids = UidPool() if os.geteuid() == 0 else None
        ready, _ = protocol.receive(self.sock)
        if ready is None or not ready.get("ready"):
            self.process.wait()
            self.log.flush()
            with open(self.log.name, errors="replace") as log:
                tail = log.read()[-2000:].strip()
            why = ready.get("error") if ready else f"exit {self.process.returncode}: {tail}"
            self._remove()
            raise SandboxError(f"the grading sandbox did not start ({why})")
        self.startup_seconds = ready.get("seconds")

    def _remove(self) -> None:
        self.log.close()
        self.sock.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def alive(self) -> bool:
        return self.process.poll() is None

    def request(self, op: str, fds: list[int] = (), **fields) -> dict:
        with self.lock:
            if not self.alive():
                raise SandboxError("the grading sandbox has stopped")
            try:
                protocol.send(self.sock, {"id": next(self.ids), "op": op, **fields}, fds)
                answer, _ = protocol.receive(self.sock)
            except OSError as error:
                raise SandboxError(f"the grading sandbox stopped while answering ({error})") from None
        if answer is None:
            raise SandboxError("the grading sandbox stopped while answering")
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
        job then runs as our own user, in its own namespaces, which hold only its own folder)."""
        return self.uids.take() if self.uids is not None else (os.getuid(), None)

    def spawn(self, kind: str, job_dir: str, limits: Limits, plan: dict | None = None, record: bool = False,
              env: dict | None = None, **fields) -> JobProcess:  # fmt: skip
        """A job of ``kind`` in ``job_dir``; ``plan`` is handed to it as a file, ``record`` asks for a
        file of records.  The files are made here; the job gets descriptors on them."""
        uid, lock = self._uid()
        files = {"log": protocol.anonymous_file("log")}
        if plan is not None:
            files["plan"] = protocol.anonymous_file("plan", json.dumps(plan).encode())
        if record:
            files["record"] = protocol.anonymous_file("record")
        names = [n for n in ("plan", "log", "record") if n in files]
        try:
            answer = self.request("spawn", fds=[files[n] for n in names], files=names, kind=kind, uid=uid,
                                  job_dir=job_dir, limits=limits.as_dict(), env=env or self._environment(),
                                  **fields)  # fmt: skip
        except BaseException:
            if lock is not None:
                os.close(lock)
            for fd in files.values():
                os.close(fd)
            raise
        if "plan" in files:
            os.close(files.pop("plan"))
        return JobProcess(self, answer["job"], limits, lock, files)

    def spawn_kernel(self, job_dir: str, connection_file: str, limits: Limits, env: dict[str, str]) -> JobProcess:
        """A notebook's kernel.  What its environment holds beyond the basics (``_environment``) is the
        caller's to say: grading passes nbgrader's variables (``grading/kernel.py``)."""
        base = self._environment()
        if set(env) & set(base):  # PATH picks the interpreter every job runs: only the sandbox says it
            raise ValueError(f"a kernel's environment may add variables, not replace the sandbox's own: "
                             f"{sorted(set(env) & set(base))}")  # fmt: skip
        return self.spawn("kernel", job_dir, limits, env={**base, **env}, connection_file=connection_file)

    def spawn_exercise(self, job_dir: str, source: str, exercise: str, start: str, seed: int, limits: Limits):
        """A job that runs the function ``exercise`` of the file ``source`` (in job_dir/work)."""
        plan = {"exercise": exercise, "source": source, "start": start, "seed": int(seed)}
        return self.spawn("exercise", job_dir, limits, plan=plan, record=True)

    def spawn_score(self, job_dir: str, plan: dict, limits: Limits) -> JobProcess:
        """A job that scores a notebook's checks outside its kernel (``jobs.score``)."""
        return self.spawn("score", job_dir, limits, plan=plan, record=True)

    def close(self) -> None:
        if self.alive():
            self.sock.close()  # the server stops its jobs and exits
            try:
                self.process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._remove()


class JobProcess:
    """A ``subprocess.Popen`` look-alike for one job, so jupyter_client can manage a kernel."""

    stdin = stdout = stderr = None  # jupyter_client closes these if present

    def __init__(self, server: ServerProcess, job: int, limits: Limits = DEFAULTS, uid_lock: int | None = None,
                 files: dict[str, int] | None = None):  # fmt: skip
        self.server = server
        self.files = files or {}  # the grader's own descriptors on the job's log and records
        self.pid = job
        self.limits = limits
        self.uid_lock = uid_lock  # released once the job has ended
        self.returncode: int | None = None
        self.reason = ""
        self.stop_reason = ""  # why the grader itself stopped the job, if it did

    def frames(self) -> list[tuple[str, bytes]]:
        """The records the job sent, read from the grader's own descriptor (see ``protocol.read_frames``)."""
        fd = self.files.get("record")
        return protocol.read_frames(fd) if fd is not None else []

    def log_tail(self, size: int = 2000) -> str:
        fd = self.files.get("log")
        return protocol.tail(fd, size) if fd is not None else ""

    def close_files(self) -> None:
        for fd in self.files.values():
            os.close(fd)
        self.files = {}

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
        if code == protocol.OUTPUT_LIMIT_EXIT:
            return f"the notebook printed more than {self.limits.output_mb:g} MiB of output"
        if code == protocol.SETUP_FAILED:
            return "the sandbox could not be set up for this notebook"
        if code < 0:
            return f"the kernel stopped: {describe_signal(-code)}"
        return f"the kernel exited with code {code} (for example through os._exit or sys.exit in a thread)"


_servers: dict[str, ServerProcess] = {}
_servers_lock = threading.Lock()


def shared_server(profile: str = "kernel") -> ServerProcess:
    """The process-wide server of a profile, started on first use and stopped at exit."""
    with _servers_lock:
        server = _servers.get(profile)
        if server is None or not server.alive():
            server = _servers[profile] = ServerProcess(profile)
            atexit.register(server.close)
        return server


_templates: dict[str, ServerProcess | None] = {}
_template_locks: dict[str, threading.Lock] = {}


def template_server(cells: list[str], wait: bool = True) -> ServerProcess | None:
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
                server = ServerProcess("kernel", template=cells)
                atexit.register(server.close)
            except SandboxError:
                server = None
            _templates[key] = server
        return server
    finally:
        lock.release()


@dataclass
class ExerciseRun:
    """What came back from one file's run: a record per scenario, in order, and why the job stopped
    early, as the grader saw it (None when it ended by itself)."""

    records: list[bytes]
    ended: dict | None
    seconds: float


def run_exercise(source: str, exercise: str, start: str, seed: int, limits: Limits = DEFAULTS) -> ExerciseRun:
    """Run the exercise's scenarios on the function the Python file ``source`` defines, in a job
    of the warm ``exercise`` server, within ``limits.check_seconds``."""
    began = time.monotonic()
    server = shared_server("exercise")
    job_dir = server.new_job_dir()
    job = None
    try:
        shutil.copyfile(source, os.path.join(job_dir, "work", "submission.py"), follow_symlinks=True)
        job = server.spawn_exercise(job_dir, "submission.py", exercise, start, seed, limits)
        ended = None
        try:
            code = job.wait(timeout=limits.check_seconds)
        except subprocess.TimeoutExpired:
            job.kill("timeout")
            job.wait()
            ended = {"failure": "timeout", "detail": f"{limits.check_seconds:g} s"}
        else:
            if code != 0:
                ended = {"failure": "died", "detail": _death(job, code)}
        return ExerciseRun(in_order(job.frames(), ""), ended, time.monotonic() - began)
    finally:
        if job is not None:
            job.close_files()
        shutil.rmtree(job_dir, ignore_errors=True)


def in_order(frames: list[tuple[str, bytes]], prefix: str) -> list[bytes]:
    """The records named ``<prefix>0``, ``<prefix>1``, ... in that order, up to the first gap: a job
    writes them so, and a frame out of place (a student's own writes) ends the list."""
    found = {}
    for name, data in frames:
        if name.startswith(prefix) and name not in found:
            found[name] = data
    records = []
    while f"{prefix}{len(records)}" in found:
        records.append(found[f"{prefix}{len(records)}"])
    return records


def _death(job: JobProcess, code: int) -> str:
    if job.reason:
        return job.reason
    if code < 0:
        return describe_signal(-code)
    lines = [line for line in job.log_tail().splitlines() if line.strip()][-1:]
    last = f" ({lines[0][:200]})" if lines else ""
    return f"exit code {code}{last}"
