"""Lesson 4 answers that try to pass ``predict``, ``evaluate`` and ``head_forward`` without running
the model untracked, by working on what the grader records rather than on the model (issue 33):
rewriting the notes the handed-out model used to keep, a throw-away tracked-off call before the real
forward through ``model.net``, and switching the grader's recording off (``DisableTorchFunction``,
popping the torch-function mode stack or the saved-tensor hooks, a mode of one's own that hides
every operation, torch functions left disabled).

``ATTACKS`` lists (exercise, name, source, the code it must get now); ``CORRECT`` the right answer
of each exercise, the neighbour that must keep full marks.  The unit tests run them in this process
(tests/unit/gradebox/exercises/test_lesson4_recorder.py), the e2e tests through ``diagnose``, the notebook's
self-check and the grading paths (tests/e2e/test_lesson4_notes.py).
"""

from __future__ import annotations

CORRECT = {
    "predict": """import torch


def predict(model, x):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return model(x)
    finally:
        model.train(was_training)
""",
    "evaluate": """import torch


def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    try:
        total = 0.0
        with torch.no_grad():
            for x, y in batches:
                total += loss_fn(model(x), y).item()
        return total / len(batches)
    finally:
        model.train(was_training)
""",
    "head_forward": """import torch


def head_forward(backbone, head, x):
    with torch.no_grad():
        features = backbone(x)
    return head(features)
""",
}

# Notes as the old handed-out model kept them: a forward with tracking off, in eval mode.
_FAKE_CALLS = '[{"grad": False, "inference": False, "any_training": False}]'

# The body of predict around a forward: eval mode, restored after.
_PREDICT = """import torch
from torch.overrides import TorchFunctionMode
{preamble}

def predict(model, x):
    was_training = model.training
    model.eval()
    try:
{body}
    finally:
        model.train(was_training)
"""


def _predict(body: str, preamble: str = "") -> str:
    return _PREDICT.format(body="\n".join("        " + line for line in body.strip().splitlines()), preamble=preamble)


_EVALUATE = """import torch


def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    total = 0.0
    for x, y in batches:
{body}
    model.train(was_training)
    return total / len(batches)
"""


def _evaluate(body: str) -> str:
    return _EVALUATE.format(body="\n".join("        " + line for line in body.strip().splitlines()))


_HEAD = """import torch


def head_forward(backbone, head, x):
{body}
"""


def _head(body: str) -> str:
    return _HEAD.format(body="\n".join("    " + line for line in body.strip().splitlines()))


HIDE_MODE = """
class Hide(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        with torch._C.DisableTorchFunction():
            return func(*args, **(kwargs or {}))
"""

ATTACKS = [
    # -- predict ---------------------------------------------------------------------------------
    (
        "predict",
        "rewrites_calls",
        _predict(f"out = model(x).detach()\nmodel.calls = {_FAKE_CALLS}\nmodel.count = 1\nreturn out"),
        "detach_only",
    ),
    (
        "predict",
        "throwaway_then_net",
        _predict("with torch.no_grad():\n    model(x)\nreturn model.net(x).detach()"),
        "detach_only",
    ),
    (
        "predict",
        "disable_torch_function",
        _predict("with torch._C.DisableTorchFunction():\n    return model(x).detach()"),
        "tampered",
    ),
    (
        "predict",
        "throwaway_then_hidden",
        _predict(
            "with torch.no_grad():\n    model(x)\nwith torch._C.DisableTorchFunction():\n    return model(x).detach()"
        ),
        "tampered",
    ),
    (
        "predict",
        "pops_mode_and_puts_back",
        _predict(
            "mode = torch._C._pop_torch_function_stack()\nout = model(x).detach()\n"
            "torch._C._push_on_torch_function_stack(mode)\nreturn out"
        ),
        "tampered",
    ),
    (
        "predict",
        "pops_mode_for_good",
        _predict(
            "while torch._C._len_torch_function_stack():\n    torch._C._pop_torch_function_stack()\n"
            "return model(x).detach()"
        ),  # fmt: skip
        "tampered",
    ),
    (
        "predict",
        "pops_every_recorder",
        _predict(
            "mode = torch._C._pop_torch_function_stack()\n"
            "hooks = torch._C._autograd._top_saved_tensors_default_hooks(False)\n"
            "torch._C._autograd._pop_saved_tensors_default_hooks()\nout = model(x).detach()\n"
            "torch._C._autograd._push_saved_tensors_default_hooks(*hooks)\n"
            "torch._C._push_on_torch_function_stack(mode)\nreturn out"
        ),
        "tampered",
    ),
    (
        "predict",
        "mode_of_its_own",
        _predict("with Hide():\n    return model(x).detach()", preamble=HIDE_MODE),
        "tampered",
    ),
    (
        "predict",
        "leaves_torch_functions_off",
        _predict("torch._C.DisableTorchFunction().__enter__()\nreturn model(x).detach()"),
        "tampered",
    ),
    (
        "predict",
        "resets_the_notes",
        _predict(
            "out = model(x).detach()\nrecorder = torch._C._get_function_stack_at(0)._recorder\n"
            "recorder._known.clear()\nrecorder._stages = [(n, b, type(s)()) for n, b, s in recorder._stages]\n"
            "return out"
        ),
        "tampered",
    ),
    (
        "predict",
        "rebinds_the_recorders_reader",
        _predict(
            "import gradebox.exercises._lesson4.recorder as recorder\n"
            "hooks = torch._C._autograd._top_saved_tensors_default_hooks(False)\n"
            "torch._C._autograd._pop_saved_tensors_default_hooks()\n"
            "recorder._grad_fn = lambda tensor: None\nrecorder._grad_enabled = lambda: False\n"
            "out = model(x).detach()\ntorch._C._autograd._push_saved_tensors_default_hooks(*hooks)\nreturn out"
        ),
        "tampered",
    ),
    (
        "predict",
        "raw_linear_layers",
        _predict(
            "h = x\nfor layer in model.net:\n    if isinstance(layer, torch.nn.Linear):\n"
            "        h = torch._C._nn.linear(h, layer.weight, layer.bias)\n    else:\n        h = layer(h)\n"
            "return h.detach()"
        ),
        "detach_only",
    ),
    # -- evaluate --------------------------------------------------------------------------------
    (
        "evaluate",
        "rewrites_calls",
        _evaluate(f"total += loss_fn(model(x), y).item()\nmodel.calls = {_FAKE_CALLS}"),
        "builds_graph",
    ),
    (
        "evaluate",
        "throwaway_then_net",
        _evaluate("with torch.no_grad():\n    model(x)\ntotal += loss_fn(model.net(x), y).item()"),
        "builds_graph",
    ),
    (
        "evaluate",
        "disable_torch_function",
        _evaluate(
            "with torch.no_grad():\n    model(x)\nwith torch._C.DisableTorchFunction():\n"
            "    total += loss_fn(model(x), y).item()"
        ),
        "tampered",
    ),
    (
        "evaluate",
        "losses_in_a_thread",
        # The recorder is per thread (torch's mode stack and saved-tensor hooks are): the tracked losses
        # are computed in another one, behind untracked throw-away calls in this one.
        """import threading

import torch


def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for x, y in batches:
            model(x)
    losses = []
    worker = threading.Thread(target=lambda: losses.extend(loss_fn(model(x), y).item() for x, y in batches))
    worker.start()
    worker.join()
    model.train(was_training)
    return sum(losses) / len(losses)
""",
        "tampered",
    ),
    # -- head_forward ----------------------------------------------------------------------------
    (
        "head_forward",
        "rewrites_calls",
        _head(f"features = backbone(x).detach()\nbackbone.calls = {_FAKE_CALLS}\nreturn head(features)"),
        "detach_only",
    ),
    (
        "head_forward",
        "throwaway_then_net",
        _head("with torch.no_grad():\n    backbone(x)\nreturn head(backbone.net(x).detach())"),
        "detach_only",
    ),
    (
        "head_forward",
        "disable_torch_function",
        _head("with torch._C.DisableTorchFunction():\n    features = backbone(x).detach()\nreturn head(features)"),
        "tampered",
    ),
    (
        "head_forward",
        "hidden_untracked_backbone",
        _head(
            "with torch.no_grad(), torch._C.DisableTorchFunction():\n    features = backbone(x)\nreturn head(features)"
        ),
        "tampered",
    ),
]


# Attacks that change the grader's modules for good: run only where a job or a child process ends
# after them, never in a test's own process.
OWN_PROCESS = frozenset({"rebinds_the_recorders_reader"})


def attacks_of(exercise: str) -> dict[str, tuple[str, str]]:
    """name -> (source, the code it must get), for one exercise."""
    return {name: (source, code) for e, name, source, code in ATTACKS if e == exercise}
