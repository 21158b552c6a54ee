"""Helpers shared by the lesson 2 exercises (``derivative``, ``finite_difference_grad``,
``input_gradient``): the functions handed to the student, the recorder that watches a call from
below the student's objects, and small record helpers.

Everything but the recorder runs on both sides: in the job (to build the objects and record what
the student did) and in the judge (to rebuild them and compute references, ``autograder.judge._lesson2``).

What the judge needs to know about a call (how often the scenario's function ran and on what, which
tensors built a graph, every ``backward()`` and ``torch.autograd.grad`` and the gradients they
produced) is written down by ``AutogradRecorder``, a ``torch.overrides.TorchFunctionMode`` the job
pushes around the student's call.  PyTorch hands it every torch function called while it is on the
mode stack, whichever object the call goes through: the function given to the student, the raw
formula behind it (each formula dispatches itself to the modes, see ``evaluated``), a tensor's
methods, the autograd entry points.  Its notes live in the recorder, which no object handed to the
student references.  It is the only mode during the call (modes a student pushed earlier are
taken off, function and dispatch modes alike, and never put back, so none rewrites what the job
copies into the record afterwards), and the job checks when the call ends that it still is, with no
dispatch mode and torch functions enabled (``AutogradRecorder.intact``; if not: ``tampered``).  A
student's code can still hide work from it for a while (``torch._C.DisableTorchFunction`` entered
and left) or edit its notes: hiding only removes the evidence a pass needs, and the judge decides
on numbers the notes cannot produce (the exact autograd slope, the exact central difference,
autograd's own float32 input gradient), so neither earns a point.
"""

from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode, handle_torch_function, has_torch_function

from . import type_name


def evaluated(name: str, formula):
    """The function of a scenario: ``formula`` behind an entry point that the torch function modes
    see (as ``handle_torch_function`` shows them any torch function), so the recorder counts every
    evaluation, through the object handed to the student or not.  A plain number is turned into a
    float64 tensor first, so that code that calls the function with numbers still runs to the end
    and can be diagnosed by what it did."""

    def function(t):
        if has_torch_function((t,)):
            return handle_torch_function(function, (t,), t)
        if not isinstance(t, torch.Tensor):
            t = torch.as_tensor(t, dtype=torch.float64)
        return formula(t)

    function.__name__ = function.__qualname__ = name
    return function


#: Scalar functions of a scalar tensor for ``derivative`` (name -> function of a tensor).
SCALAR_FUNCTIONS = {
    name: evaluated(name, formula)
    for name, formula in {
        "square": lambda t: t**2,
        "sin": lambda t: torch.sin(t),
        "cubic": lambda t: t**3 - 2 * t,
        "gauss": lambda t: torch.exp(-(t**2)),
        # A kink at 0: a finite difference whose step reaches across it is wrong (1.5 is right).
        "abs_kink": lambda t: torch.abs(t) + 0.5 * t,
        # Very steep around 0.3.
        "steep": lambda t: torch.tanh(40 * (t - 0.3)),
        # ReLU-ish: a kink at 1.
        "relu_mix": lambda t: 3 * torch.relu(t - 1.0) + torch.sin(t),
        "softplus_x": lambda t: torch.nn.functional.softplus(t) * t,
    }.items()
}

#: Scalar-valued functions of a tensor of any shape for ``finite_difference_grad``.
FIELD_FUNCTIONS = {
    name: evaluated(name, formula)
    for name, formula in {
        # Central difference of t**3 is 3 t**2 + eps**2: the result depends on eps.
        "cubic_sum": lambda t: (t**3).sum() - 2 * t.sum(),
        "sin_coupled": lambda t: (torch.sin(t) * t).sum() + 0.5 * t.sum() ** 2,
        "logsumexp": lambda t: torch.logsumexp(1.5 * t.reshape(-1), 0) + (t**3).mean(),
    }.items()
}

MAX_VALUE_NUMEL = 64  # an argument's values are written down up to this size (the scenarios' x are smaller)


def describe_arg(arg) -> dict:
    """What a scenario's function saw as its argument, as plain data."""
    if not isinstance(arg, torch.Tensor):
        try:
            value = float(arg)
        except (TypeError, ValueError, OverflowError):
            value = None
        return {"tensor": False, "requires_grad": False, "dtype": type_name(arg), "value": value, "shape": None}
    small = arg.numel() <= MAX_VALUE_NUMEL and arg.dtype.is_floating_point
    return {
        "tensor": True,
        "requires_grad": bool(arg.requires_grad),
        "dtype": str(arg.dtype).replace("torch.", ""),
        "value": arg.detach().double().clone() if small else None,
        "shape": list(arg.shape)[:8],
    }


def _clear_modes() -> None:
    """Take every torch function mode and every dispatch mode off their stacks."""
    while torch._C._len_torch_function_stack():
        torch._C._pop_torch_function_stack()
    while torch._C._len_torch_dispatch_stack():
        torch._C._pop_torch_dispatch_stack(None)


MAX_EVALUATIONS = 100  # evaluations written down; a loop of more is counted, not recorded
MAX_GRADIENTS = 32  # gradients autograd produced, written down (each up to MAX_GRADIENT_NUMEL numbers)
MAX_GRADIENT_NUMEL = 4096
MAX_LEAVES = 64  # tensors made to require grad during the call, whose .grad each backward() is read from


class AutogradRecorder(TorchFunctionMode):
    """Notes on one call of a student's function, taken below the student's objects.

    * ``evaluations``: every call of the scenario's function ``watched`` (what it was given,
      whether its result is part of a graph), ``n_evaluations`` counts them all;
    * ``backward_calls`` / ``grad_calls``: ``Tensor.backward`` and ``torch.autograd.backward`` /
      ``torch.autograd.grad``; ``gradients``: what they produced, as float64 copies taken when
      they returned (``grad``'s results, the ``.grad`` of every tensor the call made require grad
      after each ``backward``), before the student's code can touch them;
    * ``graph_built``: some torch function returned a tensor that requires grad, made during the
      call (a leaf switched on, or an operation recorded in a graph).

    Push with ``start()``; ``finish()`` says whether the recorder was still in place and takes it
    off, with whatever the student's code left on the mode stacks."""

    def __init__(self, watched) -> None:
        super().__init__()
        self.watched = watched
        self.evaluations: list[dict] = []
        self.n_evaluations = 0
        self.backward_calls = 0
        self.grad_calls = 0
        self.graph_built = False
        self.gradients: list[torch.Tensor] = []
        self.n_gradients = 0
        self.leaves: list[torch.Tensor] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is self.watched:
            return self._evaluate(func, args, kwargs)
        result = func(*args, **kwargs)
        if func is torch.Tensor.backward or func is torch.autograd.backward:
            self.backward_calls += 1
            for leaf in self.leaves:
                if leaf.grad is not None:
                    self._gradient(leaf.grad)
        elif func is torch.autograd.grad:
            self.grad_calls += 1
            for grad in result if isinstance(result, (tuple, list)) else (result,):
                if isinstance(grad, torch.Tensor):
                    self._gradient(grad)
        self._look_for_tracking(result)
        if getattr(func, "__name__", "") == "__set__" and args:  # t.requires_grad = True
            self._look_for_tracking(args[0])
        return result

    def _evaluate(self, func, args, kwargs):
        # Noted before the call: an evaluation that raises (and is caught) still counts, and the
        # list keeps matching the count.
        self.n_evaluations += 1
        note = {**(describe_arg(args[0]) if args else describe_arg(None)), "graph": False}
        if len(self.evaluations) < MAX_EVALUATIONS:
            self.evaluations.append(note)
        result = func(*args, **kwargs)
        note["graph"] = isinstance(result, torch.Tensor) and bool(result.requires_grad)
        self.graph_built |= note["graph"]
        return result

    def _look_for_tracking(self, result) -> None:
        for value in result if isinstance(result, (tuple, list)) else (result,):
            if not isinstance(value, torch.Tensor) or not value.requires_grad:
                continue
            self.graph_built = True
            if value.is_leaf and len(self.leaves) < MAX_LEAVES and not any(value is t for t in self.leaves):
                self.leaves.append(value)

    def _gradient(self, grad: torch.Tensor) -> None:
        self.n_gradients += 1
        if len(self.gradients) < MAX_GRADIENTS and grad.numel() <= MAX_GRADIENT_NUMEL:
            try:
                self.gradients.append(grad.detach().double().clone())
            except RuntimeError:  # a tensor of a function transform (torch.func) that cannot be copied out
                pass

    # -- on the stack ----------------------------------------------------------------------

    def start(self) -> AutogradRecorder:
        """Push the recorder as the only mode, with torch functions enabled.  Modes already there
        (a student's, pushed when the file or the notebook's cells ran, to answer for the torch
        functions below the recorder, or to rewrite what the job copies into the record afterwards)
        are taken off, function modes and dispatch modes alike, and not put back: ``finish`` leaves
        none, so the job makes its record with no mode of the student's in the way."""
        _clear_modes()
        torch._C._set_torch_function_state(torch._C._TorchFunctionState.ENABLED)
        torch._C._push_on_torch_function_stack(self)
        return self

    def intact(self) -> bool:
        """Still the one mode on the stack, no dispatch mode under it, torch functions enabled, and
        still this class's own recorder (no ``__torch_function__`` of the student's on the
        instance, no other class)."""
        return (
            type(self) is AutogradRecorder
            and "__torch_function__" not in vars(self)
            and torch._C._len_torch_function_stack() == 1
            and torch._C._get_function_stack_at(0) is self
            and torch._C._len_torch_dispatch_stack() == 0
            and torch._C._get_torch_function_state() == torch._C._TorchFunctionState.ENABLED
        )

    def finish(self) -> bool:
        """Whether the recorder was intact when the call ended; then no mode is left on either stack
        and torch functions are enabled, whatever the call did (a ``DisableTorchFunction`` entered
        and never left would blind the next scenario's recorder)."""
        intact = self.intact()
        _clear_modes()
        torch._C._set_torch_function_state(torch._C._TorchFunctionState.ENABLED)
        return intact

    def notes(self, intact: bool) -> dict:
        """The record's ``autograd`` entry: plain data, bounded in size."""
        return {
            "intact": bool(intact),
            "evaluations": [dict(note) for note in self.evaluations[:MAX_EVALUATIONS]],
            "n_evaluations": int(self.n_evaluations),
            "backward_calls": int(self.backward_calls),
            "grad_calls": int(self.grad_calls),
            "graph_built": bool(self.graph_built),
            "gradients": list(self.gradients[:MAX_GRADIENTS]),
            "n_gradients": int(self.n_gradients),
        }


def recorded_call(call, watched=None) -> tuple[object, dict, BaseException | None]:
    """``call()`` with an ``AutogradRecorder`` on the mode stack: what it returned (None when it
    raised), the recorder's notes, and the exception it raised (None when it returned)."""
    recorder = AutogradRecorder(watched).start()
    value, raised = None, None
    try:
        value = call()
    except BaseException as exc:  # noqa: BLE001 - handed back beside the notes, which the judge reads
        raised = exc
    intact = recorder.finish()
    return value, recorder.notes(intact), raised


def returned(value) -> dict:
    """A student's return value as plain data: its type and, when possible, its numbers."""
    out = {"type": type_name(value), "is_tensor": isinstance(value, torch.Tensor), "tensor": None, "number": None}
    if isinstance(value, torch.Tensor):
        out["tensor"] = value.detach().clone()
        out["requires_grad"] = bool(value.requires_grad)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out["number"] = float(value)
    return out
