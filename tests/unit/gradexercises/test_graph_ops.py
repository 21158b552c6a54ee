"""The graph_ops judge: its reference walk, and verdicts the corpus does not already show."""

from collections import deque

import pytest
import torch

from autograder.diagnose import diagnose_function
from autograder.judge._lesson1 import bfs_names, bfs_nodes
from gradebox.exercises._lesson1 import GRAPHS, GraphScenario, build_graph
from gradexercises.graph_ops import job as graph_ops
from tests.judging import observations_of


def reference(t):
    if t.grad_fn is None:
        return []
    seen, queue, out = {t.grad_fn}, deque([t.grad_fn]), []
    while queue:
        node = queue.popleft()
        out.append(type(node).__name__)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return out


@pytest.mark.parametrize("seed", [0, 1, 11])
def test_one_accumulate_grad_per_leaf(seed):
    for scenario in graph_ops.suite(seed=seed):
        t, keep = build_graph(scenario)
        leaves = [x for x in keep if x.is_leaf and x.requires_grad]
        if t.grad_fn is None:
            assert bfs_names(t.grad_fn) == []
            continue
        grads = torch.autograd.grad(t.sum(), leaves, allow_unused=True)
        reached = [x for x, g in zip(leaves, grads) if g is not None]
        accumulators = [n for n in bfs_nodes(t.grad_fn) if type(n).__name__ == "AccumulateGrad"]
        assert sorted(id(n.variable) for n in accumulators) == sorted(id(x) for x in reached), scenario


def test_every_graph_kind_seeds_vary():
    assert [s.graph for s in graph_ops.suite()] == list(GRAPHS)
    shapes = {tuple(bfs_names(build_graph(s)[0].grad_fn)) for seed in range(3) for s in graph_ops.suite(seed=seed)}
    assert len(shapes) > len(GRAPHS)


def test_covers_shared_none_and_empty():
    names = {s.graph: bfs_names(build_graph(s)[0].grad_fn) for s in graph_ops.suite()}
    assert names["leaf"] == [] and names["detached"] == []
    assert names["two_leaves"].count("AccumulateGrad") == 2
    t, _ = build_graph(GraphScenario("constants", 0))
    assert any(child is None for node in bfs_nodes(t.grad_fn) for child, _ in node.next_functions)


def test_record_survives_round_trip():
    scenario = GraphScenario("diamond", 3)
    assert observations_of("graph_ops", reference, [scenario]) == [graph_ops.run(reference, scenario)]


@pytest.mark.parametrize(
    "fn, code",
    [
        (reference, "ok"),
        (lambda t: tuple(reference(t)), "not_a_list"),
        (lambda t: [len(n) for n in reference(t)], "wrong_names"),
        (lambda t: [f"<{n} object at 0x7f00>" for n in reference(t)], "wrong_names"),
        (lambda t: reference(t) + ["None"] if reference(t) else [], "includes_none"),
        (lambda t: reference(t) * 2, "duplicates"),
        (lambda t: list(reversed(reference(t))), "wrong_order"),
        (lambda t: ["AccumulateGrad"] if t.grad_fn is None else reference(t), "wrong_nodes"),
    ],
)
def test_nasty_answers_specific_code(fn, code):
    verdict, _ = diagnose_function("graph_ops", fn)
    assert verdict.code == code, verdict.message


def test_stray_none_is_plain_error():
    def appends_to_none(t):
        names = []
        names = names.append("x")
        return names.append("y")

    verdict, _ = diagnose_function("graph_ops", appends_to_none)
    assert verdict.code == "error" and "append" in verdict.message
