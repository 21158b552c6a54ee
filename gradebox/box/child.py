"""A child process for the checks in a notebook's test cells, on Linux, macOS and Windows.

The student's function lives in the notebook's kernel, so a check must run it in a child of the
kernel: a crash, a hang, ``os._exit()`` or a change to torch then ends with the child, and the
kernel (and the judge, which stays in the kernel's own process) carries on.  The time limit and the
memory limit are ``Limits.check_seconds`` and ``Limits.memory_mb``, as everywhere else.

* On Linux the child is forked: it starts in milliseconds with torch already imported.
* On macOS and Windows (or wherever ``os.fork`` is missing), forking a process that has loaded
  torch is unsafe or impossible, so the work is serialised with cloudpickle (the student's
  function by value, with what it refers to) and run by a fresh ``python -m
  gradebox.box.child``, which pays one torch import (a few seconds).

This is not the grading sandbox: it runs the student's own code in the student's own kernel.
Grades come from the sandbox (``policy.py``), outside the notebook.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from ..limits import DEFAULTS, Limits


@dataclass
class ChildResult:
    """What came back from a child: its bytes, or why there are none (``failure``: "timeout" or "died")."""

    record: bytes | None
    failure: str | None = None
    detail: str = ""
    seconds: float = 0.0


def forking_is_safe() -> bool:
    return hasattr(os, "fork") and sys.platform.startswith("linux")


def run_in_child(work, limits: Limits = DEFAULTS) -> ChildResult:
    """Run ``work() -> bytes`` in a child process under ``limits``; the bytes come back."""
    if forking_is_safe():
        return _forked(work, limits)
    return _spawned(work, limits)


# ---- Linux: fork -----------------------------------------------------------------------------


def _forked(work, limits: Limits) -> ChildResult:
    import resource

    began = time.monotonic()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into the kernel's code
        try:
            os.close(read_end)
            os.setsid()
            current = resource.getrlimit(resource.RLIMIT_AS)[0]
            cap = _address_space() + limits.memory_bytes
            if current == resource.RLIM_INFINITY or current > cap:
                resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
            data = work()
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
        finally:
            os._exit(0)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = began + limits.check_seconds
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                _kill_group(pid)
                return ChildResult(None, "timeout", f"{limits.check_seconds:g} s", time.monotonic() - began)
            ready, _, _ = select.select([pipe], [], [], min(left, 0.5))
            if ready:
                chunk = pipe.read(65536)
                if not chunk:
                    break
                chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    data = b"".join(chunks)
    if not data:
        return ChildResult(None, "died", _death(os.waitstatus_to_exitcode(status)), time.monotonic() - began)
    return ChildResult(data, seconds=time.monotonic() - began)


def _kill_group(pid: int) -> None:
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


def _death(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}"
    return f"exit code {code}"


# ---- macOS, Windows: a fresh interpreter --------------------------------------------------------


def _spawned(work, limits: Limits) -> ChildResult:
    import cloudpickle

    began = time.monotonic()
    payload = cloudpickle.dumps((work, limits.memory_bytes))
    child = subprocess.Popen(
        [sys.executable, "-m", "gradebox.box.child"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([*_roots(), os.environ.get("PYTHONPATH", "")])},
    )
    try:
        data, _ = child.communicate(payload, timeout=limits.check_seconds)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return ChildResult(None, "timeout", f"{limits.check_seconds:g} s", time.monotonic() - began)
    if not data:
        return ChildResult(None, "died", _death(child.returncode), time.monotonic() - began)
    return ChildResult(data, seconds=time.monotonic() - began)


def _roots() -> list[str]:
    """The folder the grader's package lies in (this file is <root>/gradebox/box/child.py)."""
    return [os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))]


def _serve_one() -> None:
    """In the spawned child: read the pickled work from stdin, run it, write its bytes."""
    import cloudpickle

    work, memory = cloudpickle.loads(sys.stdin.buffer.read())
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ImportError, ValueError, OSError):
        pass  # Windows has no resource module; macOS ignores RLIMIT_AS
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    data = work()
    out.write(data)
    out.flush()
    os._exit(0)


if __name__ == "__main__":
    _serve_one()
