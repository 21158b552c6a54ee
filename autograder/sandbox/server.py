"""The warm server that every sandboxed job is forked from.  It runs inside bubblewrap.

Starting Python and importing torch takes seconds; forking a process that has already done it
takes milliseconds.  This server imports once what its jobs need (``--profile kernel``: ipykernel,
matplotlib, torch and the grader, for notebooks; ``--profile exercises``: torch and the
exercises, for ``diagnose``), then serves requests from the grader (one JSON object per line on
stdin, one reply per line on stdout):

``{"op": "spawn", "kind": "kernel", "job_dir", "work_dir", "connection_file", "uid", "limits", "env"}``
    fork an ipykernel for one notebook; reply ``{"job": <id>}``
``{"op": "spawn", "kind": "exercise", "job_dir", "work_dir", "uid", "limits", "env", "exercise",
"source", "start", "seed", "record"}``
    fork a child that runs the exercise's scenarios on the function the Python file ``source``
    (a name in ``work_dir``) defines and writes the record (``autograder.runner``) to the file
    ``record`` (``write_frame``); reply ``{"job": <id>}``
``{"op": "spawn", "kind": "score", "job_dir", "work_dir", "uid", "limits", "env", "plan", "record"}``
    fork a child that scores a notebook's checks outside its kernel (``run_score``); reply ``{"job": <id>}``
``{"op": "poll", "job": <id>}``
    reply ``{"returncode": None | int, "reason": str}``
``{"op": "signal", "job": <id>, "signal": <n>}``
    deliver a signal (SIGINT interrupts a kernel; SIGKILL ends the whole job)

Each job is two processes.  The *keeper* is forked from this server; it unshares a mount,
network, IPC, UTS and PID namespace and forks the *job* itself, PID 1 of the new PID namespace,
so that when it ends every process the student started ends with it.  Before any student code
runs, the job mounts its own /proc and /dev/shm, takes its own user id and drops every
capability (``policy.drop_privileges``), sets its resource limits and closes every file
descriptor it inherited.  This server watches each job's total memory and kills a job over its
limit: a per-process address-space limit alone cannot stop many processes that each stay under it.

Started with ``--template SPEC``, the server first runs the cells of the lesson that every
submission shares (the handed-out cells before the first answer, trusted instructor code) in a
plain IPython shell, and each kernel it forks starts with their results in its namespace.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import select
import signal
import sys
import time

import psutil

from .limits import Limits
from .policy import die_with_parent, drop_privileges, set_rlimits

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 4096, 16384, 1 << 18
WATCH_INTERVAL = 0.1  # seconds between memory checks
OUTPUT_LIMIT_EXIT = 86  # a kernel's exit status when it printed more than its output limit
PSS_INTERVAL = 0.5  # seconds between proportional measures of one job (they walk page tables)
DISK_INTERVAL = 0.5  # seconds between measures of a job's folder
NICE = 5  # jobs yield the CPU to the grader, so a busy notebook cannot stall the others' bookkeeping
SETUP_FAILED = 70  # a job's exit status when it could not lock itself down

_libc = ctypes.CDLL(None, use_errno=True)


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    result = _libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None, flags,
                         data.encode() if data else None)  # fmt: skip
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mount {target}: {os.strerror(errno)}")


def preload(profile: str) -> None:
    """Import what every job of this profile imports, so that forked jobs start warm."""
    if profile == "kernel":
        os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"  # what ipykernel sets
        import ipykernel.ipkernel  # noqa: F401
        import ipykernel.kernelapp  # noqa: F401
        import IPython  # noqa: F401
        import ipywidgets  # noqa: F401
        import matplotlib.font_manager  # noqa: F401  (builds the font list, ~1 s, once)
        import matplotlib.pyplot  # noqa: F401  (picks its backend lazily, at the first figure)

        import autograder.checks  # noqa: F401
        import gradlessons  # noqa: F401
    import torch
    import torch._dynamo  # noqa: F401  (the first optimizer would import it: 1.6 s)

    import autograder.exercises  # noqa: F401
    import autograder.runner  # noqa: F401
    import autograder.tamper  # noqa: F401

    torch.nn.Parameter(torch.zeros(1))
    # Jobs run side by side, one per core: a second intra-op thread per job would only compete
    # with the next job (and OpenMP threads spin while they wait).
    torch.set_num_threads(int(os.environ.get("AUTOGRADER_TORCH_THREADS", "1")))


TEMPLATE: dict = {}  # {"shell": the shell that ran the shared cells, "work_dir": its folder}


def run_template(spec_path: str) -> None:
    """Run the shared cells once, here; every kernel forked afterwards inherits their results."""
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    os.makedirs(spec["work_dir"], exist_ok=True)
    os.chdir(spec["work_dir"])
    quiet = open(os.devnull, "w")  # noqa: SIM115 - the outputs come from the first full run
    real = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = quiet
    try:
        shell = run_cells(spec["cells"])
    finally:
        sys.stdout, sys.stderr = real
    TEMPLATE.update(shell=shell, work_dir=spec["work_dir"], cells=len(spec["cells"]))


def run_cells(cells: list[str]):
    """A plain IPython shell (no history, no GUI) that has run these trusted cells."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    class TemplateShell(InteractiveShell):
        def enable_gui(self, gui=None):
            pass  # `%matplotlib inline` asks for no event loop; a kernel's shell does the same

    config = Config()
    config.HistoryManager.enabled = False  # no history thread: this process forks
    shell = TemplateShell.instance(config=config)
    for number, source in enumerate(cells, start=1):
        result = shell.run_cell(source, store_history=False)
        if not result.success:
            error = result.error_in_exec or result.error_before_exec
            raise RuntimeError(f"shared cell {number} failed: {type(error).__name__}: {error}")
    return shell


# ---- one job ------------------------------------------------------------------------------


RECORD_FD = 3  # exercise and score jobs write their records here: a file the server opened for them
INODES = 20000  # files and folders a job's private file system may hold


def lock_down(request: dict, limits: Limits) -> None:
    """In the new namespaces, as PID 1, before any student code: private /proc; a private file
    system of ``limits.disk_mb`` for the job's working folder, home, temporary folder and
    /dev/shm; the job's folder owned by its user; logs and the record opened here; limits; no
    inherited descriptors; no privileges.  Sets ``request["work_dir"]`` to the private copy."""
    import shutil

    job_dir, uid = request["job_dir"], int(request["uid"])
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV)
    private = os.path.join(job_dir, "private")
    os.makedirs(private, exist_ok=True)
    _mount("tmpfs", private, "tmpfs", MS_NOSUID | MS_NODEV, f"size={limits.disk_mb}m,nr_inodes={INODES},mode=0700")
    work = os.path.join(private, "work")
    shutil.copytree(request["work_dir"], work)  # what the grader handed in (the submission's files)
    if TEMPLATE and request["kind"] == "kernel":
        shutil.copytree(TEMPLATE["work_dir"], work, dirs_exist_ok=True)  # what the shared cells wrote
    for name in ("ipython", "matplotlib", "tmp", "shm"):
        os.makedirs(os.path.join(private, name))
    if os.path.isdir("/dev/shm"):
        _mount(os.path.join(private, "shm"), "/dev/shm", None, MS_BIND)  # inside the same quota
    if uid != os.getuid():
        for folder, _, files in os.walk(job_dir):
            for name in [folder, *(os.path.join(folder, f) for f in files)]:
                os.chown(name, uid, uid)
        os.chmod(job_dir, 0o700)
    log = os.open(os.path.join(job_dir, "output.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    if request.get("record"):
        record = os.open(request["record"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        os.dup2(record, RECORD_FD)
        os.closerange(RECORD_FD + 1, 65536)
    else:
        os.closerange(3, 65536)
    cpu = limits.check_seconds if request["kind"] == "exercise" else None  # a kernel or a scoring runs long
    set_rlimits(limits, cpu_seconds=cpu)
    os.setpriority(os.PRIO_PROCESS, 0, NICE)  # the grader and its server stay responsive
    _own_scheduling_group()
    drop_privileges(uid)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a full file fails the write, not the job
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    request["work_dir"] = work
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


def write_frame(name: str, data: bytes) -> None:
    """One record on the record file: a header line (its name and size), then its bytes."""
    os.write(RECORD_FD, json.dumps({"name": name, "size": len(data)}).encode() + b"\n")
    view = memoryview(data)
    while view:
        view = view[os.write(RECORD_FD, view) :]


def run_kernel(request: dict, limits: Limits) -> None:
    """Run ipykernel for one notebook.  Never returns."""
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
    work_dir = request["work_dir"]
    sys.path[:] = [p for p in sys.path if p not in ("", work_dir)] + [work_dir]
    _limit_output(limits.output_bytes)
    if TEMPLATE:
        app.shell.execution_count = TEMPLATE["cells"] + 1  # numbering goes on after the shared cells
    if TEMPLATE and "matplotlib_inline.backend_inline" in sys.modules:
        # The shared cells switched inline figures on for the template's shell; now for this one.
        from matplotlib_inline.backend_inline import configure_inline_support

        configure_inline_support(app.shell, "module://matplotlib_inline.backend_inline")
    app.start()
    os._exit(0)


def run_exercise(request: dict) -> None:
    """Run an exercise's scenarios on the function a student's file defines; write the record.
    The judge reads it in the grader, a process this code never touched.  Never returns."""
    from autograder import exercises
    from autograder.runner import collect, describe_exception, encode, load_source

    source, exercise = os.path.join(request["work_dir"], request["source"]), request["exercise"]
    try:
        scenarios = exercises.get(exercise).suite(request["start"], int(request["seed"]))
        result = collect(exercise, load_source(source, exercise), scenarios, source)
    except BaseException as exc:  # noqa: BLE001 - a syntax error, a file that cannot be read
        result = {"observations": [], "error": describe_exception(exc, source), "tampered": []}
    write_frame("record", encode(result))
    # Skip interpreter shutdown: student objects may have left atexit handlers or threads.
    os._exit(0)


class CellTimeout(Exception):
    """An answer cell ran longer than a cell may while it was executed for scoring."""


def run_score(request: dict, limits: Limits) -> None:
    """Score a notebook's checks outside its kernel.  Never returns.

    The plan (``request["plan"]``, written by the grader) lists the submission's answer cells
    and added cells, and its test cells' checks, in notebook order.  Starting from the shared
    cells' namespace (this server's template, or the shared cells run here), each answer cell is
    executed as Run All would (an error is noted, and the next cell runs); at each test cell,
    each check runs the named function through the exercise's scenarios, every scenario in a
    child of this process (``record_in_children``), and its record is written to the record file
    as ``<cell>-<k>``.  The judge reads the records in the grader."""
    from IPython.core.inputtransformer2 import TransformerManager

    from autograder import exercises
    from autograder.diagnose import record_in_children
    from autograder.runner import describe_exception, encode
    from autograder.tamper import start_watch

    with open(request["plan"], encoding="utf-8") as f:
        plan = json.load(f)
    shell = TEMPLATE["shell"] if TEMPLATE else run_cells(plan["shared"])
    namespace = shell.user_ns
    changes = start_watch()  # before any student code: what it changes in torch or the grader shows
    transform = TransformerManager().transform_cell
    failed = None  # the last answer cell that raised, for the message of a function it did not define

    def on_alarm(signum, frame):
        raise CellTimeout(f"this cell ran longer than {limits.cell_seconds} s")

    signal.signal(signal.SIGALRM, on_alarm)
    for item in plan["items"]:
        if item["kind"] == "code":
            try:
                signal.alarm(int(limits.cell_seconds))
                exec(compile(transform(item["source"]), f"<answer cell {item['index']}>", "exec"), namespace)
            except BaseException as exc:  # noqa: BLE001 - as Run All: note it, run the next cell
                failed = {**describe_exception(exc), "cell": item["index"]}
            finally:
                signal.alarm(0)
            continue
        for k, check in enumerate(item["checks"]):
            exercise = check["exercise"]
            scenarios = exercises.get(exercise).suite(check["start"], int(check["seed"]))
            fn = namespace.get(check["function"])
            tampered = changes()
            if tampered:
                result = {"observations": [], "error": None, "tampered": tampered}
            elif not callable(fn):
                why = f"your answer cells do not define a function named {check['function']}"
                if failed:
                    why += f" (a cell raised {failed['type']}: {failed['message'][:200]})"
                result = {"observations": [], "error": {"type": "NotDefined", "message": why}, "tampered": []}
            else:
                result = record_in_children(exercise, fn, scenarios, limits)
            write_frame(f"{item['index']}-{k}", encode(result))
    os._exit(0)


def _own_scheduling_group() -> None:
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
    """The keeper: new namespaces, fork the job, pass on signals, exit with its status."""
    die_with_parent()  # dies with the server (and so the job)
    limits = Limits(**request["limits"])
    try:
        flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWUTS
        if _libc.unshare(flags) != 0:
            raise OSError(ctypes.get_errno(), "unshare")
        job = os.fork()
    except BaseException as error:  # noqa: BLE001 - the grader must hear about any failure
        os.write(report, json.dumps({"error": f"{type(error).__name__}: {error}"}).encode())
        os._exit(SETUP_FAILED)
    if job == 0:
        try:
            os.close(report)
            lock_down(request, limits)
        except BaseException as error:  # noqa: BLE001
            try:
                os.write(2, f"sandbox setup failed: {type(error).__name__}: {error}\n".encode())
            finally:
                os._exit(SETUP_FAILED)
        if request["kind"] == "kernel":
            run_kernel(request, limits)
        if request["kind"] == "score":
            run_score(request, limits)
        run_exercise(request)
    os.write(report, json.dumps({"pid": job}).encode())
    os.close(report)
    signal.signal(signal.SIGINT, lambda *_: os.kill(job, signal.SIGINT))
    signal.signal(signal.SIGTERM, lambda *_: os.kill(job, signal.SIGKILL))
    while True:
        try:
            _, status = os.waitpid(job, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) & 0x7F)


class Job:
    def __init__(self, keeper: int, pid: int, limits: Limits, kind: str, folder: str):
        self.keeper = keeper
        self.kind = kind  # "kernel", "exercise" or "score"
        self.folder = folder  # its job folder: what it writes there, outside its private file system, counts
        self.pid = pid  # PID 1 of the job's namespace, as this server sees it
        self.limits = limits
        self.returncode: int | None = None
        self.reason = ""
        self.measured = 0.0  # when the job's proportional size was last measured
        self.disk_checked = 0.0  # when its folder was last measured

    def kill(self) -> None:
        """SIGKILL the keeper and the job (PID 1 of its namespace: everything in it goes too)."""
        for pid in (self.keeper, self.pid):
            try:
                if pid > 0:
                    os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def processes(self) -> list[psutil.Process]:
        """The job's PID 1 and every process below it: orphans in its namespace are re-parented
        to PID 1, so nothing the student starts escapes this list."""
        try:
            top = psutil.Process(self.pid)
            return [top, *top.children(recursive=True)]
        except psutil.Error:
            return []


def _disk(folder: str, limit: int) -> tuple[int, int]:
    """(bytes, entries) under ``folder``, without following links; stops counting past the limit."""
    used = entries = 0
    stack = [folder]
    while stack and used <= limit and entries <= INODES:
        try:
            with os.scandir(stack.pop()) as found:
                for entry in found:
                    entries += 1
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    else:
                        used += entry.stat(follow_symlinks=False).st_blocks * 512
        except OSError:
            continue
    return used, entries


def _memory(processes: list[psutil.Process], proportional: bool) -> int:
    total = 0
    for process in processes:
        try:
            total += process.memory_full_info().pss if proportional else process.memory_info().rss
        except psutil.Error:
            continue
    return total


class Server:
    def __init__(self, out) -> None:
        self.out = out
        self.jobs: dict[int, Job] = {}
        self.watched = 0.0

    def reply(self, message: dict) -> None:
        self.out.write(json.dumps(message) + "\n")
        self.out.flush()

    def spawn(self, request: dict) -> dict:
        if request.get("kind") not in ("kernel", "exercise", "score"):
            return {"error": f"unknown kind of job {request.get('kind')!r}"}
        read, write = os.pipe()
        keeper = os.fork()
        if keeper == 0:
            os.close(read)
            try:
                _keep(request, write)
            finally:
                os._exit(SETUP_FAILED)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            answer = json.loads(pipe.read() or b'{"error": "the keeper ended early"}')
        if "error" in answer:
            os.waitpid(keeper, 0)
            return {"error": answer["error"]}
        self.jobs[keeper] = Job(keeper, answer["pid"], Limits(**request["limits"]), request["kind"], request["job_dir"])
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
            if sig == signal.SIGKILL and job.pid > 0:
                os.kill(job.pid, sig)  # PID 1 of the job: its whole namespace goes with it
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
            job.pid = -1

    def watch_memory(self) -> None:
        """Kill a job whose processes together hold more memory than its limit, or whose folder
        holds more than its disk quota (outside its private file system, which has that size).

        Resident sizes are cheap to read but count the pages a forked child shares with its
        parent once per process (a hundred sleeping forks of a kernel look like 25 GB); a job over
        its limit by that measure is measured again by proportional size (PSS), which divides each
        shared page among its sharers, at most every PSS_INTERVAL, and stopped only if that is over."""
        now = time.monotonic()
        if now - self.watched < WATCH_INTERVAL:
            return
        self.watched = now
        for job in self.jobs.values():
            if job.returncode is not None or job.reason or job.pid <= 0:
                continue
            processes = job.processes()
            limit = job.limits.memory_bytes
            whose = "the notebook" if job.kind == "kernel" else "your code"
            if now - job.disk_checked >= DISK_INTERVAL:
                job.disk_checked = now
                used, entries = _disk(job.folder, job.limits.disk_bytes)
                if used > job.limits.disk_bytes or entries > INODES:
                    job.reason = f"disk: {whose} wrote more than {job.limits.disk_mb} MiB (or {INODES} files)"
                    job.kill()
                    continue
            if _memory(processes, proportional=False) <= limit or now - job.measured < PSS_INTERVAL:
                continue
            job.measured = now
            if _memory(processes, proportional=True) > limit:
                job.reason = (
                    f"memory: {whose}'s {len(processes)} processes used more than {job.limits.memory_mb} MiB together"
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
                self.stop_all()  # the grader went away: so do we, and the jobs with us
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


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    # The protocol owns the real stdout; anything else printed goes to stderr.
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    started = time.monotonic()
    profile = argv[argv.index("--profile") + 1] if "--profile" in argv else "kernel"
    try:
        preload(profile)
        if "--template" in argv:
            run_template(argv[argv.index("--template") + 1])
        import autograder.tamper

        gc.disable()  # seal allocates much: a full collection of all the above would take 0.27 s
        autograder.tamper.seal()  # every job compares with torch as it is now, before any student code
        # Every object made so far is left out of every later collection, here and in each job: a
        # full one walks all 350,000 of them, and in a forked job it would write to every one's
        # header, so the job would copy nearly all of this process's memory.  (After seal: the
        # objects it looks for among all of them would then be hidden from gc.get_objects.)
        gc.freeze()
        gc.enable()
    except Exception as error:  # noqa: BLE001 - the grader reports it (and falls back to plain kernels)
        out.write(json.dumps({"id": 0, "ready": False, "error": f"{type(error).__name__}: {error}"}) + "\n")
        out.flush()
        return
    server = Server(out)
    server.reply({"id": 0, "ready": True, "seconds": round(time.monotonic() - started, 2)})
    server.serve(sys.stdin.buffer)
    os._exit(0)  # nothing to tidy: tearing down torch and friends would only take time


if __name__ == "__main__":
    main()
