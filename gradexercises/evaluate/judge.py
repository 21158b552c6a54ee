"""Judging evaluate: the returned number against the mean of the per-batch losses the judge computes
itself (eval mode, no tracking) on the same model and batches, rebuilt from the seed; the mode and
grad mode after the call.  What the job's recorder saw the model's operations do names the mistake,
and a pass also needs the recorder to have seen every batch's loss computed (``_lesson4``)."""

from __future__ import annotations

import math

import torch

from autograder.i18n import pgettext
from autograder.judge._lesson4 import LOSS_CALLS, judge_all, recorder_tampered, reference_outputs, trace_schema, unseen
from autograder.judge.texts import Texts
from autograder.judge.validate import Fields, Flag, Number, Optional, Text
from autograder.verdict import Verdict, returned_kind
from gradebox.exercises._lesson4 import InferenceScenario, build_batches, build_loss

from .job import NAME

NOT_FINITE = "wrong_value"


def schema(scenario: InferenceScenario):
    return Fields(
        {
            "start": Text(10),
            "loss_calls": LOSS_CALLS,
            "returned": Fields(
                {"type": Text(100), "number": Optional(Number(finite=False)), "is_float": Flag()},
                optional=frozenset({"is_float"}),
            ),
            "trace": trace_schema(["model"], [], [f"batch{i}" for i in range(len(scenario.sizes))], returned=False),
            "mode_after": Text(10),
            "grad_after": Flag(),
            "inference_after": Flag(),
        }
    )


def reference_losses(scenario: InferenceScenario) -> tuple[list[float], list[int]]:
    """Each batch's loss in eval mode without tracking, and each batch's number of examples."""
    batches = build_batches(scenario)
    loss_fn = build_loss(scenario)
    outputs = reference_outputs(scenario, [x for x, _ in batches])
    with torch.no_grad():
        losses = [float(loss_fn(o, y)) for o, (_, y) in zip(outputs, batches)]
    return losses, [len(x) for x, _ in batches]


def explain_error(error: dict, scenario=None) -> Verdict | None:
    """The loss called as loss_fn(target, prediction) raises with cross-entropy: name the swap."""
    calls = (error.get("observation") or {}).get("loss_calls")
    if isinstance(calls, list) and any(call is True for call in calls):
        return Verdict(NAME, "swapped_loss_args", MESSAGES["swapped_loss_args"])
    return None


def _near(a: float, b: float) -> bool:
    return math.isfinite(a) and abs(a - b) <= 1e-4 * max(1.0, abs(b))


def judge(scenarios: list[InferenceScenario], observations: list[dict]) -> Verdict:
    return judge_all(NAME, scenarios, observations, _judge_one, MESSAGES["ok"])


def _judge_one(scenario: InferenceScenario, obs: dict) -> list[Verdict]:
    """Every mistake this call shows: the modes after the call and the returned value are judged apart."""
    trace = obs["trace"]
    tampered = recorder_tampered(NAME, trace)
    if tampered:
        return [tampered]
    mistakes = []
    if not obs["grad_after"] or obs["inference_after"]:
        mistakes.append(Verdict(NAME, "grad_left_off", MESSAGES["grad_left_off"]))
    if obs["mode_after"] != obs["start"]:
        key = "left_in_eval" if obs["start"] == "train" else "forced_train"
        mistakes.append(Verdict(NAME, "mode_not_restored", MESSAGES[key]))
    model, returned = trace["stages"]["model"], obs["returned"]
    value = _value_mistake(scenario, returned)
    if not model["ops"]:
        return [unseen(NAME)] if value is None else [*mistakes, Verdict(NAME, "wrong_value", MESSAGES["no_call"])]
    if model["grad"] or model["graph"]:
        mistakes.append(Verdict(NAME, "builds_graph", MESSAGES["builds_graph"]))
    if model["training"]:
        # Dropout changed the losses too: the value is not judged apart.
        return [*mistakes, Verdict(NAME, "not_eval", MESSAGES["not_eval"])]
    if value is None and not _every_loss_seen(scenario, trace["scalars"]):
        return [unseen(NAME)]  # the right mean, from losses the recorder never saw computed
    return mistakes if value is None else [*mistakes, value]


def _every_loss_seen(scenario: InferenceScenario, scalars: dict) -> bool:
    """Did the recorder see each batch's loss computed, from the model, its input and its target?"""
    losses, _ = reference_losses(scenario)
    return all(any(_near(value, loss) for value in scalars[f"batch{i}"]) for i, loss in enumerate(losses))


def _value_mistake(scenario: InferenceScenario, returned: dict) -> Verdict | None:
    if returned["type"] == "Tensor":
        return Verdict(NAME, "returns_tensor", MESSAGES["returns_tensor"])
    if returned["number"] is None or not returned.get("is_float"):
        return Verdict(NAME, "wrong_value", MESSAGES["not_float"].format(kind=returned_kind(returned["type"])))
    losses, sizes = reference_losses(scenario)
    value = returned["number"]
    mean = sum(losses) / len(losses)
    if _near(value, mean):
        return None
    hypotheses = [
        ("sum_not_mean", sum(losses)),
        ("last_batch_only", losses[-1]),
        ("weighted_by_examples", sum(loss * n for loss, n in zip(losses, sizes)) / sum(sizes)),
    ]
    for code, expected in hypotheses:
        if _near(value, expected):
            return Verdict(NAME, code, MESSAGES[code])
    return Verdict(NAME, "wrong_value", MESSAGES["wrong_value"])


MESSAGES = Texts(
    {
        "ok": (
            lambda: pgettext(
                "evaluate:ok",
                "Correct: the mean of the per-batch losses as a float, computed in eval mode without a "
                "graph, with the model's mode restored.",
            )
        ),
        "builds_graph": (
            lambda: pgettext(
                "evaluate:builds_graph",
                "The forward passes ran with gradient tracking on, so every batch built a graph it never "
                "needed: wrap the loop in `with torch.no_grad():`.",
            )
        ),
        "not_eval": (
            lambda: pgettext(
                "evaluate:not_eval",
                "The forward passes ran with modules in training mode, so dropout was active and batch "
                "norm used each batch's statistics: call model.eval() first; it switches every submodule "
                "(no_grad alone does not, and model.training = False changes the outer module only).",
            )
        ),
        "left_in_eval": (
            lambda: pgettext(
                "evaluate:left_in_eval",
                "The model was in training mode before the call and your function left it in eval mode, "
                "so the next training step would run without dropout: restore it with "
                "model.train(was_training).",
            )
        ),
        "forced_train": (
            lambda: pgettext(
                "evaluate:forced_train",
                "The model was in eval mode before the call and your function switched it to training "
                "mode: restore the mode it had (model.train(was_training)), do not always call "
                "model.train().",
            )
        ),
        "grad_left_off": (
            lambda: pgettext(
                "evaluate:grad_left_off",
                "After your function returned, gradient tracking was still off for the rest of the "
                "thread that called it: use `with torch.no_grad():` (it switches back on its own), not "
                "torch.set_grad_enabled(False).",
            )
        ),
        "returns_tensor": (
            lambda: pgettext(
                "evaluate:returns_tensor",
                "Your function returned a tensor (for example the mean of a tensor of losses), not a "
                "Python float: turn the final value into a number with .item() or float() before "
                "returning it.",
            )
        ),
        "swapped_loss_args": (
            lambda: pgettext(
                "evaluate:swapped_loss_args",
                "Your code calls the loss as loss_fn(y, output): PyTorch's losses take the prediction "
                "first and the target second, loss_fn(model(x), y). With cross-entropy the swapped call "
                "fails (the class labels are not a prediction); with MSE it happens to give the same "
                "number.",
            )
        ),
        "not_float": lambda: pgettext(
            "evaluate:not_float",
            "Your function returned {kind}: return one Python float, the mean of the batch losses.",
        ),
        "sum_not_mean": lambda: pgettext(
            "evaluate:sum_not_mean", "You returned the sum of the batch losses: divide by the number of batches."
        ),
        "last_batch_only": (
            lambda: pgettext(
                "evaluate:last_batch_only",
                "You returned the loss of the last batch only: add up the loss of every batch and divide "
                "by the number of batches.",
            )
        ),
        "weighted_by_examples": (
            lambda: pgettext(
                "evaluate:weighted_by_examples",
                "You weighted each batch by its number of examples; the task asks for the plain mean of "
                "the per-batch losses, every batch counting once (the batches have different sizes).",
            )
        ),
        "no_call": lambda: pgettext(
            "evaluate:no_call", "Your function never called the model: compute loss_fn(model(x), y) for every batch."
        ),
        "wrong_value": (
            lambda: pgettext(
                "evaluate:wrong_value",
                "The value is not the mean of the per-batch losses loss_fn(model(x), y): check that "
                "every batch is used once and that you divide by the number of batches.",
            )
        ),
    }
)
