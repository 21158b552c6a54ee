"""The warm process that grading kernels are forked from.  It runs inside bubblewrap.

Starting a kernel and importing torch takes about two seconds; forking a process that has
already done both takes milliseconds.  This server imports everything once, then serves
requests from the grader (one JSON object per line on stdin, one reply per line on stdout):

``{"op": "spawn", "job_dir": ..., "work_dir": ..., "connection_file": ..., "uid": ..., "limits": {...}}``
    fork a kernel for one notebook; reply ``{"job": <id>}``
``{"op": "poll", "job": <id>}``
    reply ``{"returncode": None | int, "reason": str}``
``{"op": "signal", "job": <id>, "signal": <n>}``
    deliver a signal (SIGINT interrupts the kernel; SIGKILL ends the whole job)

Each job is two processes.  The *keeper* is forked from this server; it unshares a mount,
network, IPC and PID namespace and forks the *kernel*, which is PID 1 of the new PID namespace,
so when the kernel ends every process the student started ends with it.  Before it runs any
student code the kernel mounts its own /proc and /dev/shm (its temporary folder is in its own
private folder; /tmp is read-only), takes the job's own user id
(all capabilities are dropped with it), sets its resource limits and closes every file
descriptor it inherited.  This server watches each job's total memory and kills a job that
goes over its limit, because a per-process address-space limit alone cannot stop many
processes that each stay under it.

Started with ``--template SPEC``, the server first runs the cells of the lesson that every
submission shares (the handed-out cells before the first answer, trusted instructor code) in a
plain IPython shell, and each kernel it forks starts with their results in its namespace.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import select
import signal
import sys
import time

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 2, 4, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38
PAGE = os.sysconf("SC_PAGE_SIZE")
WATCH_INTERVAL = 0.1  # seconds between memory checks
OUTPUT_LIMIT_EXIT = 86  # a kernel's exit status when it printed more than its output limit
PSS_PROCESSES = 16  # above this many processes in one notebook, resident size is the measure
NICE = 5  # kernels yield the CPU to the grader, so a busy notebook cannot stall the others' bookkeeping

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(
        _libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None, flags,
                    data.encode() if data else None),
        f"mount {target}",
    )  # fmt: skip


def preload() -> None:
    """Import what every lesson imports, so that forked kernels start warm."""
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"  # what ipykernel sets
    import ipykernel.ipkernel  # noqa: F401
    import ipykernel.kernelapp  # noqa: F401
    import IPython  # noqa: F401
    import ipywidgets  # noqa: F401
    import matplotlib  # noqa: F401  (not matplotlib_inline: importing it inside the kernel is
    import matplotlib.font_manager  # noqa: F401  (builds the font list, ~1 s, once)
    import matplotlib.pyplot  # noqa: F401  (picks its backend lazily, at the first figure)

    #                                  what switches on IPython's inline figures)
    import numpy  # noqa: F401
    import torch
    import torch._dynamo  # noqa: F401  (the first optimizer would import it: 1.6 s)

    import autograder.checks  # noqa: F401
    import autograder.tamper  # noqa: F401
    import gradlessons  # noqa: F401

    torch.nn.Parameter(torch.zeros(1))
    # Kernels run side by side, one per core: a second intra-op thread per kernel would only
    # compete with the next kernel (and OpenMP threads spin while they wait).
    torch.set_num_threads(int(os.environ.get("AUTOGRADER_TORCH_THREADS", "1")))


def _resident(pid: str) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _proportional(pid: str) -> int:
    """Resident memory with each shared page divided among the processes sharing it."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return _resident(pid)


TEMPLATE: dict = {}  # {"shell": the shell that ran the shared cells, "work_dir": its folder}


def run_template(spec_path: str) -> None:
    """Run the shared cells once, here; every kernel forked afterwards inherits their results."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    os.makedirs(spec["work_dir"], exist_ok=True)
    os.chdir(spec["work_dir"])

    class TemplateShell(InteractiveShell):
        def enable_gui(self, gui=None):
            pass  # `%matplotlib inline` asks for no event loop; a kernel's shell does the same

    config = Config()
    config.HistoryManager.enabled = False  # no history thread: this process forks
    shell = TemplateShell.instance(config=config)
    quiet = open(os.devnull, "w")  # noqa: SIM115 - the outputs come from the first full run
    real = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = quiet
    try:
        for number, source in enumerate(spec["cells"], start=1):
            result = shell.run_cell(source, store_history=False)
            if not result.success:
                error = result.error_in_exec or result.error_before_exec
                raise RuntimeError(f"shared cell {number} failed: {type(error).__name__}: {error}")
    finally:
        sys.stdout, sys.stderr = real
    TEMPLATE.update(shell=shell, work_dir=spec["work_dir"], cells=len(spec["cells"]))


class Job:
    def __init__(self, keeper: int, kernel_pid: int, limits: dict):
        self.keeper = keeper
        self.kernel_pid = kernel_pid
        self.limits = limits
        self.pidns = _pidns(kernel_pid)
        self.returncode: int | None = None
        self.reason = ""

    def kill(self) -> None:
        """SIGKILL the keeper and the kernel (PID 1 of the job: its whole namespace goes with it)."""
        for pid in (self.keeper, self.kernel_pid):
            try:
                if pid > 0:
                    os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _pidns(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _set_limits(limits: dict) -> None:
    memory = int(limits["memory_bytes"])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_NPROC, (int(limits["max_processes"]),) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(limits["file_size_bytes"]),) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))


def _become_kernel(request: dict) -> None:
    """In the new namespaces, as PID 1: lock down, then run ipykernel.  Never returns."""
    job_dir, work_dir, uid = request["job_dir"], request["work_dir"], int(request["uid"])
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV)
    if os.path.isdir("/dev/shm"):
        _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m")
    if TEMPLATE:
        import shutil

        shutil.copytree(TEMPLATE["work_dir"], work_dir, dirs_exist_ok=True)  # files the shared cells wrote
    if uid != os.getuid():
        for folder, _, files in os.walk(job_dir):
            for name in [folder, *(os.path.join(folder, f) for f in files)]:
                os.chown(name, uid, uid)
        os.chmod(job_dir, 0o700)
    for name in ("ipython", "matplotlib", "tmp"):
        os.makedirs(os.path.join(job_dir, name), exist_ok=True)
        if uid != os.getuid():
            os.chown(os.path.join(job_dir, name), uid, uid)
    log = os.open(os.path.join(job_dir, "kernel.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    if uid != os.getuid():
        os.fchown(log, uid, uid)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.closerange(3, 65536)
    _set_limits(request["limits"])
    os.setpriority(os.PRIO_PROCESS, 0, NICE)  # the grader and its server stay responsive
    if uid != os.getuid():
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # leaving uid 0 drops every capability
    # After the change of user: a change of credentials clears the parent-death signal.
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() == 1:
        os._exit(
            70
        )  # the keeper is already gone    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a full file fails the write, not the kernel
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.chdir(work_dir)
    os.environ.clear()
    os.environ.update(request["env"])
    os.environ.update(
        HOME=work_dir,
        TMPDIR=os.path.join(job_dir, "tmp"),  # private; the sandbox's /tmp is read-only
        IPYTHONDIR=os.path.join(job_dir, "ipython"),
        MPLCONFIGDIR=os.path.join(job_dir, "matplotlib"),
        MPLBACKEND="module://matplotlib_inline.backend_inline",
    )
    import random

    random.seed()  # a cold interpreter would have drawn a fresh seed too

    from ipykernel.kernelapp import IPKernelApp

    if TEMPLATE:
        from IPython.core.interactiveshell import InteractiveShell

        namespace = TEMPLATE["shell"].user_ns
        type(TEMPLATE["shell"]).clear_instance()  # the kernel's shell takes over the shared namespace
        InteractiveShell.clear_instance()
        app = IPKernelApp.instance(user_ns=namespace)
    else:
        app = IPKernelApp.instance()
    # No history database: nothing reads it back, and it costs a write per cell.
    app.initialize(["-f", request["connection_file"], "--HistoryManager.enabled=False"])
    # A torch.py or sitecustomize.py handed in beside the notebook must not shadow real modules:
    # the working folder goes to the end of the search path instead of the front.
    sys.path[:] = [p for p in sys.path if p not in ("", work_dir)] + [work_dir]
    _limit_output(int(request["limits"]["output_bytes"]))
    if TEMPLATE:
        app.shell.execution_count = TEMPLATE["cells"] + 1  # numbering goes on after the shared cells
    if TEMPLATE and "matplotlib_inline.backend_inline" in sys.modules:
        # The shared cells switched inline figures on for the template's shell; now for this one.
        from matplotlib_inline.backend_inline import configure_inline_support

        configure_inline_support(app.shell, "module://matplotlib_inline.backend_inline")
    app.start()
    os._exit(0)


def _limit_output(limit: int) -> None:
    """End the kernel once it has printed more than ``limit`` bytes.  The grader also counts
    what arrives, but a print loop fills the kernel's buffer (and its memory) faster than the
    buffer is sent, so the kernel must stop itself, where the bytes are written."""
    from ipykernel.iostream import OutStream

    write = OutStream.write
    written = [0]

    def limited(self, string):
        written[0] += len(string) if isinstance(string, str) else 0
        if written[0] > limit:
            os._exit(OUTPUT_LIMIT_EXIT)
        return write(self, string)

    OutStream.write = limited


def _keep(request: dict, report: int) -> None:
    """The keeper: new namespaces, fork the kernel, pass on signals, exit with its status."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # dies with the server (and so the kernel)
    try:
        _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWUTS), "unshare")
        kernel = os.fork()
    except BaseException as error:  # noqa: BLE001 - the grader must hear about any failure
        os.write(report, json.dumps({"error": f"{type(error).__name__}: {error}"}).encode())
        os._exit(70)
    if kernel == 0:
        try:
            os.close(report)
            _become_kernel(request)
        except BaseException as error:  # noqa: BLE001
            try:
                os.write(2, f"sandbox setup failed: {type(error).__name__}: {error}\n".encode())
            finally:
                os._exit(70)
    os.write(report, json.dumps({"kernel": kernel}).encode())
    os.close(report)
    signal.signal(signal.SIGINT, lambda *_: os.kill(kernel, signal.SIGINT))
    signal.signal(signal.SIGTERM, lambda *_: os.kill(kernel, signal.SIGKILL))
    while True:
        try:
            _, status = os.waitpid(kernel, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) & 0x7F)


class Server:
    def __init__(self, out) -> None:
        self.out = out
        self.jobs: dict[int, Job] = {}
        self.watched = 0.0

    def reply(self, message: dict) -> None:
        self.out.write(json.dumps(message) + "\n")
        self.out.flush()

    def spawn(self, request: dict) -> dict:
        read, write = os.pipe()
        keeper = os.fork()
        if keeper == 0:
            os.close(read)
            try:
                _keep(request, write)
            finally:
                os._exit(70)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            answer = json.loads(pipe.read() or b'{"error": "the keeper ended early"}')
        if "error" in answer:
            os.waitpid(keeper, 0)
            return {"error": answer["error"]}
        self.jobs[keeper] = Job(keeper, answer["kernel"], request["limits"])
        return {"job": keeper}

    def poll(self, request: dict) -> dict:
        job = self.jobs.get(int(request["job"]))
        if job is None:
            return {"error": "no such job"}
        return {"returncode": job.returncode, "reason": job.reason}

    def signal(self, request: dict) -> dict:
        job = self.jobs.get(int(request["job"]))
        if job is None or job.returncode is not None:
            return {"ok": False}
        sig = int(request["signal"])
        if sig == signal.SIGKILL and not job.reason:
            job.reason = request.get("reason", "")
        try:
            os.kill(job.keeper, sig)
            if sig == signal.SIGKILL and job.kernel_pid > 0:
                os.kill(job.kernel_pid, sig)  # PID 1 of the job: its whole namespace goes with it
        except ProcessLookupError:
            return {"ok": False}
        return {"ok": True}

    def forget(self, request: dict) -> dict:
        job = self.jobs.get(int(request["job"]))
        if job is not None and job.returncode is not None:
            del self.jobs[job.keeper]
        return {"ok": True}

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            job = self.jobs.get(pid)
            if job is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            job.returncode = -(code - 128) if code > 128 else code
            job.kernel_pid = -1

    def watch_memory(self) -> None:
        """Kill a job whose processes together hold more memory than its limit.

        Resident sizes are cheap to read but count the pages a forked child shares with its
        parent once per process; only a job over its limit by that measure is measured again
        by proportional size (PSS), which counts shared pages once."""
        now = time.monotonic()
        if now - self.watched < WATCH_INTERVAL:
            return
        self.watched = now
        running = {job.pidns: job for job in self.jobs.values() if job.returncode is None and job.pidns}
        if not running:
            return
        members: dict[str, list[str]] = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                ns = _pidns(int(name))
                if ns in running:
                    members.setdefault(ns, []).append(name)
        for ns, pids in members.items():
            job = running[ns]
            limit = int(job.limits["memory_bytes"])
            if job.reason or sum(_resident(p) for p in pids) <= limit:
                continue
            # Measuring PSS walks each process's page tables: worth it for a few processes (a
            # kernel and its check children), not for hundreds, whose resident sizes then count.
            if len(pids) > PSS_PROCESSES or sum(_proportional(p) for p in pids) > limit:
                job.reason = (
                    f"memory: the notebook's {len(pids)} processes used more than {limit // 2**20} MiB together"
                )
                job.kill()

    def stop_all(self) -> None:
        for job in self.jobs.values():
            if job.returncode is None:
                job.kill()

    def serve(self, requests) -> None:
        buffer = b""
        handlers = {"spawn": self.spawn, "poll": self.poll, "signal": self.signal, "forget": self.forget,
                    "ping": lambda _: {"ok": True}}  # fmt: skip
        while True:
            ready, _, _ = select.select([requests], [], [], WATCH_INTERVAL)
            self.reap()
            if not ready:
                self.watch_memory()
                continue
            chunk = os.read(requests.fileno(), 65536)
            if not chunk:
                self.stop_all()  # the grader went away: so do we, and the kernels with us
                return
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                request = json.loads(line)
                try:
                    answer = handlers[request["op"]](request)
                except Exception as error:  # noqa: BLE001 - one bad request must not stop grading
                    answer = {"error": f"{type(error).__name__}: {error}"}
                self.reap()
                self.reply({"id": request.get("id"), **answer})
            self.watch_memory()


def main() -> None:
    # The protocol owns the real stdout; anything else printed goes to stderr.
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    started = time.monotonic()
    preload()
    if "--template" in sys.argv:
        try:
            run_template(sys.argv[sys.argv.index("--template") + 1])
        except Exception as error:  # noqa: BLE001 - the grader falls back to plain kernels
            out.write(json.dumps({"id": 0, "ready": False, "error": f"{type(error).__name__}: {error}"}) + "\n")
            out.flush()
            return
    server = Server(out)
    server.reply({"id": 0, "ready": True, "seconds": round(time.monotonic() - started, 2)})
    server.serve(sys.stdin.buffer)
    os._exit(0)  # nothing to tidy: tearing down torch and friends would only take time


if __name__ == "__main__":
    main()
