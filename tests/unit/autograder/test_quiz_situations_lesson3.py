"""Each quick check of lesson 3, run: what happens in torch is what the keyed option says, and the
tempting wrong options are false (keys in gradebox/quizzes/lesson3_zeroing_grad.json)."""

import pytest
import torch
from torch import nn

from autograder.checks import _answer_hash, load_quiz

ASSIGNMENT = "lesson3_zeroing_grad"


def line_data():
    torch.manual_seed(0)
    x = torch.linspace(-2, 2, 40).unsqueeze(1)
    return x, 3 * x + 1 + 0.3 * torch.randn(40, 1)


def fit(clear_at: str, junk: bool = False, steps: int = 20) -> list[torch.Tensor]:
    """Lesson 3's line fit with the clear at ``clear_at``; the weights after every step."""
    x, y = line_data()
    torch.manual_seed(1)
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    if junk:
        sum(p.sum() * 100 for p in model.parameters()).backward()  # junk in every .grad
    weights = []
    for _ in range(steps):
        if clear_at == "first":
            optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        if clear_at == "after the loss":
            optimizer.zero_grad()
        loss.backward()
        if clear_at == "between backward and step":
            optimizer.zero_grad()
        optimizer.step()
        if clear_at == "after step":
            optimizer.zero_grad()
        weights.append(torch.cat([p.detach().flatten() for p in model.parameters()]))
    return weights


def first_batch_weights() -> torch.Tensor:
    """The weights after one step that used the first batch's gradient alone."""
    return fit("first", steps=1)[0]


@pytest.mark.parametrize(
    ("question", "key"), [("q1", "c"), ("q2", "d"), ("q3", "a"), ("q4", "b"), ("q5", "c"), ("q6", "a")]
)
def test_keys_are_the_ones_checked_here(question, key):
    assert load_quiz(ASSIGNMENT)[question]["answer_sha256"] == _answer_hash(ASSIGNMENT, question, key)


def test_q1_grad_is_none_before_any_backward():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    assert w.grad is None  # c), not zeros (a), ones (d) or an error (b)


def test_q2_clearing_last_gives_the_same_weights_after_every_step():
    first, last = fit("first"), fit("after step")
    assert all(torch.equal(a, b) for a, b in zip(first, last))  # d), so not "a little" different (c)
    torch.manual_seed(1)
    start = torch.cat([p.detach().flatten() for p in nn.Linear(1, 1).parameters()])
    assert not torch.equal(last[0], start)  # b) is false: the first step did see a gradient
    assert not torch.equal(fit("never")[1], first[1])  # a) is what never clearing does, not this loop


def test_q3_summed_losses_need_no_division():
    torch.manual_seed(0)
    x, y, model = torch.randn(12, 3), torch.randn(12, 1), nn.Linear(3, 1)
    loss_fn = nn.MSELoss(reduction="sum")
    loss_fn(model(x), y).backward()
    whole = model.weight.grad.clone()

    def accumulated(scale):
        model.zero_grad()
        for xb, yb in zip(x.chunk(4), y.chunk(4)):
            (loss_fn(model(xb), yb) * scale(len(xb))).backward()
        return model.weight.grad

    assert torch.allclose(accumulated(lambda n: 1.0), whole)  # a): the sum of the sums is the whole sum
    assert not torch.allclose(accumulated(lambda n: 1 / 4), whole)  # b): a quarter of it
    assert not torch.allclose(accumulated(lambda n: 4.0), whole)  # c)
    assert not torch.allclose(accumulated(lambda n: 1 / n), whole)  # d): divided by 3
    assert torch.allclose(accumulated(lambda n: 1 / 4), whole / 4)  # the why: "a quarter of it"


def test_q4_reading_grad_after_zero_grad_raises_attribute_error():
    model = nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.ones(1, 2)).sum().backward()
    optimizer.zero_grad()
    with pytest.raises(AttributeError):  # b), not a printed sum (a, c) nor a RuntimeError (d)
        print(model.weight.grad.sum())


def test_q5_a_very_negative_bias_kills_a_first_layer_unit():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(2, 5), nn.ReLU(), nn.Linear(5, 1))
    x = torch.randn(200, 2)
    with torch.no_grad():
        net[0].bias[3] = -10.0
    nn.functional.mse_loss(net(x), torch.sin(x[:, :1])).backward()
    norms = net[0].weight.grad.norm(dim=1)
    assert norms[3].item() == 0.0 and (norms[[0, 1, 2, 4]] > 0).all()  # c): one unit, exact zeros
    assert (net[0](x)[:, 3] < 0).all()  # its input is below zero for every example
    # a) is false: the exact zero does not come from clearing; piled up, unit 3's gradient stays 0.
    for _ in range(2):
        nn.functional.mse_loss(net(x), torch.sin(x[:, :1])).backward()
    assert net[0].weight.grad.norm(dim=1)[3].item() == 0.0


def test_q6_only_the_clear_before_backward_removes_junk_from_the_first_update():
    clean = first_batch_weights()
    assert torch.equal(fit("after the loss", junk=True, steps=1)[0], clean)  # a)
    assert not torch.allclose(fit("after step", junk=True, steps=1)[0], clean)  # b): junk leaks in
    assert not torch.allclose(fit("between backward and step", junk=True, steps=1)[0], clean)  # c): no gradient
    assert not torch.allclose(fit("never", junk=True, steps=1)[0], clean)  # d): backward() adds to the junk
