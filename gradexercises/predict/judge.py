"""Judging predict: the returned output against the judge's own eval-mode, untracked forward of the
same model on the same input, rebuilt from the seed; the mode and the grad mode after the call.
What the job's recorder saw the model's operations do (tracking, graphs built, dropout and batch
norm in training mode) names what went wrong, and a pass also needs the recorder to have seen the
returned tensor made by the model from ``x`` (``_lesson4``)."""

from __future__ import annotations

from autograder.i18n import pgettext
from autograder.judge._lesson4 import (
    OTHER_OUT,
    TENSOR_OUT,
    close,
    from_forward,
    judge_all,
    recorder_tampered,
    reference_outputs,
    trace_schema,
    unseen,
)
from autograder.judge.texts import Texts
from autograder.judge.validate import Fields, Flag, OneOf, Optional, Text
from autograder.verdict import Verdict, returned_kind
from gradebox.exercises._lesson4 import InferenceScenario, build_batches

from .job import NAME

NOT_FINITE = "wrong_output"


def schema(scenario: InferenceScenario):
    return Fields(
        {
            "start": Text(10),
            "raised": Flag(),
            "returned": Optional(OneOf((TENSOR_OUT, OTHER_OUT))),
            "trace": trace_schema(["model"], ["forward"]),
            "mode_after": Text(10),
            "grad_after": Flag(),
            "inference_after": Flag(),
        }
    )


def _input(scenario: InferenceScenario):
    ((x, _),) = build_batches(scenario)
    return x[:, :-1] if scenario.raises else x


def judge(scenarios: list[InferenceScenario], observations: list[dict]) -> Verdict:
    return judge_all(NAME, scenarios, observations, _judge_one, MESSAGES["ok"])


def _judge_one(scenario: InferenceScenario, obs: dict) -> list[Verdict]:
    """Every mistake this call shows: the mode, the grad mode and the output are judged apart."""
    trace = obs["trace"]
    tampered = recorder_tampered(NAME, trace)
    if tampered:
        return [tampered]
    mistakes = []
    if not obs["grad_after"] or obs["inference_after"]:
        mistakes.append(Verdict(NAME, "grad_left_off", MESSAGES["grad_left_off"]))
    if scenario.raises:
        if not obs["raised"]:
            mistakes.append(Verdict(NAME, "swallows_error", MESSAGES["swallows_error"]))
        if obs["mode_after"] != obs["start"]:
            mistakes.append(Verdict(NAME, "not_restored_on_error", MESSAGES["not_restored_on_error"]))
        return mistakes
    if obs["mode_after"] != obs["start"]:
        key = "left_in_eval" if obs["start"] == "train" else "forced_train"
        mistakes.append(Verdict(NAME, "mode_not_restored", MESSAGES[key]))
    model, returned = trace["stages"]["model"], obs["returned"]
    right = returned["type"] == "Tensor" and close(returned["values"], _expected(scenario))
    if not model["ops"]:
        return [unseen(NAME)] if right else [*mistakes, Verdict(NAME, "wrong_output", MESSAGES["no_call"])]
    if model["grad"] or model["graph"]:
        tracked = returned["type"] == "Tensor" and (returned["has_grad_fn"] or returned["requires_grad"])
        code = "builds_graph" if tracked or returned["type"] != "Tensor" else "detach_only"
        mistakes.append(Verdict(NAME, code, MESSAGES[code]))
    if model["training"]:
        # Dropout changed the output too: the output is not judged apart.
        return [*mistakes, Verdict(NAME, "not_eval", MESSAGES["not_eval"])]
    if returned["type"] != "Tensor":
        kind = returned_kind(returned["type"])
        return [*mistakes, Verdict(NAME, "wrong_output", MESSAGES["not_tensor"].format(kind=kind))]
    if not right:
        return [*mistakes, Verdict(NAME, "wrong_output", MESSAGES["wrong_output"])]
    origin = trace["returned"]
    if not origin or not origin["seen"] or origin["foreign"]:
        return [unseen(NAME)]
    if not from_forward(origin, ("model", "x")):
        mistakes.append(Verdict(NAME, "wrong_output", MESSAGES["not_from_forward"]))
    return mistakes


def _expected(scenario: InferenceScenario):
    (expected,) = reference_outputs(scenario, [_input(scenario)])
    return expected


MESSAGES = Texts(
    {
        "ok": (
            lambda: pgettext(
                "predict:ok",
                "Correct: the forward pass ran in eval mode with tracking off, the output has no "
                "grad_fn, and the model's mode was restored, also after an error.",
            )
        ),
        "builds_graph": (
            lambda: pgettext(
                "predict:builds_graph",
                "The forward pass ran with gradient tracking on, so PyTorch built a graph (the output "
                "has a grad_fn): call the model inside `with torch.no_grad():`.",
            )
        ),
        "detach_only": (
            lambda: pgettext(
                "predict:detach_only",
                "The output has no grad_fn, but only because you detached it: the forward pass still "
                "built the whole graph first. Call the model inside `with torch.no_grad():` instead of "
                "detaching.",
            )
        ),
        "not_eval": (
            lambda: pgettext(
                "predict:not_eval",
                "The forward pass ran with modules in training mode, so dropout was active and batch "
                "norm used the batch's statistics: call model.eval() before the forward pass; it "
                "switches every submodule (no_grad alone does not, and model.training = False changes "
                "the outer module only).",
            )
        ),
        "left_in_eval": (
            lambda: pgettext(
                "predict:left_in_eval",
                "The model was in training mode before the call and your function left it in eval mode: "
                "remember model.training first and call model.train(was_training) at the end.",
            )
        ),
        "forced_train": (
            lambda: pgettext(
                "predict:forced_train",
                "The model was in eval mode before the call and your function switched it to training "
                "mode: restore the mode it had (model.train(was_training)), do not always call "
                "model.train().",
            )
        ),
        "swallows_error": (
            lambda: pgettext(
                "predict:swallows_error",
                "When the forward pass raised, your function hid the exception: let it propagate to the "
                "caller (use try/finally to restore the mode, without an except that swallows it).",
            )
        ),
        "not_restored_on_error": (
            lambda: pgettext(
                "predict:not_restored_on_error",
                "When the forward pass raised, the model stayed in eval mode: restore the mode in a "
                "`finally:` block so it runs even when an exception passes through.",
            )
        ),
        "grad_left_off": (
            lambda: pgettext(
                "predict:grad_left_off",
                "After your function returned, gradient tracking was still off for the rest of the "
                "thread that called it: use `with torch.no_grad():` (it switches back on its own), not "
                "torch.set_grad_enabled(False).",
            )
        ),
        "no_call": lambda: pgettext(
            "predict:no_call", "Your function never called the model: return model(x), computed without tracking."
        ),
        "not_tensor": lambda: pgettext(
            "predict:not_tensor",
            "Your function returned {kind}, not a tensor: return the model's output tensor itself.",
        ),
        "wrong_output": (
            lambda: pgettext(
                "predict:wrong_output",
                "The returned tensor is not the model's output in eval mode: return model(x) as it is "
                "(no argmax, softmax or rounding).",
            )
        ),
        "not_from_forward": (
            lambda: pgettext(
                "predict:not_from_forward",
                "The returned tensor holds the model's output, but it was not computed by the model's "
                "forward pass (copied through Python numbers, or rebuilt): return the tensor model(x) "
                "gives you.",
            )
        ),
    }
)
