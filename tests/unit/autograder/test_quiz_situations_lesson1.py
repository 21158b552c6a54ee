"""Lesson 1's quick checks, run: each keyed option is what torch does, and the tempting wrong
options are not (the questions are in notebooks/lesson1_requires_grad, the keys in
gradebox/quizzes/lesson1_requires_grad.json)."""

import pytest
import torch

from autograder.checks import _answer_hash, load_quiz

ASSIGNMENT = "lesson1_requires_grad"
KEYS = {"q1": "b", "q2": "c", "q3": "a", "q4": "d", "q5": "b"}


@pytest.mark.parametrize("question", sorted(KEYS))
def test_the_keys_tested_here_are_the_stored_keys(question):
    assert load_quiz(ASSIGNMENT)[question]["answer_sha256"] == _answer_hash(ASSIGNMENT, question, KEYS[question])


def test_q1_a_product_of_zeros_still_requires_grad():
    x = torch.zeros(3)
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * w  # no error
    assert torch.equal(y.detach(), torch.zeros(3))  # all zeros, whatever w is
    assert y.requires_grad  # b, not a or c, and no backward() needed (d)


def test_q2_only_the_indexed_entries_require_grad():
    w = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
    assert w[w > 0].requires_grad  # c
    assert not (w > 0).requires_grad  # a: booleans
    assert not (w > 0).float().requires_grad  # b: floats, but computed from booleans
    assert not w.argmax().requires_grad  # d: an integer


def test_q3_a_detached_snapshot_shows_an_in_place_update():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()  # w.grad is [2., 4.]
    snap = w.detach()
    with torch.no_grad():
        w -= 0.1 * w.grad  # no error (option c)
    assert torch.allclose(snap, torch.tensor([0.8, 1.6]))  # a: the new values
    assert not torch.allclose(snap, torch.tensor([1.0, 2.0]))  # not b or d: not the old values


def test_q5_a_frozen_parameter_moves_by_its_old_grad_with_default_sgd():
    with torch.random.fork_rng(devices=[]):  # the other tests' random numbers are left alone
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
        batch = torch.randn(5, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # default options, as in the question
    model(batch).pow(2).mean().backward()  # training filled every .grad
    body = list(model[0].parameters())
    for p in body:
        p.requires_grad_(False)
    before = [p.detach().clone() for p in body]
    old_grads = [p.grad.clone() for p in body]
    optimizer.step()  # no zero_grad(), no new backward(), and no error (options c and d)
    for p, start, grad in zip(body, before, old_grads, strict=True):
        assert torch.allclose(p.detach(), start - 0.1 * grad)  # b: moved by -lr times the old .grad
        assert not torch.equal(p.detach(), start)  # not a or d: it did not stay put


def test_q4_the_loss_falls_by_about_h_times_the_gradient_entry():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = 0.25 * w[0] ** 2 - 0.75 * w[1] ** 2  # a curved loss whose gradient at w is [0.5, -3.0]
    loss.backward()
    assert torch.allclose(w.grad, torch.tensor([0.5, -3.0]))
    with torch.no_grad():
        nudged = w.clone()
        nudged[1] = 2.01
        change = (0.25 * nudged[0] ** 2 - 0.75 * nudged[1] ** 2 - loss).item()
    assert change == pytest.approx(-0.03, abs=1e-3)  # d: falls by about 0.03
    assert abs(change - 0.03) > 0.05 and abs(change + 0.01) > 0.01 and abs(change - 3.0) > 1  # not a, c, b


def test_q5_with_zero_grad_first_a_frozen_parameter_stays_put():
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
        batch = torch.randn(5, 3)
    for optimizer in (torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9), torch.optim.AdamW(model.parameters())):
        optimizer.zero_grad()
        model(batch).pow(2).mean().backward()
        optimizer.step()
        body = list(model[0].parameters())
        for p in body:
            p.requires_grad_(False)
        before = [p.detach().clone() for p in body]
        optimizer.zero_grad()  # the usual loop: .grad set to None
        model(batch).pow(2).mean().backward()
        optimizer.step()
        assert all(torch.equal(p.detach(), start) and p.grad is None for p, start in zip(body, before, strict=True))
        for p in body:
            p.requires_grad_(True)
