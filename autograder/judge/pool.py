"""Judging processes for the grader: each check's records are judged in a process with limits.

Records are hostile (see ``autograder.judge``).  The decoder is linear and the validator walks
only what the judge expects, but a judge still rebuilds models and compares tensors, and the grader
process itself has no limit: a record that made a judge slow or hungry would stall a whole class and
keep the course locked.  So ``grade``, ``nbgrader autograde`` and ``diagnose`` hand each check to a
``JudgePool``: a few warm worker processes (``worker.py``, torch imported once each), each with its
own address-space limit; a check that takes longer than ``Limits.judge_seconds`` has its worker
killed (a fresh one takes its place) and fails with a clear message, and the class goes on.

The notebook's own self-check (a student's kernel, not a grade) judges in the kernel's process.

Messages come in the caller's language (``autograder.i18n.language()``, which a worker process cannot
see, so it travels in the request).  ``judge_in`` asks for several languages at once: the graded copy
keeps the English message (the report reads it) and shows the learner's; the worker judges once per
language, and the code and review of the first stand.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from multiprocessing.connection import Connection

from gradebox.limits import DEFAULTS, Limits

from ..i18n import ENGLISH, _, checked, language, speaking
from ..verdict import Verdict


def _roots() -> list[str]:
    import autograder

    return [os.path.dirname(os.path.dirname(os.path.abspath(autograder.__file__)))]


class JudgeUnavailable(RuntimeError):
    """No judging process could be started (the grader's own installation is broken)."""


class _Worker:
    """One judging process and the two pipes to it."""

    def __init__(self, limits: Limits) -> None:
        to_read, to_worker = os.pipe()
        from_worker, to_write = os.pipe()
        code = f"import sys; sys.path[:0] = {_roots()!r}; from autograder.judge.worker import main; main(sys.argv[1:])"
        # What it says on stderr (warnings; why it could not start) goes to a file, not a pipe that
        # nobody reads while it judges: a full pipe would block it.
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - kept for the worker's lifetime
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-c", code, str(to_read), str(to_write), str(limits.judge_memory_bytes)],
            pass_fds=(to_read, to_write), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log,
        )  # fmt: skip
        os.close(to_read)
        os.close(to_write)
        self.outbox, self.inbox = Connection(to_worker, readable=False), Connection(from_worker, writable=False)
        self.ready = False

    def wait_ready(self, timeout: float) -> None:
        if self.ready:
            return
        if not self.inbox.poll(timeout):
            self.kill()
            raise JudgeUnavailable(f"a judging process did not start within {timeout:g} s")
        try:
            self.inbox.recv_bytes()
        except EOFError:
            self.process.wait()
            self.log.seek(0)
            error = self.log.read().decode(errors="replace")[-1500:]
            self.kill()
            raise JudgeUnavailable(f"a judging process could not start: {error}") from None
        self.ready = True

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        for end in (self.outbox, self.inbox):
            if not end.closed:
                end.close()
        self.log.close()

    def alive(self) -> bool:
        return self.process.poll() is None


STARTUP_SECONDS = 120  # importing torch on a slow, busy machine


class JudgePool:
    """``size`` judging processes, shared by the grader's threads; ``judge`` blocks until one is free."""

    def __init__(self, size: int = 1, limits: Limits = DEFAULTS) -> None:
        self.limits = limits
        self.idle: queue.Queue[_Worker | None] = queue.Queue()
        self.lock = threading.Lock()
        self.closed = False
        for _place in range(max(1, size)):
            self.idle.put(None)  # a place for a worker, started on first use or by warm()

    def warm(self) -> None:
        """Start every worker now, in the background, so the first check does not wait for torch."""
        places = []
        while True:
            try:
                places.append(self.idle.get_nowait())
            except queue.Empty:
                break
        for place in places:
            self.idle.put(place or _Worker(self.limits))

    def judge(self, exercise: str, start: str, seed: int, records: list[bytes], ended: dict | None = None) -> Verdict:
        """The verdict, its message in the caller's language."""
        return self.judge_in((language(),), exercise, start, seed, records, ended)[0]

    def judge_in(self, languages, exercise: str, start: str, seed: int, records: list[bytes],
                 ended: dict | None = None) -> tuple[Verdict, dict[str, str]]:  # fmt: skip
        """The verdict with its message in ``languages[0]``, and the message in each of ``languages``."""
        languages = tuple(dict.fromkeys(checked(lang) or ENGLISH for lang in languages)) or (ENGLISH,)
        worker = self.idle.get()
        try:
            worker = self._ready(worker)
            verdict, messages = self._ask(worker, exercise, start, seed, records, ended, languages)
            return verdict, messages
        except _Lost as lost:
            worker = None
            messages = {}
            for lang in languages:
                with speaking(lang):
                    messages[lang] = lost.message()
            return Verdict(exercise, "error", messages[languages[0]], review=lost.review), messages
        finally:
            self.idle.put(worker if worker is not None and worker.alive() else None)

    def _ready(self, worker: _Worker | None) -> _Worker:
        if worker is None or not worker.alive():
            worker = _Worker(self.limits)
        worker.wait_ready(STARTUP_SECONDS)
        return worker

    def _ask(self, worker: _Worker, exercise, start, seed, records, ended, languages) -> tuple[Verdict, dict]:
        header = {"exercise": exercise, "start": start, "seed": int(seed), "ended": ended,
                  "limits": self.limits.as_dict(), "count": len(records), "languages": list(languages)}  # fmt: skip
        try:
            worker.outbox.send_bytes(json.dumps(header).encode())
            for record in records:
                worker.outbox.send_bytes(record)
            # each language is a judgement of its own (worker.py): each gets the judge's time
            if not worker.inbox.poll(self.limits.judge_seconds * len(languages)):
                worker.kill()
                seconds = f"{self.limits.judge_seconds:g}"
                raise _Lost(
                    lambda: _("The grader could not judge the record of your run within {seconds} s.").format(
                        seconds=seconds
                    ),
                    f"judging took longer than {seconds} s",
                )
            answer = json.loads(worker.inbox.recv_bytes())
        except (EOFError, OSError, ValueError) as error:
            worker.kill()
            raise _Lost(
                lambda: _("The grader could not judge the record of your run: its judging process stopped."),
                f"the judging process stopped ({type(error).__name__})",
            ) from None
        if "error" in answer:
            raise KeyError(answer["error"])  # an unknown exercise: the caller's mistake
        messages = answer.get("messages") or {}
        messages = {lang: str(messages.get(lang, answer["message"])) for lang in languages}
        verdict = Verdict(exercise, answer["code"], messages[languages[0]], review=answer.get("review", ""))
        return verdict, messages

    def close(self) -> None:
        with self.lock:
            if self.closed:
                return
            self.closed = True
        while True:
            try:
                worker = self.idle.get_nowait()
            except queue.Empty:
                return
            if worker is not None:
                worker.kill()


class _Lost(Exception):
    """A check the worker could not judge: ``message()`` says so in the current language."""

    def __init__(self, message, review: str) -> None:
        super().__init__(review)
        self.message, self.review = message, review


_shared: dict[tuple, JudgePool] = {}
_shared_lock = threading.Lock()


def shared_pool(limits: Limits = DEFAULTS, size: int = 1) -> JudgePool:
    """The process-wide pool for these limits, started (warm) on first use, closed at exit."""
    key = (limits, size)
    with _shared_lock:
        pool = _shared.get(key)
        if pool is None:
            pool = _shared[key] = JudgePool(size, limits)
            threading.Thread(target=pool.warm, daemon=True).start()
            atexit.register(pool.close)
        return pool
