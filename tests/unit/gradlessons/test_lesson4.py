"""The numbers lesson 4 states about what a graph keeps and what no_grad() saves, checked on the
helpers that measure them (gradlessons.lesson4), headless. Memory is exact; time only loosely."""

import math

import torch
from matplotlib.figure import Figure
from torch import nn

from gradlessons import lesson4


def small_model():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    x = torch.randn(5, 3)
    hidden = model[1](model[0](x))
    return model, x, hidden, model[2](hidden)


def test_graph_saves_no_copies():
    model, x, hidden, out = small_model()
    kept = {(node, s.data_ptr()) for node, _, s in lesson4.saved_tensors(out)}
    # The second Linear keeps its input and its weight, the ReLU its output, the first Linear its input.
    assert {("AddmmBackward0", hidden.data_ptr()), ("AddmmBackward0", model[2].weight.data_ptr())} <= kept
    assert ("AddmmBackward0", x.data_ptr()) in kept and ("ReluBackward0", hidden.data_ptr()) in kept
    named = {x.data_ptr(), hidden.data_ptr(), model[2].weight.data_ptr()}
    assert {address for _, address in kept} == named  # every saved tensor is one of these, no copy


def test_nothing_saved_without_graph():
    model, x, _, _ = small_model()
    with torch.no_grad():
        assert lesson4.saved_tensors(model(x)) == []
        assert lesson4.activation_mb(model(x), model) == 0.0


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def test_no_grad_keeps_no_activations():
    cost = lesson4.tracking_cost(mlp(), torch.randn(1024, 256), repeats=2)
    # The input (256 features) and the two ReLU outputs (512 each), float32, each once; weights left out.
    assert cost.tracked_mb == (256 + 512 + 512) * 1024 * 4 / 1e6
    assert cost.no_grad_mb == 0.0
    assert cost.tracked_ms > 0 and cost.no_grad_ms > 0 and math.isfinite(cost.time_ratio)
    # The lesson says the time gain is small and varies, so no timing is asserted: on a busy machine
    # either pass can take longer.


def test_tracking_cost_inside_no_grad():
    with torch.no_grad():
        cost = lesson4.tracking_cost(mlp(), torch.randn(64, 256), repeats=1)
    assert cost.tracked_mb > 0 and cost.no_grad_mb == 0.0


def test_memory_grows_with_batch():
    costs = lesson4.batch_sweep(mlp(), [64, 128, 256], in_features=256, repeats=1)
    assert [c.batch_size for c in costs] == [64, 128, 256]
    assert costs[1].tracked_mb == 2 * costs[0].tracked_mb and costs[2].tracked_mb == 4 * costs[0].tracked_mb
    assert all(c.no_grad_mb == 0.0 for c in costs)


def test_sweep_figure_pyplot_free():
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()
    costs = lesson4.batch_sweep(mlp(), [64, 128], in_features=256, repeats=1)
    fig = lesson4.batch_sweep_figure(costs)
    assert isinstance(fig, Figure) and [len(ax.get_lines()) for ax in fig.axes] == [2, 2]
    (shown,) = lesson4.plot_batch_sweep(mlp(), [64, 128]).outputs
    assert shown["data"]["image/png"]
    assert plt.get_fignums() == open_before


def test_the_sweep_figure_says_in_words_what_it_measured():
    costs = [lesson4.TrackingCost(64, 0.5, 0.0, 0.12, 0.1), lesson4.TrackingCost(2048, 16.0, 0.0, 3.456, 3.0)]
    alt = lesson4.batch_sweep_alt(costs)
    assert "batch size (64, 2048)" in alt
    assert "with tracking on, from 0.5 MB to 16.0 MB; under no_grad(), 0 MB at every batch size" in alt
    assert "with tracking on, from 0.12 ms to 3.46 ms" in alt
    (shown,) = lesson4.plot_batch_sweep(mlp(), [64, 128]).outputs
    assert shown["metadata"]["image/png"]["alt"].startswith("Two line charts against the batch size (64, 128)")
