"""Judging input_gradient: the returned gradient against the judge's own torch.autograd.grad on the
same model and input, rebuilt from the seed; every parameter's .grad and the caller's x must be left
exactly as the seed made them.

Effects first: a pass is autograd's own float32 numbers, row by row equal to the bit to the same
row of one of the judge's own runs (``references``: the whole batch through ``autograd.grad``, one
example at a time, the full Jacobian summed; ``backward()`` on a copy, ``grad_outputs=ones``,
``torch.func.grad`` and ``vmap`` give the same bits).  A float64 finite difference on a copy of the
model, rounded to float32, is within 4 float32 ulps of those runs, as close as the honest ways are
to each other, but not equal to any of them: it fails every suite of 60 seeds measured.  The
recorder's notes are the evidence a pass needs besides: a ``torch.autograd.grad`` or
``backward()`` ran during the call; a close result without it is named ``no_autograd``."""

from __future__ import annotations

import torch

from autograder.i18n import pgettext
from autograder.judge._lesson2 import contradiction, recorder_spec, returned_spec, same, tampered
from autograder.judge.texts import Texts
from autograder.judge.validate import Fields, Flag, ListOf, Optional, Tensor
from autograder.verdict import Verdict, first_failure, returned_kind

from .job import NAME, InputGradientScenario, build

SCALAR_ONLY = "grad can be implicitly created only for scalar outputs"
NO_GRAD = "does not require grad and does not have a grad_fn"
UNUSED = "appears to not have been used in the graph"
RTOL, ATOL = 1e-5, 1e-6
NOT_FINITE = "wrong_value"


def schema(scenario: InputGradientScenario):
    return Fields(
        {
            "returned": returned_spec(),
            "grads_after": ListOf(Optional(Tensor(dtypes=None, finite=False)), max_length=100),
            "params_after": ListOf(Tensor(dtypes=None, finite=False), max_length=100),
            "x_after": Tensor(dtypes=None, finite=False),
            "x_requires_grad": Flag(),
            "x_grad_set": Flag(),
            "autograd": recorder_spec(),
        }
    )


def reference(probe: InputGradientScenario) -> torch.Tensor:
    """d model(x).sum() / dx, by torch.autograd.grad in the grader's own process."""
    model, x = build(probe)
    x = x.clone().requires_grad_()
    (grad,) = torch.autograd.grad(model(x).sum(), x)
    return grad


def references(probe: InputGradientScenario) -> list[torch.Tensor]:
    """The input gradient as the judge's own honest runs give it, each to the bit: the whole batch
    at once, one example at a time, and the full Jacobian of model(x) summed over the outputs."""
    model, x = build(probe)
    runs = [reference(probe)]
    rows = []
    for row in x:
        leaf = row.detach().clone().requires_grad_()
        rows.append(torch.autograd.grad(model(leaf).sum(), leaf)[0])
    runs.append(torch.stack(rows))
    jacobian = torch.autograd.functional.jacobian(model, x.detach().clone())
    runs.append(jacobian.sum(dim=tuple(range(jacobian.dim() - x.dim()))))
    return runs


def autograd_rows(got: torch.Tensor, runs: list[torch.Tensor]) -> bool:
    """Is every row of ``got`` (one example's gradient) equal to the bit to that row of one of the runs?"""
    if got.dtype != runs[0].dtype or tuple(got.shape) != tuple(runs[0].shape):
        return False
    return all(any(torch.equal(got[i], run[i]) for run in runs) for i in range(got.shape[0]))


def explain_error(error: dict, scenario=None) -> Verdict | None:
    message = error["message"]
    for needle, code in ((SCALAR_ONLY, "non_scalar_output"), (NO_GRAD, "no_requires_grad"), (UNUSED, "not_in_graph")):
        if needle in message:
            return Verdict(NAME, code, MESSAGES[code])
    return None


def judge(scenarios: list[InputGradientScenario], observations: list[dict]) -> Verdict:
    return first_failure(NAME, scenarios, observations, _judge_one, MESSAGES["ok"])


def _equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a, b))


def _grads_kept(probe: InputGradientScenario, obs: dict) -> bool:
    model, _ = build(probe)
    params = list(model.parameters())
    if len(obs["grads_after"]) != len(params):
        return False
    for p, after in zip(params, obs["grads_after"]):
        if (p.grad is None) != (after is None):
            return False
        if after is not None and not _equal(p.grad, after):
            return False
    return True


def _judge_one(probe: InputGradientScenario, obs: dict) -> Verdict | None:
    notes = obs["autograd"]
    why = contradiction(notes)
    if why is not None:
        return tampered(NAME, why)
    if not _grads_kept(probe, obs):
        return Verdict(NAME, "touches_param_grad", MESSAGES["touches_param_grad"])
    model, x = build(probe)
    params = list(model.parameters())
    if len(obs["params_after"]) != len(params) or any(
        not _equal(p.detach(), q) for p, q in zip(params, obs["params_after"])
    ):
        return Verdict(NAME, "wrong_value", MESSAGES["params_changed"])
    if not _equal(obs["x_after"], x) or obs["x_requires_grad"] or obs["x_grad_set"]:
        return Verdict(NAME, "modifies_input", MESSAGES["modifies_input"])
    ret = obs["returned"]
    if not ret["is_tensor"]:
        return Verdict(NAME, "wrong_type", MESSAGES["wrong_type"].format(kind=returned_kind(ret["type"])))
    got = ret["tensor"]
    if tuple(got.shape) != tuple(x.shape):
        return Verdict(NAME, "wrong_shape", MESSAGES["wrong_shape"].format(got=tuple(got.shape), want=tuple(x.shape)))
    expected = reference(probe)
    if same(got, expected, RTOL, ATOL):
        ran = notes["grad_calls"] + notes["backward_calls"]
        if ran and autograd_rows(got, references(probe)):
            return None
        return Verdict(NAME, "wrong_value", MESSAGES["not_from_autograd" if ran else "no_autograd"])
    n_out = model(x).numel()
    if n_out > 1 and same(got, expected / n_out, RTOL, ATOL):
        return Verdict(NAME, "wrong_reduction", MESSAGES["wrong_reduction"])
    return Verdict(NAME, "wrong_value", MESSAGES["wrong_value"].format(case=probe.name))


MESSAGES = Texts(
    {
        "ok": lambda: pgettext(
            "input_gradient:ok",
            "Correct: the gradient of model(x).sum() with respect to x, and no parameter's .grad was touched.",
        ),
        "touches_param_grad": (
            lambda: pgettext(
                "input_gradient:touches_param_grad",
                "A parameter's .grad changed during your call: backward() fills the .grad of every "
                "parameter too (and zero_grad() wipes what was there). Use torch.autograd.grad(out, "
                "x_leaf), which only returns the gradient you ask for.",
            )
        ),
        "params_changed": lambda: pgettext(
            "input_gradient:params_changed",
            "The model's parameters changed during your call: only read the model, never update it.",
        ),
        "modifies_input": (
            lambda: pgettext(
                "input_gradient:modifies_input",
                "The caller's x was changed (it now requires grad, has a .grad, or other values): work "
                "on x.detach().clone().requires_grad_() instead of x itself.",
            )
        ),
        "wrong_type": lambda: pgettext(
            "input_gradient:wrong_type",
            "Your function returned {kind}, not a tensor: return the gradient tensor itself.",
        ),
        "wrong_shape": lambda: pgettext(
            "input_gradient:wrong_shape",
            "Your function returned a tensor of shape {got}, but x has shape {want}: one slope per entry of x.",
        ),
        "wrong_reduction": (
            lambda: pgettext(
                "input_gradient:wrong_reduction",
                "Your result is the gradient of the MEAN of the outputs: the exercise asks for the "
                "gradient of their SUM (model(x).sum()).",
            )
        ),
        "wrong_value": (
            lambda: pgettext(
                "input_gradient:wrong_value",
                "Your result is not the gradient of model(x).sum() with respect to x, nor that of the "
                "mean (seen with {case}): differentiate the sum of the outputs of the model run on x "
                "itself.",
            )
        ),
        "no_autograd": (
            lambda: pgettext(
                "input_gradient:no_autograd",
                "Your result has the right numbers, but autograd never ran during your call (no "
                "torch.autograd.grad, no backward()): compute it with "
                "torch.autograd.grad(model(x_leaf).sum(), x_leaf), not by a finite difference or a "
                "formula of your own.",
            )
        ),
        "not_from_autograd": (
            lambda: pgettext(
                "input_gradient:not_from_autograd",
                "Your result has nearly the right numbers, but they are not the ones torch.autograd.grad "
                "produced during your call: return the gradient autograd gives, not a number computed "
                "another way.",
            )
        ),
        "non_scalar_output": (
            lambda: pgettext(
                "input_gradient:non_scalar_output",
                "model(x) has several numbers, and autograd can only start from a single number: reduce "
                "it with .sum() first (or pass grad_outputs=torch.ones_like(out)).",
            )
        ),
        "no_requires_grad": (
            lambda: pgettext(
                "input_gradient:no_requires_grad",
                "Autograd found nothing to differentiate: the input you ran the model on does not "
                "require grad (or the forward ran under torch.no_grad()). Run the model on "
                "x.detach().clone().requires_grad_().",
            )
        ),
        "not_in_graph": (
            lambda: pgettext(
                "input_gradient:not_in_graph",
                "You asked for the gradient with respect to a tensor the model never saw: run the model "
                "on the very tensor that requires grad, then differentiate with respect to it.",
            )
        ),
    }
)
