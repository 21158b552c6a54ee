"""Lesson 2's quick checks, run: each question's situation happens in torch as its keyed option says,
and the tempting other options do not happen."""

import warnings

import pytest
import torch


def test_q1_only_the_leaf_that_requires_grad_gets_a_grad():
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0)
    h = a * b
    (h * h).backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        h_grad = h.grad  # not a leaf: None, with a warning
    assert a.grad is not None
    assert b.grad is None and h_grad is None
    assert caught, "reading .grad of a non-leaf warns"


def test_q2_only_the_one_entry_slice_can_start_backward():
    def fresh():
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        return x, x**3

    for start in (lambda y: y.backward(), lambda y: y.backward(retain_graph=True), lambda y: y[:2].backward()):
        _, y = fresh()
        with pytest.raises(RuntimeError, match="scalar outputs"):
            start(y)
    x, y = fresh()
    assert y[-1:].shape == (1,)  # one number, though not 0-d
    y[-1:].backward()
    assert torch.equal(x.grad, torch.tensor([0.0, 0.0, 27.0]))


@pytest.mark.parametrize(
    "loss_of",
    [
        lambda w: 0.75 * w[0] ** 2 + 0.25 * w[1] ** 2,  # gradient [1.5 w0, 0.5 w1]
        lambda w: 3 * torch.sin(w[0] - 2) + 3 + torch.exp(-0.5 * (w[1] + 1)),  # another loss with that gradient
    ],
)
def test_q3_nudging_one_entry_changes_the_loss_by_its_gradient_times_the_nudge(loss_of):
    w = torch.tensor([2.0, -1.0], dtype=torch.float64, requires_grad=True)
    loss_of(w).backward()
    assert torch.allclose(w.grad, torch.tensor([3.0, -0.5], dtype=torch.float64))
    moved = w.detach().clone()
    moved[0] = 2.01
    change = (loss_of(moved) - loss_of(w.detach())).item()
    assert abs(change - 0.03) < 1e-3  # c) up by about 0.03
    for distractor in (3.0, -0.005, 0.025):  # a), b), d)
        assert abs(change - distractor) > 4e-3


def test_q4_a_second_walk_through_exp_raises():
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    y = torch.exp(x).sum()
    exp_node = y.grad_fn.next_functions[0][0]
    assert type(exp_node).__name__ == "ExpBackward0"
    assert torch.equal(exp_node._saved_result, torch.exp(x.detach()))  # exp saves its result
    y.backward()
    first = x.grad.clone()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    assert torch.equal(x.grad, first)  # not b): nothing was added


def test_q4_the_contrast_without_saved_values_walks_twice():
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    assert torch.equal(x.grad, torch.tensor([2.0, 2.0]))


def test_q4_retain_graph_would_add_not_replace():
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    y = torch.exp(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert torch.allclose(x.grad, 2 * torch.exp(x.detach()))  # neither c) nor d): it adds
