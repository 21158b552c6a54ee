"""The warm server that every sandboxed job is forked from.  It runs inside bubblewrap.

Starting Python and importing torch takes seconds; forking a process that has already done it takes
milliseconds.  The server is started with a *profile*, named on its command line and looked up in
the table its caller hands to ``main`` (``gradebox.serve`` hands it ``gradebox.jobs.profiles``): it
says what its jobs need imported (``preload(options)``: ipykernel, matplotlib and torch for
notebooks; torch and the exercises for ``diagnose``) and which kinds of job it runs (``jobs``: kind
-> the function ``main(request, limits, work)`` that runs it).  A name that is not in the table is
refused; nothing is imported by a name.  The server itself knows nothing of notebooks, exercises or
grading: it forks, confines and watches.

Requests come from the grader on one socket (``protocol``): ``spawn`` (with the job's descriptors),
``poll``, ``signal``, ``forget``, ``ping``; each gets one reply.  A spawned job is two processes: the
*keeper*, forked from the server, unshares its namespaces and forks the *job*, PID 1 of the new PID
namespace (so every process the student starts ends with it), which confines itself (``confine``)
before anything else runs.  The server watches every job's memory and disk (``watchdog``).
"""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Mapping

from .. import protocol
from ..limits import WATCH_SECONDS, Limits
from .confine import confine, die_with_parent, unshare
from .watchdog import Job, Watchdog

FDS = ("plan", "log", "record")  # the descriptors a spawn request may carry, in this order


def _keep(profile, request: dict, fds: dict[str, int], report: int, scratch: str) -> None:
    """The keeper: new namespaces, fork the job, pass on signals, exit with its status."""
    die_with_parent()  # dies with the server (and so the job)
    limits = Limits(**request["limits"])
    try:
        unshare()
        job = os.fork()
    except BaseException as error:  # noqa: BLE001 - the grader must hear about any failure
        os.write(report, json.dumps({"error": f"{type(error).__name__}: {error}"}).encode())
        os._exit(protocol.SETUP_FAILED)
    if job == 0:
        try:
            os.close(report)
            template = profile.template_dir(request["kind"])
            work = confine(request, limits, fds, scratch, template)
        except BaseException as error:  # noqa: BLE001
            try:
                os.write(2, f"sandbox setup failed: {type(error).__name__}: {error}\n".encode())
            finally:
                os._exit(protocol.SETUP_FAILED)
        profile.jobs[request["kind"]](request, limits, work)
        os._exit(0)
    for fd in fds.values():
        os.close(fd)
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


class Server:
    def __init__(self, sock: socket.socket, profile, scratch: str) -> None:
        self.sock, self.profile, self.scratch = sock, profile, scratch
        self.jobs: dict[int, Job] = {}
        self.watchdog = Watchdog()

    def spawn(self, request: dict, received: list[int]) -> dict:
        """Fork the job's keeper, which takes the files the grader sent (``received``).  The server's
        own copies are closed whatever happens: it lives for a whole class, and every job's files
        (plan, log, records: memory files) would otherwise stay open, memory and all, in it."""
        try:
            return self._spawn(request, received)
        finally:
            for fd in received:
                os.close(fd)

    def _spawn(self, request: dict, received: list[int]) -> dict:
        if request.get("kind") not in self.profile.jobs:
            return {"error": f"this server runs no job of kind {request.get('kind')!r}"}
        fds = dict(zip([n for n in FDS if n in request.get("files", ())], received))
        read, write = os.pipe()
        keeper = os.fork()
        if keeper == 0:
            os.close(read)
            try:
                _keep(self.profile, request, fds, write, self.scratch)
            finally:
                os._exit(protocol.SETUP_FAILED)
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

    def stop_all(self) -> None:
        for job in self.jobs.values():
            if job.returncode is None:
                job.kill()

    def serve(self) -> None:
        handlers = {"poll": self.poll, "signal": self.signal, "forget": self.forget, "ping": lambda _: {"ok": True}}
        while True:
            ready, _, _ = select.select([self.sock], [], [], WATCH_SECONDS)
            self.reap()
            if ready:
                request, received = protocol.receive(self.sock)
                if request is None:
                    self.stop_all()  # the grader went away: so do we, and the jobs with us
                    return
                try:
                    if request.get("op") == "spawn":
                        answer = self.spawn(request, received)
                    else:
                        for fd in received:
                            os.close(fd)
                        answer = handlers[request["op"]](request)
                except Exception as error:  # noqa: BLE001 - one bad request must not stop grading
                    answer = {"error": f"{type(error).__name__}: {error}"}
                self.reap()
                protocol.send(self.sock, {"id": request.get("id"), **answer})
            self.watchdog.watch(self.jobs.values())


def _probe(profile, scratch: str) -> str:
    """'' when a job can be confined here (namespaces, a private /proc, the scratch folder hidden),
    else why not: checked once at start, so that a machine that cannot isolate jobs refuses to
    grade at once, with the reason, instead of failing every submission."""
    probe_dir = os.path.join(scratch, "probe")
    os.makedirs(os.path.join(probe_dir, "work"), exist_ok=True)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            unshare()
            child = os.fork()
            if child == 0:
                request = {"job_dir": probe_dir, "uid": os.getuid(), "kind": "probe", "env": {}}
                confine(request, Limits(), {}, scratch, None)
                os._exit(0)
            _, status = os.waitpid(child, 0)
            os.write(write, b"" if status == 0 else b"the confined probe process failed")
        except BaseException as error:  # noqa: BLE001
            os.write(write, f"{type(error).__name__}: {error}".encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        why = pipe.read().decode(errors="replace")
    os.waitpid(pid, 0)
    return why


def main(argv: list[str] | None, profiles: Mapping) -> None:
    """Serve jobs of the profile named on the command line, one of ``profiles`` (name -> profile)."""
    argv = sys.argv[1:] if argv is None else argv
    options = dict(zip(argv[::2], argv[1::2]))
    sock = socket.socket(fileno=int(options["--fd"]))
    started = time.monotonic()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    try:
        profile = profiles.get(options["--profile"])
        if profile is None:
            raise ValueError(f"no server profile {options['--profile']!r}; there are {', '.join(sorted(profiles))}")
        why = _probe(profile, options["--scratch"])
        if why:
            raise RuntimeError(f"jobs cannot be isolated on this machine: {why}")
        # The profile's preload allocates much: collections while it runs would walk it all, again
        # and again, for nothing (it is all kept).
        gc.disable()
        profile.preload(json.loads(options.get("--options", "{}")))
        # Every object made so far is left out of every later collection, here and in each job: a
        # full one would walk all of them, and in a forked job it would write to every one's
        # header, so the job would copy nearly all of this process's memory.
        gc.freeze()
        gc.enable()
    except Exception as error:  # noqa: BLE001 - the grader reports it
        protocol.send(sock, {"id": 0, "ready": False, "error": f"{type(error).__name__}: {error}"})
        return
    protocol.send(sock, {"id": 0, "ready": True, "seconds": round(time.monotonic() - started, 2)})
    Server(sock, profile, options["--scratch"]).serve()
    os._exit(0)  # nothing to tidy: tearing down torch and friends would only take time
