"""derivative(f, x) -> float: df/dx at the Python float x, with autograd (one call of f, backward)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import torch

from ..verdict import Verdict, first_failure, returned_kind
from ._lesson2 import SCALAR_FUNCTIONS, Recorder, returned

NAME = "derivative"

NO_GRAD = "does not require grad and does not have a grad_fn"
RTOL, ATOL = 1e-4, 1e-6


@dataclass(frozen=True)
class Point:
    """One call of the student's function: ``derivative(SCALAR_FUNCTIONS[function], x)``."""

    function: str
    x: float

    @property
    def name(self) -> str:
        return f"{self.function} at x={self.x:g}"


def suite(start: str = "all", seed: int = 0) -> list[Point]:
    """Smooth functions at random points, a steep one, and two kinks a finite difference gets wrong.

    ``start`` is accepted for the CLI's sake and ignored (there is no training state here)."""
    rng = random.Random(1000 + seed)
    smooth = ["square", "sin", "cubic", "gauss", "softplus_x"]
    rng.shuffle(smooth)
    return [
        Point(smooth[0], round(rng.uniform(-2, 2), 3)),
        Point(smooth[1], round(rng.uniform(-2, 2), 3)),
        Point(smooth[2], round(rng.uniform(0.2, 1.5), 3)),
        Point("steep", 0.3 + rng.choice((-1, 1)) * rng.uniform(0.005, 0.02)),
        # A kink 1e-5..4e-5 away: any finite-difference step of 1e-4 or more reaches across it.
        Point("abs_kink", rng.choice((-1, 1)) * rng.uniform(1e-5, 4e-5)),
        Point("relu_mix", 1.0 + rng.uniform(1e-5, 4e-5)),
    ]


def run(fn, scenario: Point) -> dict:
    """Call ``fn`` once with an instrumented function; record its calls and what it returned."""
    f = Recorder(SCALAR_FUNCTIONS[scenario.function], scenario.function)
    value = fn(f, scenario.x)
    grads = []
    for arg in f.arguments:
        grad = getattr(arg, "grad", None) if isinstance(arg, torch.Tensor) and arg.is_leaf else None
        grads.append(None if grad is None else grad.detach().double().clone())
    return {"calls": f.calls, "returned": returned(value), "arg_grads": grads}


def reference(scenario: Point) -> float:
    """The true derivative, by autograd in float64, in the grader's own process."""
    t = torch.tensor(scenario.x, dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(SCALAR_FUNCTIONS[scenario.function](t), t)
    return grad.item()


def explain_error(error: dict) -> Verdict | None:
    if NO_GRAD in error["message"]:
        return Verdict(NAME, "no_requires_grad", MESSAGES["no_requires_grad"])
    return None


def judge(scenarios: list[Point], observations: list[dict]) -> Verdict:
    return first_failure(NAME, scenarios, observations, _judge_one, MESSAGES["ok"])


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL)


def _judge_one(scenario: Point, obs: dict) -> Verdict | None:
    calls = obs["calls"]
    tracked = [c for c in calls if c["requires_grad"]]
    where = f" (f(x) = {scenario.function}, x = {scenario.x:g})"
    if len(calls) > 1 and not tracked:
        return Verdict(NAME, "finite_difference", MESSAGES["finite_difference"].format(n=len(calls)))
    if len(calls) > 1:
        return Verdict(NAME, "too_many_calls", MESSAGES["too_many_calls"].format(n=len(calls)))
    if len(calls) == 1 and not calls[0]["requires_grad"]:
        return Verdict(NAME, "no_requires_grad", MESSAGES["no_requires_grad"])
    ret = obs["returned"]
    if ret["is_tensor"] or ret["type"] not in ("float", "float64"):
        return Verdict(NAME, "wrong_type", MESSAGES["wrong_type"].format(kind=returned_kind(ret["type"])))
    expected, got = reference(scenario), ret["number"]
    if _close(got, expected):
        return None
    if not calls:
        return Verdict(NAME, "wrong_value", MESSAGES["never_called"] + where)
    seen = calls[0]["value"]
    if seen is None or not math.isclose(float(seen), scenario.x, rel_tol=1e-6, abs_tol=1e-9):
        return Verdict(NAME, "wrong_value", MESSAGES["wrong_point"] + where)
    value_at_x = SCALAR_FUNCTIONS[scenario.function](torch.tensor(scenario.x, dtype=torch.float64)).item()
    if _close(got, value_at_x):
        return Verdict(NAME, "wrong_value", MESSAGES["returns_f"] + where)
    return Verdict(NAME, "wrong_value", MESSAGES["wrong_value"].format(got=got, expected=expected) + where)


MESSAGES = {
    "ok": "Correct: one call of f on a tensor that requires grad, then backward(), and the slope as a float.",
    "finite_difference": (
        "Your function called f {n} times and never on a tensor that requires grad: that is a finite "
        "difference, close but not exact (and wrong next to a kink). Call f once on "
        "torch.tensor(x, requires_grad=True), then backward() and read .grad."
    ),
    "too_many_calls": (
        "Your function called f {n} times; one forward pass is enough: y = f(t), y.backward(), then t.grad."
    ),
    "no_requires_grad": (
        "The tensor you passed to f does not require grad, so backward() has nothing to differentiate: "
        "create it with torch.tensor(x, requires_grad=True) (and not inside torch.no_grad())."
    ),
    "wrong_type": ("Your function returned {kind}, not a Python float: return t.grad.item() (or float(t.grad))."),
    "never_called": "Your function never called f, so it cannot know its slope: compute y = f(t) and call backward().",
    "wrong_point": "f was called at another point than x: build the tensor from x itself.",
    "returns_f": "Your function returned f(x), the value of the function, not its slope: return the input's .grad.",
    "wrong_value": "Your function returned {got:.6g} but the derivative is {expected:.6g}.",
}
