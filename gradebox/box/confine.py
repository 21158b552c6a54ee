"""Inside a job (Linux): what every job goes through before it runs student code.

The keeper (a child of the warm server) has unshared a mount, network, IPC, UTS and PID namespace
and forked the job, PID 1 of the new PID namespace.  ``confine`` then, as that PID 1:

* mounts its own /proc;
* hides the server's whole scratch folder behind an empty, read-only file system, and puts back
  only its own job folder: the other jobs' folders (their answer cells, their kernels' keys) and
  the server's own files do not exist for it, whoever runs the grader;
* gives its working folder, home, temporary folder and /dev/shm one private in-memory file system
  of ``Limits.disk_mb``;
* puts the descriptors the grader opened for it at their fixed numbers (``protocol``) and closes
  every other;
* sets its resource limits, its priority, a scheduling group of its own;
* takes its own user id when the grader is root, and drops every capability (effective, permitted,
  inheritable, ambient and bounding) with ``no_new_privs``.

Any failure raises: the keeper reports it, and no student code runs.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal

from ..limits import CPU_GRACE_SECONDS, INODES, NICE, OPEN_FILES, Limits
from ..protocol import LOG_FD, PLAN_FD, RECORD_FD

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
NAMESPACES = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWUTS
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18
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


def mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    result = _libc().mount(source.encode(), target.encode(), fstype.encode() if fstype else None, flags,
                           data.encode() if data else None)  # fmt: skip
    _check(result, f"mount {target}")


def unshare() -> None:
    """New mount, network, IPC, UTS and PID namespaces (the keeper's, for the job it forks next)."""
    _check(_libc().unshare(NAMESPACES), "unshare")


def hide_others(scratch: str, job_dir: str) -> None:
    """Only ``job_dir`` remains of ``scratch`` in this mount namespace."""
    keep = os.open(job_dir, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,nr_inodes=64,mode=0755")
        inner = os.path.join(scratch, os.path.relpath(job_dir, scratch))
        os.makedirs(inner)
        mount(f"/proc/self/fd/{keep}", inner, None, MS_BIND | MS_REC)  # its private file system comes along
        mount("none", scratch, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    finally:
        os.close(keep)


def confine(request: dict, limits: Limits, fds: dict[str, int], scratch: str, template_dir: str | None) -> str:
    """Everything above; returns the job's private working folder (its current folder too)."""
    job_dir, uid = request["job_dir"], int(request["uid"])
    mount("none", "/", None, MS_REC | MS_PRIVATE)
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV)
    private = os.path.join(job_dir, "private")
    os.makedirs(private, exist_ok=True)
    mount("tmpfs", private, "tmpfs", MS_NOSUID | MS_NODEV, f"size={limits.disk_mb}m,nr_inodes={INODES},mode=0700")
    work = os.path.join(private, "work")
    shutil.copytree(os.path.join(job_dir, "work"), work)  # what the grader handed in (the submission's files)
    if template_dir:
        shutil.copytree(template_dir, work, dirs_exist_ok=True)  # what the lesson's shared cells wrote
    hide_others(scratch, job_dir)
    for name in ("ipython", "matplotlib", "tmp", "shm"):
        os.makedirs(os.path.join(private, name))
    if os.path.isdir("/dev/shm"):
        mount(os.path.join(private, "shm"), "/dev/shm", None, MS_BIND)  # inside the same quota
    if uid != os.getuid():
        for folder, _, files in os.walk(job_dir):
            for name in [folder, *(os.path.join(folder, f) for f in files)]:
                os.chown(name, uid, uid)
        os.chmod(job_dir, 0o700)
    _descriptors(fds)
    set_rlimits(limits, cpu_seconds=limits.check_seconds if request["kind"] == "exercise" else None)
    os.setpriority(os.PRIO_PROCESS, 0, NICE)  # the grader and its server stay responsive
    own_scheduling_group()
    drop_privileges(uid)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a full file fails the write, not the job
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.chdir(work)
    os.environ.clear()
    os.environ.update(request["env"])
    os.environ.update(
        HOME=work,
        TMPDIR=os.path.join(private, "tmp"),  # private; the sandbox's /tmp is read-only
        IPYTHONDIR=os.path.join(private, "ipython"),
        MPLCONFIGDIR=os.path.join(private, "matplotlib"),
        MPLBACKEND="module://matplotlib_inline.backend_inline",
    )
    import random

    random.seed()  # a cold interpreter would have drawn a fresh seed too
    return work


def _descriptors(fds: dict[str, int]) -> None:
    """The grader's descriptors at their numbers (/dev/null where it sent none); nothing else open."""
    import fcntl

    null = os.open(os.devnull, os.O_RDWR)
    # Moved out of the way first, so that putting one in place never overwrites another.
    moved = {name: fcntl.fcntl(fds.get(name, null), fcntl.F_DUPFD, 100) for name in ("plan", "log", "record")}
    os.dup2(moved["plan"], PLAN_FD)
    os.dup2(moved["log"], LOG_FD)
    os.dup2(moved["log"], 2)
    os.dup2(moved["record"], RECORD_FD)
    os.closerange(RECORD_FD + 1, os.sysconf("SC_OPEN_MAX"))


def set_rlimits(limits: Limits, cpu_seconds: float | None = None) -> None:
    """The per-process limits (the job's total memory is the watchdog's)."""
    import resource  # Linux and macOS only; this module runs inside the sandbox

    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size_bytes, limits.file_size_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))
    if cpu_seconds is not None:
        cpu = int(cpu_seconds) + CPU_GRACE_SECONDS
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))


def own_scheduling_group() -> None:
    """A session of its own, so that where Linux groups the scheduling by session (autogroup, on
    by default in most distributions) the job and every process it starts share one group's
    CPU: a fork bomb's hundred spinning processes then take one job's share, not a hundred, and
    the kernels of the other students graded at the same time are not starved into timeouts.
    The group gets the jobs' lower priority too.  Without autogroup both calls change nothing."""
    try:
        os.setsid()
    except OSError:
        return
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(NICE))
    except OSError:
        pass


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
