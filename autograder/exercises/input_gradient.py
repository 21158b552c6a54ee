"""input_gradient(model, x) -> Tensor: the gradient of model(x).sum() with respect to the input x,
computed with torch.autograd.grad so that no parameter's .grad changes and x is left as it was."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ..verdict import Verdict, first_failure, returned_kind
from ._lesson2 import returned, same
from ._rng import seeded

NAME = "input_gradient"

MODELS = ("linear", "tanh_mlp", "sigmoid_net")
SCALAR_ONLY = "grad can be implicitly created only for scalar outputs"
NO_GRAD = "does not require grad and does not have a grad_fn"
UNUSED = "appears to not have been used in the graph"
RTOL, ATOL = 1e-5, 1e-6


@dataclass(frozen=True)
class Probe:
    """One call ``input_gradient(model, x)``: a model kind, a batch size, whether the parameters
    hold stale gradients (``dirty``) or none (``.grad is None``), and a seed."""

    model: str
    batch: int
    dirty: bool
    seed: int

    @property
    def name(self) -> str:
        """In words for the student: which model, how many examples, which .grad before the call."""
        grads = "stale gradients in the parameters" if self.dirty else "every parameter's .grad None"
        model = {
            "linear": "a linear model",
            "tanh_mlp": "a small tanh network",
            "sigmoid_net": "a small sigmoid network",
        }
        return f"{model.get(self.model, self.model)}, a batch of {self.batch}, {grads}"


def suite(start: str = "all", seed: int = 0) -> list[Probe]:
    """Every model kind, with and without stale gradients in the parameters (``start`` ignored)."""
    probes = []
    for i, kind in enumerate(MODELS):
        probes.append(Probe(kind, 2 + (seed + i) % 3, dirty=(seed + i) % 2 == 0, seed=100 * seed + i))
    probes.append(Probe(MODELS[seed % 3], 1, dirty=(seed % 2 == 1), seed=100 * seed + 7))
    return probes


def build(probe: Probe) -> tuple[nn.Module, torch.Tensor]:
    """The model (with stale .grad when ``dirty``) and the input batch; x does not require grad."""
    gen = torch.Generator().manual_seed(probe.seed)
    with seeded(probe.seed):
        if probe.model == "linear":
            model, d_in = nn.Linear(3, 2), 3
        elif probe.model == "tanh_mlp":
            model, d_in = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 3)), 4
        else:
            model, d_in = nn.Sequential(nn.Linear(2, 4), nn.Sigmoid(), nn.Linear(4, 1)), 2
    if probe.dirty:
        for p in model.parameters():
            p.grad = torch.randn(p.shape, generator=gen)
    x = torch.randn(probe.batch, d_in, generator=gen)
    return model, x


def _grad_or_none(p: torch.Tensor):
    return None if p.grad is None else p.grad.detach().clone()


def run(fn, probe: Probe) -> dict:
    model, x = build(probe)
    x_before = x.clone()
    params = list(model.parameters())
    value = fn(model, x)
    return {
        "returned": returned(value),
        "grads_after": [_grad_or_none(p) for p in params],
        "params_after": [p.detach().clone() for p in params],
        "x_changed": not torch.equal(x.detach(), x_before),
        "x_requires_grad": bool(x.requires_grad),
        "x_grad_set": x.grad is not None,
    }


def reference(probe: Probe) -> torch.Tensor:
    """d model(x).sum() / dx, by torch.autograd.grad in the grader's own process."""
    model, x = build(probe)
    x = x.clone().requires_grad_()
    (grad,) = torch.autograd.grad(model(x).sum(), x)
    return grad


def explain_error(error: dict) -> Verdict | None:
    message = error["message"]
    for needle, code in ((SCALAR_ONLY, "non_scalar_output"), (NO_GRAD, "no_requires_grad"), (UNUSED, "not_in_graph")):
        if needle in message:
            return Verdict(NAME, code, MESSAGES[code])
    return None


def judge(scenarios: list[Probe], observations: list[dict]) -> Verdict:
    return first_failure(NAME, scenarios, observations, _judge_one, MESSAGES["ok"])


def _grads_kept(probe: Probe, obs: dict) -> bool:
    model, _ = build(probe)
    for p, after in zip(model.parameters(), obs["grads_after"]):
        if (p.grad is None) != (after is None):
            return False
        if after is not None and not torch.equal(p.grad, after):
            return False
    return True


def _judge_one(probe: Probe, obs: dict) -> Verdict | None:
    if not _grads_kept(probe, obs):
        return Verdict(NAME, "touches_param_grad", MESSAGES["touches_param_grad"])
    model, x = build(probe)
    if any(not torch.equal(p.detach(), q) for p, q in zip(model.parameters(), obs["params_after"])):
        return Verdict(NAME, "wrong_value", MESSAGES["params_changed"])
    if obs["x_changed"] or obs["x_requires_grad"] or obs["x_grad_set"]:
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
