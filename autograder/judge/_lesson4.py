"""What the lesson 4 judges share: the trusted reference outputs, comparisons that are never true on
inf or NaN, and the shape of what the instrumented models wrote down."""

from __future__ import annotations

import torch

from ..exercises._lesson4 import MAX_CALLS, InferenceScenario, build_model
from .validate import Fields, Flag, ListOf, Tensor, Text


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or not (bool(torch.isfinite(a).all()) and bool(torch.isfinite(b).all())):
        return False
    return bool(torch.allclose(a.double(), b.double(), rtol=1e-4, atol=1e-5))


def reference_outputs(scenario: InferenceScenario, xs: list[torch.Tensor]) -> list[torch.Tensor]:
    """What the model gives in eval mode, without tracking: the trusted reference."""
    model = build_model(scenario)
    model.eval()
    with torch.no_grad():
        return [model.net(x) for x in xs]


CALLS = ListOf(Fields({"grad": Flag(), "inference": Flag(), "any_training": Flag()}), max_length=MAX_CALLS)
TENSOR_OUT = Fields(
    {"type": Text(100), "values": Tensor(dtypes=None, finite=False), "requires_grad": Flag(), "has_grad_fn": Flag(),
     "is_inference": Flag()}
)  # fmt: skip
OTHER_OUT = Fields({"type": Text(100)})
