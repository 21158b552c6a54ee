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
    """Adds up validation losses the way a quiz option says, with tracking on (except under no_grad)."""
    torch.manual_seed(1)
    loss_fn = nn.CrossEntropyLoss()
    batches = [(torch.randn(16, 4), torch.randint(0, 3, (16,))) for _ in range(n_batches)]
    if how == "list":
        losses = [loss_fn(model(x), y) for x, y in batches]
        return sum(losses)
    total = 0.0
    with torch.no_grad() if how == "no_grad" else torch.enable_grad():
        for x, y in batches:
            loss = loss_fn(model(x), y)
            if how == "item":
                total += loss.item()
            elif how == "detach":
                total += loss.detach()
            else:
                total += loss
    return total


def test_q3_a_list_of_losses_still_holds_memory_growing_with_batches():
    assert key("q3") == "d"
    for how in ["plain", "list"]:  # the list holds as much as the running sum it replaces
        two, four = dropout_net(), dropout_net()
        held_two = held_by_graphs(two, lambda m=two, how=how: validation(m, how, n_batches=2))
        held_four = held_by_graphs(four, lambda m=four, how=how: validation(m, how, n_batches=4))
        assert held_two > 0 and held_four == 2 * held_two


@pytest.mark.parametrize("how", ["no_grad", "item", "detach"])
def test_q3_the_other_changes_hold_nothing(how):
    model = dropout_net()
    assert held_by_graphs(model, lambda: validation(model, how, n_batches=4)) == 0


# ------------------------------------------------------------------ question 4


def frozen_backbone_and_head():
    torch.manual_seed(2)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.5)), nn.Linear(8, 3), torch.randn(6, 4)


def saved_by_backbone(backbone: nn.Module, run) -> int:
    """How many tensors autograd saved, while run() ran, for operations inside the backbone."""
    inside = []
    for layer in backbone:
        layer.register_forward_pre_hook(lambda *_: inside.append(True))
        layer.register_forward_hook(lambda *_: inside.clear())  # returns None: the output stays
    count = 0

    def pack(t):
        nonlocal count
        count += bool(inside)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        result = run()
    return count, result


def option(letter, backbone, head, x):
    if letter == "a":
        return head(backbone(x).detach())
    if letter == "b":
        with torch.no_grad():
            f = backbone(x)
        return head(f)
    if letter == "c":
        with torch.no_grad():
            return head(backbone(x))
    backbone.eval()
    return head(backbone(x))


def test_q4_no_grad_around_the_backbone_only_records_nothing_there_and_trains_the_head():
    assert key("q4") == "b"
    backbone, head, x = frozen_backbone_and_head()
    saved, out = saved_by_backbone(backbone, lambda: option("b", backbone, head, x))
    assert saved == 0
    out.sum().backward()
    assert head.weight.grad is not None and all(p.grad is None for p in backbone.parameters())


@pytest.mark.parametrize("letter", ["a", "d"])
def test_q4_detach_and_eval_still_build_the_backbone_graph(letter):
    backbone, head, x = frozen_backbone_and_head()
    saved, out = saved_by_backbone(backbone, lambda: option(letter, backbone, head, x))
    assert saved > 0 and out.grad_fn is not None


def test_q4_no_grad_around_both_leaves_the_head_untracked():
    backbone, head, x = frozen_backbone_and_head()
    saved, out = saved_by_backbone(backbone, lambda: option("c", backbone, head, x))
    assert saved == 0 and out.grad_fn is None
