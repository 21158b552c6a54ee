"""Each quick check of lesson 4 (notebooks/lesson4_no_grad), run as the situation it describes: what
PyTorch does is what the keyed option says, and the tempting other options are false."""

import pytest
import torch
from torch import nn

from autograder.checks import _answer_hash, load_quiz
from tests.e2e.test_quizzes import questions

ASSIGNMENT = "lesson4_no_grad"


def key(question: str) -> str:
    """The keyed letter of a question, read from the source notebook (and checked against the key file)."""
    (found,) = [q["key"] for q in questions(ASSIGNMENT) if q["id"] == question]
    assert load_quiz(ASSIGNMENT)[question]["answer_sha256"] == _answer_hash(ASSIGNMENT, question, found)
    return found


# ------------------------------------------------------------------ helpers


def dropout_net() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 3))


held: dict[int, int] = {}


class Holder:
    """Stands in for a saved tensor in the graph; its entry in ``held`` goes when the graph lets go of it."""

    def __init__(self, t: torch.Tensor) -> None:
        self.t = t.detach()
        held[id(self)] = t.untyped_storage().data_ptr()

    def __del__(self) -> None:
        held.pop(id(self), None)


def held_by_graphs(model: nn.Module, run) -> int:
    """How many saved tensors (weights left out) the graphs made by ``run()`` still hold when it returns."""
    weights = {p.untyped_storage().data_ptr() for p in model.parameters()}
    held.clear()
    with torch.autograd.graph.saved_tensors_hooks(Holder, lambda holder: holder.t):
        result = run()
        count = sum(address not in weights for address in held.values())
    del result
    return count


# ------------------------------------------------------------------ question 1


def test_q1_y_does_not_require_grad_and_w_still_does():
    assert key("q1") == "c"
    w = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        y = w * 2  # no error (not d)
        assert (y.requires_grad, w.requires_grad) == (False, True)  # c, so neither a nor b


# ------------------------------------------------------------------ question 2


def test_q2_eval_alone_gives_eval_outputs_but_records_a_graph():
    assert key("q2") == "a"
    net, x = dropout_net(), torch.randn(6, 4)
    net.eval()
    tracked = net(x)  # eval() without no_grad(): no error (not d)
    with torch.no_grad():
        both = net(x)
    assert torch.equal(tracked, both)  # the same outputs: dropout is off (not c)
    assert tracked.grad_fn is not None and torch.is_grad_enabled()  # a graph, tracking still on (not b)


def test_q2_dropout_would_change_outputs_in_train_mode():
    # What option c believes happens: it does, but only in training mode.
    net, x = dropout_net(), torch.randn(6, 4)
    with torch.no_grad():
        assert not torch.equal(net(x), net(x))


# ------------------------------------------------------------------ question 3


def validation(model: nn.Module, how: str, n_batches: int = 4):
    """Adds up validation losses the way a quiz option says, with tracking on."""
    torch.manual_seed(1)
    loss_fn = nn.CrossEntropyLoss()
    batches = [(torch.randn(16, 4), torch.randint(0, 3, (16,))) for _ in range(n_batches)]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if how == "eval":
        model.eval()
    if how == "list":
        losses = [loss_fn(model(x), y) for x, y in batches]
        return sum(losses)
    total = 0.0
    for x, y in batches:
        if how == "item":
            total += loss_fn(model(x), y).item()
        else:
            total += loss_fn(model(x), y)
        if how == "zero_grad":
            optimizer.zero_grad()
    return total


def test_q3_item_fixes_the_growing_memory():
    assert key("q3") == "d"
    model = dropout_net()
    assert held_by_graphs(model, lambda: validation(model, "item")) == 0


@pytest.mark.parametrize("how", ["plain", "eval", "list", "zero_grad"])
def test_q3_other_changes_still_hold_memory_growing_with_batches(how):
    model = dropout_net()
    two = held_by_graphs(model, lambda: validation(model, how, n_batches=2))
    model = dropout_net()
    four = held_by_graphs(model, lambda: validation(model, how, n_batches=4))
    assert two > 0 and four == 2 * two


# ------------------------------------------------------------------ question 4


def test_q4_only_the_multiplication_raises():
    assert key("q4") == "b"
    with torch.inference_mode():
        feats = torch.randn(3)
    w = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        (feats * w).sum().backward()  # b
    (feats + w).sum().backward()  # a: the addition saves nothing
    assert torch.equal(w.grad, torch.ones(3))
    assert (feats.clone() * w).sum().requires_grad  # c: a clone is an ordinary tensor
    assert isinstance(feats.sum().item(), float)  # d: reading records nothing
