"""Start the warm kernel server (``zygote.py``) inside bubblewrap, and talk to it.

The sandbox is built from an allow-list, not by hiding things: it sees the system's programs
and libraries read-only, the Python environment read-only, the grader's own packages
read-only, and one scratch folder that holds a private folder per notebook.  Everything else
(the course folder with gradebook.db, notebooks/ and release/, other students' work, home
folders) simply does not exist inside.  There is no network.
"""

from __future__ import annotations

import atexit
import glob
import hashlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict, dataclass

import autograder
import gradlessons

from .zygote import OUTPUT_LIMIT_EXIT

FIRST_UID = 61000  # jobs run as FIRST_UID, FIRST_UID + 1, ... (one user id per running notebook)
UIDS = 1000


@dataclass(frozen=True)
class KernelLimits:
    """What one notebook may use.  The defaults are defined here and nowhere else."""

    memory_bytes: int = 2 * 2**30  # all of the notebook's processes together
    max_processes: int = 128  # processes and threads (a kernel and a check child use ~25)
    file_size_bytes: int = 64 * 2**20  # any one file the notebook writes
    output_bytes: int = 8 * 2**20  # text the kernel prints (stdout and stderr together)


def scratch_parent() -> str:
    """Where kernels' private folders live.  Not under /tmp, because every kernel gets a fresh
    private /tmp of its own, which would hide them.  AUTOGRADER_SCRATCH overrides it."""
    chosen = os.environ.get("AUTOGRADER_SCRATCH")
    if chosen:
        return chosen
    return "/var/tmp" if os.access("/var/tmp", os.W_OK) else tempfile.gettempdir()


class SandboxError(RuntimeError):
    """The sandbox could not be started; nothing was graded."""


def _bwrap() -> str:
    found = shutil.which(os.environ.get("AUTOGRADER_BWRAP", "bwrap"))
    if found is None:
        raise SandboxError(
            "bubblewrap (bwrap) is not installed, so student notebooks cannot be run safely. "
            "Install it (apt-get install bubblewrap) and run the command again."
        )
    return found


def _package_dir(module) -> str:
    return os.path.dirname(os.path.abspath(module.__file__))


def readable_paths() -> list[str]:
    """The Python environment and the grader's packages: all a kernel needs to read."""
    paths = {
        sys.prefix,
        sys.base_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
        _package_dir(autograder),
        _package_dir(gradlessons),
    }
    return sorted(p for p in paths if os.path.isdir(p))


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64"):
        path = "/" + name
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args + ["--ro-bind", "/etc", "/etc", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]


def _parents(path: str) -> list[str]:
    parts = os.path.normpath(path).split(os.sep)[1:-1]
    return [os.sep + os.path.join(*parts[: i + 1]) for i in range(len(parts))]


def bwrap_command(scratch: str, command: list[str], as_root: bool) -> list[str]:
    args = [_bwrap(), *_system_binds()]
    made: set[str] = {"/usr", "/etc", "/dev", "/proc", "/tmp", "/bin", "/lib", "/lib64", "/sbin"}
    for path in [*readable_paths(), scratch]:
        for parent in _parents(path):
            if parent not in made and not any(parent.startswith(m + "/") for m in ("/usr", "/etc")):
                args += ["--perms", "0755", "--dir", parent]  # bwrap would make it 0700
                made.add(parent)
    for path in readable_paths():
        args += ["--ro-bind", path, path]
    args += ["--bind", scratch, scratch]
    # /tmp is read-only: a place shared by all kernels would let them pass files around. (A
    # private tmpfs per kernel would hide an environment or scratch folder that lives under it.)
    args += ["--remount-ro", "/tmp"]
    if not as_root:
        # Without root, a user namespace provides the capabilities the keeper needs to unshare.
        args += ["--unshare-user"]
    args += [
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
        # Not --die-with-parent: it ties the sandbox to the *thread* that started it. The server
        # ends instead when its stdin closes, which happens however the grader ends.
        "--new-session", "--cap-add", "ALL",
        "--clearenv", "--setenv", "PATH", f"{os.path.dirname(sys.executable)}:/usr/bin:/bin",
        "--setenv", "LANG", "C.UTF-8", "--setenv", "HOME", scratch,
        "--setenv", "XDG_CACHE_HOME", os.path.join(scratch, "cache"),
        "--setenv", "MPLCONFIGDIR", os.path.join(scratch, "matplotlib"),
        "--setenv", "TMPDIR", os.path.join(scratch, "tmp"), "--chdir", scratch,
        *command,
    ]  # fmt: skip
    return args


def _remove_stale_scratch(parent: str) -> None:
    """Remove the folders of servers whose grader was killed before it could clean up."""
    for folder in glob.glob(os.path.join(parent, "autograder-*")):
        try:
            with open(os.path.join(folder, "owner.pid")) as f:
                owner = int(f.read())
            os.kill(owner, 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except (OSError, ValueError):
            continue  # not ours to judge (no record, or another user's)


class Zygote:
    """A running warm kernel server, shared by every kernel this process starts."""

    def __init__(self, template: list[str] | None = None) -> None:
        self.as_root = os.geteuid() == 0
        _remove_stale_scratch(scratch_parent())
        self.scratch = tempfile.mkdtemp(prefix="autograder-", dir=scratch_parent())
        os.chmod(self.scratch, 0o711)
        with open(os.path.join(self.scratch, "owner.pid"), "w") as f:
            f.write(str(os.getpid()))
        os.makedirs(os.path.join(self.scratch, "tmp"))
        command = [sys.executable, "-I", "-m", "autograder.grading.zygote"]
        if template is not None:
            spec = os.path.join(self.scratch, "template.json")
            with open(spec, "w", encoding="utf-8") as f:
                json.dump({"cells": template, "work_dir": os.path.join(self.scratch, "template-work")}, f)
            command += ["--template", spec]
        self.log = open(os.path.join(self.scratch, "zygote.log"), "wb")  # noqa: SIM115
        self.process = subprocess.Popen(
            bwrap_command(self.scratch, command, self.as_root),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        self.lock = threading.Lock()
        self.ids = itertools.count(1)
        self.uids = itertools.cycle(range(FIRST_UID, FIRST_UID + UIDS))
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
        return tempfile.mkdtemp(prefix="job-", dir=self.scratch)

    def spawn(self, job_dir: str, work_dir: str, connection_file: str, limits: KernelLimits) -> int:
        env = {key: value for key, value in os.environ.items() if key in ("LANG", "LC_ALL", "TZ")}
        env["PATH"] = f"{os.path.dirname(sys.executable)}:/usr/bin:/bin"
        env["NBGRADER_EXECUTION"] = "autograde"  # what nbgrader tells a kernel it is autograding
        answer = self.request(
            "spawn",
            job_dir=job_dir,
            work_dir=work_dir,
            connection_file=connection_file,
            uid=next(self.uids) if self.as_root else os.getuid(),
            limits=asdict(limits),
            env=env,
        )
        return answer["job"]

    def close(self) -> None:
        if self.alive():
            self.process.stdin.close()  # the server stops its kernels and exits
            try:
                self.process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


_shared: Zygote | None = None
_shared_lock = threading.Lock()


def shared_zygote() -> Zygote:
    """The process-wide server, started on first use and stopped when the process exits."""
    global _shared
    with _shared_lock:
        if _shared is None or not _shared.alive():
            _shared = Zygote()
            atexit.register(_shared.close)
        return _shared


_templates: dict[str, Zygote | None] = {}
_template_locks: dict[str, threading.Lock] = {}


def template_zygote(cells: list[str], wait: bool = True) -> Zygote | None:
    """A server that has already run these shared cells (started on first use), or None if
    they cannot run there, or (with ``wait=False``) if it is still starting."""
    key = hashlib.sha256(json.dumps(cells).encode()).hexdigest()
    with _shared_lock:
        lock = _template_locks.setdefault(key, threading.Lock())
    if not lock.acquire(blocking=wait):
        return None  # another thread is starting it
    try:
        zygote = _templates.get(key, False)
        if zygote is False or (zygote is not None and not zygote.alive()):
            if not wait:
                threading.Thread(target=template_zygote, args=(cells,), daemon=True).start()
                return None
            try:
                zygote = Zygote(template=cells)
                atexit.register(zygote.close)
            except SandboxError:
                zygote = None
            _templates[key] = zygote
        return zygote
    finally:
        lock.release()


class JobProcess:
    """A ``subprocess.Popen`` look-alike for one kernel, so jupyter_client can manage it."""

    stdin = stdout = stderr = None  # jupyter_client closes these if present

    def __init__(self, zygote: Zygote, job: int):
        self.zygote = zygote
        self.pid = job
        self.returncode: int | None = None
        self.reason = ""
        self.stop_reason = ""  # why the grader itself stopped the kernel, if it did
        self.output_limit = KernelLimits.output_bytes

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                answer = self.zygote.request("poll", job=self.pid)
            except SandboxError:
                self.returncode, self.reason = -signal.SIGKILL, "the grading sandbox stopped"
                return self.returncode
            if answer["returncode"] is not None:
                self.returncode, self.reason = answer["returncode"], answer["reason"]
                self.zygote.request("forget", job=self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired("kernel", timeout)
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, signum: int, reason: str = "") -> None:
        if self.returncode is None:
            try:
                self.zygote.request("signal", job=self.pid, signal=int(signum), reason=reason)
            except SandboxError:
                pass

    def kill(self, reason: str = "") -> None:
        if reason and not self.stop_reason:
            self.stop_reason = reason
        self.send_signal(signal.SIGKILL, reason)

    def terminate(self) -> None:
        self.send_signal(signal.SIGKILL)

    def describe_end(self) -> str:
        """Why the kernel is gone, in words for the student's feedback."""
        code = self.poll()
        if self.stop_reason:
            return self.stop_reason
        if self.reason:
            return self.reason
        if code is None:
            return "the kernel is still running"
        if code == OUTPUT_LIMIT_EXIT:
            return f"the notebook printed more than {self.output_limit / 2**20:g} MiB of output"
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
            what = {"SIGSEGV": "a segmentation fault", "SIGKILL": "being killed", "SIGABRT": "an abort",
                    "SIGBUS": "a bus error", "SIGFPE": "a floating-point fault"}.get(name, name)  # fmt: skip
            return f"the kernel crashed ({what}, {name})"
        return f"the kernel exited with code {code} (for example through os._exit or sys.exit in a thread)"
