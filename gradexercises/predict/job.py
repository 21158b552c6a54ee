"""predict(model, x) -> Tensor: model(x) with tracking off, in eval mode, the mode restored after
(also when the forward pass raises, and the exception must reach the caller).

The call runs under a ``CallRecorder`` whose roots are the model's parameters and ``x``: the
record's ``trace`` says how every operation on them ran and where the returned tensor came from."""

from __future__ import annotations

import torch

from gradebox.exercises._lesson4 import (
    KINDS,
    InferenceScenario,
    build_batches,
    build_model,
    describe_tensor,
    mode_of,
    seeds_for,
)
from gradebox.exercises._lesson4.recorder import CallRecorder

NAME = "predict"
BAD_INPUT = "input features"  # words of the exception the instrumented model raises on purpose


def suite(start: str = "all", seed: int = 0) -> list[InferenceScenario]:
    """Both kinds of model, starting in train and in eval mode, and last a call whose forward raises.
    ``start`` (the CLI's "fresh"/"dirty"/"all") does not apply here; ``seed`` varies models and data."""
    s = seeds_for(seed, 4)
    k0, k1 = KINDS[seed % 2], KINDS[(seed + 1) % 2]
    n = 5 + seed % 4
    return [
        InferenceScenario(NAME, k0, "train", s[0], sizes=(n,)),
        InferenceScenario(NAME, k1, "eval", s[1], sizes=(n + 1,)),
        InferenceScenario(NAME, k1, "train", s[2], sizes=(n + 2,)),
        InferenceScenario(NAME, k0, "train", s[3], raises=True, sizes=(n,)),
    ]


def _is_ours(exc: BaseException) -> bool:
    """The model's own exception, possibly wrapped by the student's code (raise ... from exc)."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, ValueError) and BAD_INPUT in str(exc):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def recorder_for(model, x) -> CallRecorder:
    """The model's forward is an operation on its parameters; a full one reaches them and ``x``."""
    return CallRecorder({"model": list(model.parameters()), "x": [x]}, known=list(model.buffers()),
                        stages=["model"], evidence={"forward": ["model", "x"]})  # fmt: skip


def run(fn, scenario: InferenceScenario) -> dict:
    model = build_model(scenario)
    ((x, _),) = build_batches(scenario)
    if scenario.raises:
        x = x[:, :-1]  # one feature short: the model raises ValueError
    out = {"start": mode_of(model), "raised": False, "returned": None}
    recorder = recorder_for(model, x)
    returned = None
    try:
        with recorder:
            returned = fn(model, x)
    except Exception as exc:  # noqa: BLE001 - only the model's own exception is expected
        if not (scenario.raises and _is_ours(exc)):
            raise
        out["raised"] = True
    else:
        out["returned"] = describe_tensor(returned)
    out["trace"] = {**recorder.notes(), "returned": recorder.describe(returned)}
    out["mode_after"] = mode_of(model)
    out["grad_after"] = bool(torch.is_grad_enabled())
    out["inference_after"] = bool(torch.is_inference_mode_enabled())
    torch.set_grad_enabled(True)  # the next scenario starts from PyTorch's default again
    return out
