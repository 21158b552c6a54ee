"""A small model with a body and a head, and one training step that says which parameters moved.

Lesson 1 freezes the body of this model. Building it and running a step take about twenty lines of
``nn.Module`` and loss code that are not about ``requires_grad``, so they live here.
"""

from __future__ import annotations

import torch
from torch import nn


class SmallModel(nn.Module):
    """``body`` (two linear layers with ReLU: ``body.0``, ``body.2``), then ``head`` (one linear layer)."""

    def __init__(self, inputs: int = 4, hidden: int = 16, classes: int = 2):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


def small_model(seed: int = 0) -> SmallModel:
    """A ``SmallModel`` whose weights depend on ``seed`` only (the notebook's random numbers are left alone)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return SmallModel()


def train_once(model: nn.Module, optimizer: torch.optim.Optimizer, seed: int = 0) -> dict[str, bool]:
    """One training step on a random batch (clear, forward, cross-entropy, backward, step).

    Returns, for each parameter name, whether the step changed its values.
    """
    generator = torch.Generator().manual_seed(seed)
    first = next(m for m in model.modules() if isinstance(m, nn.Linear))
    x = torch.randn(8, first.in_features, generator=generator)
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    optimizer.zero_grad()
    scores = model(x)
    labels = torch.randint(0, scores.shape[1], (8,), generator=generator)
    nn.functional.cross_entropy(scores, labels).backward()
    optimizer.step()
    return {name: not torch.equal(before[name], p.detach()) for name, p in model.named_parameters()}
