"""Judging freeze_all_but: the flags, the parameters' values and the count, against what the judge
computes from the same model rebuilt from the seed; that the parameters are still the same objects
is what the job saw, and can only fail a run."""

from __future__ import annotations

import torch

from autograder.i18n import pgettext
from autograder.judge._lesson1 import expected_flags
from autograder.judge.texts import Texts
from autograder.judge.validate import Fields, Flag, ListOf, Number, Optional, Tensor, Text
from autograder.verdict import Verdict, returned_kind
from gradebox.exercises._lesson1 import FreezeScenario, build_model

from .job import NAME

NOT_FINITE = "wrong_count"


def schema(scenario: FreezeScenario):
    return Fields(
        {
            "names": ListOf(Text(300), max_length=1000),
            "flags": ListOf(Flag(), max_length=1000),
            "values": ListOf(Tensor(finite=False), max_length=1000),
            "same_objects": Flag(),
            "still_parameters": Flag(),
            "leaves": Flag(),
            "returned_type": Text(100),
            "returned": Optional(Number()),
        }
    )


def _values_kept(model, values: list) -> bool:
    return len(values) == len(list(model.parameters())) and all(
        v.shape == p.shape and v.dtype == p.dtype and bool(torch.equal(v, p.detach()))
        for v, p in zip(values, model.parameters())
    )


def judge(scenarios: list[FreezeScenario], observations: list[dict]) -> Verdict:
    for scenario, obs in zip(scenarios, observations):
        problem = _classify(scenario, obs)
        if problem:
            return Verdict(NAME, problem[0], problem[1])
    return Verdict(NAME, "ok", MESSAGES["ok"])


def _classify(scenario: FreezeScenario, obs: dict) -> tuple[str, str] | None:
    model = build_model(scenario)
    named = list(model.named_parameters())
    names = [name for name, _ in named]
    sizes = [p.numel() for _, p in named]
    start = [p.requires_grad for _, p in named]
    if obs["names"] != names:
        return "replaced_parameters", MESSAGES["replaced_parameters"]
    if not (obs["same_objects"] and obs["still_parameters"] and _values_kept(model, obs["values"]) and obs["leaves"]):
        return "replaced_parameters", MESSAGES["replaced_parameters"]
    flags, prefixes = obs["flags"], scenario.trainable
    if len(flags) != len(names):
        return "replaced_parameters", MESSAGES["replaced_parameters"]
    want = expected_flags(names, prefixes)
    if flags != want:
        hypotheses = (
            ("inverted", [not w for w in want]),
            ("never_unfreezes", [w and s for w, s in zip(want, start)]),
            ("never_freezes", [w or s for w, s in zip(want, start)]),
            ("exact_name_match", [name in prefixes for name in names]),
            ("substring_match", [any(p in name for p in prefixes) for name in names]),
            # Whole layer names: "1" selects "1.weight" but not "10.weight" (and a dotted entry
            # selects nothing when only the first part of the name is compared).
            ("layer_name_match", [any(name == p or name.startswith(p + ".") for p in prefixes) for name in names]),
            ("layer_name_match", [name.split(".")[0] in prefixes for name in names]),
        )
        for code, predicted in hypotheses:
            if flags == predicted:
                return code, MESSAGES[code]
        wrong = [n for n, f, w in zip(names, flags, want) if f != w]
        return "wrong_params", MESSAGES["wrong_params"].format(example=wrong[0], n=len(wrong))
    total = sum(size for size, w in zip(sizes, want) if w)
    if obs["returned"] is None:
        return "wrong_count", MESSAGES["count_type"].format(kind=returned_kind(obs["returned_type"]))
    got = obs["returned"]
    if got == total:
        if obs["returned_type"] != "int":
            return "wrong_count", MESSAGES["count_type"].format(kind=returned_kind(obs["returned_type"]))
        return None
    if got == sum(want):
        return "wrong_count", MESSAGES["counts_tensors"]
    if got == sum(sizes):
        return "wrong_count", MESSAGES["counts_all"]
    if got == sum(sizes) - total:
        return "wrong_count", MESSAGES["counts_frozen"]
    return "wrong_count", MESSAGES["wrong_count"].format(got=got, total=total)


MESSAGES = Texts(
    {
        "ok": lambda: pgettext(
            "freeze_all_but:ok",
            "Correct: exactly the named parameters require grad, and the count is their number of scalars.",
        ),
        "replaced_parameters": (
            lambda: pgettext(
                "freeze_all_but:replaced_parameters",
                "The model's parameters were replaced, detached or changed: switch the flag on the "
                "existing parameters with p.requires_grad_(...) instead of creating new tensors.",
            )
        ),
        "inverted": (
            lambda: pgettext(
                "freeze_all_but:inverted",
                "The flags are the wrong way round: the parameters named in trainable must require grad, "
                "and every other one must be frozen.",
            )
        ),
        "never_unfreezes": (
            lambda: pgettext(
                "freeze_all_but:never_unfreezes",
                "A parameter named in trainable that was frozen before the call stayed frozen: set "
                "requires_grad=True on the named ones as well as False on the others.",
            )
        ),
        "never_freezes": (
            lambda: pgettext(
                "freeze_all_but:never_freezes",
                "Parameters not named in trainable were left trainable: set requires_grad=False on every "
                "parameter that matches no prefix.",
            )
        ),
        "exact_name_match": (
            lambda: pgettext(
                "freeze_all_but:exact_name_match",
                "Only parameters whose full name equals an entry were kept trainable: the entries are "
                'prefixes, so use name.startswith(prefix) ("head" covers "head.weight" and "head.bias").',
            )
        ),
        "substring_match": (
            lambda: pgettext(
                "freeze_all_but:substring_match",
                'A parameter was matched because the prefix appears somewhere inside its name ("0" '
                'inside "10.weight"): test name.startswith(prefix), not prefix in name.',
            )
        ),
        "layer_name_match": (
            lambda: pgettext(
                "freeze_all_but:layer_name_match",
                'You matched whole layer names (the part before a dot, or prefix + "."), but the entries '
                'are plain prefixes of the parameter names: "1" must also select "10.weight", and '
                '"body.2" selects "body.2.weight". Test name.startswith(prefix) and nothing more.',
            )
        ),
        "wrong_params": (
            lambda: pgettext(
                "freeze_all_but:wrong_params",
                "The wrong parameters require grad ({n} wrong, for example {example}): a parameter "
                "requires grad exactly when its name from model.named_parameters() starts with one of "
                "the prefixes.",
            )
        ),
        "count_type": lambda: pgettext(
            "freeze_all_but:count_type",
            "Your function returned {kind}: return the number of trainable scalars as a Python int.",
        ),
        "counts_tensors": (
            lambda: pgettext(
                "freeze_all_but:counts_tensors",
                "The flags are right, but you counted parameter tensors: count their scalars, the sum of "
                "p.numel() over the trainable parameters.",
            )
        ),
        "counts_all": (
            lambda: pgettext(
                "freeze_all_but:counts_all",
                "The flags are right, but you counted every parameter: add up p.numel() only for the "
                "parameters that require grad.",
            )
        ),
        "counts_frozen": (
            lambda: pgettext(
                "freeze_all_but:counts_frozen",
                "The flags are right, but you counted the frozen parameters: count the ones that require grad.",
            )
        ),
        "wrong_count": (
            lambda: pgettext(
                "freeze_all_but:wrong_count",
                "The flags are right, but the count is {got:g} instead of {total}: return the sum of "
                "p.numel() over the parameters that require grad.",
            )
        ),
    }
)
