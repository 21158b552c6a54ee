"""The fine-tuning model of lesson 1: a body and a head, and a step that reports what moved."""

import torch

from gradlessons.finetune import small_model, train_once


def test_names_match_the_lesson():
    names = [name for name, _ in small_model().named_parameters()]
    assert names == ["body.0.weight", "body.0.bias", "body.2.weight", "body.2.bias", "head.weight", "head.bias"]


def test_seed_local_and_repeatable():
    torch.manual_seed(5)
    expected = torch.rand(3)
    torch.manual_seed(5)
    a, b = small_model(seed=1), small_model(seed=1)
    assert torch.equal(torch.rand(3), expected)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))


def test_only_trainable_params_move():
    model = small_model()
    for name, p in model.named_parameters():
        p.requires_grad_(name.startswith("head"))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    moved = train_once(model, optimizer)
    assert moved == {name: name.startswith("head") for name, _ in model.named_parameters()}
    assert model.body[0].weight.grad is None


def test_momentum_moves_frozen():
    """What lesson 1 warns about: freezing alone does not stop an optimizer with momentum."""
    model = small_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    train_once(model, optimizer)  # every parameter now holds a gradient and a momentum buffer
    model.body[0].weight.requires_grad_(False)
    optimizer.zero_grad(set_to_none=False)  # zeros, not None: the optimizer does not skip it
    before = model.body[0].weight.detach().clone()
    optimizer.step()
    assert not torch.equal(before, model.body[0].weight)
