"""nbgrader's Execute preprocessor, run in the sandbox and with limits that never stop grading.

Stock nbgrader gives up on a whole submission when a kernel dies or hangs, and scores a test
cell 0 when anything reaches stderr.  Here every limit ends the same way: the kernel (with
every process it started) is stopped, the cell that was running gets an error saying why,
every code cell below it gets an error saying it did not run (nbgrader gives full marks to a
test cell without output, so a cell that never ran must not stay empty), and grading goes on
with the next notebook.

What the student reads in the cells (why it stopped, that a cell did not run, an output left out) is
in the learner's language (``autograder.i18n``); the grading notes and the log stay English, for the
instructor.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import logging
import threading
import time

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute
from traitlets import Bool, default

from ..host.client import template_server
from ..host.limit_settings import SandboxLimits
from ..i18n import N_, _, speaking
from .kernel import SandboxKernelManager
from .language import learner_language
from .notes import NOTE_CELL_TAG, add_note
from .structure import released_notebook

STOPPED = "KernelStopped"
NOT_RUN = "NotRun"

# Why grading stopped a notebook, marked here and said in the learner's language in the cell (the
# notes keep the English): each ends "Grading stopped the notebook here because ...".
NOTEBOOK_TOO_LONG = N_("the notebook ran longer than its limit of {seconds} s in all")
CELL_TOO_LONG = N_("this cell ran longer than its limit of {seconds} s")
TOO_MUCH_OUTPUT = N_("the notebook printed more than {mib} MiB of output")
KERNEL_DIED = N_("the kernel died")


def reason(template: str, **fields) -> tuple[str, str]:
    """(in English for the notes, in the learner's language for the cell) of a ``template`` above."""
    return template.format(**fields), _(template).format(**fields)


def error_output(ename: str, evalue: str):
    return new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


COUNTED = ("stream", "display_data", "update_display_data", "execute_result", "error", "comm_open", "comm_msg")
OUTPUTS = ("stream", "display_data", "update_display_data", "execute_result", "error")


def content_bytes(value, limit: int) -> int:
    """Roughly what ``value`` (a message's content) adds to a notebook: every string and key in
    it, at every depth (text, data, metadata, error names and values, tracebacks, widget state),
    counted without building anything; stops once past ``limit``."""
    total, stack = 0, [value]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, (str, bytes, bytearray, memoryview)):
            total += len(item)
        elif isinstance(item, dict):
            total += sum(len(k) if isinstance(k, str) else 8 for k in item)
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            total += len(item)
            stack.extend(item)
        else:
            total += 8  # a number, a boolean, None
    return total


def message_bytes(msg: dict, limit: int) -> int:
    """What an output message adds to a notebook: all of its content and metadata, and for widget
    (comm) messages their binary buffers, which nbclient keeps in the notebook too."""
    size = content_bytes(msg.get("content", {}), limit) + content_bytes(msg.get("metadata", {}), limit)
    return size + sum(len(b) for b in msg.get("buffers") or [])


def too_large(msg: dict, size: int, limit: int) -> dict:
    """The message with its content replaced by a note saying it was left out (an output larger than
    one output may be): the notebook goes on, without it."""
    note = _("[an output of {size} MiB was left out: one output may hold at most {limit} MiB]").format(
        size=f"{size / 2**20:.1f}", limit=f"{limit / 2**20:g}"
    )
    kind = msg.get("msg_type")
    content = dict(msg.get("content", {}))
    if kind == "stream":
        content["text"] = note + "\n"
    elif kind == "error":
        content.update(ename=str(content.get("ename", "Error"))[:100], evalue=note, traceback=[note])
    else:
        content.update(data={"text/plain": note}, metadata={})
    return {**msg, "content": content, "metadata": {}, "buffers": []}


class _KernelDiedIsOurStop(logging.Filter):
    """nbclient logs "Kernel died while waiting for execute reply." whenever the kernel goes away,
    also when grading stopped it on purpose (the output limit, the memory limit).  That line reads
    as a crash; ``SandboxedExecute._stop`` logs what really happened instead, for every stop."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Kernel died while waiting for execute reply")


_KERNEL_DIED = _KernelDiedIsOurStop()


class SandboxedExecute(Execute):
    """Execute each notebook in a sandboxed kernel, under per-cell, per-notebook and output limits."""

    forgive_stderr_in_tests = Bool(
        True,
        help="Show stderr in test cells (warnings, for example) as ordinary output, so that a "
        "correct answer that warns keeps its points.  Tests fail by raising, not by writing to stderr.",
    ).tag(config=True)

    warm_start = Bool(
        True,
        help="Start each kernel after the cells every submission shares (the handed-out cells "
        "before the first graded cell), forked from a server that ran them once; their outputs "
        "come from the first submission that ran them all; each scoring job starts there too. Off: "
        "every kernel and every scoring job runs every cell (grade turns it off for a single "
        "submission, where that server would be started for one use).",
    ).tag(config=True)

    @default("timeout")
    def _cell_seconds(self):
        # Per cell: the course's default (gradebox/limits.py), unless the config sets
        # ExecutePreprocessor.timeout (or SandboxLimits.cell_seconds).
        return SandboxLimits(parent=self).cell_seconds

    def __init__(self, *args, **kwargs):
        # nbgrader's Execute passes AsyncKernelManager explicitly; ours goes first.
        kwargs.setdefault("kernel_manager_class", SandboxKernelManager)
        super().__init__(*args, **kwargs)
        limits = SandboxLimits(parent=self).limits()
        self.notebook_timeout, self.output_limit_bytes = limits.notebook_seconds, limits.output_bytes
        self.output_item_bytes = limits.output_item_bytes
        # A timeout stops the kernel, never just interrupts it: an interrupt can be swallowed,
        # and the cells after a swallowed one would each wait out their own timeout.
        self.interrupt_on_timeout = False
        self.error_on_timeout = {}

    def preprocess(self, nb, resources=None, km=None):
        self.log.addFilter(_KERNEL_DIED)  # once per logger (a set): _stop says what happened
        self._stopped = ""
        self._output_bytes = 0
        self._cell_timeout = self.timeout
        self._deadline = time.monotonic() + self.notebook_timeout
        self._resources = resources if resources is not None else {}
        self._shared, self._shared_outputs, self._template = range(0), [], None
        self._reference_for = None
        if self.warm_start and issubclass(self.kernel_manager_class, SandboxKernelManager):
            self._plan_warm_start(nb, self._resources)
        try:
            # What the grader writes into the notebook ("this cell did not run ...") is in the learner's
            # language; the grading notes and the log stay English.
            with speaking(learner_language(nb, self._resources)):
                result = super().preprocess(nb, resources, km)
            if self._reference_for:
                self._keep_reference(nb)
            return result
        finally:
            if self._reference_for:
                with _reference_lock:
                    _making.discard(self._reference_for[0])
            self.timeout = self._cell_timeout

    # -- the cells every submission shares ------------------------------------------------
    def _plan_warm_start(self, nb, resources) -> None:
        released = released_notebook(self.config, resources)
        if released is None:
            return
        shared = shared_cells(released)
        start = 1 if nb.cells and NOTE_CELL_TAG in nb.cells[0].metadata.get("tags", []) else 0
        mine = nb.cells[start : start + len(shared)]
        if not any(c.cell_type == "code" for c in shared) or len(mine) < len(shared):
            return
        if any((a.cell_type, a.source) != (b.cell_type, b.source) for a, b in zip(mine, shared)):
            return  # the student added or changed a cell among them: run everything
        template = [c.source for c in shared if c.cell_type == "code"]
        key = _key(shared)
        with _reference_lock:
            outputs = _reference.get(key, False)
            if outputs is False and key not in _making:
                _making.add(key)  # this notebook runs every cell; its shared outputs become the reference
                self._reference_for = (key, range(start, start + len(shared)))
        if not outputs or template_server(template, wait=False) is None:
            return  # not ready yet (nobody waits for it), or not possible
        self._shared = range(start, start + len(shared))
        self._shared_outputs = outputs
        self._template = template

    def _keep_reference(self, nb) -> None:
        """After a full run, keep the shared cells' outputs for the notebooks that follow."""
        key, cells = self._reference_for
        with _reference_lock:
            _making.discard(key)
            clean = not self._stopped and all(
                o.get("output_type") != "error" and o.get("name") != "stderr"
                for i in cells if nb.cells[i].cell_type == "code" for o in nb.cells[i].outputs
            )  # fmt: skip
            if clean:
                _reference[key] = [(copy.deepcopy(nb.cells[i].get("outputs", [])), nb.cells[i].get("execution_count"))
                                   for i in cells]  # fmt: skip
            else:
                WARM_START_OFF[key] = "a shared cell ended with an error or wrote to stderr"

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if isinstance(km, SandboxKernelManager) and self._template:
            km.template = self._template
        return km

    # -- one cell --------------------------------------------------------------------------
    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not cell.source.strip():
            return cell, resources
        if index in self._shared and not self._stopped and self.km.started_from_template():
            # The kernel already holds this cell's results; the outputs are those of the first full run.
            cell.outputs, cell.execution_count = copy.deepcopy(self._shared_outputs[index - self._shared.start])
            return cell, resources
        if self._stopped:
            text = _("This cell did not run: grading stopped the notebook at an earlier cell because {why}.")
            cell.outputs = [error_output(NOT_RUN, text.format(why=self._stopped))]
            return cell, resources
        remaining = self._deadline - time.monotonic()
        if remaining < 1:
            self._stop(cell, *reason(NOTEBOOK_TOO_LONG, seconds=self.notebook_timeout))
            return cell, resources
        limited_by_notebook = remaining < self._cell_timeout
        self.timeout = int(min(self._cell_timeout, remaining)) or 1
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except CellTimeoutError:
            if limited_by_notebook:
                self._stop(cell, *reason(NOTEBOOK_TOO_LONG, seconds=self.notebook_timeout))
            else:
                self._stop(cell, *reason(CELL_TOO_LONG, seconds=self._cell_timeout))
        except DeadKernelError:
            if hasattr(self.km, "stop_reason"):
                self._stop(cell, self.km.stop_reason())  # the sandbox's words (host/client.py)
            else:
                self._stop(cell, *reason(KERNEL_DIED))
        else:
            if self._output_bytes > self.output_limit_bytes:
                self._stop(cell, *self._too_much_output())
        if self.forgive_stderr_in_tests:
            _stderr_as_stdout(cell)
        return cell, resources

    def _too_much_output(self) -> tuple[str, str]:
        return reason(TOO_MUCH_OUTPUT, mib=f"{self.output_limit_bytes / 2**20:g}")

    def _stop(self, cell, why: str, shown: str = "") -> None:
        """Stop the kernel and everything in it; record why in this cell (``shown``: in the learner's
        language, when it differs from ``why``) and in the notes (``why``, English)."""
        shown = shown or why or _(KERNEL_DIED)  # never empty: it also says that the notebook stopped
        if hasattr(self.km, "kill_for"):
            self.km.kill_for(why)
        else:
            try:
                self.km.kill_kernel()  # a kernel manager of another kind: best effort
            except Exception:  # noqa: BLE001
                pass
        self._stopped = shown  # the cells below say it again
        run_sync(_drop_output_polls)()
        cell.outputs = [o for o in cell.outputs if o.get("output_type") != "error"]
        cell.outputs.append(
            error_output(STOPPED, _("Grading stopped the notebook here because {why}.").format(why=shown))
        )
        note = f"Stopped at cell {self._cell_label(cell)}: {why}; the cells below did not run."
        add_note(self._resources, note)
        self.log.warning("%s Its checks are scored all the same, from the answer cells.", note)

    @staticmethod
    def _cell_label(cell) -> str:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        return f"'{grade_id}'" if grade_id else "without a grade id"

    # -- output accounting -----------------------------------------------------------------
    def process_message(self, msg, cell, cell_index):
        if msg.get("msg_type") in COUNTED:
            size = message_bytes(msg, self.output_limit_bytes)
            self._output_bytes += size
            if self._output_bytes > self.output_limit_bytes:
                if hasattr(self.km, "kill_for"):
                    self.km.kill_for(self._too_much_output()[0])
                return None  # dropped: the cell already holds more than its share
            if size > self.output_item_bytes:
                if msg.get("msg_type") not in OUTPUTS:
                    return None  # a widget message that large: its state is not kept
                msg = too_large(msg, size, self.output_item_bytes)
        return super().process_message(msg, cell, cell_index)


async def _drop_output_polls() -> None:
    """Cancel nbclient's output-polling task of a stopped cell.  nbclient leaves it pending on a
    timeout, and no later cell runs this thread's event loop again: at exit Python would print
    "Task was destroyed but it is pending!" on the grader's stderr."""
    for task in asyncio.all_tasks():
        if task.get_coro().__name__ == "_async_poll_output_msg":
            task.cancel()
    await asyncio.sleep(0)


def shared_cells(released) -> list:
    """The handed-out cells before the first graded or answer cell: the same in every submission."""
    shared = []
    for cell in released.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") or meta.get("solution") or meta.get("task"):
            break
        shared.append(cell)
    return shared


def warm_up(released) -> None:
    """Start the server for a released notebook's shared cells ahead of the first submission."""
    shared = shared_cells(released)
    if any(c.cell_type == "code" for c in shared):
        template_server([c.source for c in shared if c.cell_type == "code"])


def _key(cells: list) -> str:
    return hashlib.sha256(json.dumps([(c.cell_type, c.source) for c in cells]).encode()).hexdigest()


# The shared cells' outputs, from the first submission that ran them all: {key: [(outputs,
# execution count), ...]}; a key being made is in _making.
_reference: dict[str, list] = {}
_making: set[str] = set()
_reference_lock = threading.Lock()
WARM_START_OFF: dict[str, str] = {}  # why the warm start is off for some shared cells


def _stderr_as_stdout(cell) -> None:
    """In a test cell, text on stderr is shown, but not read as a failure."""
    meta = cell.metadata.get("nbgrader", {})
    if not meta.get("grade") or meta.get("solution"):
        return
    for output in cell.outputs:
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            output["name"] = "stdout"
