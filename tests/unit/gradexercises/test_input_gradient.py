"""The input_gradient exercise: reference, stale gradients, and the forked notebook path."""

import pytest
import torch

from autograder.diagnose import diagnose_function
from gradexercises.input_gradient import job as ex
from gradexercises.input_gradient import judge as judge
from tests.judging import observations_of


def correct(model, x):
    leaf = x.detach().clone().requires_grad_()
    return torch.autograd.grad(model(leaf).sum(), leaf)[0]


def with_backward(model, x):
    leaf = x.detach().clone().requires_grad_()
    model(leaf).sum().backward()
    return leaf.grad


def test_linear_ref_sums_weights():
    probe = next(p for p in ex.suite() if p.model == "linear")
    model, x = ex.build(probe)
    expected = model.weight.detach().sum(dim=0).expand_as(x)
    assert torch.allclose(judge.reference(probe), expected, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 13])
def test_suite_covers_starts_models(seed):
    probes = ex.suite("all", seed)
    assert {p.dirty for p in probes} == {True, False}
    assert {p.model for p in probes} == set(ex.MODELS)


def test_build_is_deterministic():
    probe = ex.suite()[0]
    (m1, x1), (m2, x2) = ex.build(probe), ex.build(probe)
    assert torch.equal(x1, x2) and not x1.requires_grad
    for p, q in zip(m1.parameters(), m2.parameters()):
        assert torch.equal(p, q) and (p.grad is None) == (q.grad is None)
        if p.grad is not None:
            assert torch.equal(p.grad, q.grad)


def test_record_survives_round_trip():
    probes = ex.suite()
    records = observations_of("input_gradient", correct, probes)
    assert judge.judge(probes, records).code == "ok"


@pytest.mark.parametrize("fn, code", [(correct, "ok"), (with_backward, "touches_param_grad")])
def test_forked_path_names_mistake(fn, code):
    verdict, _ = diagnose_function("input_gradient", fn)
    assert verdict.code == code, verdict.message


def test_fresh_backward_caught():
    fresh = [p for p in ex.suite() if not p.dirty]
    verdict = judge.judge(fresh, observations_of("input_gradient", with_backward, fresh))
    assert verdict.code == "touches_param_grad"
