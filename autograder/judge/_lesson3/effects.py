"""The effects a correct train_step / train_accumulated leaves, computed by the judge itself.

A run passes only if what the student's code left behind is what a correct loop leaves, on the
same scenario: the parameters after every call, every returned loss, and the optimizer's state
(momentum buffers, Adam's moments) at the end.  The judge gets those from its own run of the
scenario (``reference_run``): the same model, data and optimizer rebuilt from the seed, trained the
way the contract says, in the judge's process.

When the observations say "correct" but the effects differ, the chain between them tells whether
the code did something a student may do (change the parameters outside ``step()``, change the
optimizer's settings) or the record contradicts itself: every link holds, yet the end is wrong,
which no honest run produces.  That is ``tampered``.
"""

from __future__ import annotations

import functools

import torch

from ...exercises._lesson3.loops import optimizer_state
from ...exercises._lesson3.scenarios import OPTIMIZER_NAMES, Scenario, build
from ...verdict import Verdict
from .hypotheses import RTOL, RTOL_AUTOCAST, _autocast, close


def _snapshot(params) -> list[torch.Tensor]:
    return [p.detach().clone() for p in params]


@functools.lru_cache(maxsize=64)
def reference_run(exercise: str, scenario: Scenario, autocast: tuple = (None, None)) -> dict:
    """What a correct loop leaves: ``initial`` parameters, the parameters ``after`` each call,
    what each call ``returned``, and the optimizer's ``state`` at the end.  ``autocast``: the dtypes
    CPU autocast computed the run's forward pass and loss in (a GradScaler changes no value: its
    scale is a power of two, divided out exactly)."""
    forward_dtype, loss_dtype = autocast

    def loss_of(x, y):
        with _autocast(forward_dtype):
            out = setup.model(x)
        with _autocast(loss_dtype):
            return setup.loss_fn(out, y)

    setup = build(scenario)
    params = list(setup.model.parameters())
    initial, after, returned = _snapshot(params), [], []
    batches, k = setup.batches, scenario.accum_steps
    if exercise == "train_step":
        for x, y in batches:
            setup.optimizer.zero_grad()
            loss = loss_of(x, y)
            loss.backward()
            setup.optimizer.step()
            returned.append(loss.item())
            after.append(_snapshot(params))
    else:
        losses = []
        for start in range(0, len(batches), k):
            setup.optimizer.zero_grad()
            for x, y in batches[start : start + k]:
                loss = loss_of(x, y)
                (loss / k).backward()
                losses.append(loss.item())
            setup.optimizer.step()
        returned.append(losses)
        after.append(_snapshot(params))
    return {"initial": initial, "after": after, "returned": returned, "state": optimizer_state(setup.optimizer, params)}


def _all_close(got: list, want: list, rtol: float = RTOL) -> bool:
    return len(got) == len(want) and all(close(g, w, rtol) for g, w in zip(got, want))


def _returned_close(got: dict, want, rtol: float = RTOL) -> bool:
    numbers = got.get("numbers", [got.get("number")]) if isinstance(want, list) else [got.get("number")]
    want = want if isinstance(want, list) else [want]
    return len(numbers) == len(want) and all(
        isinstance(g, float) and abs(g - w) <= rtol * max(1.0, abs(w)) for g, w in zip(numbers, want)
    )


def _state_close(got: list[dict], want: list[dict], rtol: float = RTOL) -> bool:
    return len(got) == len(want) and all(
        set(g) == set(w) and all(close(g[name], w[name], rtol) for name in w) for g, w in zip(got, want)
    )


def effects_problem(exercise: str, scenario: Scenario, obs: dict) -> Verdict | None:
    """None when the run's effects are a correct loop's; else the verdict that says why not."""
    from .runs import autocast_of

    amp = autocast_of(obs)
    rtol = RTOL_AUTOCAST if any(amp) else RTOL
    reference = reference_run(exercise, scenario, amp)
    if not _all_close(obs["initial"], reference["initial"]):
        return _tampered(exercise, "the parameters it started from are not the ones the grader handed over")
    calls = obs["calls"]
    if len(calls) != len(reference["after"]):
        return _tampered(exercise, f"it reports {len(calls)} calls where the grader made {len(reference['after'])}")
    for index, (call, want) in enumerate(zip(calls, reference["after"])):
        if not _all_close(call["after"], want, rtol):
            return _explain(exercise, scenario, obs, index)
    for call, want in zip(calls, reference["returned"]):
        if not _returned_close(call["returned"], want, rtol):
            return _tampered(exercise, "the losses it returned differ from those of the steps it took")
    if not _state_close(obs["optimizer_state"], reference["state"], rtol):
        name = OPTIMIZER_NAMES.get(scenario.optimizer, scenario.optimizer)
        return Verdict(
            exercise,
            "wrong_update",
            f"The parameters are right, but the optimizer's own state ({name}: its momentum or running averages) "
            f"is not what one correct step per update leaves (seen with {scenario.name}): use the optimizer you "
            "are given, and do not reset or edit its state.",
        )
    return None


def _explain(exercise: str, scenario: Scenario, obs: dict, call: int) -> Verdict:
    """The parameters after ``call`` are wrong although every step() saw the right gradient:
    follow the chain from the start to that call to find the first broken link."""
    steps = [s for s in obs["steps"] if any(g is not None for g in s["grads"])]
    previous = obs["initial"]
    replay = build(scenario)
    params = list(replay.model.parameters())
    k = scenario.accum_steps
    for update, step in enumerate(steps):
        if step["call"] > call:
            break
        batches = range(update * k, (update + 1) * k)  # the batches this step's gradient came from
        forwards = [f["params"] for f in obs["forwards"] if f["batch"] in batches]
        if not _all_close(step["params"], previous) or not all(_all_close(f, previous) for f in forwards):
            return _changed_outside(exercise, scenario)
        with torch.no_grad():
            for p, value, grad in zip(params, step["params"], step["grads"]):
                p.copy_(value)
                p.grad = None if grad is None else grad.to(p.dtype).clone()
        replay.optimizer.step()
        if not _all_close(_snapshot(params), step["params_after"]):
            name = OPTIMIZER_NAMES.get(scenario.optimizer, scenario.optimizer)
            return Verdict(
                exercise,
                "wrong_update",
                f"optimizer.step() did not move the parameters as {name} with lr={scenario.lr:g} would, given the "
                f"gradient it saw (seen with {scenario.name}): did your code change the optimizer's settings or "
                "its state?",
            )
        previous = step["params_after"]
    if not _all_close(obs["calls"][call]["after"], previous):
        return _changed_outside(exercise, scenario)
    return _tampered(exercise, "the parameters it left are not the ones its own steps produced")


def _changed_outside(exercise: str, scenario: Scenario) -> Verdict:
    return Verdict(
        exercise,
        "wrong_update",
        "Your code changed the parameters outside optimizer.step() (they are not what the last step left when "
        f"the next forward pass or the end of the call comes; seen with {scenario.name}): only step() may "
        "update them.",
    )


def _tampered(exercise: str, why: str) -> Verdict:
    return Verdict(
        exercise,
        "tampered",
        f"The record of your run contradicts itself: {why}. The grader recomputes every step, so only code "
        "that really trains the model earns points.",
    )
