"""head_forward(backbone, head, x) -> Tensor: a frozen feature extractor run without tracking,
then a trainable head run with tracking, so that backward() reaches the head and only the head.

The call runs under a ``CallRecorder`` whose roots are the backbone's parameters, the head's and
``x``: an operation that touches the head's belongs to the head, else one that touches the
backbone's to the backbone.  Afterwards the job backpropagates through the returned output
itself, and the parameters' gradients are the effect the judge compares."""

from __future__ import annotations

import torch
from torch import nn

from gradebox.exercises._lesson4 import (
    IN_FEATURES,
    KINDS,
    InferenceScenario,
    LessonModel,
    build_batches,
    describe_tensor,
    seeds_for,
)
from gradebox.exercises._lesson4.recorder import CallRecorder
from gradebox.exercises._rng import seeded

NAME = "head_forward"
FEATURES = 6


def suite(start: str = "all", seed: int = 0) -> list[InferenceScenario]:
    """Two backbone/head pairs of different widths.  ``start`` does not apply here."""
    s = seeds_for(seed, 2)
    return [
        InferenceScenario(NAME, KINDS[seed % 2], "train", s[0], sizes=(5 + seed % 3,)),
        InferenceScenario(NAME, KINDS[(seed + 1) % 2], "train", s[1], sizes=(4 + seed % 3,)),
    ]


def build_pair(scenario: InferenceScenario) -> tuple[LessonModel, LessonModel]:
    width = IN_FEATURES[scenario.kind]
    with seeded(scenario.seed):
        backbone = nn.Sequential(nn.Linear(width, 10), nn.Tanh(), nn.Linear(10, FEATURES), nn.ReLU())
        head = nn.Linear(FEATURES, 3)
    return LessonModel(backbone, width), LessonModel(head, FEATURES)


def output_weights(scenario: InferenceScenario, rows: int) -> torch.Tensor:
    """Random weights w: run() backpropagates (output * w).sum(), so every output entry counts."""
    return torch.randn(rows, 3, generator=torch.Generator().manual_seed(scenario.seed + 77))


def _grads(module: nn.Module) -> list:
    return [None if p.grad is None else p.grad.detach().clone() for p in module.parameters()]


def recorder_for(backbone, head, x) -> CallRecorder:
    groups = {"backbone": list(backbone.parameters()), "head": list(head.parameters()), "x": [x]}
    return CallRecorder(groups, stages=["head", "backbone"], evidence={"forward": ["backbone", "head", "x"]})


def run(fn, scenario: InferenceScenario) -> dict:
    backbone, head = build_pair(scenario)
    ((x, _),) = build_batches(scenario)
    recorder = recorder_for(backbone, head, x)
    with recorder:
        returned = fn(backbone, head, x)
    out = {
        "returned": describe_tensor(returned),
        "trace": {**recorder.notes(), "returned": recorder.describe(returned)},
        "backbone_requires_grad": [bool(p.requires_grad) for p in backbone.parameters()],
        "head_requires_grad": [bool(p.requires_grad) for p in head.parameters()],
        "grad_after": bool(torch.is_grad_enabled()),
        "inference_after": bool(torch.is_inference_mode_enabled()),
        "backward_error": None,
    }
    torch.set_grad_enabled(True)
    if isinstance(returned, torch.Tensor) and returned.requires_grad and returned.shape == (len(x), 3):
        try:
            (returned * output_weights(scenario, len(x))).sum().backward()
        except RuntimeError as exc:
            out["backward_error"] = str(exc)[:300]
    out["backbone_grads"] = _grads(backbone)
    out["head_grads"] = _grads(head)
    return out
