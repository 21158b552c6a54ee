"""Judging derivative: the returned slope against the judge's own autograd in float64; the calls of f
the job saw (how many, on what) name a finite difference or a forgotten requires_grad."""

from __future__ import annotations

import math

import torch

from ..exercises._lesson2 import SCALAR_FUNCTIONS
from ..exercises.derivative import MAX_CALLS, NAME, Point
from ..verdict import Verdict, first_failure, returned_kind
from ._lesson2 import argument_spec, returned_spec
from .validate import Fields, ListOf, Number, Optional, Tensor

NO_GRAD = "does not require grad and does not have a grad_fn"
RTOL, ATOL = 1e-4, 1e-6
NOT_FINITE = "wrong_value"


def schema(scenario: Point):
    return Fields(
        {
            "calls": ListOf(argument_spec(), max_length=MAX_CALLS),
            "n_calls": Number(integer=True),
            "returned": returned_spec(),
            "arg_grads": ListOf(Optional(Tensor(finite=False)), max_length=MAX_CALLS),
        }
    )


def reference(scenario: Point) -> float:
    """The true derivative, by autograd in float64, in the grader's own process."""
    t = torch.tensor(scenario.x, dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(SCALAR_FUNCTIONS[scenario.function](t), t)
    return grad.item()


def explain_error(error: dict, scenario=None) -> Verdict | None:
    if NO_GRAD in error["message"]:
        return Verdict(NAME, "no_requires_grad", MESSAGES["no_requires_grad"])
    return None


def judge(scenarios: list[Point], observations: list[dict]) -> Verdict:
    return first_failure(NAME, scenarios, observations, _judge_one, MESSAGES["ok"])


def _close(a: float, b: float) -> bool:
    return math.isfinite(a) and math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL)


def _judge_one(scenario: Point, obs: dict) -> Verdict | None:
    calls, n_calls = obs["calls"], max(obs["n_calls"], len(obs["calls"]))
    tracked = [c for c in calls if c["requires_grad"]]
    where = f" (f(x) = {scenario.function}, x = {scenario.x:g})"
    if n_calls > 1 and not tracked:
        return Verdict(NAME, "finite_difference", MESSAGES["finite_difference"].format(n=n_calls))
    if n_calls > 1:
        return Verdict(NAME, "too_many_calls", MESSAGES["too_many_calls"].format(n=n_calls))
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
    "ok": "Correct: the exact slope as a float, from autograd and a single call of f.",
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
