"""Judging finite_difference_grad: the returned estimate against the judge's own central difference
with the same eps, and x against x as the seed made it, bit for bit (any change is ``modifies_x``); the
estimate must have x's dtype (``wrong_dtype``: float32 would lose the digits a float64 check is for).

Effects first: in float64 a pass is the judge's central difference to rounding (``PASS_RTOL64`` of
the estimate's largest entry: honest ways of writing it agree to the bit, while the exact gradient
misses it by 4e-10 or more on every graded point), so autograd cannot pass for a difference by its
numbers.  The recorder's notes (taken below f, whatever route the call takes to it) name the use of
autograd (``used_autograd``) and are the evidence a pass needs: f evaluated twice per entry of x."""

from __future__ import annotations

import torch

from autograder.i18n import pgettext
from autograder.judge._lesson2 import contradiction, recorder_spec, returned_spec, same, tampered, used_autograd
from autograder.judge.texts import Texts
from autograder.judge.validate import Fields, Flag, Tensor
from autograder.verdict import Verdict, first_failure, returned_kind
from gradebox.exercises._lesson2 import FIELD_FUNCTIONS

from .job import DEFAULT_EPS, NAME, Field, make_x

NOT_FINITE = "wrong_value"


def schema(scenario: Field):
    return Fields(
        {
            "returned": returned_spec(),
            "x_after": Tensor(dtypes=None, finite=False, max_numel=10_000),
            "x_changed": Flag(),
            "x_requires_grad": Flag(),
            "x_grad_set": Flag(),
            "autograd": recorder_spec(),
        }
    )


def unchanged(after: torch.Tensor, before: torch.Tensor) -> bool:
    """The same dtype, shape and bits: any change of x counts, however small (adding eps to an entry and
    subtracting it again can round to a neighbouring number; NaN and -0.0 are compared bit for bit)."""
    if after.dtype != before.dtype or tuple(after.shape) != tuple(before.shape):
        return False
    return bool(torch.equal(after.reshape(-1).view(torch.uint8), before.reshape(-1).view(torch.uint8)))


def central(function, x: torch.Tensor, eps: float, scale: float = 2.0) -> torch.Tensor:
    """(f(x + eps e_i) - f(x - eps e_i)) / (scale * eps) for every entry i, in float64."""
    x = x.double()
    out = torch.empty_like(x).reshape(-1)
    for i in range(x.numel()):
        step = torch.zeros(x.numel(), dtype=torch.float64)
        step[i] = eps
        step = step.reshape(x.shape)
        out[i] = (function(x + step) - function(x - step)) / (scale * eps)
    return out.reshape(x.shape)


def one_sided(function, x: torch.Tensor, eps: float, direction: int) -> torch.Tensor:
    """The forward (direction=1) or backward (-1) difference."""
    x = x.double()
    out = torch.empty_like(x).reshape(-1)
    base = function(x)
    for i in range(x.numel()):
        step = torch.zeros(x.numel(), dtype=torch.float64)
        step[i] = eps * direction
        out[i] = (function(x + step.reshape(x.shape)) - base) / (eps * direction)
    return out.reshape(x.shape)


def autograd_grad(function, x: torch.Tensor) -> torch.Tensor:
    t = x.double().clone().requires_grad_()
    (grad,) = torch.autograd.grad(function(t), t)
    return grad


def judge(scenarios: list[Field], observations: list[dict]) -> Verdict:
    return first_failure(NAME, scenarios, observations, _judge_one, MESSAGES["ok"])


def _tolerances(scenario: Field) -> tuple[float, float]:
    """Close enough to name a mistake (a one-sided difference, another step): not a pass in float64."""
    return (1e-7, 1e-9) if scenario.dtype == "float64" else (1e-4, 2e-4)


PASS_RTOL64 = 1e-12  # of the reference's largest entry: float64 rounding, far below eps**2 effects


def _passes(scenario: Field, got: torch.Tensor, expected: torch.Tensor) -> bool:
    """The judge's central difference, to float64 rounding (float32, or a float32 estimate of a float64
    x, which ``wrong_dtype`` names: the tolerances above)."""
    if scenario.dtype != "float64" or got.dtype != torch.float64:
        return same(got, expected, *_tolerances(scenario))
    scale = expected.abs().max().item() if expected.numel() else 0.0
    return same(got, expected, 0.0, PASS_RTOL64 * max(scale, 1e-300))


def _judge_one(scenario: Field, obs: dict) -> Verdict | None:
    notes = obs["autograd"]
    why = contradiction(notes)
    if why is not None:
        return tampered(NAME, why)
    if used_autograd(notes) or obs["x_requires_grad"] or obs["x_grad_set"]:
        return Verdict(NAME, "used_autograd", MESSAGES["used_autograd"])
    x = make_x(scenario)
    if not unchanged(obs["x_after"], x):
        return Verdict(NAME, "modifies_x", MESSAGES["modifies_x"])
    ret = obs["returned"]
    if not ret["is_tensor"]:
        return Verdict(NAME, "wrong_type", MESSAGES["wrong_type"].format(kind=returned_kind(ret["type"])))
    got = ret["tensor"]
    if tuple(got.shape) != tuple(x.shape):
        return Verdict(NAME, "wrong_shape", MESSAGES["wrong_shape"].format(got=tuple(got.shape), want=tuple(x.shape)))
    verdict = _judge_value(scenario, x, got)
    wrong_dtype = got.dtype != x.dtype
    if verdict is not None:  # a wrong estimate comes first; a wrong dtype besides it is named too
        if not wrong_dtype:
            return verdict
        text = MESSAGES["also_dtype"].format(message=verdict.message, got=_dtype(got), want=_dtype(x))
        return Verdict(NAME, verdict.code, text)
    if wrong_dtype:
        return Verdict(NAME, "wrong_dtype", MESSAGES["wrong_dtype"].format(got=_dtype(got), want=_dtype(x)))
    if notes["n_evaluations"] < 2 * x.numel():
        return tampered(NAME, MESSAGES["too_few_calls"].format(n=notes["n_evaluations"], need=2 * x.numel()))
    return None


def _dtype(t: torch.Tensor) -> str:
    return str(t.dtype).replace("torch.", "")


def _judge_value(scenario: Field, x: torch.Tensor, got: torch.Tensor) -> Verdict | None:
    function = FIELD_FUNCTIONS[scenario.function]
    eps = DEFAULT_EPS if scenario.eps is None else scenario.eps
    rtol, atol = _tolerances(scenario)
    expected = central(function, x, eps)
    if _passes(scenario, got, expected):
        return None
    if same(got, expected, rtol, atol):  # close, not the difference itself: the exact gradient, or another formula
        return Verdict(NAME, "wrong_value", MESSAGES["not_the_difference"].format(case=scenario.name))
    if same(got, central(function, x, eps, scale=1.0), rtol, atol):
        return Verdict(NAME, "wrong_scale", MESSAGES["wrong_scale"])
    if any(same(got, one_sided(function, x, eps, d), rtol, atol) for d in (1, -1)):
        return Verdict(NAME, "forward_difference", MESSAGES["forward_difference"])
    if scenario.eps is not None and _other_step(function, x, got, eps, rtol, atol):
        return Verdict(NAME, "ignores_eps", MESSAGES["ignores_eps"].format(eps=scenario.eps))
    for step in OTHER_STEPS:  # a one-sided difference with a step size written into the function
        if step != eps and any(same(got, one_sided(function, x, step, d), 10 * rtol, 10 * atol) for d in (1, -1)):
            text = MESSAGES["own_step"].format(message=MESSAGES["forward_difference"])
            return Verdict(NAME, "forward_difference", text)
    return Verdict(NAME, "wrong_value", MESSAGES["wrong_value"].format(case=scenario.name))


#: Steps a student may have written into the function instead of using eps.
OTHER_STEPS = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8)


def _other_step(function, x: torch.Tensor, got: torch.Tensor, eps: float, rtol: float, atol: float) -> bool:
    """The central difference with a step other than eps, or (much) closer to the exact gradient
    than the central difference with eps is."""
    for step in OTHER_STEPS:
        if step != eps and same(got, central(function, x, step), 10 * rtol, 10 * atol):
            return True
    true = autograd_grad(function, x)
    miss = (central(function, x, eps) - true).abs().max().item()
    return (got.double() - true).abs().max().item() < 0.1 * miss


MESSAGES = Texts(
    {
        "ok": (
            lambda: pgettext(
                "finite_difference_grad:ok",
                "Correct: (f(x + eps·e_i) - f(x - eps·e_i)) / (2·eps) for every entry, same shape and "
                "dtype as x, x exactly as it was.",
            )
        ),
        "used_autograd": (
            lambda: pgettext(
                "finite_difference_grad:used_autograd",
                "Your function used autograd (f saw a tensor that requires grad, or x got a .grad): here "
                "the point is to estimate the gradient WITHOUT autograd, only by calling f on nudged "
                "copies of x.",
            )
        ),
        "modifies_x": (
            lambda: pgettext(
                "finite_difference_grad:modifies_x",
                "x was not exactly the same after your function returned (even a change in the last "
                "digit counts: adding eps to an entry and subtracting it again can round to a slightly "
                "different number). Nudge a copy (x.clone()), or save each entry's old value and write "
                "that value back.",
            )
        ),
        "wrong_type": lambda: pgettext(
            "finite_difference_grad:wrong_type",
            "Your function returned {kind}, not a tensor: return a tensor shaped like x.",
        ),
        "wrong_shape": (
            lambda: pgettext(
                "finite_difference_grad:wrong_shape",
                "Your function returned a tensor of shape {got}, but x has shape {want}: reshape the "
                "result like x (e.g. grad.reshape(x.shape)).",
            )
        ),
        "wrong_scale": (
            lambda: pgettext(
                "finite_difference_grad:wrong_scale",
                "Your result is twice the central difference: the two points x + eps and x - eps are "
                "2·eps apart, so divide by 2 * eps.",
            )
        ),
        "forward_difference": (
            lambda: pgettext(
                "finite_difference_grad:forward_difference",
                "Your result is a one-sided difference (f(x + eps) - f(x)) / eps: use the central "
                "difference (f(x + eps) - f(x - eps)) / (2 * eps), which is much more accurate.",
            )
        ),
        # i18n: {message} is the forward_difference message, a whole sentence before this one
        "own_step": lambda: pgettext(
            "finite_difference_grad:own_step",
            "{message} It also ignores the eps argument (it uses a step size of its own).",
        ),
        "ignores_eps": (
            lambda: pgettext(
                "finite_difference_grad:ignores_eps",
                "With eps={eps:g} your function returned what another step size gives: use the eps "
                "argument, not a step size written into the function.",
            )
        ),
        "wrong_dtype": (
            lambda: pgettext(
                "finite_difference_grad:wrong_dtype",
                "Your estimate has the right numbers, but its dtype is {got} while x is {want}: return "
                "the same dtype as x. torch.zeros_like(x) makes such a tensor; torch.zeros(x.shape) is "
                "always float32, and float32 keeps only about 7 significant digits, too few for a check "
                "in float64.",
            )
        ),
        # i18n: {message} is another diagnosis of the same result, whole sentences before this one
        "also_dtype": (
            lambda: pgettext(
                "finite_difference_grad:also_dtype",
                "{message} Also, your result's dtype is {got} while x is {want}: return the same dtype as x "
                "(torch.zeros_like(x), not torch.zeros(x.shape), which is always float32).",
            )
        ),
        "not_the_difference": (
            lambda: pgettext(
                "finite_difference_grad:not_the_difference",
                "Your result is close to the central-difference estimate but not that estimate itself "
                "(seen for {case}): compute (f(x + eps·e_i) - f(x - eps·e_i)) / (2·eps) for every entry, "
                "with the eps given.",
            )
        ),
        "too_few_calls": (
            lambda: pgettext(
                "finite_difference_grad:too_few_calls",
                "the central difference came back, but f was evaluated {n} times where it needs {need} "
                "(two per entry of x)",
            )
        ),
        "wrong_value": (
            lambda: pgettext(
                "finite_difference_grad:wrong_value",
                "Your result is not the central-difference estimate of the gradient, nor a one-sided or "
                "mis-scaled one (seen for {case}).",
            )
        ),
    }
)
