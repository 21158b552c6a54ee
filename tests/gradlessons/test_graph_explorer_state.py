"""Tests of the lesson 1 graph explorer's state: real tensors, the graph as plain data."""

import ast
import inspect

import pytest
import torch

from gradlessons.graph_explorer import state as state_module
from gradlessons.graph_explorer.state import OPERATIONS, GraphExplorerState


@pytest.fixture
def state():
    return GraphExplorerState()


def test_the_inputs_start_as_leaves_with_a_and_b_requiring_grad(state):
    rows = {r["name"]: r for r in state.rows()}
    assert [r["name"] for r in state.rows()] == ["a", "b", "c"]
    assert rows["a"]["requires_grad"] and rows["b"]["requires_grad"] and not rows["c"]["requires_grad"]
    assert all(r["is_leaf"] and r["grad_fn"] is None for r in rows.values())


def test_applying_mul_makes_a_real_non_leaf_tensor_with_mulbackward(state):
    step = state.apply("mul", "a", "b")
    t = state.tensors[step.result]
    assert step.code == "t1 = a * b"
    assert torch.equal(t, state.tensors["a"] * state.tensors["b"])
    assert type(t.grad_fn).__name__ == "MulBackward0" and not t.is_leaf and t.requires_grad


def test_an_operation_on_constants_only_does_not_require_grad(state):
    state.apply("exp", "c")
    row = state.rows()[-1]
    assert row == {"name": "t1", "code": "t1 = c.exp()", "requires_grad": False, "is_leaf": True, "grad_fn": None}


def test_the_graph_lists_op_leaf_and_constant_nodes_with_edges_along_next_functions(state):
    state.apply("mul", "a", "c")
    state.apply("sum", "t1")
    graph = state.graph()
    labels = [(n.label, n.kind, n.tensor) for n in graph.nodes]
    assert labels == [
        ("SumBackward0", "op", "t2"),
        ("MulBackward0", "op", "t1"),
        ("AccumulateGrad", "leaf", "a"),
        ("c (constant)", "constant", "c"),
    ]
    assert set(graph.edges) == {(0, 1), (1, 2), (1, 3)}
    assert "None in next_functions" in graph.note


def test_a_shared_node_appears_once_and_sits_below_all_its_users(state):
    state.apply("mul", "a", "b")
    state.apply("sin", "t1")
    state.apply("add", "t2", "t1")
    graph = state.graph()
    muls = [n for n in graph.nodes if n.label == "MulBackward0"]
    assert len(muls) == 1 and muls[0].depth == 2
    assert sum(1 for n in graph.nodes if n.kind == "leaf") == 2


def test_the_graph_of_a_leaf_or_a_constant_is_one_node_with_a_note(state):
    leaf = state.graph("a")
    assert [(n.label, n.kind) for n in leaf.nodes] == [("AccumulateGrad", "leaf")] and not leaf.edges
    assert "grad_fn is None" in leaf.note
    const = state.graph("c")
    assert const.nodes[0].kind == "constant" and "recorded no graph" in const.note


def test_detach_cuts_the_graph(state):
    state.apply("mul", "a", "b")
    state.apply("detach", "t1")
    state.apply("add", "t2", "a")
    kinds = [(n.label, n.kind) for n in state.graph().nodes]
    assert kinds == [("AddBackward0", "op"), ("AccumulateGrad", "leaf"), ("t2 (constant)", "constant")]


def test_toggling_a_flag_replays_the_forward_pass(state):
    state.apply("mul", "a", "b")
    state.set_requires_grad("a", False)
    state.set_requires_grad("b", False)
    assert state.tensors["t1"].grad_fn is None
    state.set_requires_grad("c", True)
    state.apply("add", "t1", "c")
    assert [n.label for n in state.graph().nodes] == ["AddBackward0", "AccumulateGrad", "t1 (constant)"]


def test_undo_and_reset(state):
    state.apply("mul", "a", "b")
    state.apply("exp", "t1")
    assert state.undo().result == "t2" and state.names == ["a", "b", "c", "t1"]
    state.set_requires_grad("c", True)
    state.reset()
    assert state.names == ["a", "b", "c"] and state.requires_grad == {"a": True, "b": True, "c": False}
    assert state.undo() is None


def test_bad_requests_are_refused_with_a_clear_message(state):
    with pytest.raises(ValueError, match="unknown operation"):
        state.apply("tan", "a")
    with pytest.raises(ValueError, match="unknown tensor"):
        state.apply("sin", "t9")
    with pytest.raises(ValueError, match="unknown input"):
        state.set_requires_grad("d", True)
    small = GraphExplorerState(max_steps=1)
    small.apply("sin", "a")
    with pytest.raises(ValueError, match="at most 1"):
        small.apply("sin", "a")


def test_every_operation_runs_and_its_graph_matches_a_breadth_first_walk(state):
    for op in OPERATIONS:
        state.apply(op, "a", "b")
        t = state.tensors[state.last]
        seen, order = set(), []
        todo = [t.grad_fn] if t.grad_fn is not None else []
        while todo:
            node = todo.pop(0)
            if node in seen:
                continue
            seen.add(node)
            order.append(type(node).__name__)
            todo += [c for c, _ in node.next_functions if c is not None]
        ops = [n.label for n in state.graph().nodes if n.kind != "constant" or t.grad_fn is None]
        assert ops == (order or ["AccumulateGrad" if t.requires_grad else "constant"]), op
        state.undo()


def test_the_table_lists_every_tensor(state):
    state.apply("pow 2", "a")
    lines = state.table().splitlines()
    assert lines[0].split()[:4] == ["tensor", "requires_grad", "is_leaf", "grad_fn"]
    assert lines[-1].split()[:4] == ["t1", "True", "False", "PowBackward0"]


def test_the_state_module_imports_no_widget_or_plotting_library():
    tree = ast.parse(inspect.getsource(state_module))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not imported & {"ipywidgets", "matplotlib", "IPython"}
