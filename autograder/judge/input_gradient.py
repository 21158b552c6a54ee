"""Judging input_gradient: the returned gradient against the judge's own torch.autograd.grad on the
same model and input, rebuilt from the seed; every parameter's .grad and the caller's x must be left
exactly as the seed made them."""

from __future__ import annotations

import torch

from ..exercises.input_gradient import NAME, InputGradientScenario, build
from ..verdict import Verdict, first_failure, returned_kind
from ._lesson2 import returned_spec, same
from .validate import Fields, Flag, ListOf, Optional, Tensor

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
        }
    )


def reference(probe: InputGradientScenario) -> torch.Tensor:
    """d model(x).sum() / dx, by torch.autograd.grad in the grader's own process."""
    model, x = build(probe)
    x = x.clone().requires_grad_()
    (grad,) = torch.autograd.grad(model(x).sum(), x)
    return grad


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
        return None
    n_out = model(x).numel()
    if n_out > 1 and same(got, expected / n_out, RTOL, ATOL):
        return Verdict(NAME, "wrong_reduction", MESSAGES["wrong_reduction"])
    return Verdict(NAME, "wrong_value", MESSAGES["wrong_value"].format(case=probe.name))


MESSAGES = {
    "ok": "Correct: the gradient of model(x).sum() with respect to x, and no parameter's .grad was touched.",
    "touches_param_grad": (
        "A parameter's .grad changed during your call: backward() fills the .grad of every parameter too "
        "(and zero_grad() wipes what was there). Use torch.autograd.grad(out, x_leaf), which only returns "
        "the gradient you ask for."
    ),
    "params_changed": "The model's parameters changed during your call: only read the model, never update it.",
    "modifies_input": (
        "The caller's x was changed (it now requires grad, has a .grad, or other values): work on "
        "x.detach().clone().requires_grad_() instead of x itself."
    ),
    "wrong_type": "Your function returned {kind}, not a tensor: return the gradient tensor itself.",
    "wrong_shape": "Your function returned a tensor of shape {got}, but x has shape {want}: one slope per entry of x.",
    "wrong_reduction": (
        "Your result is the gradient of the MEAN of the outputs: the exercise asks for the gradient of their SUM "
        "(model(x).sum())."
    ),
    "wrong_value": (
        "Your result is not the gradient of model(x).sum() with respect to x, nor that of the mean (seen with "
        "{case}): differentiate the sum of the outputs of the model run on x itself."
    ),
    "non_scalar_output": (
        "model(x) has several numbers, and autograd can only start from a single number: reduce it with "
        ".sum() first (or pass grad_outputs=torch.ones_like(out))."
    ),
    "no_requires_grad": (
        "Autograd found nothing to differentiate: the input you ran the model on does not require grad "
        "(or the forward ran under torch.no_grad()). Run the model on x.detach().clone().requires_grad_()."
    ),
    "not_in_graph": (
        "You asked for the gradient with respect to a tensor the model never saw: run the model on the very "
        "tensor that requires grad, then differentiate with respect to it."
    ),
}
