"""Tests of the lesson 1 graph explorer's state: real tensors, the graph as plain data."""

import ast
import inspect

import pytest
import torch

from gradlessons.graph_explorer import state as state_module
from gradlessons.graph_explorer.state import FINISHED, GUIDE_STEPS, OPERATIONS, GraphExplorerState, read_graph


@pytest.fixture
def state():
    """An explorer with no starter expression: only the inputs a, b and c."""
    return GraphExplorerState(starter=())


@pytest.fixture
def opened():
    """The explorer as a student opens it: the starter expression has run."""
    return GraphExplorerState()


def test_leaves_a_b_require_grad(state):
    rows = {r["name"]: r for r in state.rows()}
    assert [r["name"] for r in state.rows()] == ["a", "b", "c"]
    assert rows["a"]["requires_grad"] and rows["b"]["requires_grad"] and not rows["c"]["requires_grad"]
    assert all(r["is_leaf"] and r["grad_fn"] is None for r in rows.values())


def test_mul_gives_mulbackward(state):
    step = state.apply("mul", "a", "b")
    t = state.tensors[step.result]
    assert step.code == "t1 = a * b"
    assert torch.equal(t, state.tensors["a"] * state.tensors["b"])
    assert type(t.grad_fn).__name__ == "MulBackward0" and not t.is_leaf and t.requires_grad


def test_constants_only_need_no_grad(state):
    state.apply("exp", "c")
    row = state.rows()[-1]
    assert row == {"name": "t1", "code": "t1 = c.exp()", "requires_grad": False, "is_leaf": True, "grad_fn": None}


def test_graph_follows_next_functions(state):
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


def test_shared_node_once_below_users(state):
    state.apply("mul", "a", "b")
    state.apply("sin", "t1")
    state.apply("add", "t2", "t1")
    graph = state.graph()
    muls = [n for n in graph.nodes if n.label == "MulBackward0"]
    assert len(muls) == 1 and muls[0].depth == 2
    assert sum(1 for n in graph.nodes if n.kind == "leaf") == 2


def test_leaf_graph_is_one_noted_node(state):
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


def test_flag_replays_forward(state):
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
    assert [a.kind for a in state.history] == ["apply", "apply", "undo", "flag", "reset", "undo"]


def test_bad_requests_explained(state):
    with pytest.raises(ValueError, match="unknown operation"):
        state.apply("tan", "a")
    with pytest.raises(ValueError, match="unknown tensor"):
        state.apply("sin", "t9")
    with pytest.raises(ValueError, match="unknown input"):
        state.set_requires_grad("d", True)
    small = GraphExplorerState(max_steps=1, starter=())
    small.apply("sin", "a")
    with pytest.raises(ValueError, match="at most 1"):
        small.apply("sin", "a")


def test_every_op_graph_matches_bfs(state):
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


def test_table_lists_every_tensor(state):
    state.apply("pow 2", "a")
    lines = state.table().splitlines()
    assert lines[0].split()[:4] == ["tensor", "requires_grad", "is_leaf", "grad_fn"]
    assert lines[-1].split()[:4] == ["t1", "True", "False", "PowBackward0"]


def test_no_widget_or_plot_imports():
    tree = ast.parse(inspect.getsource(state_module))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not imported & {"ipywidgets", "matplotlib", "IPython"}


# --------------------------------------------------------------------------- the starter expression


def test_opens_on_three_node_kinds(opened):
    assert [step.code for step in opened.steps] == ["t1 = a * b", "t2 = t1 + c"]
    graph = opened.graph()
    assert graph.target == "t2"
    assert [(n.label, n.kind, n.tensor) for n in graph.nodes] == [
        ("AddBackward0", "op", "t2"),
        ("MulBackward0", "op", "t1"),
        ("AccumulateGrad", "leaf", "a"),
        ("AccumulateGrad", "leaf", "b"),
        ("c (constant)", "constant", "c"),
    ]


def test_reset_to_starter_then_undo(opened):
    opened.apply("exp", "t2")
    opened.set_requires_grad("a", False)
    opened.reset()
    assert opened.names == ["a", "b", "c", "t1", "t2"] and opened.requires_grad["a"] is True
    assert opened.undo().code == "t2 = t1 + c" and opened.undo().code == "t1 = a * b"
    assert opened.names == ["a", "b", "c"]


def test_reset_keeps_initial_flags():
    state = GraphExplorerState(requires_grad={"c": True})
    state.set_requires_grad("c", False)
    state.reset()
    assert state.requires_grad["c"] is True


# --------------------------------------------------------------------------- the guide


def follow_the_guide(state):
    """What the guide asks for, done the way a student does it; yields after each step."""
    state.apply("sin", "t2")
    yield
    state.set_requires_grad("c", True)
    yield
    state.set_requires_grad("a", False)
    state.set_requires_grad("b", False)
    yield
    state.apply("detach", "t3")
    yield


def test_guide_has_four_full_steps():
    assert len(GUIDE_STEPS) == 4
    assert all(step.prompt and step.look and callable(step.done) for step in GUIDE_STEPS)


def test_guide_moves_one_step(opened):
    guide = opened.guide
    assert guide.heading == "Step 1 of 4" and guide.prompt.startswith("Grow the expression") and guide.looks == []
    done = []
    for _ in follow_the_guide(opened):
        done += guide.looks
    assert done == [(k + 1, step.look) for k, step in enumerate(GUIDE_STEPS)]
    assert guide.finished and guide.prompt == FINISHED


def test_step_notes_match_the_state(opened):
    steps = follow_the_guide(opened)
    next(steps)  # t3 = t2.sin(): a new grad_fn on top, pointing to its input's node
    graph = opened.graph()
    assert graph.nodes[0].label == "SinBackward0" and (0, 1) in graph.edges and graph.nodes[1].tensor == "t2"
    next(steps)  # c ticked: c has an AccumulateGrad node, the forward pass ran again
    assert ("AccumulateGrad", "c") in [(n.label, n.tensor) for n in opened.graph().nodes]
    assert opened.tensors["c"].requires_grad and opened.tensors["t3"].requires_grad
    next(steps)  # a and b unticked: t1 = a * b has no grad_fn and is a grey box
    assert opened.tensors["t1"].grad_fn is None and opened.tensors["t1"].is_leaf
    assert "MulBackward0" not in [n.label for n in opened.graph().nodes]
    assert ("constant", "t1") in [(n.kind, n.tensor) for n in opened.graph().nodes]
    next(steps)  # t4 = t3.detach(): same numbers, no grad_fn, one grey box
    t3, t4 = opened.tensors["t3"], opened.tensors["t4"]
    assert torch.equal(t3, t4) and t4.grad_fn is None and not t4.requires_grad
    assert [n.kind for n in opened.graph().nodes] == ["constant"]


def test_guide_waits_until_step_done(opened):
    guide = opened.guide
    opened.apply("exp", "c")  # c does not require grad: nothing grew
    assert guide.index == 0
    opened.apply("exp", "t2")
    assert guide.index == 1
    opened.set_requires_grad("a", False)  # not what step 2 asks
    assert guide.index == 1
    opened.set_requires_grad("c", True)
    assert guide.index == 2
    opened.set_requires_grad("a", True)
    opened.set_requires_grad("b", False)  # only one of the two
    assert guide.index == 2
    opened.set_requires_grad("a", False)
    assert guide.index == 3
    opened.apply("detach", "c")  # c requires grad now: detaching it cuts a tracked tensor
    assert guide.finished


def test_untracked_detach_not_counted(opened):
    for _ in range(3):
        opened.skip_guide_step()
    assert opened.guide.index == 3 and opened.guide.looks == []
    opened.apply("detach", "c")  # c does not require grad: nothing was cut
    assert not opened.guide.finished
    opened.apply("detach", "t2")
    assert opened.guide.finished


def test_only_later_actions_count(opened):
    opened.apply("detach", "t2")  # the detach of step 4, done during step 1 ...
    assert opened.guide.index == 0  # ... does not grow the graph
    for _ in range(3):
        opened.skip_guide_step()
    opened.set_requires_grad("c", True)  # an action, but not a detach since step 4 began
    assert not opened.guide.finished


def test_done_steps_passed_and_shown(opened):
    opened.set_requires_grad("c", True)  # step 2's condition, during step 1
    assert opened.guide.index == 0 and opened.guide.looks == []
    opened.apply("sin", "t2")
    assert opened.guide.index == 2
    assert opened.guide.looks == [(1, GUIDE_STEPS[0].look), (2, GUIDE_STEPS[1].look)]
    assert opened.guide.note.startswith("✓ Steps 1 and 2 done. ")
    opened.set_requires_grad("a", False)  # part of step 3, which is not done yet: the looks were of before
    assert opened.guide.index == 2 and opened.guide.looks == [] and opened.guide.note == ""
    opened.undo()  # not step 3's action: the guide says so
    assert opened.guide.note.startswith("That was not this step's action: this step asks you to untick")


def test_action_counts_for_own_step(opened):
    for _ in range(2):
        opened.skip_guide_step()
    opened.apply("detach", "t2")  # step 4's action, during step 3
    opened.set_requires_grad("a", False)
    opened.set_requires_grad("b", False)  # step 3 done; the detach came before step 4 began
    assert opened.guide.index == 3 and opened.guide.looks == [(3, GUIDE_STEPS[2].look)]


def test_skip_and_restart(opened):
    guide = opened.guide
    opened.apply("sin", "t2")
    opened.skip_guide_step()
    assert guide.index == 2 and guide.looks == []
    for _ in range(5):
        opened.skip_guide_step()
    assert guide.finished and guide.prompt == FINISHED
    opened.set_requires_grad("b", False)
    opened.restart_guide()
    assert guide.index == 0 and guide.heading == "Step 1 of 4"
    assert opened.names == ["a", "b", "c", "t1", "t2"] and opened.requires_grad["b"] is True
    assert list(follow_the_guide(opened)) and guide.finished


# --------------------------------------------------------------------------- read_graph on any tensor


def test_read_graph_labels_by_name():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x = torch.tensor([3.0, 4.0])
    y = w * x
    loss = (y + x.exp()).sum()
    graph = read_graph(loss, "loss", {"w": w, "x": x, "y": y, "loss": loss, "_": y, "n": 3})
    assert [(n.label, n.kind, n.tensor) for n in graph.nodes] == [
        ("SumBackward0", "op", "loss"),
        ("AddBackward0", "op", None),
        ("MulBackward0", "op", "y"),
        ("AccumulateGrad", "leaf", "w"),
        ("input without grad", "constant", None),  # x.exp(): no name for it, and Add saves nothing
        ("x (constant)", "constant", "x"),  # MulBackward0 saved x for w's gradient
    ]
    assert set(graph.edges) == {(0, 1), (1, 2), (2, 3), (1, 4), (2, 5)}
    assert "2 grey input(s)" in graph.note


def test_read_graph_no_names_no_grad_fn():
    w = torch.tensor(2.0, requires_grad=True)
    graph = read_graph(w * w)
    assert graph.target == "the tensor" and [n.label for n in graph.nodes] == ["MulBackward0", "AccumulateGrad"]
    assert [n.tensor for n in graph.nodes] == [None, None]
    assert read_graph(w, "w").nodes[0].kind == "leaf"
    assert read_graph(w.detach(), "d").nodes[0].kind == "constant"


def test_read_graph_names_grey_inputs():
    """Lesson 1's graph: x found in what MulBackward0 saved, z as the one named input left."""
    from gradlessons.graph_explorer.drawing import _label, _positions

    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x = torch.tensor([3.0, 4.0])
    y = x * w  # the input without grad is the first argument
    z = x * 3 + 1
    loss = (y + z).sum()
    graph = read_graph(loss, "loss", {"w": w, "x": x, "y": y, "z": z, "loss": loss})
    grey = [n for n in graph.nodes if n.kind == "constant"]
    assert sorted(n.tensor for n in grey) == ["x", "z"]
    assert sorted(_label(n) for n in grey) == ["x\n(no grad)", "z\n(no grad)"]
    where = _positions(graph)
    by_name = {n.tensor or n.label: where[n.id] for n in graph.nodes}
    assert by_name["x"][1] == by_name["w"][1] and by_name["x"][0] < by_name["w"][0]  # x * w: x left of w
    assert by_name["y"][1] == by_name["z"][1] and by_name["y"][0] < by_name["z"][0]  # y + z: y left of z
    assert _label(next(n for n in read_graph(w * 3).nodes if n.kind == "constant")) == "3\n(no grad)"
    unnamed = read_graph((w + x.exp()).sum())  # nothing tells which tensor it was: still says what it is
    assert [_label(n) for n in unnamed.nodes if n.kind == "constant"] == ["an input\n(no grad)"]


def test_inputs_keep_their_sides():
    state = GraphExplorerState(requires_grad={"a": False, "b": True, "c": True}, starter=())
    sides = []
    for op, x, y in (("mul", "a", "b"), ("add", "t1", "c"), ("sin", "t2", None)):
        state.apply(op, x, y)
        graph = state.graph()
        from gradlessons.graph_explorer.drawing import _positions

        where = _positions(graph)
        named = {n.tensor or n.label: where[n.id][0] for n in graph.nodes if n.tensor in ("a", "b")}
        sides.append(named["a"] < named["b"])
    assert sides == [True, True, True]
