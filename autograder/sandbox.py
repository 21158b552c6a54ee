"""Running untrusted student code: a separate process with time and memory limits, no network,
and nothing outside its scratch folder writable.

``run_source`` runs a student's file under bubblewrap (``bwrap``).  Where bubblewrap is missing
or unusable, the same process runs with the limits only, and ``isolation()`` says so plainly.
``run_forked`` serves notebook test cells: the student's function lives in the kernel, so a
child forked from the kernel runs it, under the same time and memory limits.
"""

from __future__ import annotations

import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import lru_cache

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_RECORD_BYTES = 64 * 2**20


@dataclass(frozen=True)
class Limits:
    """Limits for one student's run.  Defaults are defined here and nowhere else."""

    timeout: float = 30.0  # seconds of wall-clock time for all scenarios of one exercise
    memory: int = 2 * 2**30  # bytes of address space
    file_size: int = 16 * 2**20  # bytes any one file written may reach


@dataclass
class Outcome:
    """What came back from a run: a record, or why there is none."""

    record: bytes | None
    failure: str | None = None  # "timeout" or "died"
    detail: str = ""
    seconds: float = 0.0


def _bwrap() -> str | None:
    # AUTOGRADER_BWRAP names another bwrap binary (tests use it to simulate a machine without one).
    return shutil.which(os.environ.get("AUTOGRADER_BWRAP", "bwrap"))


@lru_cache(maxsize=1)
def isolation() -> tuple[bool, str]:
    """(True, "") when bubblewrap works here, else (False, why not)."""
    bwrap = _bwrap()
    if bwrap is None:
        return False, "bubblewrap (bwrap) is not installed"
    probe = subprocess.run(
        [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net", "--unshare-pid", "true"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        return False, f"bubblewrap cannot run here ({probe.stderr.strip()[:200]})"
    return True, ""


def weaker_isolation_notice() -> str | None:
    ok, why = isolation()
    if ok:
        return None
    return (
        f"autograder: {why}; student code runs in a separate process with time and memory "
        "limits only, so it could reach the network and write files. Install bubblewrap "
        "(apt-get install bubblewrap) for the full sandbox."
    )


def _limit(memory: int, timeout: float, file_size: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(timeout) + 5
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))


def _needed_paths() -> list[str]:
    """Folders the child must see even if they live under /tmp, which the sandbox replaces by
    an empty tmpfs: the Python environment and the grader's own source."""
    paths = {sys.prefix, sys.base_prefix, PACKAGE_ROOT, os.path.dirname(os.path.realpath(sys.executable))}
    return sorted(p for p in paths if os.path.isdir(p))


def _bwrap_command(scratch: str, command: list[str]) -> list[str]:
    keep = [arg for path in _needed_paths() for arg in ("--ro-bind", path, path)]
    return [
        _bwrap(),
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        *keep,
        "--bind", scratch, scratch,
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
        "--die-with-parent", "--new-session",
        "--cap-drop", "ALL",
        "--chdir", scratch,
        *command,
    ]  # fmt: skip


def _read_all(fd: int, sink: list[bytes]) -> None:
    size = 0
    with os.fdopen(fd, "rb") as pipe:
        while chunk := pipe.read(65536):
            size += len(chunk)
            if size <= MAX_RECORD_BYTES:
                sink.append(chunk)


def run_source(exercise: str, source: str, start: str, seed: int, limits: Limits = Limits()) -> Outcome:
    """Run ``python -m autograder.runner`` on a copy of ``source`` in a fresh scratch folder."""
    began = time.monotonic()
    scratch = tempfile.mkdtemp(prefix="autograder-")
    try:
        shutil.copyfile(source, os.path.join(scratch, "submission.py"))
        read_end, write_end = os.pipe()
        command = [
            sys.executable, "-P", "-s", "-m", "autograder.runner",
            exercise, os.path.join(scratch, "submission.py"), start, str(seed), str(write_end),
        ]  # fmt: skip
        sandboxed, _ = isolation()
        if sandboxed:
            command = _bwrap_command(scratch, command)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": scratch,
            "PYTHONPATH": PACKAGE_ROOT,
            "PYTHONDONTWRITEBYTECODE": "1",
            "MPLCONFIGDIR": scratch,
            "OMP_NUM_THREADS": "1",
            "LANG": "C.UTF-8",
        }
        proc = subprocess.Popen(
            command,
            cwd=scratch,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=(write_end,),
            start_new_session=True,
            preexec_fn=lambda: _limit(limits.memory, limits.timeout, limits.file_size),
        )
        os.close(write_end)
        chunks: list[bytes] = []
        reader = threading.Thread(target=_read_all, args=(read_end, chunks), daemon=True)
        reader.start()
        errors: list[bytes] = []
        err_reader = threading.Thread(target=_read_all, args=(os.dup(proc.stderr.fileno()), errors), daemon=True)
        proc.stderr.close()
        err_reader.start()
        try:
            proc.wait(timeout=limits.timeout)
        except subprocess.TimeoutExpired:
            _kill(proc)
            return Outcome(None, "timeout", f"{limits.timeout:g} s", time.monotonic() - began)
        reader.join(5)
        err_reader.join(1)
        data = b"".join(chunks)
        if not data:
            tail = b"".join(errors).decode("utf-8", "replace").strip().splitlines()[-1:]
            return Outcome(None, "died", _death(proc.returncode, tail), time.monotonic() - began)
        return Outcome(data, seconds=time.monotonic() - began)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _death(returncode: int, tail: list[str]) -> str:
    if returncode < 0:
        name = signal.Signals(-returncode).name
        why = {
            "SIGXCPU": "it used up its CPU time",
            "SIGKILL": "it was killed (memory?)",
            "SIGSEGV": "it crashed (segmentation fault)",
            "SIGXFSZ": "it wrote too large a file",
        }
        return f"the process died by {name}: {why.get(name, 'killed by a signal')}"
    last = f" ({tail[0][:200]})" if tail else ""
    return f"the process ended with exit code {returncode} before reporting{last}"


def run_forked(work, limits: Limits = Limits()) -> Outcome:
    """Run ``work() -> bytes`` in a child forked from this process (a notebook kernel), with the
    limits; the child's stdout and stderr are captured so nothing reaches the kernel's streams."""
    if not hasattr(os, "fork"):
        return Outcome(work())
    began = time.monotonic()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into the kernel's code
        try:
            os.close(read_end)
            os.setsid()
            current = resource.getrlimit(resource.RLIMIT_AS)[0]
            used = _address_space()
            cap = used + limits.memory
            if current == resource.RLIM_INFINITY or current > cap:
                resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
            data = work()
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
        finally:
            os._exit(0)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = began + limits.timeout
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                _kill_pid(pid)
                return Outcome(None, "timeout", f"{limits.timeout:g} s", time.monotonic() - began)
            ready, _, _ = select.select([pipe], [], [], min(left, 0.5))
            if ready:
                chunk = pipe.read(65536)
                if not chunk:
                    break
                chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    data = b"".join(chunks)
    if not data:
        code = os.waitstatus_to_exitcode(status)
        return Outcome(None, "died", _death(code, []), time.monotonic() - began)
    return Outcome(data, seconds=time.monotonic() - began)


def _kill_pid(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


def _address_space() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0
