"""evaluate(model, loss_fn, batches) -> float: the mean of the per-batch losses, each batch weighted
equally, computed with tracking off, in eval mode, the previous mode restored afterwards."""

from __future__ import annotations

import numbers

import torch

from . import type_name
from ._lesson4 import KINDS, MAX_CALLS, InferenceScenario, build_batches, build_loss, build_model, mode_of, seeds_for

NAME = "evaluate"


def suite(start: str = "all", seed: int = 0) -> list[InferenceScenario]:
    """Batches of unequal sizes (so a per-example mean differs from the per-batch mean), both kinds
    of model, starting in train and in eval mode.  ``start`` does not apply here."""
    s = seeds_for(seed, 3)
    k0, k1 = KINDS[seed % 2], KINDS[(seed + 1) % 2]
    sizes = [(2, 9, 4, 6), (7, 3, 5), (3, 8)]
    rotate = seed % 3
    sizes = sizes[rotate:] + sizes[:rotate]
    return [
        InferenceScenario(NAME, k0, "train", s[0], sizes=sizes[0]),
        InferenceScenario(NAME, k1, "eval", s[1], sizes=sizes[1]),
        InferenceScenario(NAME, k1, "train", s[2], sizes=sizes[2]),
    ]


def describe_number(value) -> dict:
    if isinstance(value, torch.Tensor):
        number = float(value.detach().reshape(-1)[0]) if value.numel() == 1 else None
        return {"type": "Tensor", "number": number}
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return {"type": type_name(value), "number": float(value), "is_float": isinstance(value, float)}
    return {"type": type_name(value), "number": None}


def run(fn, scenario: InferenceScenario) -> dict:
    model = build_model(scenario)
    loss_fn = build_loss(scenario)
    batches = build_batches(scenario)
    out = {"start": mode_of(model), "loss_calls": []}
    targets = [y for _, y in batches]

    def on_loss(module, args):  # was it called as loss_fn(target, prediction)?
        if len(args) >= 2:
            first = args[0]
            if len(out["loss_calls"]) < MAX_CALLS:
                out["loss_calls"].append(any(first is y or (first.shape == y.shape and first.dtype == y.dtype
                                                        and torch.equal(first, y)) for y in targets))  # fmt: skip

    loss_fn.register_forward_pre_hook(on_loss)
    try:
        returned = fn(model, loss_fn, list(batches))
    except Exception as exc:  # noqa: BLE001 - judged with the calls recorded so far
        torch.set_grad_enabled(True)
        return {**out, "exception": exc}
    out["returned"] = describe_number(returned)
    out["calls"] = list(model.calls)
    out["n_calls"] = getattr(model, "count", 0)
    out["mode_after"] = mode_of(model)
    out["grad_after"] = bool(torch.is_grad_enabled())
    out["inference_after"] = bool(torch.is_inference_mode_enabled())
    torch.set_grad_enabled(True)
    return out
