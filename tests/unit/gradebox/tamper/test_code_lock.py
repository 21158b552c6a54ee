"""The code lock (gradebox.tamper.code_lock): installed functions keep their code, tried in a child
(an audit hook is for good)."""

import torch

from gradebox.tamper import code_lock, watch


def _in_child(work) -> bytes:
    from gradebox.box.child import run_in_child

    outcome = run_in_child(work)
    assert outcome.record is not None, outcome.detail
    return outcome.record


def _attempt(change) -> str:
    try:
        change()
    except PermissionError as error:
        return f"refused: {error}"
    return "allowed"


def test_code_and_defaults_are_locked():
    def work() -> bytes:
        code_lock.refuse_code_changes()

        def clearing(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
            pass

        attempts = {
            "code": lambda: setattr(torch.Tensor.backward, "__code__", clearing.__code__),
            "defaults": lambda: setattr(torch.nn.functional.mse_loss, "__defaults__", (None,) * 4),
            "kwdefaults": lambda: setattr(torch.optim.SGD.__init__, "__kwdefaults__", {}),
            "deleted": lambda: delattr(torch.nn.utils.clip_grad_norm_, "__defaults__"),
            "grader": lambda: setattr(watch._deep_changes, "__code__", (lambda before: []).__code__),
            "stdlib": lambda: setattr(
                __import__("copy").deepcopy, "__code__", (lambda x, memo=None, _nil=[]: x).__code__
            ),
        }
        return repr({name: _attempt(change) for name, change in attempts.items()}).encode()

    outcome = eval(_in_child(work))  # noqa: S307 - our own repr of a dict of strings
    for name, said in outcome.items():
        assert said.startswith("refused: while grading, the code of torch's and the grader's own functions"), name
    assert "backward.__code__" in outcome["code"]


def test_new_functions_stay_free():
    """And the refusal itself cannot be blinded."""
    import builtins
    import gc
    from types import FunctionType

    def work() -> bytes:
        code_lock.refuse_code_changes()

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
