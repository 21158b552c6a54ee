"""What the lesson 4 judges share: the trusted reference outputs, comparisons that are never true on
inf or NaN, the shape of what the job's recorder wrote down (``exercises._lesson4.recorder``), and
what makes a record ``tampered``.

The recorder's notes can name a mistake; a pass needs the effects (the returned values against the
judge's own reference) *and* positive evidence that the recorder saw the work done: a recorder still
in place when the call ended, no graph built out of its sight, and a returned tensor it saw made
from the model's parameters and the input.  A right answer the recorder did not see made was
computed where the grader could not follow, on purpose: that is ``tampered``.
"""

from __future__ import annotations

import torch

from gradebox.exercises._lesson4 import InferenceScenario, build_model
from gradebox.exercises._lesson4.recorder import MAX_LOSS_CALLS, MAX_SCALARS

from ..i18n import N_, _
from ..verdict import Verdict, first_failure
from .validate import Fields, Flag, ListOf, Number, Optional, Tensor, Text


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or not (bool(torch.isfinite(a).all()) and bool(torch.isfinite(b).all())):
        return False
    return bool(torch.allclose(a.double(), b.double(), rtol=1e-4, atol=1e-5))


def reference_outputs(scenario: InferenceScenario, xs: list[torch.Tensor]) -> list[torch.Tensor]:
    """What the model gives in eval mode, without tracking: the trusted reference."""
    model = build_model(scenario)
    model.eval()
    with torch.no_grad():
        return [model.net(x) for x in xs]


STAGE = Fields({"ops": Number(integer=True), "grad": Flag(), "graph": Flag(), "inference": Flag(), "training": Flag()})
ORIGIN = Fields({"seen": Flag(), "reach": ListOf(Text(20), max_length=100), "foreign": Flag()})
LOSS_CALLS = ListOf(Flag(), max_length=MAX_LOSS_CALLS)


def trace_schema(stages: list[str], evidence: list[str], scalars: list[str] = (), returned: bool = True) -> Fields:
    """The recorder's notes (``CallRecorder.notes``), with the returned tensor's origin when the
    exercise returns a tensor."""
    values = ListOf(Number(finite=False), max_length=MAX_SCALARS)
    keys = {
        "intact": Flag(),
        "hidden_graph": Number(integer=True),
        "foreign": Number(integer=True),
        "stages": Fields({name: STAGE for name in stages}),
        "evidence": Fields({name: Flag() for name in evidence}),
        "scalars": Fields({name: values for name in scalars}),
    }
    if returned:
        keys["returned"] = Optional(ORIGIN)
    return Fields(keys)


# Marked here, translated where a verdict is written.
TAMPERED = {
    "recorder": N_(
        "Your code removed or switched off the grader's recording of the torch operations it ran "
        "(a torch-function mode or saved-tensor hooks popped, torch functions disabled): solve the exercise "
        "without touching torch's or the grader's machinery."
    ),
    "hidden_graph": N_(
        "Your code built an autograd graph where the grader's recording could not see it (torch functions "
        "switched off around a forward pass): solve the exercise without touching torch's or the grader's machinery."
    ),
    "unseen": N_(
        "Your function returned the right numbers, but the grader's recording never saw them computed from the "
        "model and its input (computed with torch functions switched off, or a throw-away call and a hidden "
        "one): solve the exercise without touching torch's or the grader's machinery."
    ),
}


def recorder_tampered(exercise: str, trace: dict) -> Verdict | None:
    """``tampered`` when the recorder was not in place at the end, or a graph was built out of its sight."""
    if not trace["intact"]:
        return Verdict(exercise, "tampered", _(TAMPERED["recorder"]))
    if trace["hidden_graph"]:
        return Verdict(exercise, "tampered", _(TAMPERED["hidden_graph"]))
    return None


def unseen(exercise: str) -> Verdict:
    return Verdict(exercise, "tampered", _(TAMPERED["unseen"]))


def from_forward(origin: dict | None, groups: tuple[str, ...]) -> bool:
    """Did the recorder see the returned tensor made, from every root of ``groups``?"""
    return bool(origin) and origin["seen"] and not origin["foreign"] and set(groups) <= set(origin["reach"])


def judge_all(exercise: str, scenarios: list, observations: list[dict], judge_one, ok_message: str) -> Verdict:
    """``first_failure``, except that one ``tampered`` scenario is the whole verdict: nothing else a
    tampered run shows can be believed."""
    found = [judge_one(scenario, obs) for scenario, obs in zip(scenarios, observations)]
    for mistakes in found:
        for verdict in mistakes:
            if verdict.code == "tampered":
                return verdict
    judged = iter(found)
    return first_failure(exercise, scenarios, observations, lambda scenario, obs: next(judged), ok_message)


TENSOR_OUT = Fields(
    {"type": Text(100), "values": Tensor(dtypes=None, finite=False), "requires_grad": Flag(), "has_grad_fn": Flag(),
     "is_inference": Flag()}
)  # fmt: skip
OTHER_OUT = Fields({"type": Text(100)})
