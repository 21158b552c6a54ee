"""What the lesson 2 judges share: comparing tensors, never calling inf or NaN close."""

from __future__ import annotations

import torch

from .validate import Fields, Flag, ListOf, Number, OneOf, Optional, Tensor, Text


def same(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> bool:
    """Same shape and close values (compared in float64); false on inf or NaN on either side."""
    if tuple(a.shape) != tuple(b.shape) or not (bool(torch.isfinite(a).all()) and bool(torch.isfinite(b).all())):
        return False
    return bool(torch.allclose(a.double(), b.double(), rtol=rtol, atol=atol))


def returned_spec(max_numel: int = 1_000_000) -> Fields:
    """What ``exercises._lesson2.returned`` writes: a value's type, and its tensor or its number."""
    return Fields(
        {
            "type": Text(100),
            "is_tensor": Flag(),
            "tensor": Optional(Tensor(dtypes=None, finite=False, max_numel=max_numel)),
            "number": Optional(Number(finite=False)),
            "requires_grad": Flag(),
        },
        optional=frozenset({"requires_grad"}),
    )


def argument_spec() -> Fields:
    """What ``exercises._lesson2.describe_arg`` writes about one call of an instrumented function."""
    return Fields(
        {
            "tensor": Flag(),
            "requires_grad": Flag(),
            "dtype": Text(100),
            "value": Optional(OneOf((Number(finite=False), Tensor(dtypes=None, finite=False)))),
            "shape": Optional(ListOf(Number(integer=True), max_length=8)),
        }
    )
