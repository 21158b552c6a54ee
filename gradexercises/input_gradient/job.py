"""input_gradient(model, x) -> Tensor: the gradient of model(x).sum() with respect to the input x,
computed with torch.autograd.grad so that no parameter's .grad changes and x is left as it was."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from gradebox.exercises._lesson2 import recorded_call, returned
from gradebox.exercises._rng import seeded
from gradebox.i18n import N_, _, pgettext

NAME = "input_gradient"

MODELS = ("linear", "tanh_mlp", "sigmoid_net")


@dataclass(frozen=True)
class InputGradientScenario:
    """One call ``input_gradient(model, x)``: a model kind, a batch size, whether the parameters
    hold stale gradients (``dirty``) or none (``.grad is None``), and a seed."""

    model: str
    batch: int
    dirty: bool
    seed: int

    @property
    def name(self) -> str:
        """In words for the student: which model, how many examples, which .grad before the call."""
        model = _(MODEL_TEXT[self.model]) if self.model in MODEL_TEXT else self.model
        if self.dirty:
            text = pgettext("scenario", "{model}, a batch of {batch}, stale gradients in the parameters")
        else:
            text = pgettext("scenario", "{model}, a batch of {batch}, every parameter's .grad None")
        return text.format(model=model, batch=self.batch)


#: The models of the cases, in words (translated where a case is named).
MODEL_TEXT = {
    "linear": N_("a linear model"),
    "tanh_mlp": N_("a small tanh network"),
    "sigmoid_net": N_("a small sigmoid network"),
}


def suite(start: str = "all", seed: int = 0) -> list[InputGradientScenario]:
    """Every model kind, with and without stale gradients in the parameters (``start`` ignored)."""
    probes = []
    for i, kind in enumerate(MODELS):
        probes.append(InputGradientScenario(kind, 2 + (seed + i) % 3, dirty=(seed + i) % 2 == 0, seed=100 * seed + i))
    probes.append(InputGradientScenario(MODELS[seed % 3], 1, dirty=(seed % 2 == 1), seed=100 * seed + 7))
    return probes


def build(probe: InputGradientScenario) -> tuple[nn.Module, torch.Tensor]:
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


def run(fn, probe: InputGradientScenario) -> dict:
    """Call ``fn`` with the recorder watching: what it returned, the model and x as it left them,
    and the gradients autograd produced during the call (the recorder's notes)."""
    model, x = build(probe)
    params = list(model.parameters())
    value, notes, raised = recorded_call(lambda: fn(model, x))
    if raised is not None:
        raise raised
    return {
        "returned": returned(value),
        "grads_after": [_grad_or_none(p) for p in params],
        "params_after": [p.detach().clone() for p in params],
        "x_after": x.detach().clone(),
        "x_requires_grad": bool(x.requires_grad),
        "x_grad_set": x.grad is not None,
        "autograd": notes,
    }
