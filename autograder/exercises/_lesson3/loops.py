"""What train_step and train_accumulated share: running them under the recorder (in the
sandbox) and turning the record into a verdict (in the judge)."""

from __future__ import annotations

import numbers

import torch

from ..hypotheses import Run, explain, reference_gradients
from ..recorder import Recorder, snapshot
from ..scenarios import Scenario, build
from ..verdict import Verdict


def describe_value(value) -> dict:
    """A returned value as plain data: a number, a list of numbers, or the name of its type."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return {"number": float(value)}
    if isinstance(value, (list, tuple)):
        items = [describe_value(v) for v in value]
        if all("number" in item for item in items):
            return {"numbers": [item["number"] for item in items]}
    return {"type": type(value).__name__}


def record(fn, scenario: Scenario, calls: list[tuple]) -> dict:
    """Run ``fn`` once per argument tuple that ``calls(setup)`` produces, under the recorder."""
    setup = build(scenario)
    recorder = Recorder(setup.model, setup.optimizer, setup.batches)
    out = {"initial": snapshot(recorder.params), "calls": [], "hooks_intact": True}
    try:
        for index, args in enumerate(calls(setup)):
            recorder.call = index
            before, accumulated = snapshot(recorder.params), recorder.accumulations
            returned = fn(setup.model, setup.optimizer, setup.loss_fn, *args)
            out["calls"].append(
                {
                    "params": before,
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
        out["accumulations"] = recorder.accumulations
        out["final"] = snapshot(recorder.params)
        recorder.remove()
    return out


def _params_at_forward(scenario: Scenario, obs: dict, steps: list[dict]) -> list[list[torch.Tensor]]:
    """The parameter values each batch went forward with.

    Taken from the first forward of that very batch; when the student's code fed the model
    something else (e.g. all micro-batches concatenated), from the values after the last step
    of the previous update, which is what a correct loop would have used."""
    k = scenario.accum_steps
    first = {}
    for forward in obs["forwards"]:
        first.setdefault(forward["batch"], forward["params"])
    values = []
    for i in range(scenario.n_batches):
        if i in first:
            values.append(first[i])
            continue
        if scenario.accum_steps == 1:
            call = obs["calls"][i] if i < len(obs["calls"]) else obs["calls"][-1]
            values.append(call["params"])
            continue
        u = i // k
        values.append(steps[u - 1]["params_after"] if 0 < u <= len(steps) else obs["initial"])
    return values


def effective_steps(obs: dict, expected: int) -> list[dict]:
    """The steps that can have changed something.  A step() while every .grad is None is a
    no-op for every PyTorch optimizer, so an extra one is harmless and is not counted."""
    steps = obs["steps"]
    if len(steps) != expected:
        real = [s for s in steps if any(g is not None for g in s["grads"])]
        if len(real) == expected:
            return real
    return steps


def judge_runs(exercise: str, scenarios: list[Scenario], observations: list[dict], messages) -> Verdict:
    """The verdict over all scenarios of train_step or train_accumulated."""
    runs, counts = [], []
    for scenario, obs in zip(scenarios, observations):
        n, k = scenario.n_batches, scenario.accum_steps
        updates = n // k
        steps = effective_steps(obs, updates)
        counts.append((scenario, len(steps), obs["accumulations"]))
        if not steps:
            continue
        if k > 1 and len(steps) == n:
            return Verdict(exercise, "steps_every_micro_batch", messages["steps_every_micro_batch"](scenario))
        calls = [s["call"] for s in steps]
        if len(steps) != updates or (k == 1 and calls != list(range(n))):
            return Verdict(exercise, "wrong_update", messages["step_count"](scenario, len(steps), updates))
        grads, losses = reference_gradients(scenario, _params_at_forward(scenario, obs, steps))
        stale = None
        if scenario.start == "dirty":
            stale = build(scenario).stale
        runs.append(Run(scenario, steps, grads, losses, stale))
    if all(steps == 0 for _, steps, _ in counts):
        code = "no_backward" if all(acc == 0 for _, _, acc in counts) else "no_step"
        return Verdict(exercise, code, messages[code](counts[0][0]))
    if len(runs) != len(scenarios):
        scenario = next(sc for sc, steps, _ in counts if steps == 0)
        return Verdict(exercise, "no_step", messages["no_step"](scenario))
    code = explain(runs)
    if code != "ok" and all(acc == 0 for _, _, acc in counts):
        code = "no_backward"
    if code != "ok":
        return Verdict(exercise, code, messages[code](runs[0].scenario))
    for run, obs in zip(runs, observations):
        problem = messages["check_return"](run, obs)
        if problem:
            return Verdict(exercise, "error", problem)
    return Verdict(exercise, "ok", messages["ok"](scenarios))


def loss_matches(returned: float, reference: float) -> bool:
    return abs(returned - reference) <= 1e-4 * max(1.0, abs(reference))
