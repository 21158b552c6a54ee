"""Shared pieces of the lesson 1 exercises in the job: small autograd graphs, and pretrained-like
models whose parameters can be frozen.

The job and the judge both rebuild these objects from the same frozen scenario, so the judge
computes every reference in its own process (``autograder.judge._lesson1``: the walks over
``grad_fn``/``next_functions``), on objects student code never saw.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ..i18n import pgettext
from ._rng import seeded

# --------------------------------------------------------------------------- graphs

GRAPHS = (
    "diamond",  # one node feeds two branches that meet again
    "constants",  # inputs that do not require grad: None entries in next_functions
    "two_leaves",  # two different leaves: two AccumulateGrad nodes with the same name
    "unbind",  # one node listed twice in the same next_functions
    "chain",  # a deep chain built by a loop
    "leaf",  # a leaf tensor: grad_fn is None
    "detached",  # the result of detach(): grad_fn is None
    "branches",  # a wide tree where breadth-first and depth-first orders differ
)


@dataclass(frozen=True)
class GraphScenario:
    """One expression handed to ``graph_ops``."""

    graph: str
    seed: int

    @property
    def name(self) -> str:
        # i18n: a case of graph_ops; {graph} is the graph's name in code ("diamond", "chain"), kept
        return pgettext("scenario", "{graph} graph").format(graph=self.graph)


def build_graph(scenario: GraphScenario) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The tensor ``t`` of the scenario, and every tensor involved (kept alive with it)."""
    gen = torch.Generator().manual_seed(scenario.seed)
    variant = scenario.seed % 3

    def leaf(*shape, grad=True):
        return torch.randn(*shape, generator=gen).requires_grad_(grad)

    kind = scenario.graph
    if kind == "diamond":
        x = leaf(3)
        shared = x * 2.0 if variant else x.exp()
        left, right = shared.sin(), shared**2
        t = (left + right).sum() if variant != 1 else left * right
        return t, [x, shared, left, right]
    if kind == "constants":
        x, c, k = leaf(4), leaf(4, grad=False), leaf(4, grad=False)
        inner = x * c + k.exp()
        t = inner.sum() if variant else (inner + c).mean()
        return t, [x, c, k, inner]
    if kind == "two_leaves":
        a, b = leaf(2), leaf(2)
        t = (a * b).sum() + (a.sin() * b).sum() if variant else a.exp() * b + b
        return t, [a, b]
    if kind == "unbind":
        x = leaf(2 + variant)
        first, second = x.unbind()[:2]
        t = first * second + first
        return t, [x, first, second]
    if kind == "chain":
        x = leaf(2)
        h = x
        for step in range(5 + variant):
            h = h.sin() if step % 2 else h * 1.5
        return h.sum(), [x, h]
    if kind == "leaf":
        x = leaf(3)
        return x, [x]
    if kind == "detached":
        x = leaf(3)
        y = (x * 3.0).exp()
        return y.detach(), [x, y]
    if kind == "branches":
        a, b, c = leaf(2), leaf(2), leaf(2)
        u = (a * b).exp()
        v = (b + c).sin()
        t = (u.sum() + v.sum()) * c.sum() if variant != 2 else (u * v).sum() + c.cos().sum()
        return t, [a, b, c, u, v]
    raise ValueError(f"unknown graph {kind!r}; choose from {GRAPHS}")


# --------------------------------------------------------------------------- models

MODEL_KINDS = ("pretrained", "deep_sequential", "with_norm")


@dataclass(frozen=True)
class FreezeScenario:
    """A model, the prefixes to keep trainable, and the parameters frozen before the call."""

    model: str
    trainable: tuple[str, ...]
    frozen_at_start: tuple[str, ...]
    seed: int

    @property
    def name(self) -> str:
        # i18n: a case of freeze_all_but; {model} is a name in code, trainable= the argument, kept
        return pgettext("scenario", "{model} model, trainable={trainable}, frozen before={frozen}").format(
            model=self.model, trainable=list(self.trainable), frozen=list(self.frozen_at_start)
        )


class Pretrained(nn.Module):
    """A small 'pretrained' body and a fresh head, like a model loaded for fine-tuning."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU())
        self.head = nn.Linear(8, 3)
        self.norm = nn.LayerNorm(3)

    def forward(self, x):
        return self.norm(self.head(self.body(x)))


def build_model(scenario: FreezeScenario) -> nn.Module:
    """The scenario's model, with ``frozen_at_start`` parameters already frozen."""
    with seeded(scenario.seed):
        if scenario.model == "pretrained":
            model = Pretrained()
        elif scenario.model == "deep_sequential":
            # Twelve modules: names "0.weight" ... "11.bias", so "1" is a prefix of "10" and "11".
            model = nn.Sequential(*[nn.Linear(3, 3, bias=i % 3 != 2) for i in range(12)])
        elif scenario.model == "with_norm":
            model = nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5), nn.Linear(5, 2))
        else:
            raise ValueError(f"unknown model {scenario.model!r}; choose from {MODEL_KINDS}")
    for name, p in model.named_parameters():
        if name in scenario.frozen_at_start:
            p.requires_grad_(False)
    return model
