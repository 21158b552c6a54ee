"""What the lesson 4 exercises (predict, evaluate, head_forward) share: scenarios, the models
handed to the student, and helpers to turn returned values into plain data for the record.

What a call did (grad mode, graphs built, dropout and batch norm in training or eval mode) is
recorded underneath the student's objects by ``recorder.CallRecorder``, never by the models: a
note a model kept would be the student's to rewrite.

The scenarios are frozen descriptions; ``build_*`` turns one into real PyTorch objects, from the
scenario's seed alone, so that the judge can rebuild the very same model in its own process
(``autograder.judge._lesson4`` holds the references it computes there).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ...i18n import pgettext
from .. import type_name
from .._rng import seeded

KINDS = ("classifier", "regressor")
IN_FEATURES = {"classifier": 5, "regressor": 4}


@dataclass(frozen=True)
class InferenceScenario:
    """One instrumented run of a lesson 4 function."""

    exercise: str
    kind: str  # "classifier" or "regressor"
    start: str  # the model's mode before the call: "train" or "eval"
    seed: int
    raises: bool = False  # predict: the forward pass raises (the input has the wrong width)
    sizes: tuple[int, ...] = (6,)  # batch sizes (predict and head_forward use the first)

    @property
    def name(self) -> str:
        # i18n: a case of lesson 4; {kind} is classifier or regressor, {mode} train or eval (code's words, kept)
        if self.raises:
            text = pgettext("scenario", "{kind} model, starts in {mode} mode, forward raises")
        else:
            text = pgettext("scenario", "{kind} model, starts in {mode} mode")
        return text.format(kind=self.kind, mode=self.start)


class LessonModel(nn.Module):
    """The model handed to the student: its ``net``, behind a check of the input's width (so that
    predict's error scenario raises an exception of the model's own).  It keeps no notes: the
    call is recorded below it (``recorder``)."""

    def __init__(self, net: nn.Module, in_features: int) -> None:
        super().__init__()
        self.net = net
        self.in_features = in_features

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.in_features:
            raise ValueError(f"this model expects {self.in_features} input features, got {x.shape[-1]}")
        return self.net(x)


def _net(kind: str) -> nn.Module:
    if kind == "classifier":
        return nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 3))
    if kind == "regressor":
        return nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.Tanh(), nn.Dropout(0.4), nn.Linear(6, 2))
    raise ValueError(f"unknown kind {kind!r}; choose from {KINDS}")


def build_model(scenario: InferenceScenario) -> LessonModel:
    """A fresh instrumented model with non-trivial BatchNorm statistics, in the scenario's start mode."""
    gen = torch.Generator().manual_seed(scenario.seed)
    with seeded(scenario.seed):
        net = _net(scenario.kind)
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, nn.BatchNorm1d):
                module.running_mean.copy_(torch.randn(module.num_features, generator=gen))
                module.running_var.copy_(0.5 + torch.rand(module.num_features, generator=gen))
    model = LessonModel(net, IN_FEATURES[scenario.kind])
    model.train(scenario.start == "train")
    return model


def build_batches(scenario: InferenceScenario) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Batches of the scenario's sizes: (x, class labels) or (x, regression targets)."""
    gen = torch.Generator().manual_seed(scenario.seed + 4099)
    width = IN_FEATURES[scenario.kind]
    batches = []
    for n in scenario.sizes:
        x = 2 * torch.randn(n, width, generator=gen)
        if scenario.kind == "classifier":
            y = torch.randint(0, 3, (n,), generator=gen)
        else:
            y = torch.randn(n, 2, generator=gen)
        batches.append((x, y))
    return batches


def build_loss(scenario: InferenceScenario) -> nn.Module:
    return nn.CrossEntropyLoss() if scenario.kind == "classifier" else nn.MSELoss()


def mode_of(model: nn.Module) -> str:
    """ "train" or "eval" when every module agrees, else "mixed"."""
    flags = {bool(m.training) for m in model.modules()}
    if flags == {True}:
        return "train"
    if flags == {False}:
        return "eval"
    return "mixed"


def describe_tensor(value) -> dict:
    """A returned value as plain data: a tensor's values and autograd facts, or its type name."""
    if not isinstance(value, torch.Tensor):
        return {"type": type_name(value)}
    with torch.inference_mode(False):
        values = value.detach().clone() if not value.is_inference() else torch.tensor(value.tolist())
    return {
        "type": "Tensor",
        "values": values,
        "requires_grad": bool(value.requires_grad),
        "has_grad_fn": value.grad_fn is not None,
        "is_inference": bool(value.is_inference()),
    }


def seeds_for(seed: int, count: int) -> list[int]:
    return [1000 * seed + 17 * i + 3 for i in range(count)]
