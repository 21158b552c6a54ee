"""The model behind the lesson 3 gradient explorer.

``GradExplorerState`` owns a real, tiny PyTorch training setup and a history of
what each action did to ``w.grad`` and ``w``. It knows nothing about widgets or
plots, so it can be driven from plain Python (and from the tests) exactly as the
buttons drive it.

The setup is chosen so that the numbers are easy to read::

    data   x = [-2, 2],  y = [-2, 2]          (the best weight is w = 1)
    model  prediction = w * x,  w starts at 0.0
    loss   mean((w * x - y) ** 2) = 4 * (w - 1) ** 2
    grad   d loss / d w = 8 * (w - 1)          (so -8.0 at the start)
    SGD    lr = 0.05                           (one step with grad -8.0 moves w by +0.4)

Every action calls the real PyTorch API and then *reads* ``w.grad`` back, so the
history shows what this PyTorch version actually does (for example whether the
default ``optimizer.zero_grad()`` leaves ``None`` or a tensor of zeros).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import torch

from gradlessons.formatting import format_value

#: Every action of the explorer, in button order: method name -> the code it runs.
ACTIONS: dict[str, str] = {
    "backward": "loss.backward()",
    "step": "optimizer.step()",
    "zero_grad": "optimizer.zero_grad()",
    "zero_grad_set_to_none": "optimizer.zero_grad(set_to_none=True)",
    "zero_grad_fill_zeros": "optimizer.zero_grad(set_to_none=False)",
    "grad_to_none": "w.grad = None",
    "reset": "reset",
}

#: The actions that clear the gradient (one way or another).
CLEAR_ACTIONS = frozenset({"zero_grad", "zero_grad_set_to_none", "zero_grad_fill_zeros", "grad_to_none"})

START_LABEL = "start"
DEFAULT_MAX_HISTORY = 200


@dataclass(frozen=True)
class Record:
    """What the explorer looked like right after one action.

    Attributes:
        index: Action number, counted from 0 (the ``start`` record) since the
            last reset. It keeps counting when old records are dropped.
        action: The action as the code a student would write, e.g.
            ``"optimizer.zero_grad(set_to_none=False)"``, or ``"start"``.
        grad: ``w.grad`` as a Python float, or ``None`` when ``w.grad is None``.
            ``None`` and ``0.0`` are different states and are kept apart.
        weight: The value of ``w``.
        loss: The loss at the current ``w``.
        is_clear: True for the four ways of clearing the gradient.
        note: One sentence, built from the real values, saying what happened.
    """

    index: int
    action: str
    grad: float | None
    weight: float
    loss: float
    is_clear: bool
    note: str

    def log_line(self) -> str:
        """One numbered, human-readable line for the action log."""
        return f"{self.index:>3}. {self.action:<40} {self.note}"


class GradExplorerState:
    """A real one-parameter PyTorch setup whose ``.grad`` the student pokes at.

    Each action method performs the genuine PyTorch call on ``self.w`` and
    ``self.optimizer`` and appends one :class:`Record` to :attr:`history`.

    The history keeps at most ``max_history`` records (200 by default): older
    records are dropped first, so clicking forever does not grow memory. Record
    indices keep counting, so the log numbering and the plot's x axis stay
    consistent after records were dropped.

    Args:
        w0: Initial weight.
        lr: SGD learning rate.
        xs: Inputs of the fixed data set.
        ys: Targets of the fixed data set.
        max_history: Maximum number of records kept (at least 1).
    """

    def __init__(
        self,
        w0: float = 0.0,
        lr: float = 0.05,
        xs: tuple[float, ...] = (-2.0, 2.0),
        ys: tuple[float, ...] = (-2.0, 2.0),
        max_history: int = DEFAULT_MAX_HISTORY,
    ) -> None:
        if max_history < 1:
            raise ValueError(f"max_history must be at least 1, got {max_history}")
        if len(xs) != len(ys) or not xs:
            raise ValueError("xs and ys must be non-empty and of the same length")
        self.w0 = float(w0)
        self.lr = float(lr)
        self.max_history = int(max_history)
        # float64 so that the printed numbers are exact enough to read (-8.0, 0.4).
        self.xs = torch.tensor(xs, dtype=torch.float64)
        self.ys = torch.tensor(ys, dtype=torch.float64)
        self.w = torch.nn.Parameter(torch.tensor(self.w0, dtype=torch.float64))
        self.optimizer = torch.optim.SGD([self.w], lr=self.lr)
        self.backward_count_since_clear = 0
        self._history: deque[Record] = deque(maxlen=self.max_history)
        self._next_index = 0
        self._record(START_LABEL, is_clear=False, note=self._start_note())

    # ------------------------------------------------------------------ reading

    @property
    def grad(self) -> float | None:
        """The current ``w.grad`` as a float, or ``None``."""
        return None if self.w.grad is None else float(self.w.grad.item())

    @property
    def weight(self) -> float:
        """The current value of ``w``."""
        return float(self.w.detach().item())

    @property
    def history(self) -> tuple[Record, ...]:
        """The kept records, oldest first (a snapshot; changing it changes nothing)."""
        return tuple(self._history)

    @property
    def optimum(self) -> float:
        """The weight with the smallest loss, ``sum(x*y) / sum(x*x)``."""
        return float((self.xs * self.ys).sum() / (self.xs * self.xs).sum())

    def forward(self) -> torch.Tensor:
        """The loss at the current ``w``, with a graph so that it can be backpropagated."""
        return ((self.w * self.xs - self.ys) ** 2).mean()

    def loss_value(self) -> float:
        """The loss at the current ``w`` as a float (builds no graph)."""
        with torch.no_grad():
            return float(self.forward().item())

    def log_lines(self) -> list[str]:
        """The history as numbered lines, oldest first, e.g. ``"  1. loss.backward() ..."``."""
        return [record.log_line() for record in self._history]

    # ------------------------------------------------------------------ actions

    def apply(self, name: str) -> Record:
        """Run the action called ``name`` (a key of :data:`ACTIONS`)."""
        if name not in ACTIONS:
            raise ValueError(f"unknown action {name!r}; expected one of {sorted(ACTIONS)}")
        return getattr(self, name)()

    def backward(self) -> Record:
        """Forward pass, loss, then ``loss.backward()``: the gradient is *added* to ``w.grad``."""
        before = self.grad
        self.forward().backward()
        after = self.grad
        self.backward_count_since_clear += 1
        if before is None:
            note = f"backward() stored {format_value(after)} in w.grad (it was None, so there was nothing to add to)"
        else:
            added = format_value(after - before)
            note = f"backward() added {added} to w.grad: it was {format_value(before)}, now {format_value(after)}"
            if before != 0.0:
                note += " (accumulated)"
        return self._record(ACTIONS["backward"], is_clear=False, note=note)

    def zero_grad(self) -> Record:
        """``optimizer.zero_grad()`` with PyTorch's own default for ``set_to_none``."""
        return self._clear("zero_grad", "zero_grad()", self.optimizer.zero_grad)

    def zero_grad_set_to_none(self) -> Record:
        """``optimizer.zero_grad(set_to_none=True)``: drop the gradient tensor."""
        return self._clear(
            "zero_grad_set_to_none",
            "zero_grad(set_to_none=True)",
            lambda: self.optimizer.zero_grad(set_to_none=True),
        )

    def zero_grad_fill_zeros(self) -> Record:
        """``optimizer.zero_grad(set_to_none=False)``: keep the tensor, fill it with 0."""
        return self._clear(
            "zero_grad_fill_zeros",
            "zero_grad(set_to_none=False)",
            lambda: self.optimizer.zero_grad(set_to_none=False),
        )

    def grad_to_none(self) -> Record:
        """``w.grad = None``: the manual way to forget the gradient."""

        def assign_none() -> None:
            self.w.grad = None

        return self._clear("grad_to_none", "w.grad = None", assign_none)

    def step(self) -> Record:
        """``optimizer.step()``: ``w -= lr * w.grad``, skipped when ``w.grad`` is None."""
        grad = self.grad
        before = self.weight
        self.optimizer.step()
        after = self.weight
        if after != before:
            note = (
                f"step() moved w from {format_value(before)} to {format_value(after)} "
                f"(w -= lr * w.grad, with lr = {format_value(self.lr)} "
                f"and w.grad = {format_value(grad)})"
            )
        elif grad is None:
            note = "step() saw w.grad = None and left w unchanged (SGD skips it)"
        else:
            note = f"step() used w.grad = {format_value(grad)}, so w stayed at {format_value(after)}"
        return self._record(ACTIONS["step"], is_clear=False, note=note)

    def reset(self) -> Record:
        """Back to the initial weight, no gradient, a fresh optimizer and a new history."""
        with torch.no_grad():
            self.w.fill_(self.w0)
        self.w.grad = None
        # A fresh optimizer, so no state (e.g. momentum buffers, if ever enabled)
        # survives the reset.
        self.optimizer = torch.optim.SGD([self.w], lr=self.lr)
        self.backward_count_since_clear = 0
        self._history.clear()
        self._next_index = 0
        return self._record(START_LABEL, is_clear=False, note=self._start_note())

    # ------------------------------------------------------------------ helpers

    def _clear(self, name: str, call: str, run) -> Record:
        """Run one of the clearing calls and describe what it really did to ``w.grad``."""
        before = self.grad
        run()
        after = self.grad  # read back: never assume what PyTorch did
        self.backward_count_since_clear = 0
        note = _describe_clear(name, call, before, after)
        return self._record(ACTIONS[name], is_clear=True, note=note)

    def _start_note(self) -> str:
        return f"start: w = {format_value(self.weight)} and w.grad is None because no backward() has run yet"

    def _record(self, action: str, *, is_clear: bool, note: str) -> Record:
        record = Record(
            index=self._next_index,
            action=action,
            grad=self.grad,
            weight=self.weight,
            loss=self.loss_value(),
            is_clear=is_clear,
            note=note,
        )
        self._next_index += 1
        self._history.append(record)
        return record


def _describe_clear(name: str, call: str, before: float | None, after: float | None) -> str:
    """One sentence on what a clearing call did, from the values seen before and after it."""
    was, now = format_value(before), format_value(after)
    if name == "grad_to_none":
        if before is None:
            return "w.grad was already None, so w.grad = None changed nothing"
        return f"w.grad = None dropped the gradient tensor ({was}); w.grad is now None"
    if before is None and after is None:
        return f"{call} found w.grad = None and left it None (there was nothing to clear)"
    if before is None:
        return f"{call} turned w.grad from None into {now}"
    # For the plain zero_grad() the default of set_to_none is inferred from what
    # really happened, not from a hard-coded PyTorch version.
    if after is None:
        default = ", so its default here is set_to_none=True" if name == "zero_grad" else ""
        return f"{call} replaced w.grad ({was}) with None{default}"
    default = ", so its default here is set_to_none=False" if name == "zero_grad" else ""
    return f"{call} filled w.grad with {now} (it was {was}){default}"
