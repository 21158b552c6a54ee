"""evaluate(model, loss_fn, batches) -> float: the mean of the per-batch losses, each batch weighted
equally, computed with tracking off, in eval mode, the previous mode restored afterwards.

The call runs under a ``CallRecorder`` whose roots are the model's parameters and every batch's
input and target: the record's ``trace`` says how every operation on the model ran and which
one-number results each batch's input and target went into with the model (``scalars``:
``batch<i>``, its loss among them); ``loss_calls`` says, per loss call, whether a target came
first (``loss_fn(y, output)``)."""

from __future__ import annotations

import numbers

import torch

from gradebox.exercises import type_name
from gradebox.exercises._lesson4 import (
    KINDS,
    InferenceScenario,
    build_batches,
    build_loss,
    build_model,
    mode_of,
    seeds_for,
)
from gradebox.exercises._lesson4.recorder import CallRecorder

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


def recorder_for(model, batches) -> CallRecorder:
    groups = {"model": list(model.parameters())}
    groups.update({f"x{i}": [x] for i, (x, _) in enumerate(batches)})
    groups.update({f"y{i}": [y] for i, (_, y) in enumerate(batches)})
    losses = {f"batch{i}": ["model", f"x{i}", f"y{i}"] for i in range(len(batches))}
    targets = [f"y{i}" for i in range(len(batches))]
    return CallRecorder(groups, known=list(model.buffers()), stages=["model"], scalars=losses, targets=targets)


def run(fn, scenario: InferenceScenario) -> dict:
    model = build_model(scenario)
    loss_fn = build_loss(scenario)
    batches = build_batches(scenario)
    out = {"start": mode_of(model)}
    recorder = recorder_for(model, batches)
    try:
        with recorder:
            returned = fn(model, loss_fn, list(batches))
    except Exception as exc:  # noqa: BLE001 - judged with the loss calls recorded so far
        torch.set_grad_enabled(True)
        return {**out, "loss_calls": recorder.loss_calls, "exception": exc}
    out["loss_calls"] = recorder.loss_calls
    out["returned"] = describe_number(returned)
    out["trace"] = recorder.notes()
    out["mode_after"] = mode_of(model)
    out["grad_after"] = bool(torch.is_grad_enabled())
    out["inference_after"] = bool(torch.is_inference_mode_enabled())
    torch.set_grad_enabled(True)
    return out
