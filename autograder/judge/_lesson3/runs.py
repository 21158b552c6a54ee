"""Judging a recorded run of train_step or train_accumulated.

Two questions, in this order:

1. What did the code do to the gradients?  The recorder's observations (the gradient each
   ``step()`` read, what ``backward()`` left) are explained by the hypotheses
   (``hypotheses.py``): correct, or one of the contract's clearing mistakes.  That names the
   mistake, but it is what the job *says* it saw, so it can only fail a run.
2. Are the effects right?  Only then can the run pass: every step() replayed by the judge from
   the recorded parameters and gradients, and the parameters after every call, the returned losses
   and the optimizer's state what the judge's own correct run of the same scenario leaves
   (``effects.py``).

Both compare with references the judge computes in a precision it finds itself (``precision.py``):
the scenario's own (float32), or its own autocast replay of the scenario when that is what explains
the gradients the run's steps read.  Nothing in the record chooses a reference or a tolerance.
"""

from __future__ import annotations

import torch

from gradebox.exercises._lesson3.scenarios import Scenario, build

from ...i18n import N_, _, ngettext
from ...verdict import Verdict
from .effects import effects_problem
from .hypotheses import RTOL, JudgedRun, explain, modification, reference_gradients, rewritten, showing
from .precision import candidates


def runs(scenarios: list[Scenario]) -> str:
    """What was checked, in words: "4 runs, from every .grad None and from stale gradients"."""
    starts, n = {s.start for s in scenarios}, len(scenarios)
    # One whole phrase per set of starts the runs had.
    if starts == {"fresh"}:
        text = ngettext(
            "{n} run with different models and optimizers, from every .grad None",
            "{n} runs with different models and optimizers, from every .grad None",
            n,
        )
    elif starts == {"dirty"}:
        text = ngettext(
            "{n} run with different models and optimizers, from stale gradients",
            "{n} runs with different models and optimizers, from stale gradients",
            n,
        )
    else:
        text = ngettext(
            "{n} run with different models and optimizers, from every .grad None and from stale gradients",
            "{n} runs with different models and optimizers, from every .grad None and from stale gradients",
            n,
        )
    return text.format(n=n)


def correct(scenarios: list[Scenario], saw: str) -> str:
    """The message of a pass: what every step() saw (a phrase in today's language), and, when only
    clean starts were checked (the first test cell), the pointer to the dirty-start cell below, first
    so it is read: the test cell below starts from stale gradients, the case the lesson is about, and
    a ✅ here must not read as "done"."""
    if {s.start for s in scenarios} == {"fresh"}:
        # i18n: {saw} is a sentence of its own here, starting with a capital ("Each optimizer.step() saw ...")
        text = _(
            "Correct from a clean start — now run the next cell, which starts from stale gradients. {saw} ({runs})."
        )
        return text.format(saw=f"{saw[0].upper()}{saw[1:]}", runs=runs(scenarios))
    return _("Correct: {saw} ({runs}).").format(saw=saw, runs=runs(scenarios))


# What GradScaler.step raises when every .grad is None, and when no loss went through scaler.scale.
NO_GRADIENT = ("No inf checks were recorded for this optimizer", "Attempted step but _scale is None")


def scaler_found_no_gradient(exercise: str, error: dict, messages) -> Verdict | None:
    """``scaler.step`` raises when no parameter has a gradient: backward never reached them, or they
    were cleared between backward and step.  The record so far tells which."""
    if not any(words in error["message"] for words in NO_GRADIENT):
        return None
    observation = error.get("observation")
    accumulated = isinstance(observation, dict) and observation.get("accumulations", 0) not in (0, None)
    code = "clears_after_backward" if accumulated else "no_backward"
    return Verdict(exercise, code, messages[code](None))


def swapped_loss(observation: dict | None) -> bool:
    """Was the loss called as loss_fn(target, prediction)?  (Also read from the record so far of a
    run that raised, whose shape was not checked: only a well-formed list names the swap.)"""
    calls = observation.get("loss_calls") if isinstance(observation, dict) else None
    return isinstance(calls, list) and any(isinstance(c, dict) and c.get("swapped") is True for c in calls)


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
    recorded, counts = [], []  # (scenario, steps, parameters each batch went forward with)
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
        recorded.append((scenario, steps, _params_at_forward(scenario, obs, steps)))
    if all(steps == 0 for _, steps, _ in counts):
        code = "no_backward" if all(acc == 0 for _, _, acc in counts) else "no_step"
        return Verdict(exercise, code, messages[code](counts[0][0]))
    if len(recorded) != len(scenarios):
        scenario = next(sc for sc, steps, _ in counts if steps == 0)
        return Verdict(exercise, "no_step", messages["no_step"](scenario))
    runs, code, keys = _explained(recorded)
    if code != "ok" and all(acc == 0 for _, _, acc in counts):
        code, keys = "no_backward", ["no_backward"]
    if code != "ok" and any(swapped_loss(obs) for obs in observations):
        # The swap is harmless only for a symmetric loss; named first, as it breaks the others.
        code, keys = "swapped_loss_args", ["swapped_loss_args", *keys]
    returns = [problem for run, obs in zip(runs, observations) if (problem := messages["check_return"](run, obs))]
    if code != "ok":
        scenario = showing(runs).scenario
        texts = [_(CHANGES[key]) if key in CHANGES else messages[key](scenario) for key in keys]
        # What the function returns is its own mistake: named too, not left for the next run.
        texts += returns[:1]
        also = [f"{_('Also:')} {text[0].lower()}{text[1:]}" for text in texts[1:]]  # as verdict.together
        return Verdict(exercise, code, " ".join(texts[:1] + also))
    if returns:
        return Verdict(exercise, "error", returns[0])
    for run, obs in zip(runs, observations):
        verdict = effects_problem(exercise, run.scenario, obs, run.precision)
        if verdict is not None:
            return verdict
    return Verdict(exercise, "ok", messages["ok"](scenarios))


# Marked here, translated where they are shown (``_(SWAPPED_LOSS)``).
SWAPPED_LOSS = N_(
    "Your code calls the loss as loss_fn(y, prediction): PyTorch's losses take the prediction "
    "first and the target second, loss_fn(model(x), y). With cross-entropy the swapped call "
    "fails (the class labels are not a prediction); with MSE it happens to give the same number."
)

# What code did to the gradients between backward() and step(), in words for the student.
CHANGES = {
    "clips_gradients": N_(
        "Your code clips the gradients (clip_grad_norm_, clip_grad_value_ or a clamp by hand) between "
        "backward() and step(), so whenever the clip fires step() does not get this batch's gradient. "
        "Clipping is a real technique, but this exercise asks for the plain gradient: remove it."
    ),
    "rescaled": N_(
        "Your code multiplies the gradients by a constant between backward() and step(), so step() does not "
        "get the gradient backward() computed; remove that rescaling."
    ),
    "changed": N_(
        "Your code changes the gradients between backward() and step() (they are not what backward() "
        "computed when step() reads them); leave .grad alone between the two."
    ),
}


def _explained(recorded: list[tuple]) -> tuple[list[JudgedRun], str, list[str]]:
    """The runs with the judge's reference gradients, in the first precision whose replay explains
    what their steps read, and the diagnosis there (code, message keys).

    The scenario's own precision is tried first, then the judge's autocast replays: a loop that
    computes its forward pass under autocast is explained by the judge's own autocast run of the
    scenario, at the same strict tolerance.  One precision for every run of a check, since one
    function made them all.  When no replay explains the runs, the scenario's own precision names
    the mistake (``wrong_gradient`` or what its steps show beside it)."""
    setups = [build(scenario) for scenario, _, _ in recorded]  # the judge's own: stale gradients, batch sizes
    first = None
    for precision in candidates(any(scenario.accum_steps > 1 for scenario, _steps, _params in recorded)):
        runs = []
        for (scenario, steps, params_at), setup in zip(recorded, setups):
            grads, losses = reference_gradients(scenario, params_at, precision)
            sizes = [len(x) for x, _ in setup.batches]
            runs.append(JudgedRun(scenario, steps, grads, losses, setup.stale, sizes, precision))
        code, keys = _diagnosis(runs)
        if code != "wrong_gradient":
            return runs, code, keys
        first = first or (runs, code, keys)
    return first


def _diagnosis(runs: list[JudgedRun]) -> tuple[str, list[str]]:
    """The code, and the messages to show (their keys, the main one first).

    The gradients step() saw are judged first.  If the code changed them after backward()
    (clipping, rescaling), the gradients backward() left are judged too: that names the way of
    clearing even when a clip hides it, and the change itself is named beside it."""
    code = explain(runs)
    if code == "clears_after_backward" or not rewritten(runs):
        return code, [code]
    change = modification(runs)
    if code == "ok":
        # Right values after an in-place write: a clip under its threshold (named whatever the
        # data), or a rescale that makes the mean (dividing summed gradients by accum_steps).
        return ("clips_gradients", ["clips_gradients"]) if change == "unchanged" else ("ok", [])
    extra = "clips_gradients" if change in ("unchanged", "clipped") else change
    base = explain(runs, key="backward_grads")
    if base == "ok":
        return ("clips_gradients" if extra == "clips_gradients" else "wrong_gradient"), [extra]
    if base == "wrong_gradient":
        return code, [code, extra]
    return base, [base, extra]


def loss_matches(returned: float, reference: float) -> bool:
    return abs(returned - reference) <= RTOL * max(1.0, abs(reference))
