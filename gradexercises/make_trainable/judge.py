"""Judging make_trainable: the returned tensor's values, dtype and flags, and the caller's input
left as it was, against what the judge rebuilds from the seed; whether the result shares memory with
the input and whether backward() reached it are what the job saw, and can only fail a run."""

from __future__ import annotations

import torch

from autograder.i18n import pgettext
from autograder.judge.texts import Texts
from autograder.judge.validate import Fields, Flag, ListOf, Number, OneOf, Optional, Tensor, Text
from autograder.verdict import Verdict

from .job import NAME, InputScenario, build_input, snapshot_input

NOT_FINITE = "wrong_values"


def schema(scenario: InputScenario):
    snapshot = OneOf(
        (
            Fields({"values": Tensor(dtypes=None, finite=False), "requires_grad": Flag(), "leaf": Flag()}),
            Fields({"list": Text(20_000)}),
        )
    )
    return OneOf(
        (
            Fields({"raised": Text(300), "type": None}),
            Fields({"raised": None, "type": Text(100), "input_after": snapshot}),
            Fields(
                {
                    "raised": None,
                    "type": Text(100),
                    "input_after": snapshot,
                    "dtype": Text(40),
                    "shape": ListOf(Number(integer=True), max_length=8),
                    "values": Tensor(dtypes=None),
                    "requires_grad": Flag(),
                    "leaf": Flag(),
                    "shares": Flag(),
                    "grad_ok": Optional(Flag()),
                    "upstream_grad": Flag(),
                }
            ),  # fmt: skip
        )
    )


def expected_tensor(scenario: InputScenario) -> torch.Tensor:
    values, _ = build_input(scenario)
    if isinstance(values, torch.Tensor):
        return values.detach().to(torch.float64)
    return torch.tensor(values, dtype=torch.float64)


def _input_changed(scenario: InputScenario, after: dict) -> bool:
    """The caller's input after the call, against the same input rebuilt from the seed."""
    values, _ = build_input(scenario)
    want = snapshot_input(values)
    if "list" in want:
        return after.get("list") != want["list"]
    got = after.get("values")
    return (
        got is None
        or got.shape != want["values"].shape
        or got.dtype != want["values"].dtype
        or not bool(torch.equal(got, want["values"]))
        or after["requires_grad"] != want["requires_grad"]
        or after["leaf"] != want["leaf"]
    )


NOT_A_LEAF = "you can only change requires_grad flags of leaf variables"


def explain_error(error: dict, scenario=None) -> Verdict | None:
    """Switching requires_grad on for a tensor computed from others (the caller's graph tensor,
    returned as it is) raises: the function did not make a new leaf."""
    if NOT_A_LEAF in error["message"]:
        return Verdict(NAME, "not_leaf", MESSAGES["flag_on_non_leaf"])
    return None


def judge(scenarios: list[InputScenario], observations: list[dict]) -> Verdict:
    for scenario, obs in zip(scenarios, observations):
        problem = _classify(scenario, obs)
        if problem:
            return Verdict(NAME, problem, MESSAGES[problem])
    return Verdict(NAME, "ok", MESSAGES["ok"])


def _classify(scenario: InputScenario, obs: dict) -> str | None:
    if obs["raised"]:
        return "integer_requires_grad"
    if obs["type"] != "Tensor":
        return "not_a_tensor"
    want = expected_tensor(scenario)
    got = obs["values"]
    if list(got.shape) != list(want.shape) or not torch.allclose(got.double(), want, rtol=1e-6, atol=1e-6):
        return "wrong_values"
    if obs["dtype"] != "float32":
        return "wrong_dtype"
    if _input_changed(scenario, obs["input_after"]):
        return "changes_input"
    if obs["shares"]:
        return "shares_input"
    if not obs["requires_grad"]:
        return "no_requires_grad"
    if not obs["leaf"] or obs["upstream_grad"] or not obs["grad_ok"]:
        return "not_leaf"
    return None


MESSAGES = Texts(
    {
        "ok": lambda: pgettext(
            "make_trainable:ok",
            "Correct: a new float32 leaf that requires grad, with the same values, and the input left alone.",
        ),
        "integer_requires_grad": (
            lambda: pgettext(
                "make_trainable:integer_requires_grad",
                "Your function asked an integer tensor to require grad, which PyTorch refuses: convert "
                "to a floating-point dtype (dtype=torch.float32) before turning requires_grad on.",
            )
        ),
        "not_a_tensor": lambda: pgettext(
            "make_trainable:not_a_tensor", "Your function did not return a tensor: return a torch.Tensor."
        ),
        "wrong_values": (
            lambda: pgettext(
                "make_trainable:wrong_values",
                "The returned tensor does not hold the input's numbers in the input's shape: keep every "
                "value (no rounding, no flattening).",
            )
        ),
        "wrong_dtype": lambda: pgettext(
            "make_trainable:wrong_dtype",
            "The returned tensor is not float32: convert with dtype=torch.float32 (or .float()).",
        ),
        "changes_input": (
            lambda: pgettext(
                "make_trainable:changes_input",
                "Your function changed the caller's tensor (its values or its requires_grad flag): work "
                "on a copy, e.g. values.detach().clone().",
            )
        ),
        "shares_input": (
            lambda: pgettext(
                "make_trainable:shares_input",
                "The returned tensor shares its memory with the input, so training it would change the "
                "caller's data: make a copy with .clone() after .detach().",
            )
        ),
        "no_requires_grad": lambda: pgettext(
            "make_trainable:no_requires_grad",
            "The returned tensor does not require grad: turn it on with .requires_grad_() at the end.",
        ),
        "flag_on_non_leaf": (
            lambda: pgettext(
                "make_trainable:flag_on_non_leaf",
                "Your function set requires_grad on a tensor that is not a leaf (the caller's tensor, "
                "computed from others, which PyTorch refuses): make a new leaf first, "
                "values.detach().clone(), then switch it on.",
            )
        ),
        "not_leaf": (
            lambda: pgettext(
                "make_trainable:not_leaf",
                "The returned tensor is not a leaf (it has a grad_fn), so its .grad stays empty and "
                "gradients flow into the input's graph: detach() first, then clone and call "
                "requires_grad_().",
            )
        ),
    }
)
