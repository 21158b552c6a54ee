"""freeze_all_but(model, trainable) -> int: parameters whose name starts with one of the
prefixes require grad, every other one does not; returns the number of trainable scalars."""

from __future__ import annotations

import torch

from gradebox.exercises import type_name
from gradebox.exercises._lesson1 import FreezeScenario, build_model

NAME = "freeze_all_but"

# (model, trainable prefixes, parameters frozen before the call), one list per check; the seed
# picks other weights and rotates the cases.
CASES = (
    ("pretrained", ("head",), ()),
    ("pretrained", ("head", "body.2"), ("body.2.weight", "body.2.bias", "head.bias")),
    ("deep_sequential", ("1",), ("1.weight", "10.weight", "4.weight")),
    ("deep_sequential", ("0", "3.weight"), ("0.weight",)),
    ("pretrained", (), ("head.weight",)),
    ("with_norm", ("1", "2.bias"), ("1.weight", "0.bias")),
    ("deep_sequential", ("11", "0.bias", "5"), ("11.weight", "11.bias", "5.weight")),
    ("pretrained", ("norm", "body.0.weight"), ("body.0.weight", "body.0.bias", "norm.bias")),
)


def suite(start: str = "all", seed: int = 0) -> list[FreezeScenario]:
    """The eight cases for seed 0; another seed leaves one case out (which one depends on the seed)
    and draws other weights.  ``start`` is accepted for the common check interface and ignored."""
    skip = seed % len(CASES) if seed else None
    return [
        FreezeScenario(model, trainable, frozen, seed=1000 * seed + i)
        for i, (model, trainable, frozen) in enumerate(CASES)
        if i != skip
    ]


def run(fn, scenario: FreezeScenario) -> dict:
    model = build_model(scenario)
    named = list(model.named_parameters())
    prefixes = list(scenario.trainable)
    returned = fn(model, prefixes)
    now = dict(model.named_parameters())
    same = [name in now and now[name] is p for name, p in named]
    if isinstance(returned, bool) or not isinstance(returned, (int, float, torch.Tensor)):
        count, kind = None, type_name(returned)
    else:
        count = float(returned) if not isinstance(returned, torch.Tensor) or returned.numel() == 1 else None
        kind = type_name(returned)
    return {
        "names": [name for name, _ in named],
        "flags": [bool(p.requires_grad) for _, p in named],
        "values": [p.detach().clone() for _, p in named],
        "same_objects": same and all(same),
        "still_parameters": all(isinstance(p, torch.nn.Parameter) for _, p in named),
        "leaves": all(p.is_leaf for _, p in named),
        "returned_type": kind,
        "returned": count,
    }
