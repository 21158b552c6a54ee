"""make_trainable(values) -> torch.Tensor: a new float32 leaf tensor that requires grad, with
the values and shape of ``values`` (a possibly nested list of numbers, or a tensor of any dtype,
possibly part of a graph), sharing no memory with it and leaving it untouched."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from gradebox.exercises import type_name
from gradebox.i18n import pgettext

NAME = "make_trainable"

INPUTS = ("int_list", "nested_floats", "mixed_list", "int_tensor", "float_tensor", "double_tensor", "graph_tensor")


@dataclass(frozen=True)
class InputScenario:
    """One ``values`` argument."""

    kind: str
    seed: int

    @property
    def name(self) -> str:
        # i18n: a case of make_trainable; {kind} is the input's name in code ("int_list"), kept
        return pgettext("scenario", "{kind} input").format(kind=self.kind)


def suite(start: str = "all", seed: int = 0) -> list[InputScenario]:
    """Every kind of input once, with numbers drawn from the seed (``start`` is ignored)."""
    return [InputScenario(kind, seed=100 * seed + i) for i, kind in enumerate(INPUTS)]


def build_input(scenario: InputScenario):
    """The ``values`` argument, and the leaf it was computed from (None unless graph_tensor)."""
    gen = torch.Generator().manual_seed(scenario.seed)
    n = 3 + scenario.seed % 3
    ints = torch.randint(-9, 10, (n,), generator=gen)
    floats = (torch.randn(n, generator=gen) * 4).round(decimals=2) + 0.25
    kind = scenario.kind
    if kind == "int_list":
        return ints.tolist(), None
    if kind == "nested_floats":
        return [floats.tolist(), (floats * -0.5).tolist()], None
    if kind == "mixed_list":
        return [int(v) if i % 2 else float(v) + 0.5 for i, v in enumerate(ints.tolist())], None
    if kind == "int_tensor":
        return ints.reshape(1, n), None
    if kind == "float_tensor":
        return floats.clone(), None
    if kind == "double_tensor":
        return floats.double().reshape(n, 1), None
    if kind == "graph_tensor":
        base = floats.clone().requires_grad_()
        return base * 2.0 + 1.0, base
    raise ValueError(f"unknown input {kind!r}; choose from {INPUTS}")


def snapshot_input(values):
    if isinstance(values, torch.Tensor):
        return {"values": values.detach().clone(), "requires_grad": values.requires_grad, "leaf": values.is_leaf}
    return {"list": repr(values)[:20_000]}


def run(fn, scenario: InputScenario) -> dict:
    values, base = build_input(scenario)
    original = values
    try:
        result = fn(values)
    except RuntimeError as exc:
        if "floating point" not in str(exc):
            raise
        return {"raised": str(exc)[:300], "type": None}
    record = {"raised": None, "type": type_name(result), "input_after": snapshot_input(original)}
    if not isinstance(result, torch.Tensor):
        return record
    record.update(
        dtype=str(result.dtype).replace("torch.", ""),
        shape=list(result.shape),
        values=result.detach().clone(),
        requires_grad=bool(result.requires_grad),
        leaf=bool(result.is_leaf),
        shares=isinstance(original, torch.Tensor)
        and (result is original or result.untyped_storage().data_ptr() == original.untyped_storage().data_ptr()),
        grad_ok=None,
        upstream_grad=False,
    )
    if result.requires_grad and result.is_leaf and result.dtype.is_floating_point:
        (result * 3.0).sum().backward()
        record["grad_ok"] = result.grad is not None and bool((result.grad == 3.0).all())
    if base is not None:
        record["upstream_grad"] = base.grad is not None
    return record
