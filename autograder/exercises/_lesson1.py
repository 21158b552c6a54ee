"""Shared pieces of the lesson 1 exercises: small autograd graphs, reference walks over
``grad_fn``/``next_functions``, and pretrained-like models whose parameters can be frozen.

The sandboxed runner and the judge both rebuild these objects from the same frozen scenario,
so the judge computes every reference in its own process, on objects student code never saw.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import torch
from torch import nn

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
        return f"{self.graph} graph (seed {self.seed})"


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


def _children(node) -> list:
    return [child for child, _ in node.next_functions if child is not None]


def bfs_nodes(root) -> list:
    """Every node reachable from ``root`` once, breadth-first, children in order."""
    if root is None:
        return []
    seen, order, queue = {root}, [], deque([root])
    while queue:
        node = queue.popleft()
        order.append(node)
        for child in _children(node):
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return order


def bfs_names(root) -> list[str]:
    """The reference answer of ``graph_ops``."""
    return [type(node).__name__ for node in bfs_nodes(root)]


def bfs_names_with_repeats(root, limit: int = 500) -> list[str]:
    """Breadth-first without remembering visited nodes: shared nodes come back."""
    if root is None:
        return []
    order, queue = [], deque([root])
    while queue and len(order) < limit:
        node = queue.popleft()
        order.append(type(node).__name__)
        queue.extend(_children(node))
    return order


def bfs_names_dedupe_by_name(root) -> list[str]:
    """Breadth-first that remembers class names instead of nodes (two leaves count once)."""
    if root is None:
        return []
    seen, order, queue = {type(root).__name__}, [], deque([root])
    while queue:
        node = queue.popleft()
        order.append(type(node).__name__)
        for child in _children(node):
            if type(child).__name__ not in seen:
                seen.add(type(child).__name__)
                queue.append(child)
    return order


def dfs_orders(root) -> list[list[str]]:
    """Depth-first orders a student might produce: recursive pre-order, and a stack that pops
    the last child pushed (children in reverse), both visiting every node once."""
    if root is None:
        return [[]]
    recursive: list = []
    seen: set = set()

    def visit(node):
        if node in seen:
            return
        seen.add(node)
        recursive.append(node)
        for child in _children(node):
            visit(child)

    visit(root)
    stack_order, seen2, stack = [], set(), [root]
    while stack:
        node = stack.pop()
        if node in seen2:
            continue
        seen2.add(node)
        stack_order.append(node)
        stack.extend(_children(node))
    return [[type(n).__name__ for n in order] for order in (recursive, stack_order)]


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
        return f"{self.model} model, trainable={list(self.trainable)}, frozen before={list(self.frozen_at_start)}"


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


def expected_flags(names: list[str], prefixes) -> list[bool]:
    return [any(name.startswith(prefix) for prefix in prefixes) for name in names]
