"""What train_step and train_accumulated share in the job: running them under the recorder.

The record holds the *effects* of the student's code (what each call returned, the parameters
after each call, the optimizer's state at the end), which alone can earn a pass, and what the
recorder saw along the way (the gradient each ``step()`` read, what ``backward()`` left, the
parameters each batch went forward with), which names the mistake."""

from __future__ import annotations

import numbers

import torch

from .. import type_name
from .recorder import TrainingRecorder, snapshot
from .scenarios import Scenario, build


def describe_value(value) -> dict:
    """A returned value as plain data: a number, a list of numbers, or the name of its type."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return {"number": float(value)}
    if isinstance(value, (list, tuple)):
        items = [describe_value(v) for v in value]
        if all("number" in item for item in items):
            return {"numbers": [item["number"] for item in items]}
    return {"type": type_name(value)}


def record(fn, scenario: Scenario, calls: list[tuple]) -> dict:
    """Run ``fn`` once per argument tuple that ``calls(setup)`` produces, under the recorder.

    An exception from the student's function ends the run; it is handed back as ``exception``
    beside the record so far, so that the judge can say what led to it (a swapped loss call)."""
    setup = build(scenario)
    recorder = TrainingRecorder(setup.model, setup.optimizer, setup.batches, setup.loss_fn)
    out = {"initial": snapshot(recorder.params), "calls": [], "hooks_intact": True}
    try:
        for index, args in enumerate(calls(setup)):
            recorder.call = index
            before, accumulated = snapshot(recorder.params), recorder.accumulations
            try:
                returned = fn(setup.model, setup.optimizer, setup.loss_fn, *args)
            except Exception as exc:  # noqa: BLE001 - judged with the record; BaseException goes up
                out["exception"] = exc
                break
            out["calls"].append(
                {
                    "params": before,
                    "after": snapshot(recorder.params),
                    "returned": describe_value(returned),
                    "accumulations": recorder.accumulations - accumulated,
                }
            )
            if not recorder.hooks_intact():
                out["hooks_intact"] = False
                break
    finally:
        out["steps"] = recorder.steps
        out["forwards"] = recorder.forwards
        out["loss_calls"] = recorder.loss_calls
        out["accumulations"] = recorder.accumulations
        out["final"] = snapshot(recorder.params)
        out["optimizer_state"] = optimizer_state(setup.optimizer, recorder.params)
        out["loss_scales"] = sorted(set(recorder.scales))
        recorder.remove()
    return out


def optimizer_state(optimizer: torch.optim.Optimizer, params: list) -> list[dict]:
    """The optimizer's per-parameter state (momentum buffers, Adam's moments and step count): the
    tensors, per parameter, by name."""
    state = []
    for p in params:
        entries = optimizer.state.get(p, {}) if isinstance(optimizer.state, dict) else {}
        state.append(
            {k: v.detach().clone() for k, v in entries.items() if isinstance(k, str) and isinstance(v, torch.Tensor)}
        )
    return state
