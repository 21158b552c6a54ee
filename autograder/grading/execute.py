"""nbgrader's Execute preprocessor, run in the sandbox and with limits that never stop grading.

Stock nbgrader gives up on a whole submission when a kernel dies or hangs, and scores a test
cell 0 when anything reaches stderr.  Here every limit ends the same way: the kernel (with
every process it started) is stopped, the cell that was running gets an error saying why,
every code cell below it gets an error saying it did not run (nbgrader gives full marks to a
test cell without output, so a cell that never ran must not stay empty), and grading goes on
with the next notebook.
"""

from __future__ import annotations

import time

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer

from .kernel import SandboxKernelManager
from .notes import add_note

STOPPED = "KernelStopped"
NOT_RUN = "NotRun"


def error_output(ename: str, evalue: str):
    return new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


def _message_bytes(msg: dict) -> int:
    content = msg.get("content", {})
    size = len(content.get("text", "") or "")
    for value in (content.get("data") or {}).values():
        size += len(value) if isinstance(value, str) else len(str(value))
    size += sum(len(line) for line in content.get("traceback", []) or [])
    return size


class SandboxedExecute(Execute):
    """Execute each notebook in a sandboxed kernel, under per-cell, per-notebook and output limits."""

    notebook_timeout = Integer(
        600, help="Seconds that all of one notebook's cells may take together before it is stopped."
    ).tag(config=True)
    output_limit_bytes = Integer(
        8 * 2**20, help="Bytes of output (text and images) one notebook may produce before it is stopped."
    ).tag(config=True)
    forgive_stderr_in_tests = Bool(
        True,
        help="Show stderr in test cells (warnings, for example) as ordinary output, so that a "
        "correct answer that warns keeps its points.  Tests fail by raising, not by writing to stderr.",
    ).tag(config=True)

    def __init__(self, *args, **kwargs):
        # nbgrader's Execute passes AsyncKernelManager explicitly; ours goes first.
        kwargs.setdefault("kernel_manager_class", SandboxKernelManager)
        super().__init__(*args, **kwargs)

    def preprocess(self, nb, resources=None, km=None):
        self._stopped = ""
        self._output_bytes = 0
        self._cell_timeout = self.timeout
        self._deadline = time.monotonic() + self.notebook_timeout
        self._resources = resources if resources is not None else {}
        try:
            return super().preprocess(nb, resources, km)
        finally:
            self.timeout = self._cell_timeout

    # -- one cell --------------------------------------------------------------------------
    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not cell.source.strip():
            return cell, resources
        if self._stopped:
            cell.outputs = [error_output(NOT_RUN, f"This cell did not run: {self._stopped}")]
            return cell, resources
        remaining = self._deadline - time.monotonic()
        if remaining < 1:
            self._stop(cell, f"the notebook ran longer than its limit of {self.notebook_timeout} s in all")
            return cell, resources
        limited_by_notebook = remaining < self._cell_timeout
        self.timeout = int(min(self._cell_timeout, remaining)) or 1
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except CellTimeoutError:
            if limited_by_notebook:
                why = f"the notebook ran longer than its limit of {self.notebook_timeout} s in all"
            else:
                why = f"this cell ran longer than its limit of {self._cell_timeout} s"
            self._stop(cell, why)
        except DeadKernelError:
            self._stop(cell, self.km.stop_reason() if hasattr(self.km, "stop_reason") else "the kernel died")
        else:
            if self._output_bytes > self.output_limit_bytes:
                self._stop(cell, self._too_much_output())
        if self.forgive_stderr_in_tests:
            _stderr_as_stdout(cell)
        return cell, resources

    def _too_much_output(self) -> str:
        return f"the notebook printed more than {self.output_limit_bytes // 2**20} MiB of output"

    def _stop(self, cell, why: str) -> None:
        """Stop the kernel and everything in it; record why in this cell and in the notes."""
        if hasattr(self.km, "kill_for"):
            self.km.kill_for(why)
        else:
            try:
                self.km.kill_kernel()  # a kernel manager of another kind: best effort
            except Exception:  # noqa: BLE001
                pass
        self._stopped = f"grading stopped the notebook at an earlier cell because {why}."
        cell.outputs = [o for o in cell.outputs if o.get("output_type") != "error"]
        cell.outputs.append(error_output(STOPPED, f"Grading stopped the notebook here because {why}."))
        add_note(self._resources, f"Stopped at cell {self._cell_label(cell)}: {why}; the cells below did not run.")

    @staticmethod
    def _cell_label(cell) -> str:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        return f"'{grade_id}'" if grade_id else "without a grade id"

    # -- output accounting -----------------------------------------------------------------
    def process_message(self, msg, cell, cell_index):
        if msg.get("msg_type") in ("stream", "display_data", "update_display_data", "execute_result", "error"):
            self._output_bytes += _message_bytes(msg)
            if self._output_bytes > self.output_limit_bytes:
                if hasattr(self.km, "kill_for"):
                    self.km.kill_for(self._too_much_output())
                return None  # dropped: the cell already holds more than its share
        return super().process_message(msg, cell, cell_index)


def _stderr_as_stdout(cell) -> None:
    """In a test cell, text on stderr is shown, but not read as a failure."""
    meta = cell.metadata.get("nbgrader", {})
    if not meta.get("grade") or meta.get("solution"):
        return
    for output in cell.outputs:
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            output["name"] = "stdout"
