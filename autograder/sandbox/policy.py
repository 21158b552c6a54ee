"""The one sandbox policy: what student code sees and may do, wherever it runs for grading.

Outside (the grader): ``bwrap_command`` starts the warm server (``server.py``) in bubblewrap with
a root built from an allow-list, not by hiding things: the system's programs and libraries, the
Python environment and the grader's own packages (from wherever the grader imported them),
read-only, plus one scratch folder.  The course (gradebook.db, notebooks/, release/, other
students' work), home folders and everything else do not exist inside.  No network.

Inside (each job the server forks, ``lock_down``): its own mount, network, IPC, UTS and PID
namespaces, its own /proc, /dev/shm and temporary folder, its own user id when the grader runs as
root, every capability dropped (effective, permitted, inheritable, ambient and bounding),
``no_new_privs``, and the resource limits of ``Limits``.

Without bubblewrap nothing runs: ``bubblewrap()`` raises ``SandboxError`` with one message,
which ``diagnose``, ``grade`` and ``nbgrader autograde`` all show.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
from functools import lru_cache

from .limits import Limits

NO_BUBBLEWRAP = (
    "bubblewrap (bwrap) is not installed, so student code cannot be run safely here. Install it "
    "(on Debian or Ubuntu: apt-get install bubblewrap) and run the command again."
)


class SandboxError(RuntimeError):
    """The sandbox cannot run here, or could not start; no student code ran."""


@lru_cache(maxsize=4)
def _probe(binary: str) -> str:
    """'' when this bubblewrap can build a sandbox here, else why not."""
    args = [binary, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net", "--unshare-pid"]
    if os.geteuid() != 0:
        args.append("--unshare-user")
    done = subprocess.run([*args, "true"], capture_output=True, text=True)
    return "" if done.returncode == 0 else done.stderr.strip()[:300]


def bubblewrap() -> str:
    """The bwrap binary, checked to work here; ``SandboxError`` if there is none that does.
    AUTOGRADER_BWRAP names another binary (the tests use it to simulate a machine without one)."""
    found = shutil.which(os.environ.get("AUTOGRADER_BWRAP", "bwrap"))
    if found is None:
        raise SandboxError(NO_BUBBLEWRAP)
    why = _probe(found)
    if why:
        raise SandboxError(f"bubblewrap cannot build a sandbox on this machine ({why}); student code was not run.")
    return found


def package_roots() -> list[str]:
    """The folders the grader's own packages were imported from (a clone, a wheel, an editable
    install): the server imports them from the same place, whichever course folder is graded."""
    import autograder
    import gradlessons

    return sorted({os.path.dirname(os.path.dirname(os.path.abspath(m.__file__))) for m in (autograder, gradlessons)})


def readable_paths() -> list[str]:
    """All a job needs to read besides the system: the Python environment and the grader."""
    import autograder
    import gradlessons

    paths = {
        sys.prefix,
        sys.base_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
        *(os.path.dirname(os.path.abspath(m.__file__)) for m in (autograder, gradlessons)),
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


def bwrap_command(scratch: str, command: list[str]) -> list[str]:
    """``command`` run in a new sandbox whose only writable place is ``scratch``."""
    args = [bubblewrap(), *_system_binds()]
    made: set[str] = {"/usr", "/etc", "/dev", "/proc", "/tmp", "/bin", "/lib", "/lib64", "/sbin"}
    for path in [*readable_paths(), scratch]:
        for parent in _parents(path):
            if parent not in made and not any(parent.startswith(m + "/") for m in ("/usr", "/etc")):
                args += ["--perms", "0755", "--dir", parent]  # bwrap would make it 0700
                made.add(parent)
    for path in readable_paths():
        args += ["--ro-bind", path, path]
    args += ["--bind", scratch, scratch]
    # /tmp is read-only: a place shared by all jobs would let them pass files around. (A private
    # tmpfs per job would hide an environment or scratch folder that lives under /tmp.)
    args += ["--remount-ro", "/tmp"]
    if os.geteuid() != 0:
        # Without root, a user namespace gives the server the capabilities it needs to build each
        # job's namespaces; every job drops them all (lock_down).
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


# ---- inside a job (Linux): the lock-down every job goes through before it runs student code ----

PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_CAP_AMBIENT = 1, 38, 24, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
LINUX_CAPABILITY_VERSION_3 = 0x20080522
LAST_CAP = 63  # every capability number the kernel may know; unknown ones are skipped


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def set_rlimits(limits: Limits, cpu_seconds: float | None = None) -> None:
    """The per-process limits (the job's total memory is watched by the server)."""
    import resource  # Linux and macOS only; this module runs inside the sandbox

    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size_bytes, limits.file_size_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
    if cpu_seconds is not None:
        cpu = int(cpu_seconds) + 5
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_privileges(uid: int) -> None:
    """Become ``uid`` (when it is not ours), then drop every capability and set no_new_privs.

    Changing from uid 0 clears the effective and permitted sets by itself, but not in a user
    namespace where we keep our uid, so the sets are cleared explicitly in every case."""
    libc = _libc()
    for cap in range(LAST_CAP + 1):  # the bounding set first: dropping it needs CAP_SETPCAP
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    if uid != os.getuid():
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header, data = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    _check(libc.capset(ctypes.byref(header), data), "capset")
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    # A change of credentials clears the parent-death signal: set it again, afterwards.
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def die_with_parent() -> None:
    _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


# ---- how a job ended, in words ----------------------------------------------------------------

SIGNAL_WORDS = {
    "SIGSEGV": "it crashed (a segmentation fault)",
    "SIGKILL": "it was killed",
    "SIGABRT": "it aborted",
    "SIGBUS": "it crashed (a bus error)",
    "SIGFPE": "it crashed (a floating-point fault)",
    "SIGXCPU": "it used up its CPU time",
    "SIGXFSZ": "it wrote too large a file",
}


def describe_signal(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"it was stopped by signal {number}"
    return f"{SIGNAL_WORDS.get(name, 'it was stopped by a signal')} ({name})"
