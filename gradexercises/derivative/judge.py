"""Judging derivative: effects first.  The returned slope must be autograd's own number: the judge's
float64 autograd to rounding (``RTOL64``: honest float64 variants agree to the bit, the best
finite difference of any step misses by 1e-12 or more on some point of every suite), or a float32
number within the spread of the judge's own float32 autograd runs of the same point (0-d and
1-element tensors, ``backward()`` and ``autograd.grad``; at least one float32 ulp).  And the
recorder's notes must show it: f evaluated once, on a tensor that requires grad, and the very
number produced by a ``backward()`` or ``autograd.grad`` it watched.  The notes (how many calls of
f, on what) name a finite difference or a forgotten requires_grad; f itself keeps no notes."""

from __future__ import annotations

import math

import torch

from autograder.i18n import pgettext
from autograder.judge._lesson2 import contradiction, made_by_autograd, recorder_spec, returned_spec, tampered
from autograder.judge.texts import Texts
from autograder.judge.validate import Fields
from autograder.verdict import Verdict, first_failure, returned_kind
from gradebox.exercises._lesson2 import SCALAR_FUNCTIONS

from .job import NAME, Point

NO_GRAD = "does not require grad and does not have a grad_fn"
RTOL, ATOL = 1e-4, 1e-6  # "close": only to tell a wrong point or f(x) from another wrong number
RTOL64, ATOL64 = 1e-12, 1e-15  # autograd's float64 slope, to rounding
NOT_FINITE = "wrong_value"


def schema(scenario: Point):
    return Fields({"returned": returned_spec(), "autograd": recorder_spec()})


def reference(scenario: Point) -> float:
    """The true derivative, by autograd in float64, in the grader's own process."""
    t = torch.tensor(scenario.x, dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(SCALAR_FUNCTIONS[scenario.function](t), t)
    return grad.item()


def references32(scenario: Point) -> list[float]:
    """The slope as float32 autograd gives it, from the judge's own runs of the honest variants: a
    0-d and a 1-element tensor, through ``backward()`` and through ``autograd.grad``."""
    function, found = SCALAR_FUNCTIONS[scenario.function], []
    for shape in ((), (1,)):
        for use_backward in (True, False):
            t = torch.full(shape, scenario.x, dtype=torch.float32, requires_grad=True)
            y = function(t).sum()
            if use_backward:
                y.backward()
                found.append(t.grad.reshape(()).item())
            else:
                found.append(torch.autograd.grad(y, t)[0].reshape(()).item())
    return found


def _ulp32(value: float) -> float:
    v = torch.tensor(abs(value), dtype=torch.float32)
    return (torch.nextafter(v, torch.tensor(float("inf"))) - v).item()


def autograd_slope(scenario: Point, got: float) -> bool:
    """Is ``got`` the slope autograd gives, in float64 to rounding, or as a float32 number within
    the spread of the judge's own float32 runs (at least one ulp)?"""
    if not math.isfinite(got):
        return False
    if math.isclose(got, reference(scenario), rel_tol=RTOL64, abs_tol=ATOL64):
        return True
    if torch.tensor(got, dtype=torch.float32).item() != got:
        return False  # not a float32 number, and not float64 autograd's
    runs = references32(scenario)
    tolerance = max(max(runs) - min(runs), _ulp32(max(runs, key=abs)))
    return min(abs(got - r) for r in runs) <= tolerance


def explain_error(error: dict, scenario=None) -> Verdict | None:
    if NO_GRAD in error["message"]:
        return Verdict(NAME, "no_requires_grad", MESSAGES["no_requires_grad"])
    return None


def judge(scenarios: list[Point], observations: list[dict]) -> Verdict:
    return first_failure(NAME, scenarios, observations, _judge_one, MESSAGES["ok"])


def _close(a: float, b: float) -> bool:
    return math.isfinite(a) and math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL)


def _judge_one(scenario: Point, obs: dict) -> Verdict | None:
    notes = obs["autograd"]
    why = contradiction(notes)
    if why is not None:
        return tampered(NAME, why)
    calls, n_calls = notes["evaluations"], max(notes["n_evaluations"], len(notes["evaluations"]))
    tracked = [c for c in calls if c["requires_grad"]]

    def where(message: str) -> str:
        """The message with the point it is about after it."""
        # i18n: {message} is a whole diagnosis; f(x) and x are the exercise's own names, kept
        text = pgettext("derivative:at", "{message} (f(x) = {function}, x = {x})")
        return text.format(message=message, function=scenario.function, x=f"{scenario.x:g}")

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
    if not calls:
        return Verdict(NAME, "wrong_value", where(MESSAGES["never_called"]))
    if autograd_slope(scenario, got):
        if made_by_autograd(torch.tensor([got], dtype=torch.float64), notes):
            return None
        return tampered(NAME, MESSAGES["not_from_autograd"])
    seen = calls[0]["value"]
    if isinstance(seen, torch.Tensor):
        seen = seen.reshape(-1)[0].item() if seen.numel() == 1 else None
    if seen is None or not math.isclose(seen, scenario.x, rel_tol=1e-6, abs_tol=1e-9):
        return Verdict(NAME, "wrong_value", where(MESSAGES["wrong_point"]))
    if _close(got, expected):
        return Verdict(NAME, "wrong_value", where(MESSAGES["not_exact"].format(got=got, expected=expected)))
    value_at_x = SCALAR_FUNCTIONS[scenario.function](torch.tensor(scenario.x, dtype=torch.float64)).item()
    if _close(got, value_at_x):
        return Verdict(NAME, "wrong_value", where(MESSAGES["returns_f"]))
    return Verdict(NAME, "wrong_value", where(MESSAGES["wrong_value"].format(got=got, expected=expected)))


MESSAGES = Texts(
    {
        "ok": lambda: pgettext(
            "derivative:ok", "Correct: the exact slope as a float, from autograd and a single call of f."
        ),
        "finite_difference": (
            lambda: pgettext(
                "derivative:finite_difference",
                "Your function called f {n} times and never on a tensor that requires grad: that is a "
                "finite difference, close but not exact (and wrong next to a kink). Call f once on "
                "torch.tensor(x, requires_grad=True), then backward() and read .grad.",
            )
        ),
        "too_many_calls": (
            lambda: pgettext(
                "derivative:too_many_calls",
                "Your function called f {n} times; one forward pass is enough: y = f(t), y.backward(), then t.grad.",
            )
        ),
        "no_requires_grad": (
            lambda: pgettext(
                "derivative:no_requires_grad",
                "The tensor you passed to f does not require grad, so backward() has nothing to "
                "differentiate: create it with torch.tensor(x, requires_grad=True) (and not inside "
                "torch.no_grad()).",
            )
        ),
        "wrong_type": (
            lambda: pgettext(
                "derivative:wrong_type",
                "Your function returned {kind}, not a Python float: return t.grad.item() (or float(t.grad)).",
            )
        ),
        "never_called": lambda: pgettext(
            "derivative:never_called",
            "Your function never called f, so it cannot know its slope: compute y = f(t) and call backward().",
        ),
        "wrong_point": lambda: pgettext(
            "derivative:wrong_point", "f was called at another point than x: build the tensor from x itself."
        ),
        "returns_f": lambda: pgettext(
            "derivative:returns_f",
            "Your function returned f(x), the value of the function, not its slope: return the input's .grad.",
        ),
        "wrong_value": lambda: pgettext(
            "derivative:wrong_value", "Your function returned {got:.6g} but the derivative is {expected:.6g}."
        ),
        "not_exact": (
            lambda: pgettext(
                "derivative:not_exact",
                "Your function returned {got:.17g}, close to the derivative {expected:.17g} but not the "
                "number autograd gives: return t.grad.item() itself, as backward() left it.",
            )
        ),
        "not_from_autograd": (
            lambda: pgettext(
                "derivative:not_from_autograd",
                "the exact slope came back, but no backward() or autograd.grad the grader watched produced that number",
            )
        ),
    }
)
