"""The model behind the lesson 4 inference explorer.

``InferenceExplorerState`` owns a small real PyTorch MLP (with dropout and batch norm) and runs
one forward pass per :meth:`run`, under the switches the student set:

* ``no_grad``: the forward pass runs inside ``torch.no_grad()``;
* ``inference_mode``: it runs inside ``torch.inference_mode()``;
* ``eval_mode``: the model is put in ``model.eval()`` (else ``model.train()``) before the pass.

Each run records what PyTorch really did: ``requires_grad`` and ``grad_fn`` of the output, the
memory of the tensors autograd saved for backward (seen with
``torch.autograd.graph.saved_tensors_hooks``, each piece of memory once, parameters and batch norm's
running statistics excluded: these are the activations a graph keeps alive), the wall time of
the forward pass, whether dropout was active, and how far the output is from the eval-mode output
for the same input.  No widgets, no plotting here.

A :class:`Guide` walks the student through the lesson's points in a few steps (run with tracking on,
then with ``no_grad()``, at a bigger batch, with ``eval()`` alone, with both): after every run it checks
whether the newest run is the one the current step asks for, and if so says what to look at (with
the run's real numbers) and moves on. It can be skipped step by step or restarted; the free controls
work the same whether the guide is on, finished or skipped.

Language: the guide is translated when a state is built (:func:`lesson_guide`), the log and the looks
when they are written; a step that names the run button quotes its translated label (``{run}``).
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn
from torch.autograd.graph import saved_tensors_hooks

from gradlessons.guide import Guide, GuideStep
from gradlessons.i18n import N_, _

MIN_BATCH = 8
MAX_BATCH = 2048
DEFAULT_MAX_HISTORY = 200
#: The guide's "bigger batch" step asks for at least this many examples.
BIG_BATCH = 1024
# i18n: the button that runs one forward pass of the model
RUN = N_("run forward pass")


@dataclass(frozen=True)
class Run:
    """What one forward pass did.

    Attributes:
        index: Run number since the last reset, from 1.
        batch_size: Number of examples in the input.
        no_grad / inference_mode / eval_mode: The switches during this run.
        requires_grad: ``output.requires_grad``.
        grad_fn: The class name of ``output.grad_fn`` (e.g. ``"AddmmBackward0"``), or ``None``.
        saved_bytes: Bytes of activations autograd saved for backward during the pass (each piece of
            memory once, parameters left out).
        seconds: Wall time of the forward pass (the best of ``repeats`` passes).
        dropout_active: Whether the dropout layer was in training mode (so it zeroed entries).
        max_diff_vs_eval: Largest difference from the eval-mode output for the same input
            (0.0 when the model behaved as in eval mode).
    """

    index: int
    batch_size: int
    no_grad: bool
    inference_mode: bool
    eval_mode: bool
    requires_grad: bool
    grad_fn: str | None
    saved_bytes: int
    seconds: float
    dropout_active: bool
    max_diff_vs_eval: float

    @property
    def tracking(self) -> str:
        """The gradient-tracking regime: "inference_mode", "no_grad" or "tracking"."""
        if self.inference_mode:
            return "inference_mode"
        if self.no_grad:
            return "no_grad"
        return "tracking"

    @property
    def label(self) -> str:
        """The code of this run, e.g. ``"model.eval() + torch.no_grad()"``."""
        parts = ["model.eval()" if self.eval_mode else "model.train()"]
        if self.no_grad:
            parts.append("torch.no_grad()")
        if self.inference_mode:
            parts.append("torch.inference_mode()")
        return " + ".join(parts)

    def log_line(self) -> str:
        # i18n: a column of the run log, padded to the same width as "dropout off"
        dropout = _("dropout ON ") if self.dropout_active else _("dropout off")
        # i18n: one line of the run log; keep the {placeholders} with their formats (they align the columns)
        return _(
            "{index:>3}. batch {batch:>4}  {code:<52} requires_grad={requires_grad:<5} grad_fn={grad_fn:<15} "
            "saved {mb:7.2f} MB  {ms:6.2f} ms  {dropout}  max |out - eval out| = {diff:.3g}"
        ).format(
            index=self.index,
            batch=self.batch_size,
            code=self.label,
            requires_grad=str(self.requires_grad),
            grad_fn=str(self.grad_fn),
            mb=self.saved_bytes / 1e6,
            ms=self.seconds * 1e3,
            dropout=dropout,
            diff=self.max_diff_vs_eval,
        )


# ---------------------------------------------------------------------- the guided sequence


def _mb(run: Run) -> str:
    return f"{run.saved_bytes / 1e6:.2f} MB"


def _earlier(runs: Sequence[Run], newest: Run, **switches) -> list[Run]:
    """Runs before ``newest`` whose tracking regime and mode match ``switches``."""
    return [
        r for r in runs if r.index < newest.index and all(getattr(r, name) == value for name, value in switches.items())
    ]


def _look_tracked(run: Run, runs: Sequence[Run]) -> str:
    return _(
        "`output.grad_fn = {grad_fn}`: PyTorch recorded a graph, and it keeps {memory} of activations "
        "(the layers' intermediate results) alive for backward, for a batch of {batch}."
    ).format(grad_fn=run.grad_fn, memory=_mb(run), batch=run.batch_size)


def _look_no_grad(run: Run, runs: Sequence[Run]) -> str:
    text = _("`output.grad_fn = None` and 0.00 MB saved: under `no_grad()` nothing was recorded.")
    same = [r for r in _earlier(runs, run, tracking="tracking") if r.batch_size == run.batch_size]
    if same:
        text += " " + _("The tracked run at batch {batch} saved {memory}.").format(
            batch=run.batch_size, memory=_mb(same[-1])
        )
    if run.dropout_active:
        text += " " + _(
            "But the model was still in train mode: dropout was active, so the output differs from the "
            "eval-mode output (by up to {diff})."
        ).format(diff=f"{run.max_diff_vs_eval:.3g}")
    return text


def _look_big_batch(run: Run, runs: Sequence[Run]) -> str:
    text = _("Batch {batch}: {memory} saved for backward.").format(batch=run.batch_size, memory=_mb(run))
    smaller = [
        r for r in _earlier(runs, run, tracking="tracking", eval_mode=run.eval_mode) if r.batch_size < run.batch_size
    ]
    if smaller:
        before = smaller[-1]
        ratio = run.saved_bytes / max(before.saved_bytes, 1)
        more = _(
            "That is {ratio} times the {memory} of batch {batch}: the saved activations grow in proportion to "
            "the batch size (under `no_grad()` nothing is kept)."
        ).format(ratio=f"{ratio:.1f}", memory=_mb(before), batch=before.batch_size)
    else:
        more = _(
            "The saved memory is the saved activations, which grow in proportion to the batch size "
            "(under `no_grad()` nothing is kept)."
        )
    return f"{text} {more}"


def _look_eval_only(run: Run, runs: Sequence[Run]) -> str:
    return _(
        "Dropout is off: the output equals the eval-mode output (difference {diff}). "
        "But `output.grad_fn = {grad_fn}` and {memory} saved: `eval()` did not stop the graph. "
        "(That is less than in train mode: in eval mode dropout saves no random mask and makes no new tensor, "
        "and batch norm saves no batch statistics.)"
    ).format(diff=f"{run.max_diff_vs_eval:.3g}", grad_fn=run.grad_fn, memory=_mb(run))


def _look_recipe(run: Run, runs: Sequence[Run]) -> str:
    how = "`torch.inference_mode()`" if run.inference_mode else "`torch.no_grad()`"
    # i18n: {how} is code: `torch.no_grad()` or `torch.inference_mode()`
    return _(
        "No graph ({memory} saved) and the same output as eval mode (difference {diff}): "
        "`model.eval()` with {how} is the recipe for inference."
    ).format(memory=_mb(run), diff=f"{run.max_diff_vs_eval:.3g}", how=how)


def default_steps() -> list[GuideStep]:
    """The lesson's guided sequence: tracking, no_grad, a bigger batch, eval() alone, eval() + no_grad
    (in today's language; the first step quotes the run button's translated label)."""
    big = {"big": BIG_BATCH}
    return [
        GuideStep(
            _("Leave every switch off (tracking on, train mode) and click **{run}**.").format(run=_(RUN)),
            lambda run, runs: run.tracking == "tracking" and not run.eval_mode,
            _look_tracked,
            asks=_("run with every switch off"),
        ),
        GuideStep(
            _("Tick `with torch.no_grad()` and run again with the same batch size."),
            lambda run, runs: run.tracking == "no_grad",
            _look_no_grad,
            asks=_("run with `torch.no_grad()` ticked"),
        ),
        GuideStep(
            _("Untick `torch.no_grad()`, drag the batch size to {big} or more and run.").format(**big),
            lambda run, runs: run.tracking == "tracking" and run.batch_size >= BIG_BATCH,
            _look_big_batch,
            asks=_("run with `torch.no_grad()` unticked and a batch size of {big} or more").format(**big),
        ),
        GuideStep(
            _("Now tick only `model.eval()` and run. Is a graph still built?"),
            lambda run, runs: run.tracking == "tracking" and run.eval_mode,
            _look_eval_only,
            asks=_("run with only `model.eval()` ticked"),
        ),
        GuideStep(
            _("Tick `with torch.no_grad()` as well (keep `model.eval()` ticked) and run."),
            lambda run, runs: run.tracking != "tracking" and run.eval_mode,
            _look_recipe,
            asks=_("run with `model.eval()` and `torch.no_grad()` both ticked"),
        ),
    ]


#: What the guide says once every step is done (an English msgid, translated by :func:`lesson_guide`).
FINISHED = N_(
    "You have seen the whole lesson in action. Keep exploring: compare `torch.no_grad()` with "
    "`torch.inference_mode()`, or restart the guide."
)


def lesson_guide() -> Guide:
    """The lesson's guide in today's language (a state makes it when it is built)."""
    return Guide(default_steps(), finished=_(FINISHED))


class InferenceExplorerState:
    """A real MLP whose forward pass the student runs with and without gradient tracking.

    Args:
        seed: Seeds the model's weights and the inputs.
        in_features / hidden: Sizes of the MLP (in -> hidden -> hidden -> 10).
        repeats: Forward passes timed per run (the fastest counts, to tame timing noise).
        max_history: Runs kept (older ones are dropped first; indices keep counting).
    """

    def __init__(
        self,
        seed: int = 0,
        in_features: int = 128,
        hidden: int = 256,
        repeats: int = 5,
        max_history: int = DEFAULT_MAX_HISTORY,
    ) -> None:
        if max_history < 1:
            raise ValueError(_("max_history must be at least 1, got {value}").format(value=max_history))
        if repeats < 1:
            raise ValueError(_("repeats must be at least 1, got {value}").format(value=repeats))
        self.seed = int(seed)
        self.in_features = int(in_features)
        self.repeats = int(repeats)
        with torch.random.fork_rng():
            torch.manual_seed(self.seed)
            self.model = nn.Sequential(
                nn.Linear(in_features, hidden),
                nn.BatchNorm1d(hidden),
                nn.ReLU(),
                nn.Dropout(0.5),
                nn.Linear(hidden, hidden),
                nn.ReLU(),
                nn.Linear(hidden, 10),
            )
        fixed = [*self.model.parameters(), *self.model.buffers()]
        self._param_storages = {t.untyped_storage().data_ptr() for t in fixed}
        self.no_grad = False
        self.inference_mode = False
        self.eval_mode = False
        self.batch_size = 256
        self._history: deque[Run] = deque(maxlen=int(max_history))
        self._next_index = 1
        self.last_output: torch.Tensor | None = None
        self.guide = lesson_guide()
        self.eval_output(self.inputs())  # warm up: the very first pass of a process is slow

    # ------------------------------------------------------------------ reading

    @property
    def history(self) -> tuple[Run, ...]:
        return tuple(self._history)

    def log_lines(self) -> list[str]:
        return [run.log_line() for run in self._history]

    def set_batch_size(self, n: int) -> None:
        n = int(n)
        if not MIN_BATCH <= n <= MAX_BATCH:
            raise ValueError(
                _("batch size must be between {low} and {high}, got {n}").format(low=MIN_BATCH, high=MAX_BATCH, n=n)
            )
        self.batch_size = n

    def inputs(self, batch_size: int | None = None) -> torch.Tensor:
        """The input batch for a batch size: always the same numbers for the same size."""
        n = self.batch_size if batch_size is None else int(batch_size)
        gen = torch.Generator().manual_seed(self.seed * 100_003 + n)
        return torch.randn(n, self.in_features, generator=gen)

    # ------------------------------------------------------------------ actions

    def run(self) -> Run:
        """One forward pass under the current switches; returns (and keeps) its record."""
        x = self.inputs()
        self.model.train(not self.eval_mode)
        dropout_active = any(m.training for m in self.model.modules() if isinstance(m, nn.Dropout))
        saved = 0
        best = float("inf")
        output = None
        for _repeat in range(self.repeats):
            kept: dict[int, int] = {}
            with saved_tensors_hooks(self._counting_pack(kept), _unpack), self._switches():
                began = time.perf_counter()
                output = self.model(x)
                best = min(best, time.perf_counter() - began)
            saved = sum(kept.values())
        reference = self.eval_output(x)
        with torch.inference_mode(False):
            plain = output.detach().clone() if not output.is_inference() else torch.tensor(output.tolist())
        self.last_output = plain
        run = Run(
            index=self._next_index,
            batch_size=len(x),
            no_grad=self.no_grad,
            inference_mode=self.inference_mode,
            eval_mode=self.eval_mode,
            requires_grad=bool(output.requires_grad),
            grad_fn=None if output.grad_fn is None else type(output.grad_fn).__name__,
            saved_bytes=int(saved),
            seconds=float(best),
            dropout_active=dropout_active,
            max_diff_vs_eval=float((plain - reference).abs().max()),
        )
        self._next_index += 1
        self._history.append(run)
        self.guide.observe(run, self.history, action="run")
        return run

    def eval_output(self, x: torch.Tensor) -> torch.Tensor:
        """The output in eval mode without tracking; the model's mode is left as it was."""
        was = self.model.training
        self.model.eval()
        try:
            with torch.no_grad():
                return self.model(x)
        finally:
            self.model.train(was)

    def skip_guide_step(self) -> None:
        """Move the guide on without doing its current step."""
        self.guide.skip()

    def restart_guide(self) -> None:
        """The guide back to step 1 (the runs stay: a student may compare with them)."""
        self.guide.restart()

    def reset(self) -> None:
        """Forget every run and put the switches back (tracking on, train mode, batch 256).

        The guide keeps its place: a student may clear the plot in the middle of the sequence."""
        self._history.clear()
        self._next_index = 1
        self.no_grad = self.inference_mode = self.eval_mode = False
        self.batch_size = 256
        self.last_output = None
        self.model.train()

    # ------------------------------------------------------------------ helpers

    def _switches(self) -> contextlib.ExitStack:
        # Only the switched-on blocks are entered: torch.inference_mode(False) is not neutral,
        # it switches gradient tracking back ON inside it.
        stack = contextlib.ExitStack()
        if self.no_grad:
            stack.enter_context(torch.no_grad())
        if self.inference_mode:
            stack.enter_context(torch.inference_mode())
        return stack

    def _counting_pack(self, kept: dict[int, int]):
        """A pack hook that notes the memory of every saved tensor in ``kept`` (memory address -> bytes).

        The graph keeps references, not copies, so a tensor saved by two nodes (a ReLU's output is
        saved by the ReLU and by the next Linear) is counted once, by its memory; parameters and
        batch norm's running statistics are left out (they exist without a graph)."""
        storages = self._param_storages

        def pack(tensor: torch.Tensor) -> torch.Tensor:
            storage = tensor.untyped_storage()
            if storage.data_ptr() not in storages:
                kept[storage.data_ptr()] = storage.nbytes()
            return tensor

        return pack


def _unpack(tensor: torch.Tensor) -> torch.Tensor:
    return tensor
