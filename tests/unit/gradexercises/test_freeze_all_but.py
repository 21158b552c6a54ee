"""The freeze_all_but judge: scenarios, prefixes and returned values the corpus does not show."""

import pytest
import torch

from autograder.diagnose import diagnose_function
from autograder.judge._lesson1 import expected_flags
from gradebox.exercises._lesson1 import build_model
from gradexercises.freeze_all_but import job as freeze_all_but


def correct(model, trainable):
    total = 0
    for name, p in model.named_parameters():
        keep = any(name.startswith(prefix) for prefix in trainable)
        p.requires_grad_(keep)
        total += p.numel() if keep else 0
    return total


def test_prefixes_are_startswith():
    names = ["0.weight", "1.weight", "10.weight", "11.bias"]
    assert expected_flags(names, ["1"]) == [False, True, True, True]
    assert expected_flags(names, ["0"]) == [True, False, False, False]
    assert expected_flags(names, []) == [False] * 4


def test_suite_covers_edge_cases():
    for seed in (0, 13):
        scenarios = freeze_all_but.suite(seed=seed)
        assert any(not s.trainable for s in scenarios) or seed % len(freeze_all_but.CASES) == 4
        assert any(s.model == "deep_sequential" for s in scenarios)
        frozen_named = [
            s for s in scenarios if any(n.startswith(tuple(s.trainable)) for n in s.frozen_at_start if s.trainable)
        ]
        assert frozen_named


def test_models_start_promised_frozen():
    for s in freeze_all_but.suite():
        for name, p in build_model(s).named_parameters():
            assert p.requires_grad == (name not in s.frozen_at_start)


def test_model_rebuilt_identically():
    s = freeze_all_but.suite(seed=3)[0]
    a, b = build_model(s), build_model(s)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


@pytest.mark.parametrize(
    "fn, code",
    [
        (correct, "ok"),
        (lambda m, t: float(correct(m, t)), "wrong_count"),
        (lambda m, t: torch.tensor(correct(m, t)), "wrong_count"),
        (lambda m, t: correct(m, t) > 0, "wrong_count"),
        (lambda m, t: correct(m, t) + 1, "wrong_count"),
        (lambda m, t: [p.data.mul_(0) for p in m.parameters()] and correct(m, t), "replaced_parameters"),
        (lambda m, t: [setattr(p, "requires_grad", True) for p in m.parameters()] and 0, "never_freezes"),
    ],
)
def test_side_effects_get_codes(fn, code):
    verdict, _ = diagnose_function("freeze_all_but", fn)
    assert verdict.code == code, verdict.message


@pytest.mark.parametrize(
    "keep",
    [
        lambda name, prefixes: any(name == p or name.startswith(p + ".") for p in prefixes),
        lambda name, prefixes: name.split(".")[0] in prefixes,
    ],
    ids=["prefix_plus_dot", "first_part_of_the_name"],
)
def test_layer_name_match_own_code(keep):
    def layer_names(model, trainable):
        total = 0
        for name, p in model.named_parameters():
            p.requires_grad_(keep(name, trainable))
            total += p.numel() if p.requires_grad else 0
        return total

    verdict, _ = diagnose_function("freeze_all_but", layer_names)
    assert verdict.code == "layer_name_match"
    assert '"10.weight"' in verdict.message
