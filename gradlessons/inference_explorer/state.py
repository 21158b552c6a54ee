"""The model behind the lesson 4 inference explorer.

``InferenceExplorerState`` owns a small real PyTorch MLP (with dropout and batch norm) and runs
one forward pass per :meth:`run`, under the switches the student set:

* ``no_grad``: the forward pass runs inside ``torch.no_grad()``;
* ``inference_mode``: it runs inside ``torch.inference_mode()``;
* ``eval_mode``: the model is put in ``model.eval()`` (else ``model.train()``) before the pass.

Each run records what PyTorch really did: ``requires_grad`` and ``grad_fn`` of the output, the
bytes of the tensors autograd saved for backward (counted with
``torch.autograd.graph.saved_tensors_hooks``, parameters excluded: these are the activations a
graph keeps alive), the wall time of the forward pass, whether dropout was active, and how far
the output is from the eval-mode output for the same input.  No widgets, no plotting here.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from dataclasses import dataclass

import torch
from torch import nn
from torch.autograd.graph import saved_tensors_hooks

MIN_BATCH = 8
MAX_BATCH = 2048
DEFAULT_MAX_HISTORY = 200


@dataclass(frozen=True)
class Run:
    """What one forward pass did.

    Attributes:
        index: Run number since the last reset, from 1.
        batch_size: Number of examples in the input.
        no_grad / inference_mode / eval_mode: The switches during this run.
        requires_grad: ``output.requires_grad``.
        grad_fn: The class name of ``output.grad_fn`` (e.g. ``"AddmmBackward0"``), or ``None``.
        saved_bytes: Bytes of activations autograd saved for backward during the pass.
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
        dropout = "dropout ON " if self.dropout_active else "dropout off"
        return (
            f"{self.index:>3}. batch {self.batch_size:>4}  {self.label:<52} "
            f"requires_grad={str(self.requires_grad):<5} grad_fn={str(self.grad_fn):<15} "
            f"saved {self.saved_bytes / 1e6:7.2f} MB  {self.seconds * 1e3:6.2f} ms  {dropout}  "
            f"max |out - eval out| = {self.max_diff_vs_eval:.3g}"
        )


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
            raise ValueError(f"max_history must be at least 1, got {max_history}")
        if repeats < 1:
            raise ValueError(f"repeats must be at least 1, got {repeats}")
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
            raise ValueError(f"batch size must be between {MIN_BATCH} and {MAX_BATCH}, got {n}")
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
        for _ in range(self.repeats):
            counter = [0]
            with saved_tensors_hooks(self._counting_pack(counter), _unpack), self._switches():
                began = time.perf_counter()
                output = self.model(x)
                best = min(best, time.perf_counter() - began)
            saved = counter[0]
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

    def reset(self) -> None:
        """Forget every run and put the switches back (tracking on, train mode, batch 256)."""
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

    def _counting_pack(self, counter: list[int]):
        storages = self._param_storages

        def pack(tensor: torch.Tensor) -> torch.Tensor:
            if tensor.untyped_storage().data_ptr() not in storages:
                counter[0] += tensor.numel() * tensor.element_size()
            return tensor

        return pack


def _unpack(tensor: torch.Tensor) -> torch.Tensor:
    return tensor
