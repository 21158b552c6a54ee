import sys
import warnings

import torch
from torch.optim.optimizer import register_optimizer_step_pre_hook

from autograder import tamper


def test_a_fresh_process_has_no_provenance_problems():
    assert tamper.provenance_problems() == []


def test_a_snapshot_sees_a_replaced_optimizer_method(monkeypatch):
    changes = tamper.start_watch()
    assert changes() == []
    monkeypatch.setattr(torch.optim.Optimizer, "zero_grad", lambda self, set_to_none=True: None)
    assert "torch.optim.Optimizer.zero_grad" in changes()
    assert "torch.optim.Optimizer.zero_grad" in tamper.provenance_problems()


def test_a_snapshot_sees_a_global_optimizer_hook():
    changes = tamper.start_watch()
    handle = register_optimizer_step_pre_hook(lambda *a: None)
    try:
        assert "torch.optim.optimizer._global_optimizer_pre_hooks" in changes()
    finally:
        handle.remove()
    assert changes() == []


def test_a_snapshot_sees_a_replaced_grader_function(monkeypatch):
    import autograder.exercises._lesson3.recorder

    changes = tamper.start_watch()
    monkeypatch.setattr(autograder.exercises._lesson3.recorder, "grads", lambda params: [])
    assert "autograder.exercises._lesson3.recorder.grads" in changes()
    assert "autograder.exercises._lesson3.recorder.grads" in tamper.provenance_problems()


def test_creating_optimizers_and_models_is_not_tampering():
    changes = tamper.start_watch()
    model = torch.nn.Linear(2, 1)
    for make in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop):
        make(model.parameters(), lr=0.1)
    assert changes() == []


def test_replacing_the_tamper_checks_own_functions_does_not_blind_it(monkeypatch):
    changes = tamper.start_watch()
    monkeypatch.setattr(tamper, "_watched_objects", lambda: {})
    monkeypatch.setattr(tamper, "_same", lambda a, b: True)
    assert "autograder.tamper._watched_objects" in changes()


# -- the quick check: dict version tags instead of touching every watched object -----------------


def _quick():
    quick = tamper._SEALED["_quick_watch"]()
    assert quick is not None, "the quick check must be available on this interpreter"
    return quick


def test_this_interpreter_keeps_dict_version_tags_so_the_quick_check_is_used():
    assert tamper._READ_VERSION is not None
    assert _quick()() is True


def test_training_with_hooks_in_a_forked_child_takes_the_quick_path():
    from autograder.sandbox.child import run_in_child

    quick = _quick()

    def work() -> bytes:
        torch.set_num_threads(1)
        model = torch.nn.Linear(3, 1)
        handle = model.register_forward_hook(lambda *a: None)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
        model(torch.ones(2, 3)).sum().backward()
        optimizer.step()
        handle.remove()
        return b"quick" if quick() else b"full"

    assert run_in_child(work).record == b"quick"


def test_a_warning_raised_from_a_watched_module_keeps_the_next_check_quick(monkeypatch):
    import autograder.jobs.run as watched  # a grader module: its dict is watched

    monkeypatch.delitem(vars(watched), "__warningregistry__", raising=False)
    quick = _quick()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec("__import__('warnings').warn('from the grader', UserWarning)", vars(watched))
    assert "__warningregistry__" in vars(watched) and quick() is True


def _plant_module(monkeypatch):
    """A module in sys.modules under a watched class's name: the full check, which finds its
    surfaces by name, once lost sight of torch.Tensor this way (and of any patch to it)."""
    import sys
    import types

    monkeypatch.setitem(sys.modules, "torch.Tensor", types.ModuleType("torch.Tensor"))
    monkeypatch.setattr(torch.Tensor, "__sub__", lambda a, b: a)


CHANGES = {
    "a tensor operator": lambda mp: mp.setattr(torch.Tensor, "__sub__", lambda a, b: a),
    "an attribute shadowing an inherited one": lambda mp: mp.setattr(torch.Tensor, "__mul__", lambda a, b: a),
    "a builtin": lambda mp: mp.setattr("builtins.float", lambda x=0: 0.0),
    "torch.save": lambda mp: mp.setattr(torch, "save", lambda *a, **k: None),
    "a hook handle's remove": lambda mp: mp.setattr(torch.utils.hooks.RemovableHandle, "remove", lambda self: None),
    "a global forward hook": lambda mp: mp.setitem(
        torch.nn.modules.module._global_forward_hooks, 10**9, lambda *a: None
    ),
    "a hook table replaced": lambda mp: mp.setattr(
        torch.nn.modules.module, "_global_forward_hooks", {1: lambda *a: None}
    ),
    "a grader function": lambda mp: mp.setattr(tamper, "describe", lambda names, limit=3: ""),
    "a tracer": lambda mp: __import__("sys").settrace(lambda *a: None),
    "an import hook": lambda mp: mp.setattr("sys.meta_path", [object(), *__import__("sys").meta_path]),
    "a module planted under a watched name": _plant_module,
    "an optimizer's step": lambda mp: mp.setattr(torch.optim.SGD, "step", lambda self, closure=None: None),
    # One module deeper than the surfaces: each of these reshapes training as well.
    "what runs every backward": lambda mp: mp.setattr(torch.autograd.graph, "Variable", type("V", (), {})),
    "a loss in torch._C": lambda mp: mp.setattr(torch._C._nn, "mse_loss", lambda *a, **k: None),
    "SGD's inner step": lambda mp: mp.setattr(sys.modules["torch.optim.sgd"], "_single_tensor_sgd", print),
    "the autograd engine": lambda mp: mp.setattr(torch.autograd.variable.Variable, "_execution_engine", object()),
    "a class on the training path gaining a method": lambda mp: mp.setattr(
        torch.autograd.graph.Node, "clear_leaves", lambda self: None, raising=False
    ),
}


import pytest  # noqa: E402


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
def test_the_quick_check_never_calls_a_change_unchanged(change, monkeypatch):
    import sys

    changes, quick = tamper.start_watch(deep=True), _quick()
    try:
        CHANGES[change](monkeypatch)
        assert quick() is False
        assert changes() != []
    finally:
        sys.settrace(None)


DEEP = {
    "torch.autograd.graph.Variable": lambda mp: mp.setattr(torch.autograd.graph, "Variable", type("V", (), {})),
    "torch._C._nn.mse_loss": lambda mp: mp.setattr(torch._C._nn, "mse_loss", lambda *a, **k: None),
    "torch.optim.sgd._single_tensor_sgd": lambda mp: mp.setattr(
        sys.modules["torch.optim.sgd"], "_single_tensor_sgd", print
    ),
    "torch.autograd.variable.Variable._execution_engine": lambda mp: mp.setattr(
        torch.autograd.variable.Variable, "_execution_engine", object()
    ),
}


@pytest.mark.parametrize("name", DEEP, ids=list(DEEP))
def test_a_change_one_module_deeper_than_the_surfaces_is_named(name, monkeypatch):
    changes = tamper.start_watch(deep=True)
    DEEP[name](monkeypatch)
    assert name in changes()


def _quick_of(changes):
    """The quick check a watch holds (white box: the retagging below is invisible otherwise)."""
    return dict(zip(changes.__code__.co_freevars, (c.cell_contents for c in changes.__closure__)))["quick"]


def test_flags_and_new_submodules_are_not_changes_and_the_next_check_is_quick_again(monkeypatch):
    import types

    changes = tamper.start_watch(deep=True)
    profiler = torch.autograd.profiler
    monkeypatch.setattr(profiler, "_cupti_monitor_checked", not profiler._cupti_monitor_checked)  # a flag
    monkeypatch.setattr(torch.autograd.graph, "lazily_imported", types.ModuleType("x"), raising=False)
    quick = _quick_of(changes)
    assert quick() is False  # dicts changed: the full comparison decides
    assert changes() == []
    assert quick() is True  # and takes the tags of now as the ones to compare with


def test_a_change_made_after_a_clean_full_comparison_is_still_seen(monkeypatch):
    changes = tamper.start_watch(deep=True)
    monkeypatch.setattr(torch.autograd.graph, "lazily_imported", 1, raising=False)
    assert changes() == []
    monkeypatch.setattr(torch.autograd.graph, "Variable", type("V", (), {}))
    assert changes() == ["torch.autograd.graph.Variable"]


def test_every_exercise_solved_correctly_in_a_forked_child_takes_the_quick_path():
    """The instructor's answer to each of the twelve exercises, run through all its scenarios in a
    forked child as the grader does: torch's own lazy work must not look like a change, or every
    check would take the slow way (or worse, call honest work tampered)."""
    import glob

    from autograder import exercises
    from autograder.sandbox.child import run_in_child
    from tests.course_copy import read, solutions
    from tests.judging import verdict_of

    answers = {}
    for path in sorted(glob.glob("notebooks/*/*.ipynb")):
        answers.update(solutions(read(path)))
    names = [name for name in answers if name in exercises.EXERCISES]
    assert len(names) == 12
    quick = _quick()

    def work(name) -> bytes:
        torch.set_num_threads(1)
        namespace = {}
        exec("import math\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F", namespace)
        exec(answers[name], namespace)
        verdict = verdict_of(name, namespace[name])
        return b"passed " + (b"quick" if quick() else b"full") if verdict.passed else repr(verdict)[:300].encode()

    for name in names:
        assert run_in_child(lambda name=name: work(name)).record == b"passed quick", name


# -- code that cannot be changed: refuse_code_changes, in a child (an audit hook is for good) ----


def _in_child(work) -> bytes:
    from autograder.sandbox.child import run_in_child

    outcome = run_in_child(work)
    assert outcome.record is not None, outcome.detail
    return outcome.record


def _attempt(change) -> str:
    try:
        change()
    except PermissionError as error:
        return f"refused: {error}"
    return "allowed"


def test_installed_functions_code_defaults_and_keyword_defaults_cannot_be_replaced_or_deleted():
    def work() -> bytes:
        tamper.refuse_code_changes()

        def clearing(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
            pass

        attempts = {
            "code": lambda: setattr(torch.Tensor.backward, "__code__", clearing.__code__),
            "defaults": lambda: setattr(torch.nn.functional.mse_loss, "__defaults__", (None,) * 4),
            "kwdefaults": lambda: setattr(torch.optim.SGD.__init__, "__kwdefaults__", {}),
            "deleted": lambda: delattr(torch.nn.utils.clip_grad_norm_, "__defaults__"),
            "grader": lambda: setattr(tamper._deep_changes, "__code__", (lambda before: []).__code__),
            "stdlib": lambda: setattr(
                __import__("copy").deepcopy, "__code__", (lambda x, memo=None, _nil=[]: x).__code__
            ),
        }
        return repr({name: _attempt(change) for name, change in attempts.items()}).encode()

    outcome = eval(_in_child(work))  # noqa: S307 - our own repr of a dict of strings
    for name, said in outcome.items():
        assert said.startswith("refused: while grading, the code of torch's and the grader's own functions"), name
    assert "backward.__code__" in outcome["code"]


def test_functions_made_later_stay_free_and_the_refusal_cannot_be_blinded():
    import builtins
    import gc
    from types import FunctionType

    def work() -> bytes:
        tamper.refuse_code_changes()

        def mine(x):
            return x

        mine.__code__ = (lambda x: -x).__code__  # the student's own function: allowed
        builtins.id = lambda obj: 0  # a builtin the hook could have relied on
        builtins.len = lambda obj: 0
        # the hook itself: the one function whose namespace is empty
        empty = {"__builtins__": {}}
        guard = next(f for f in gc.get_objects() if type(f) is FunctionType and f.__globals__ == empty)
        results = [mine(1) == -1, _attempt(lambda: setattr(torch.Tensor.backward, "__code__", mine.__code__))]
        results.append(_attempt(lambda: setattr(guard, "__code__", (lambda event, args: None).__code__)))
        results.append(_attempt(lambda: setattr(guard, "__defaults__", None)))
        return repr(results).encode()

    mine_changed, backward, guard_code, guard_defaults = eval(_in_child(work))  # noqa: S307
    assert mine_changed is True
    assert backward.startswith("refused") and guard_code.startswith("refused") and guard_defaults.startswith("refused")


def test_seal_makes_the_servers_watch_every_jobs_watch():
    def work() -> bytes:
        tamper.seal()
        watch = tamper.start_watch()
        same = watch is tamper.start_watch()
        torch.autograd.graph.Variable = type("V", (), {})
        return repr([same, watch()]).encode()

    assert eval(_in_child(work)) == [True, ["torch.autograd.graph.Variable"]]  # noqa: S307
