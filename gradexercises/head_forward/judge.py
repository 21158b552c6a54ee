"""Judging head_forward: the returned output and the head's gradients against the judge's own run of
the same backbone and head on the same input, rebuilt from the seed (the backbone untracked, the head
tracked).  Which of the backbone's and the head's operations ran with tracking on is what the job's
recorder saw, and names the mistake; a pass also needs the recorder to have seen the returned
tensor made from the backbone, the head and ``x`` (``_lesson4``)."""

from __future__ import annotations

import torch

from autograder.i18n import pgettext
from autograder.judge._lesson4 import (
    OTHER_OUT,
    TENSOR_OUT,
    close,
    from_forward,
    judge_all,
    recorder_tampered,
    trace_schema,
    unseen,
)
from autograder.judge.texts import Texts
from autograder.judge.validate import Fields, Flag, ListOf, OneOf, Optional, Tensor, Text
from autograder.verdict import Verdict
from gradebox.exercises._lesson4 import InferenceScenario, build_batches

from .job import NAME, build_pair, output_weights

INFERENCE_SAVE = "Inference tensors cannot be saved for backward"
NOT_FINITE = "wrong_output"


def schema(scenario: InferenceScenario):
    grads = ListOf(Optional(Tensor(dtypes=None)), max_length=100)
    return Fields(
        {
            "returned": OneOf((TENSOR_OUT, OTHER_OUT)),
            "trace": trace_schema(["head", "backbone"], ["forward"]),
            "backbone_requires_grad": ListOf(Flag(), max_length=100),
            "head_requires_grad": ListOf(Flag(), max_length=100),
            "grad_after": Flag(),
            "inference_after": Flag(),
            "backward_error": Optional(Text(400)),
            "backbone_grads": grads,
            "head_grads": grads,
        }
    )


def explain_error(error: dict, scenario=None) -> Verdict | None:
    """Features made under torch.inference_mode() cannot enter a tracked head: that is inference_tensor."""
    if INFERENCE_SAVE in error["message"]:
        return Verdict(NAME, "inference_tensor", MESSAGES["inference_tensor"])
    return None


def judge(scenarios: list[InferenceScenario], observations: list[dict]) -> Verdict:
    return judge_all(NAME, scenarios, observations, _judge_one, MESSAGES["ok"])


def _reference(scenario: InferenceScenario, x: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The head's output and the gradients of (output * w).sum() for the head's parameters."""
    backbone, head = build_pair(scenario)
    with torch.no_grad():
        features = backbone.net(x)
    output = head.net(features)
    weights = output_weights(scenario, len(x))
    grads = torch.autograd.grad((output * weights).sum(), list(head.parameters()))
    return output.detach(), list(grads)


def _judge_one(scenario: InferenceScenario, obs: dict) -> list[Verdict]:
    """Every mistake this call shows: the flags, the backbone's tracking, the grad mode after the
    call, and (when the head was tracked) the output and the head's gradients."""
    trace = obs["trace"]
    tampered = recorder_tampered(NAME, trace)
    if tampered:
        return [tampered]
    returned, mistakes = obs["returned"], []
    backbone, head = trace["stages"]["backbone"], trace["stages"]["head"]
    ((x, _),) = build_batches(scenario)
    expected, expected_grads = _reference(scenario, x)
    right = returned["type"] == "Tensor" and close(returned["values"], expected)
    if not obs["grad_after"] or obs["inference_after"]:
        mistakes.append(Verdict(NAME, "grad_left_off", MESSAGES["grad_left_off"]))
    if not backbone["ops"] or not head["ops"]:
        return [unseen(NAME)] if right else [*mistakes, Verdict(NAME, "wrong_output", MESSAGES["no_call"])]
    froze = not all(obs["backbone_requires_grad"]) or not all(obs["head_requires_grad"])
    if froze:
        mistakes.append(Verdict(NAME, "froze_params", MESSAGES["froze_params"]))
    # A backbone whose parameters were frozen builds no graph with tracking on: that is froze_params.
    elif backbone["grad"] or backbone["graph"]:
        code = "backbone_tracked" if any(g is not None for g in obs["backbone_grads"]) else "detach_only"
        mistakes.append(Verdict(NAME, code, MESSAGES[code]))
    if head["inference"]:
        return [*mistakes, Verdict(NAME, "head_not_tracked", MESSAGES["head_inference"])]
    if not head["graph"] or returned["type"] != "Tensor" or not returned["has_grad_fn"]:
        return [*mistakes, Verdict(NAME, "head_not_tracked", MESSAGES["head_not_tracked"])]
    if not right:
        return [*mistakes, Verdict(NAME, "wrong_output", MESSAGES["wrong_output"])]
    origin = trace["returned"]
    if not origin or not origin["seen"] or origin["foreign"]:
        return [unseen(NAME)]
    if not from_forward(origin, ("backbone", "head", "x")):
        return [*mistakes, Verdict(NAME, "wrong_output", MESSAGES["not_from_forward"])]
    if obs["backward_error"] is not None or any(g is None for g in obs["head_grads"]):
        return [*mistakes, Verdict(NAME, "head_not_tracked", MESSAGES["head_not_tracked"])]
    if len(obs["head_grads"]) != len(expected_grads) or not all(
        close(g, e) for g, e in zip(obs["head_grads"], expected_grads)
    ):
        mistakes.append(Verdict(NAME, "wrong_output", MESSAGES["wrong_gradient"]))
    return mistakes


MESSAGES = Texts(
    {
        "ok": (
            lambda: pgettext(
                "head_forward:ok",
                "Correct: the backbone ran without a graph, the head with one, so backward() reaches the "
                "head's parameters and only those.",
            )
        ),
        "froze_params": (
            lambda: pgettext(
                "head_forward:froze_params",
                "Your function changed requires_grad of the parameters, which changes the models for "
                "good: leave the parameters alone and run the backbone inside `with torch.no_grad():`.",
            )
        ),
        "head_inference": (
            lambda: pgettext(
                "head_forward:head_inference",
                "The head ran inside inference mode, so its output can never be backpropagated: run only "
                "the backbone untracked and call the head outside the block.",
            )
        ),
        "head_not_tracked": (
            lambda: pgettext(
                "head_forward:head_not_tracked",
                "The head's output has no graph (no grad_fn), so loss.backward() cannot train the head: "
                "only the backbone call belongs inside `with torch.no_grad():`, the head call goes after "
                "it.",
            )
        ),
        "backbone_tracked": (
            lambda: pgettext(
                "head_forward:backbone_tracked",
                "The backbone ran with tracking on, so backward() also computed gradients for the frozen "
                "backbone and its activations were kept: call the backbone inside `with "
                "torch.no_grad():`.",
            )
        ),
        "detach_only": (
            lambda: pgettext(
                "head_forward:detach_only",
                "You detached the features, so the backbone gets no gradient, but its forward pass still "
                "built a graph first: call the backbone inside `with torch.no_grad():` instead of "
                "detaching.",
            )
        ),
        "inference_tensor": (
            lambda: pgettext(
                "head_forward:inference_tensor",
                "Features made under torch.inference_mode() are inference tensors, which a tracked head "
                "cannot save for backward: use torch.no_grad() for the backbone (or clone the features).",
            )
        ),
        "grad_left_off": (
            lambda: pgettext(
                "head_forward:grad_left_off",
                "After your function returned, gradient tracking was still off for the rest of the "
                "thread that called it: use `with torch.no_grad():` (it switches back on its own), not "
                "torch.set_grad_enabled(False).",
            )
        ),
        "no_call": lambda: pgettext(
            "head_forward:no_call", "Your function must call both models: features = backbone(x), then head(features)."
        ),
        "wrong_output": lambda: pgettext(
            "head_forward:wrong_output",
            "The returned tensor is not head(backbone(x)): return the head's output as it is.",
        ),
        "not_from_forward": (
            lambda: pgettext(
                "head_forward:not_from_forward",
                "The returned tensor holds head(backbone(x)), but the grader did not see it computed "
                "from x by the backbone and then the head: call backbone(x) under no_grad, then head on "
                "its output, and return that.",
            )
        ),
        "wrong_gradient": (
            lambda: pgettext(
                "head_forward:wrong_gradient",
                "backward() through your output gave the head other gradients than head(backbone(x)) "
                "would: return the head's output itself, unscaled.",
            )
        ),
    }
)
