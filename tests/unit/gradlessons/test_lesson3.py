"""The numbers lesson 3 states about its figures and its debugging examples, checked on the helpers
that produce them (gradlessons.lesson3), headless."""

import torch
from matplotlib.figure import Figure
from torch import nn

from gradlessons import lesson3


def test_line_data_near_3x_plus_1():
    """line_data is seeded on its own: the global random state is left untouched."""
    before = torch.random.get_rng_state()
    x, y = lesson3.line_data()
    assert torch.equal(torch.random.get_rng_state(), before)
    assert x.shape == y.shape == (40, 1)
    assert (y - (3 * x + 1)).abs().max() < 1.0
    again_x, again_y = lesson3.line_data()
    assert torch.equal(x, again_x) and torch.equal(y, again_y)


def fit_slopes(x, y, clear: bool) -> list[float]:
    """The loops of sections 3 and 4, as the lesson writes them: the slope after each of 60 steps."""
    torch.manual_seed(1)
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    slopes = []
    for _ in range(60):
        if clear:
            optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        slopes.append(model.weight.item())
    return slopes


def test_only_cleared_training_settles():
    x, y = lesson3.line_data()
    cleared = fit_slopes(x, y, clear=True)
    never = fit_slopes(x, y, clear=False)
    assert cleared[0] == never[0]  # same start, same first gradient: only the later steps differ
    assert all(abs(w - 3) < 0.1 for w in cleared[-20:])
    late = never[20:]
    assert 0.3 < min(late) < 0.7 and 5.3 < max(late) < 5.8  # "swings between about 0.5 and 5.5"
    assert sum((a - 3) * (b - 3) < 0 for a, b in zip(late, late[1:])) >= 4  # it crosses 3 again and again


def test_dead_unit_gets_zero_grad():
    net, x, y = lesson3.dead_relu_net()
    nn.functional.mse_loss(net(x), y).backward()
    norms = net[0].weight.grad.norm(dim=1)
    assert norms[3].item() == 0.0 and net[0].bias.grad[3].item() == 0.0
    assert (norms[[0, 1, 2, 4]] > 0).all()
    assert (net[0](x)[:, 3] > 0).sum().item() == 0 and x.shape == (200, 2)


def test_dead_unit_stays_dead():
    net, x, y = lesson3.dead_relu_net()
    before = net[0].weight[3].detach().clone()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(100):
        opt.zero_grad()
        nn.functional.mse_loss(net(x), y).backward()
        opt.step()
    assert torch.equal(net[0].weight[3].detach(), before)


def deep_tanh_net(std: float, depth: int = 20, width: int = 32) -> nn.Sequential:
    """The network the lesson's cell builds (Going deeper, exploding gradients), the same way."""
    torch.manual_seed(0)
    layers = []
    for _ in range(depth):
        linear = nn.Linear(width, width)
        nn.init.normal_(linear.weight, std=std)
        nn.init.zeros_(linear.bias)
        layers += [linear, nn.Tanh()]
    return nn.Sequential(*layers)


def layer_grad_norms(std: float) -> list[float]:
    """The lesson cell's measurement: one backward(), then each layer's weight-gradient norm."""
    net = deep_tanh_net(std)
    x, y = lesson3.deep_tanh_data()
    nn.functional.mse_loss(net(x), y).backward()
    return [m.weight.grad.norm().item() for m in net if isinstance(m, nn.Linear)]


def test_large_weights_explode_grad():
    """Std 1.0 blows the gradient up towards the first layer; std 0.3 keeps every layer's small."""
    large = layer_grad_norms(1.0)
    gentle = layer_grad_norms(0.3)
    assert len(large) == len(gentle) == 20
    assert large[0] > 1000 and large[-1] < 0.1  # thousands at layer 1, below 0.1 at layer 20
    assert all(a > b for a, b in zip(large[:10], large[1:11]))  # it grows layer after layer on the way back
    assert all(0.1 < g < 1 for g in gentle)  # "between 0.1 and 1"


def test_deep_net_uses_stated_init():
    linears = [m for m in deep_tanh_net(0.3) if isinstance(m, nn.Linear)]
    assert len(linears) == 20 and all(torch.equal(m.bias, torch.zeros(32)) for m in linears)
    weights = torch.cat([m.weight.flatten() for m in linears])
    assert abs(weights.std().item() - 0.3) < 0.01


def test_deep_tanh_data_is_seeded_on_its_own():
    before = torch.random.get_rng_state()
    x, y = lesson3.deep_tanh_data()
    assert torch.equal(torch.random.get_rng_state(), before)
    assert x.shape == y.shape == (64, 32) and y.abs().max() < 0.5


def test_figures_are_pyplot_free():
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()
    x, y = lesson3.line_data()
    fig = lesson3.forgetting_to_clear_figure(fit_slopes(x, y, clear=False), fit_slopes(x, y, clear=True))
    assert isinstance(fig, Figure) and len(fig.axes[0].get_lines()) == 3  # two runs and the true slope
    fig = lesson3.layer_grad_norms_figure({1.0: [5000.0, 50.0, 0.05], 0.3: [0.5, 0.4, 0.3]})
    assert fig.axes[0].get_yscale() == "log" and len(fig.axes[0].get_lines()) == 2
    assert list(fig.axes[0].get_lines()[0].get_ydata()) == [5000.0, 50.0, 0.05]  # it draws what it is given
    assert plt.get_fignums() == open_before


def test_plot_helpers_show_one_png():
    slopes = [3.0, 2.0, 3.5]
    shown = (lesson3.plot_forgetting_to_clear(slopes, slopes), lesson3.plot_layer_grad_norms({1.0: slopes}))
    for output in shown:
        png = output.data  # the PNG bytes the cell displays as image/png
        assert png.startswith(b"\x89PNG")


def test_each_figure_says_in_words_what_it_draws_and_where_its_lines_end():
    shown = lesson3.plot_forgetting_to_clear([3.0, 0.5, 5.6, 4.83], [3.0, 2.5, 3.0, 3.03])
    alt = shown._repr_png_()[1]["alt"]  # the metadata the cell's output carries: nbconvert's <img alt>
    assert "after each of 4 training steps, with a dashed line at the true slope 3" in alt
    assert "With zero_grad() every step, w ends at 3.03" in alt
    assert "Never cleared (red), w goes up and down between 0.50 and 5.60; after step 4 it is 4.83." in alt
    alt = lesson3.plot_layer_grad_norms({1.0: [5000.0, 50.0, 0.05], 0.3: [0.5, 0.4, 0.3]})._repr_png_()[1]["alt"]
    assert "log scale" in alt and "from layer 1 (nearest the input) to layer 3" in alt
    assert "Weights std 1: 5,000 at layer 1, 0.05 at layer 3." in alt  # not 5e+03: a screen reader says it
    assert "Weights std 0.3: 0.5 at layer 1, 0.3 at layer 3." in alt


def test_precompute_draws_without_pyplot():
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()
    lesson3.precompute()
    assert plt.get_fignums() == open_before
