"""The make_trainable judge: inputs and answers the corpus does not show."""

import pytest
import torch

from autograder.diagnose import diagnose_function
from gradexercises.make_trainable import job as make_trainable
from gradexercises.make_trainable.job import INPUTS, build_input
from gradexercises.make_trainable.judge import expected_tensor


def correct(values):
    return torch.as_tensor(values).detach().clone().float().requires_grad_()


def test_every_input_kind_in_suite():
    """And the graph input is a non-leaf."""
    assert [s.kind for s in make_trainable.suite()] == list(INPUTS)
    graph = next(s for s in make_trainable.suite() if s.kind == "graph_tensor")
    values, base = build_input(graph)
    assert not values.is_leaf and values.requires_grad and base.is_leaf


def test_expected_in_float64():
    for s in make_trainable.suite(seed=5):
        values, _ = build_input(s)
        want = expected_tensor(s)
        assert want.dtype == torch.float64
        assert torch.equal(want, torch.as_tensor(values).detach().double())


@pytest.mark.parametrize(
    "fn, code",
    [
        (correct, "ok"),
        (lambda v: correct(v).half().detach().requires_grad_(), "wrong_dtype"),
        (lambda v: correct(v).tolist(), "not_a_tensor"),
        (lambda v: correct(v).detach().reshape(-1).requires_grad_(), "wrong_values"),
        (lambda v: torch.zeros(1), "wrong_values"),
        (lambda v: correct(v) + 0.0, "not_leaf"),
        (lambda v: v if isinstance(v, torch.Tensor) and v.requires_grad else correct(v), "shares_input"),
    ],
)
def test_nasty_answers_specific_code(fn, code):
    verdict, _ = diagnose_function("make_trainable", fn)
    assert verdict.code == code, verdict.message


def test_in_place_change_caught():
    def scribbles(values):
        out = correct(values)
        if isinstance(values, torch.Tensor) and values.is_leaf:
            values.add_(1)
        return out

    verdict, _ = diagnose_function("make_trainable", scribbles)
    assert verdict.code == "changes_input", verdict.message
