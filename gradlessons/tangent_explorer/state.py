"""The model behind the lesson 2 tangent explorer.

``TangentExplorerState`` holds a function of one number, a point ``x`` and a real leaf tensor
``t = torch.tensor(x, requires_grad=True)``. Choosing a function or a point builds a fresh leaf
and runs a genuine ``f(t).backward()``: the slope of the tangent line is ``t.grad``, read back
from PyTorch. ``backward_again()`` builds the graph once more on the *same* leaf and calls
``backward()`` without clearing ``t.grad``, so the stored slope becomes 2, 3, 4... times the
derivative, which is what lesson 3 is about.

``Guide`` is the explorer's short guided tour: a few steps, each a prompt (what to do), a check over
the state (has the student done it?) and a message built from the real numbers (what to look at).
The state checks the current step after every action, so the tour moves on by itself; the free
controls work the same whether the tour is running, skipped or finished.

No widget or plotting code lives here, so the state can be driven and tested from plain Python.

Language: :data:`GUIDE_TEMPLATES` and the functions' labels are English msgids, translated when a state is
built (the guide) or read (``label``), never at import.  The guide's last step quotes the button
"backward() again without clearing" through ``{again}``, filled with that button's translated label.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from gradlessons.formatting import format_value
from gradlessons.guide import Guide, GuideStep, filled, localized
from gradlessons.i18n import N_, _


@dataclass(frozen=True)
class Function:
    """A function of a scalar tensor with a label for people."""

    label: str
    fn: Callable[[torch.Tensor], torch.Tensor]


#: The dropdown's functions, in order: key -> Function.
FUNCTIONS: dict[str, Function] = {
    "square": Function("x²", lambda t: t**2),
    "sin": Function("sin x", torch.sin),
    "cubic": Function("x³ − 2x", lambda t: t**3 - 2 * t),
    "gauss": Function("exp(−x²)", lambda t: torch.exp(-(t**2))),
    # i18n: a menu entry: a function shaped like ReLU (a kink at 0)
    "relu_ish": Function(N_("ReLU-ish: max(0, x) + 0.2·x"), lambda t: torch.relu(t) + 0.2 * t),
}
# i18n: the button that runs backward() once more on the same point, without clearing .grad
AGAIN = N_("backward() again without clearing")

X_RANGE = (-2.5, 2.5)
DEFAULT_FUNCTION = "square"
DEFAULT_X = 1.0
FD_EPS = 1e-3
AT_ZERO = 1e-9  # a point this close to 0 is taken as 0.0 (a slider's float steps need not hit 0.0 exactly)


def _flat_parabola(state: TangentExplorerState) -> str:
    return _(
        "At x = 0, backward() gives slope {slope}: the bottom of the parabola, "
        "where 2x = 0. Each position of the slider built a fresh t and ran one real backward()."
    ).format(slope=format_value(state.true_slope))


def _flat_cubic(state: TangentExplorerState) -> str:
    return _(
        "At x = {x}, backward() gives slope {slope}: near one of "
        "the two flat points x = ±0.82, where 3x² − 2 = 0. The explorer has no formula for the slope: "
        "backward() found it."
    ).format(x=f"{state.x:.2f}", slope=format_value(round(state.true_slope, 4)))


def _kink(state: TangentExplorerState) -> str:
    return _(
        "Left of 0 the slope is 0.2, right of it 1.2. Exactly at the kink, backward() gives "
        "{slope} (PyTorch takes ReLU's slope at 0 to be 0), while the finite "
        "difference straddles the kink and averages the two sides: {finite}."
    ).format(slope=format_value(state.true_slope), finite=f"{state.finite_difference_slope():.4f}")


def _accumulated(state: TangentExplorerState) -> str:
    # i18n: {tangent} is a clause about the red dashed tangent ("so the red dashed tangent is wrong")
    return _(
        "t.grad now holds {held} = {calls} × the slope "
        "{slope}: each backward() adds to .grad, {tangent}. "
        "Lesson 3 is about clearing .grad."
    ).format(
        held=format_value(state.held_slope),
        calls=state.backward_calls,
        slope=format_value(state.true_slope),
        tangent=state.wrong_tangent_words(),
    )


#: The tour of the tangent explorer: a flat tangent, a flat point found by autograd alone, a kink,
#: and gradients that pile up (English msgids: a state translates them when it is built).
GUIDE_TEMPLATES: tuple[GuideStep, ...] = (
    GuideStep(
        N_(
            "With f(x) = x², move the x slider (or type a number into its box) until the green tangent "
            "is flat (slope 0)."
        ),
        lambda s: s.function == "square" and s.x == 0.0,
        _flat_parabola,
        asks=N_("choose f(x) = x² and move x until the tangent is flat"),
        actions=("function", "x", "point"),
    ),
    GuideStep(
        N_("Choose x³ − 2x in the menu, then move x until its tangent is nearly flat (slope between −0.2 and 0.2)."),
        lambda s: s.function == "cubic" and abs(s.true_slope) < 0.2,
        _flat_cubic,
        asks=N_("choose x³ − 2x and move x until its tangent is nearly flat"),
        actions=("function", "x", "point"),
    ),
    GuideStep(
        N_("Choose the ReLU-ish function and move x across 0 (watch the slope jump), then stop exactly at x = 0."),
        lambda s: s.function == "relu_ish" and s.x == 0.0,
        _kink,
        asks=N_("choose the ReLU-ish function and move x to exactly 0"),
        actions=("function", "x", "point"),
    ),
    GuideStep(
        N_("Click “{again}” three times, and watch t.grad and the red tangent."),
        lambda s: s.backward_calls >= 4,
        _accumulated,
        asks=N_("click “{again}” three times"),
        actions=("backward_again",),
    ),
)
#: The tour as an English explorer shows it (its placeholders filled with the English labels).
GUIDE_STEPS: tuple[GuideStep, ...] = filled(GUIDE_TEMPLATES, again=AGAIN)


class TangentExplorerState:
    """A function, a point and the gradients that real ``backward()`` calls left in ``t.grad``.

    Attributes:
        function: Key of :data:`FUNCTIONS` currently shown.
        x: The point (a Python float).
        t: The leaf tensor at ``x`` whose ``.grad`` is read.
        grad_history: ``t.grad`` after each ``backward()`` on this leaf since it was created
            (the first entry is the true derivative; later ones come from ``backward_again``).
        guide: The guided tour; checked after every action, so it moves on by itself.
    """

    def __init__(self, function: str = DEFAULT_FUNCTION, x: float = DEFAULT_X) -> None:
        self.function = DEFAULT_FUNCTION
        self.x = DEFAULT_X
        self.t = torch.tensor(0.0)
        self.grad_history: list[float] = []
        self._build(function, x)
        # Made after the first point, so that a state created at a step's goal does not count as done.
        self.guide = Guide(localized(GUIDE_TEMPLATES, again=_(AGAIN)))

    # ---------------------------------------------------------------- actions

    def set_function(self, function: str) -> None:
        """Choose another function; x stays, the gradient starts afresh."""
        self.set_point(function, self.x, action="function")

    def set_x(self, x: float) -> None:
        """Move to another point; the gradient starts afresh."""
        self.set_point(self.function, x, action="x")

    def set_point(self, function: str, x: float, action: str | None = "point") -> None:
        self._build(function, x)
        self.guide.observe(self, action=action)

    def backward_again(self) -> None:
        """Build f(t) again and call backward() without clearing t.grad: the gradients add up."""
        self._backward()
        self.guide.observe(self, action="backward_again")

    def reset(self) -> None:
        """Back to the default function and point, with a fresh leaf (the guide stays where it is)."""
        self.set_point(DEFAULT_FUNCTION, DEFAULT_X, action=None)  # starting over is never off-script

    def skip_guide_step(self) -> None:
        """Skip the guide's current step."""
        self.guide.skip(self)  # the next step may already be done

    def restart_guide(self) -> None:
        """Start the tour again from the default function and point."""
        self._build(DEFAULT_FUNCTION, DEFAULT_X)
        self.guide.restart()

    def _build(self, function: str, x: float) -> None:
        if function not in FUNCTIONS:
            raise ValueError(
                _("unknown function {name}; choose from {names}").format(
                    name=repr(function), names=", ".join(FUNCTIONS)
                )
            )
        low, high = X_RANGE
        if not low <= float(x) <= high:
            raise ValueError(_("x must lie in [{low}, {high}], got {x}").format(low=low, high=high, x=x))
        self.function, self.x = function, 0.0 if abs(float(x)) < AT_ZERO else float(x)
        # A brand-new leaf: its .grad is None until the backward() below.
        self.t = torch.tensor(self.x, dtype=torch.float64, requires_grad=True)
        self.grad_history = []
        self._backward()

    def _backward(self) -> None:
        y = self.f(self.t)
        y.backward()
        self.grad_history.append(self.t.grad.item())

    # ---------------------------------------------------------------- reading

    @property
    def f(self) -> Callable[[torch.Tensor], torch.Tensor]:
        return FUNCTIONS[self.function].fn

    @property
    def label(self) -> str:
        """The function's label in today's language."""
        return _(FUNCTIONS[self.function].label)

    @property
    def backward_calls(self) -> int:
        """backward() calls on the current leaf since it was created (never cleared)."""
        return len(self.grad_history)

    @property
    def true_slope(self) -> float:
        """The derivative at x: what the first backward() left in t.grad."""
        return self.grad_history[0]

    @property
    def held_slope(self) -> float:
        """What t.grad holds now (the true slope times the number of backward() calls)."""
        return self.t.grad.item()

    @property
    def value(self) -> float:
        with torch.no_grad():
            return self.f(torch.tensor(self.x, dtype=torch.float64)).item()

    def finite_difference_slope(self, eps: float = FD_EPS) -> float:
        """(f(x + eps) - f(x - eps)) / (2 eps), without autograd."""
        with torch.no_grad():
            up = self.f(torch.tensor(self.x + eps, dtype=torch.float64))
            down = self.f(torch.tensor(self.x - eps, dtype=torch.float64))
        return ((up - down) / (2 * eps)).item()

    def curve(self, n: int = 301) -> tuple[list[float], list[float]]:
        """The function over X_RANGE, for plotting."""
        xs = torch.linspace(*X_RANGE, n, dtype=torch.float64)
        with torch.no_grad():
            ys = self.f(xs)
        return xs.tolist(), ys.tolist()

    def tangent(self, slope: float, half_width: float = 1.2) -> tuple[list[float], list[float]]:
        """Two points of the line through (x, f(x)) with the given slope."""
        xs = [self.x - half_width, self.x + half_width]
        return xs, [self.value + slope * (u - self.x) for u in xs]

    def wrong_tangent_words(self) -> str:
        """What the red dashed tangent (drawn with the slope t.grad holds) shows, true of the picture:
        where the slope is 0, any multiple of it is 0 too, and the red line lies on the green one."""
        if self.held_slope == self.true_slope:
            return _(
                "but {calls} × 0 is still 0, so here the red dashed tangent lies on the green "
                "one (at another x it would be wrong)"
            ).format(calls=self.backward_calls)
        return _("so the red dashed tangent is wrong")

    def summary(self) -> str:
        """One or two sentences about what t.grad holds, built from the real numbers."""
        true, held = self.true_slope, self.held_slope
        text = _("f(x) = {function} at x = {x}: backward() gives slope {slope}; finite difference: {finite}.").format(
            function=self.label,
            x=format_value(round(self.x, 4)),
            slope=format_value(true),
            finite=f"{self.finite_difference_slope():.4f}",
        )
        if self.backward_calls > 1:
            text += " " + _(
                "After {calls} backward() calls without clearing, t.grad holds {held} = {calls} × the slope, {tangent}."
            ).format(calls=self.backward_calls, held=format_value(held), tangent=self.wrong_tangent_words())
        return text
