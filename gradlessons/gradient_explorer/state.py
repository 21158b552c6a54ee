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

A :class:`Guide` walks a student through the lesson's main experiment, one step
at a time: each :class:`GuideStep` has a prompt (what to click), a predicate over
the state (has it been done?) and a "what to look at" message built from the real
values once it has. The state checks the guide after every action.

Every sentence a student reads is translated (``gradlessons.i18n``) when it is written: a note when
its action runs, the guide's steps when the state is built.  The actions' names are code and stay.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import torch

from gradlessons.formatting import format_value
from gradlessons.guide import Guide, GuideStep, localized
from gradlessons.i18n import N_, _, pgettext

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

START_LABEL = "start"  # the first record's action (an identity: shown through ``shown_action``)
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
        grad_before: ``w.grad`` just before the action (``None`` for ``start``).
        weight_before: ``w`` just before the action (its start value for ``start``).
    """

    index: int
    action: str
    grad: float | None
    weight: float
    loss: float
    is_clear: bool
    note: str
    grad_before: float | None = None
    weight_before: float | None = None

    def log_line(self) -> str:
        """One numbered, human-readable line for the action log."""
        return f"{self.index:>3}. {shown_action(self.action):<40} {self.note}"


def shown_action(action: str) -> str:
    """An action as a student reads it: the code it ran, or the translated word for the start."""
    # i18n: the first line of the explorer's log and plot: the state before any action
    return pgettext("gradient explorer action", "start") if action == START_LABEL else action


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
            raise ValueError(_("max_history must be at least 1, got {value}").format(value=max_history))
        if len(xs) != len(ys) or not xs:
            raise ValueError(_("xs and ys must be non-empty and of the same length"))
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
        #: The guided sequence; checked after every action (see :class:`Guide`).
        self.guide = Guide(guide_steps())
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

    def loss_at(self, weight: float) -> float:
        """The loss at any ``weight``, computed on a separate tensor (``w`` is not touched)."""
        with torch.no_grad():
            return float(((weight * self.xs - self.ys) ** 2).mean().item())

    def gradient_at(self, weight: float) -> float:
        """The gradient of ONE loss at ``weight``, from ``torch.autograd.grad`` on a separate
        tensor: ``w.grad`` is neither read nor changed."""
        v = torch.tensor(float(weight), dtype=torch.float64, requires_grad=True)
        (grad,) = torch.autograd.grad(((v * self.xs - self.ys) ** 2).mean(), v)
        return float(grad.item())

    def log_lines(self) -> list[str]:
        """The history as numbered lines, oldest first, e.g. ``"  1. loss.backward() ..."``."""
        return [record.log_line() for record in self._history]

    # ------------------------------------------------------------------ actions

    def apply(self, name: str) -> Record:
        """Run the action called ``name`` (a key of :data:`ACTIONS`)."""
        if name not in ACTIONS:
            raise ValueError(
                _("unknown action {name}; expected one of {names}").format(name=repr(name), names=sorted(ACTIONS))
            )
        return getattr(self, name)()

    def backward(self) -> Record:
        """Forward pass, loss, then ``loss.backward()``: the gradient is *added* to ``w.grad``."""
        before = self.grad
        self.forward().backward()
        after = self.grad
        self.backward_count_since_clear += 1
        if before is None:
            note = _("backward() stored {value} in w.grad (it was None, so there was nothing to add to)").format(
                value=format_value(after)
            )
        elif before != 0.0:
            note = _("backward() added {added} to w.grad: it was {before}, now {after} (accumulated)").format(
                added=format_value(after - before), before=format_value(before), after=format_value(after)
            )
        else:
            note = _("backward() added {added} to w.grad: it was {before}, now {after}").format(
                added=format_value(after - before), before=format_value(before), after=format_value(after)
            )
        return self._record(ACTIONS["backward"], is_clear=False, note=note, grad_before=before)

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
            note = _(
                "step() moved w from {before} to {after} (w -= lr * w.grad, with lr = {lr} and w.grad = {grad})"
            ).format(
                before=format_value(before),
                after=format_value(after),
                lr=format_value(self.lr),
                grad=format_value(grad),
            )
        elif grad is None:
            note = _("step() saw w.grad = None and left w unchanged (SGD skips it)")
        else:
            note = _("step() used w.grad = {grad}, so w stayed at {weight}").format(
                grad=format_value(grad), weight=format_value(after)
            )
        return self._record(ACTIONS["step"], is_clear=False, note=note, grad_before=grad, weight_before=before)

    def reset(self) -> Record:
        """Back to the initial weight, no gradient, a fresh optimizer and a new history.

        A guide in progress starts again from its first step (its steps build on the
        starting point); a finished or skipped guide stays as it is.
        """
        with torch.no_grad():
            self.w.fill_(self.w0)
        self.w.grad = None
        # A fresh optimizer, so nothing it remembers (e.g. momentum, if ever enabled)
        # survives the reset.
        self.optimizer = torch.optim.SGD([self.w], lr=self.lr)
        self.backward_count_since_clear = 0
        self._history.clear()
        self._next_index = 0
        if not self.guide.finished:
            self.guide.restart()
        return self._record(START_LABEL, is_clear=False, note=self._start_note())

    # ------------------------------------------------------------------ the guide

    def restart_guide(self) -> Record:
        """Start over (as :meth:`reset`) and follow the guide again from step 1."""
        self.guide.restart()
        return self.reset()

    def skip_guide_step(self) -> None:
        """Move the guide on without doing its current step; the buttons keep working as before."""
        self.guide.skip()

    # ------------------------------------------------------------------ helpers

    def _clear(self, name: str, call: str, run) -> Record:
        """Run one of the clearing calls and describe what it really did to ``w.grad``."""
        before = self.grad
        run()
        after = self.grad  # read back: never assume what PyTorch did
        self.backward_count_since_clear = 0
        note = _describe_clear(name, call, before, after)
        return self._record(ACTIONS[name], is_clear=True, note=note, grad_before=before)

    def _start_note(self) -> str:
        return _("start: w = {weight} and w.grad is None because no backward() has run yet").format(
            weight=format_value(self.weight)
        )

    def _record(
        self,
        action: str,
        *,
        is_clear: bool,
        note: str,
        grad_before: float | None = None,
        weight_before: float | None = None,
    ) -> Record:
        record = Record(
            index=self._next_index,
            action=action,
            grad=self.grad,
            weight=self.weight,
            loss=self.loss_value(),
            is_clear=is_clear,
            note=note,
            grad_before=grad_before,
            # Only step() moves w, so for every other action w before is w after.
            weight_before=self.weight if weight_before is None else weight_before,
        )
        self._next_index += 1
        self._history.append(record)
        if action != START_LABEL:
            self.guide.observe(self, action=action)
        return record


def _describe_clear(name: str, call: str, before: float | None, after: float | None) -> str:
    """One sentence on what a clearing call did, from the values seen before and after it."""
    was, now = format_value(before), format_value(after)
    if name == "grad_to_none":
        if before is None:
            return _("w.grad was already None, so w.grad = None changed nothing")
        return _("w.grad = None dropped the gradient tensor ({was}); w.grad is now None").format(was=was)
    # i18n: {call} is the code that ran, e.g. "zero_grad(set_to_none=True)"
    if before is None and after is None:
        return _("{call} found w.grad = None and left it None (there was nothing to clear)").format(call=call)
    if before is None:
        return _("{call} turned w.grad from None into {now}").format(call=call, now=now)
    # For the plain zero_grad() the default of set_to_none is inferred from what
    # really happened, not from a hard-coded PyTorch version.
    if after is None:
        if name == "zero_grad":
            return _("{call} replaced w.grad ({was}) with None, so its default here is set_to_none=True").format(
                call=call, was=was
            )
        return _("{call} replaced w.grad ({was}) with None").format(call=call, was=was)
    if name == "zero_grad":
        return _("{call} filled w.grad with {now} (it was {was}), so its default here is set_to_none=False").format(
            call=call, now=now, was=was
        )
    return _("{call} filled w.grad with {now} (it was {was})").format(call=call, now=now, was=was)


# ---------------------------------------------------------------------- the guide


def _last(state: GradExplorerState) -> Record:
    return state.history[-1]


def _times(total: float, one: float) -> int | None:
    """``n`` when ``total`` is ``n`` times ``one`` (n >= 1), else ``None``."""
    if one == 0.0:
        return None
    n = round(total / one)
    return n if n >= 1 and abs(total - n * one) <= 1e-9 * max(1.0, abs(total)) else None


def _look_piled_up(state: GradExplorerState) -> str:
    grad, n = state.grad, state.backward_count_since_clear
    one = state.gradient_at(state.weight)
    g, w = format_value(grad), format_value(state.weight)
    if _times(grad, one) == n:
        return _(
            "`w.grad` is {grad}: {n} times {one}, the gradient of one `backward()` at w = {weight}. "
            "Each `backward()` added to `.grad`; none replaced it."
        ).format(grad=g, n=n, one=format_value(one), weight=w)
    return _(
        "`w.grad` is {grad}: the sum of the {n} gradients computed since the last clear. `backward()` adds to `.grad`."
    ).format(grad=g, n=n)


def _look_big_step(state: GradExplorerState) -> str:
    record = _last(state)
    before, after, grad = record.weight_before, record.weight, record.grad
    text = _("`step()` moved w from {before} to {after}: it used everything in `w.grad` ({grad}).").format(
        before=format_value(before), after=format_value(after), grad=format_value(grad)
    )
    n = _times(grad, state.gradient_at(before))
    if n is not None and n > 1:
        best = state.optimum
        if min(before, after) < best < max(before, after):
            more = _(
                "That is {n} gradients' worth: a step {n} times as long as one gradient asks for, "
                "so w overshot the best value {best}."
            ).format(n=n, best=format_value(best))
        else:
            more = _("That is {n} gradients' worth: a step {n} times as long as one gradient asks for.").format(n=n)
        text += " " + more
    return text


def _look_cleared(state: GradExplorerState) -> str:
    record = _last(state)
    if record.grad is None:
        # i18n: {call} is the code that cleared the gradient, e.g. "optimizer.zero_grad()"
        return _(
            "`w.grad` is None (the hollow circle in the grey band): `{call}` dropped the old "
            "gradient, so nothing stale is left for the next `backward()` to add to."
        ).format(call=record.action)
    return _(
        "`w.grad` is {grad} (the orange diamond): `{call}` kept the tensor "
        "and filled it with zeros, so nothing stale is left for the next `backward()`."
    ).format(grad=format_value(record.grad), call=record.action)


def _look_fresh(state: GradExplorerState) -> str:
    grad, w = state.grad, state.weight
    text = _("`w.grad` is {grad}: exactly the gradient at w = {weight}, with nothing old added.").format(
        grad=format_value(grad), weight=format_value(w)
    )
    if grad > 0:
        text += " " + _("It is positive because w is above the best value, so a step will move w down.")
    elif grad < 0:
        text += " " + _("It is negative because w is below the best value, so a step will move w up.")
    return text


def _look_clean_step(state: GradExplorerState) -> str:
    record = _last(state)
    before, after = record.weight_before, record.weight
    return _(
        "w moved from {before} to {after} and the loss fell from {loss_before} to {loss_after}, using this "
        "gradient only. The clear came after the last `step()` and before this step's first `backward()`: "
        "anywhere there gives this same step, "
        "and clearing first in each step also removes anything left in `.grad` before training."
    ).format(
        before=format_value(before),
        after=format_value(after),
        loss_before=format_value(state.loss_at(before)),
        loss_after=format_value(record.loss),
    )


def _look_zeros(state: GradExplorerState) -> str:
    return _(
        "`w.grad` is 0.0 (an orange diamond on the zero line), not None: a tensor full of zeros still exists. "
        "Both are clean starts: the next `backward()` adds into the zeros, or, after None, stores a new tensor. "
        "Plain `zero_grad()` leaves None because that is cheaper: no tensor kept, no zeros written."
    )


def guide_steps() -> list[GuideStep]:
    """The lesson's guided sequence: pile up gradients, take a too-long step, clear, take a clean one
    (in today's language: the state calls this when it is built)."""
    return localized(GUIDE_STEPS)


_CLEARS = tuple(ACTIONS[n] for n in ("zero_grad", "zero_grad_set_to_none", "zero_grad_fill_zeros", "grad_to_none"))

#: The guided sequence's steps in English (msgids); :func:`guide_steps` translates them.
GUIDE_STEPS: tuple[GuideStep, ...] = (
    GuideStep(
        N_("Click `loss.backward()` three times and watch `w.grad`."),
        lambda s: _last(s).action == ACTIONS["backward"] and s.backward_count_since_clear >= 3,
        _look_piled_up,
        asks=N_("click `loss.backward()` three times"),
        actions=(ACTIONS["backward"],),
    ),
    GuideStep(
        N_("Now click `optimizer.step()`."),
        lambda s: _last(s).action == ACTIONS["step"] and _last(s).weight != _last(s).weight_before,
        _look_big_step,
        asks=N_("click `optimizer.step()`"),
    ),
    GuideStep(
        N_("Now clear the gradient: click `optimizer.zero_grad()`."),
        lambda s: _last(s).is_clear,
        _look_cleared,
        asks=N_("clear the gradient with `optimizer.zero_grad()`"),
        actions=_CLEARS,
    ),
    GuideStep(
        N_("Click `loss.backward()` once."),
        lambda s: _last(s).action == ACTIONS["backward"] and s.backward_count_since_clear == 1,
        _look_fresh,
        asks=N_("click `loss.backward()` once"),
    ),
    GuideStep(
        N_("Click `optimizer.step()` again."),
        lambda s: (
            _last(s).action == ACTIONS["step"]
            and _last(s).weight != _last(s).weight_before
            and s.backward_count_since_clear == 1
        ),
        _look_clean_step,
        asks=N_("click `optimizer.step()`"),
    ),
    GuideStep(
        N_(
            "Last: click `zero_grad(set_to_none=False)`. Then compare `w.grad` with what plain "
            "`optimizer.zero_grad()` left in guide step 3."
        ),
        lambda s: _last(s).action == ACTIONS["zero_grad_fill_zeros"] and s.grad == 0.0,
        _look_zeros,
        asks=N_("click `zero_grad(set_to_none=False)`"),
    ),
)
