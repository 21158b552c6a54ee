"""The effects a correct train_step / train_accumulated leaves, computed by the judge itself.

A run passes only if what the student's code left behind is what a correct loop leaves, on the
same scenario: the parameters after every call, every returned loss, and the optimizer's state
(momentum buffers, Adam's moments) at the end.  Two checks, both from the judge's own runs:

* every link, at the strict tolerance (``replay_problem``): each ``step()`` starts where the last
  one left the parameters (so does each forward pass of its batches), moves them as the scenario's
  optimizer moves them given the gradient it read (the judge runs that update itself, from the
  recorded parameters and gradients), and each call ends where its last step left them.  So a wrong
  learning rate, an edited optimizer state or a change outside ``step()`` shows at the step where it
  happens, whatever precision the forward pass ran in;
* the ends (``effects_problem``): the judge's own run of the scenario (``reference_run``: the same
  model, data and optimizer rebuilt from the seed, trained the way the contract says, in the judge's
  process, in the precision the judge found the run computed in: ``precision``) must end where the
  run ended.  In the scenario's own precision at the strict tolerance; for the judge's autocast
  replay, at that tolerance plus how far the judge's own float32 and autocast runs end apart
  (``end_tolerance``), since a rounding that flips early can move a low-precision trajectory a
  little while every link holds.

When the links hold but the ends differ, the record contradicts itself (no honest run does that):
that is ``tampered``.
"""

from __future__ import annotations

import functools

import torch

from gradebox.exercises._lesson3.loops import optimizer_state
from gradebox.exercises._lesson3.scenarios import OPTIMIZER_NAMES, Scenario, build

from ...i18n import _
from ...verdict import Verdict
from .hypotheses import ATOL, RTOL, close
from .precision import SCENARIO, Precision, autocast


def _snapshot(params) -> list[torch.Tensor]:
    return [p.detach().clone() for p in params]


@functools.lru_cache(maxsize=64)
def reference_run(exercise: str, scenario: Scenario, precision: Precision = SCENARIO) -> dict:
    """What a correct loop leaves: ``initial`` parameters, the parameters ``after`` each call,
    what each call ``returned``, and the optimizer's ``state`` at the end, computed in ``precision``
    (a GradScaler changes no value: its scale is a power of two, divided out exactly).  With
    accumulation, backward runs from ``loss / accum_steps`` when ``precision.divided``, else from
    the loss, its gradients divided by accum_steps before the step."""

    def loss_of(x, y):
        with autocast(precision.forward):
            out = setup.model(x)
        with autocast(precision.loss):
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
                (loss / k if precision.divided else loss).backward()
                losses.append(loss.item())
            if not precision.divided:
                with torch.no_grad():
                    for p in params:
                        p.grad /= k
            setup.optimizer.step()
        returned.append(losses)
        after.append(_snapshot(params))
    return {"initial": initial, "after": after, "returned": returned, "state": optimizer_state(setup.optimizer, params)}


def _distance(a: torch.Tensor, b: torch.Tensor) -> float:
    """How far apart two tensors are, relative to their size (as ``close`` measures it)."""
    a, b = a.double(), b.double()
    return float((a - b).norm()) / max(float(a.norm()), float(b.norm()), ATOL)


@functools.lru_cache(maxsize=64)
def end_tolerance(exercise: str, scenario: Scenario, precision: Precision) -> float:
    """How close a run's ends must be to the judge's reference in ``precision``: RTOL, plus, for an
    autocast replay, how far apart the judge's own float32 and autocast runs end (parameters after
    every call, optimizer state), the most a low-precision rounding can move a trajectory."""
    if not precision.autocast:
        return RTOL
    exact, low = reference_run(exercise, scenario), reference_run(exercise, scenario, precision)
    pairs = [(a, b) for one, other in zip(exact["after"], low["after"]) for a, b in zip(one, other)]
    pairs += [(one[name], other[name]) for one, other in zip(exact["state"], low["state"]) for name in one]
    return RTOL + max((_distance(a, b) for a, b in pairs), default=0.0)


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


def effects_problem(exercise: str, scenario: Scenario, obs: dict, precision: Precision = SCENARIO) -> Verdict | None:
    """None when the run's effects are a correct loop's in ``precision`` (the judge's finding, never
    the record's); else the verdict that says why not."""
    reference = reference_run(exercise, scenario, precision)
    if not _all_close(obs["initial"], reference["initial"]):
        return _tampered(exercise, _("the parameters it started from are not the ones the grader handed over"))
    calls = obs["calls"]
    if len(calls) != len(reference["after"]):
        why = _("it reports {got} calls where the grader made {made}")
        return _tampered(exercise, why.format(got=len(calls), made=len(reference["after"])))
    problem = replay_problem(exercise, scenario, obs)
    if problem is not None:
        return problem
    rtol = end_tolerance(exercise, scenario, precision)
    for call, want in zip(calls, reference["after"]):
        if not _all_close(call["after"], want, rtol):
            return _tampered(exercise, _("the parameters it left are not the ones its own steps produced"))
    for call, want in zip(calls, reference["returned"]):
        if not _returned_close(call["returned"], want, rtol):
            return _tampered(exercise, _("the losses it returned differ from those of the steps it took"))
    if not _state_close(obs["optimizer_state"], reference["state"], rtol):
        return Verdict(
            exercise,
            "wrong_update",
            _(
                "The parameters are right, but the optimizer's own state ({optimizer}: its momentum or running "
                "averages) is not what one correct step per update leaves (seen with {case}): use the optimizer "
                "you are given, and do not reset or edit its state."
            ).format(optimizer=_optimizer(scenario), case=scenario.name),
        )
    return None


def replay_problem(exercise: str, scenario: Scenario, obs: dict) -> Verdict | None:
    """Every link of the run, from the start to its last call, at the strict tolerance: None when
    each step() starts where the previous one left the parameters (and so does every forward pass
    of its batches), moves them as the scenario's optimizer does given the gradient it read, and
    each call ends where its last step left them; else the first broken link, as a verdict.

    The update is the judge's own: its copy of the scenario's optimizer (learning rate, momentum,
    Adam's moments carried from step to step) stepped from the recorded parameters and gradients.
    How the gradient was computed (float32 or autocast) is not this check's business: given the
    gradient, the update is float32 arithmetic, so RTOL holds for every run."""
    steps = [s for s in obs["steps"] if any(g is not None for g in s["grads"])]
    previous, ends = obs["initial"], {}
    replay = build(scenario)
    params = list(replay.model.parameters())
    k = scenario.accum_steps
    for update, step in enumerate(steps):
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
            return Verdict(
                exercise,
                "wrong_update",
                _(
                    "optimizer.step() did not move the parameters as {optimizer} with lr={lr} would, given the "
                    "gradient it saw (seen with {case}): did your code change the optimizer's settings or its state?"
                ).format(optimizer=_optimizer(scenario), lr=f"{scenario.lr:g}", case=scenario.name),
            )
        previous = ends[step["call"]] = step["params_after"]
    end = obs["initial"]
    for index, call in enumerate(obs["calls"]):
        end = ends.get(index, end)
        if not _all_close(call["after"], end):
            return _changed_outside(exercise, scenario)
    return None


def _optimizer(scenario: Scenario) -> str:
    """The scenario's optimizer in words ("SGD with momentum"), in today's language."""
    name = OPTIMIZER_NAMES.get(scenario.optimizer)
    return scenario.optimizer if name is None else _(name)


def _changed_outside(exercise: str, scenario: Scenario) -> Verdict:
    return Verdict(
        exercise,
        "wrong_update",
        _(
            "Your code changed the parameters outside optimizer.step() (they are not what the last step left when "
            "the next forward pass or the end of the call comes; seen with {case}): only step() may update them."
        ).format(case=scenario.name),
    )


def _tampered(exercise: str, why: str) -> Verdict:
    """``why`` is a phrase in today's language."""
    return Verdict(
        exercise,
        "tampered",
        _(
            "The record of your run contradicts itself: {why}. The grader recomputes every step, so only code "
            "that really trains the model earns points."
        ).format(why=why),
    )
