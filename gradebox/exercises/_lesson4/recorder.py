"""Recording what a lesson-4 call really did, below the student's objects.

The judges of ``predict``, ``evaluate`` and ``head_forward`` must tell ``no_grad()`` from
``detach()``, and eval mode from training mode.  Notes kept by the model handed to the student
(a list on the model, a count) are the student's to rewrite, and see only calls that go through
the wrapper.  So the job records the call from underneath, with two of PyTorch's own mechanisms
that no student object references:

* a ``torch.overrides.TorchFunctionMode`` pushed around the call sees every torch function the call
  reaches, whatever object it goes through (``model(x)``, ``model.net(x)``, ``F.linear`` by hand,
  ``torch._C._nn.linear``, ``torch.ops.aten``): the grad mode and inference mode at that moment,
  whether a result got a ``grad_fn`` (a graph was built), and the ``training`` argument of every
  dropout and batch norm (the eval/train flag as it took effect, not as a module says);
* a default ``saved_tensors_hooks`` pair sees every tensor autograd saves for backward, which it
  does only while it builds a graph.  It works at another level than the mode: a graph built
  while the mode was switched off (``torch._C.DisableTorchFunction``, a popped mode stack, a
  skipped hop) is saved with no recorded operation under way, and counted as built out of sight.

Every tensor the call could start from gets *roots*: the parameters of each model (a group per
model), the inputs and targets (a group each); buffers are known but carry no root.  Each result
the mode sees carries the roots of its inputs, so the judge learns which groups a tensor was
computed from (``reach``), and a tensor the mode never saw made (made while it was off, or
before the call) is *foreign*; one made over the memory of a tensor it saw, by a function no mode
sees (``torch.from_numpy``, the ``nn.Parameter`` of a deep copy), is that tensor's alias.
Operations are summed up per *stage*: the first group of the stage list that an operation
touches (for ``head_forward``: the head, else the backbone).  ``scalars`` keeps the one-number
results computed from given groups (``evaluate``: each batch's loss), since a returned float
carries no trace of where it came from.

The recorder is alone on torch's mode stacks during the call (a mode pushed before is taken off
for good), and reads what it needs of a tensor with torch functions off, so no subclass or mode
answers for it.  When the call ends it checks that it is still in place (its mode alone on the
stack, no dispatch mode, torch functions on, its hooks on top and enabled); if not, ``intact`` is
False, and the stacks are put back as they were when the call began.  The judge reads only these
notes and the effects; none of it is an attribute of anything the student was handed.

Not covered: a call that runs the model in another thread (torch's modes and hooks are per
thread) is seen only through what comes back (unseen results), and code that finds this recorder
(it is on torch's stack) and rewrites its state consistently is beyond what a process that runs
student code can stop; rebinding the names below is a change the tamper watch reports.
"""

from __future__ import annotations

import weakref

import torch
from torch.overrides import TorchFunctionMode

# Captured at import, in the server before any student code: rebinding torch.is_grad_enabled does
# not reach them, and rebinding one of them is a change to the grader the tamper watch reports.
_grad_enabled = torch._C.is_grad_enabled
_inference_enabled = torch._C.is_inference_mode_enabled
_stack_length = torch._C._len_torch_function_stack
_stack_at = torch._C._get_function_stack_at
_push_mode = torch._C._push_on_torch_function_stack
_pop_mode = torch._C._pop_torch_function_stack
_function_state = torch._C._get_torch_function_state
_set_function_state = torch._C._set_torch_function_state
_ENABLED = torch._C._TorchFunctionState.ENABLED
_dispatch_length = torch._C._len_torch_dispatch_stack
_pop_dispatch_mode = torch._C._pop_torch_dispatch_stack
_push_hooks = torch._C._autograd._push_saved_tensors_default_hooks
_pop_hooks = torch._C._autograd._pop_saved_tensors_default_hooks
_top_hooks = torch._C._autograd._top_saved_tensors_default_hooks
_hooks_enabled = torch._C._autograd._saved_tensors_hooks_is_enabled
_grad_fn = torch._C.TensorBase.grad_fn.__get__
_torch_functions_off = torch._C.DisableTorchFunction
_Tensor = torch.Tensor

FOREIGN = 1 << 62  # the root of every tensor made out of the recorder's sight
# Where each dropout's and batch norm's training flag sits among its positional arguments, in
# torch.nn.functional and in torch itself (``torch.dropout(input, p, train)``).
TRAINING_AT = {
    "dropout": 2, "dropout_": 2, "alpha_dropout": 2, "alpha_dropout_": 2, "feature_alpha_dropout": 2,
    "feature_alpha_dropout_": 2, "feature_dropout": 2, "feature_dropout_": 2, "dropout1d": 2,
    "dropout2d": 2, "dropout3d": 2, "batch_norm": 5,
}  # fmt: skip
# Losses whose first argument is the prediction and second the target.
LOSSES = frozenset(
    {"cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
     "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss", "gaussian_nll_loss"}
)  # fmt: skip
# Operations that never build a graph whatever the grad mode (reading a property, detaching):
# running them with tracking on is not running the model with tracking on.
NOT_COMPUTE = frozenset({"__get__", "__set__", "__delete__", "detach", "detach_", "requires_grad_"})
MAX_LOSS_CALLS = 100
MAX_SCALARS = 20  # one-number results kept per name of ``scalars``
MAX_KNOWN = 100_000  # tensors followed per call; past it, new results are not followed (they read as foreign)


def _storage_of(tensor):
    """The tensor's memory, read in C with torch functions off (no subclass or mode answers for
    it); None for a tensor without one."""
    try:
        with _torch_functions_off():
            return torch._C.TensorBase.untyped_storage(tensor)
    except (RuntimeError, TypeError, NotImplementedError):
        return None


def _is_number(tensor) -> bool:
    with _torch_functions_off():
        return tensor.numel() == 1 and tensor.is_floating_point()


def _number(tensor) -> float:
    with _torch_functions_off():
        return float(torch._C.TensorBase.item(tensor))


def _tensors(value) -> list:
    """The tensors in an argument or a result: itself, or the items of a list, tuple or dict."""
    if isinstance(value, _Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, _Tensor)]
    if isinstance(value, dict):
        return [v for v in value.values() if isinstance(v, _Tensor)]
    return []


class _Stage:
    """What the operations of one stage did, summed up: how many ran; ``grad``: one that takes a
    parameter of the stage (a layer) ran with tracking on; ``graph``: a result got a ``grad_fn``;
    ``inference``: one computed in inference mode; ``training``: a dropout or batch norm ran with
    its training flag on."""

    __slots__ = ("ops", "grad", "graph", "inference", "training")

    def __init__(self) -> None:
        self.ops, self.grad, self.graph, self.inference, self.training = 0, False, False, False, False

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__}


class _Mode(TorchFunctionMode):
    """The mode on torch's stack: hands every call to its recorder, which it alone references."""

    def __init__(self, recorder: CallRecorder) -> None:
        super().__init__()
        self._recorder = recorder

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return self._recorder._run(func, args, kwargs or {})


class CallRecorder:
    """Records one call of a student's function: ``with CallRecorder(...) as recorder: fn(...)``.

    ``groups``: name -> the tensors of that group (each gets a root of its own); ``known``: other
    tensors the call may start from (buffers), which carry no root; ``stages``: the groups whose
    operations are summed up, the first one an operation touches taking it; ``evidence``:
    name -> groups, true once one result was computed from every root of those groups (a forward
    from the model and its input); ``scalars``: name -> groups, the values of the one-number
    results computed from every root of those groups (a batch's loss, from the model, its input
    and its target), so that the judge can see the right numbers computed where the recorder saw;
    ``targets``: groups that are loss targets (a loss called with one of them first is noted as
    swapped)."""

    def __init__(self, groups: dict[str, list], known=(), stages=(), evidence=None, scalars=None, targets=()) -> None:
        self._known: dict[int, tuple] = {}  # id -> (weak reference, roots)
        self._storages: dict[int, tuple] = {}  # memory address -> (storage, roots of what lives there)
        self._bits: dict[str, int] = {}
        bit = 0
        for name, tensors in groups.items():
            mask = 0
            for tensor in tensors:
                self._remember(tensor, 1 << bit)
                mask |= 1 << bit
                bit += 1
            self._bits[name] = mask
        for tensor in known:
            self._remember(tensor, 0)
        self._stages = [(name, self._bits[name], _Stage()) for name in stages]
        # The stages' own tensors (the models' parameters, alive as long as the scenario): an
        # operation that takes one of them is a layer running.
        self._layer_inputs = {id(t) for name in stages for t in groups[name]}
        self._evidence = {name: (self._need(names), False) for name, names in (evidence or {}).items()}
        self._scalars = {name: (self._need(names), []) for name, names in (scalars or {}).items()}
        self._targets = self._need(targets)
        self.loss_calls: list[bool] = []
        self.foreign = 0  # operations that consumed a foreign tensor
        self.hidden_graph = 0  # tensors saved for backward while no recorded operation was running
        self.intact = True
        self._inside = 0  # recorded operations under way (one calls the next through a subclass)
        self._saved = 0
        self._mode = _Mode(self)

    def _need(self, names) -> int:
        mask = 0
        for name in names:
            mask |= self._bits[name]
        return mask

    # -- following tensors ------------------------------------------------------------------

    def _remember(self, tensor, mask: int) -> None:
        key = id(tensor)
        entry = self._known.get(key)
        if entry is not None and entry[0]() is tensor:
            mask |= entry[1]  # an in-place operation: the tensor keeps what it came from
        elif len(self._known) >= MAX_KNOWN:
            return
        self._known[key] = (weakref.ref(tensor), mask)
        storage = _storage_of(tensor)
        if storage is not None and storage.data_ptr():
            # Kept alive, so that its memory cannot go to a tensor made out of sight meanwhile.
            held = self._storages.get(storage.data_ptr())
            self._storages[storage.data_ptr()] = (storage, mask | (held[1] if held else 0))

    def _seen(self, tensor) -> int | None:
        """What ``tensor`` was computed from, or None if the recorder never saw it made.  A tensor
        made by a function no mode sees (``torch.from_numpy``, ``Tensor._make_subclass`` behind
        ``nn.Parameter``) over the memory of one it saw is that one's alias."""
        entry = self._known.get(id(tensor))
        if entry is not None and entry[0]() is tensor:
            return entry[1]
        storage = _storage_of(tensor)
        held = self._storages.get(storage.data_ptr()) if storage is not None and storage.data_ptr() else None
        if held is None:
            return None
        self._remember(tensor, held[1])
        return held[1]

    def _mask(self, tensor) -> int:
        mask = self._seen(tensor)
        return FOREIGN if mask is None else mask

    # -- the mode and the hooks ----------------------------------------------------------------

    def _run(self, func, args, kwargs):
        inputs = [t for value in (*args, *kwargs.values()) for t in _tensors(value)]
        mask = 0
        for tensor in inputs:
            mask |= self._mask(tensor)
        name = getattr(func, "__name__", "")
        if mask & FOREIGN:
            self.foreign += 1
        if name in LOSSES and mask & self._targets:
            self._note_loss(inputs)
        grad, inference = _grad_enabled(), _inference_enabled()
        saved = self._saved
        self._inside += 1
        try:
            result = func(*args, **kwargs)
        finally:
            self._inside -= 1
        outputs = _tensors(result)
        # Read in C with torch functions off: no subclass's property or mode answers for the result.
        with _torch_functions_off():
            graph = any(_grad_fn(out) is not None for out in outputs)
        # A layer ran with tracking on (a graph is built unless its parameters were frozen).
        tracked = grad and not inference and any(id(t) in self._layer_inputs for t in inputs)
        if self._saved > saved and not graph:
            # Autograd saved tensors inside this operation, yet its result has no graph: a graph
            # was built by code this operation ran out of the mode's sight (a subclass's handler).
            self.hidden_graph += self._saved - saved
        for out in outputs:
            self._remember(out, mask)
        self._note_stage(name, mask, tracked, inference, graph, bool(outputs), args, kwargs)
        if not mask & FOREIGN:
            for label, (need, seen) in self._evidence.items():
                if not seen and mask & need == need:
                    self._evidence[label] = (need, True)
            for need, values in self._scalars.values():
                if mask & need == need and len(values) < MAX_SCALARS:
                    values += [_number(out) for out in outputs if _is_number(out)]
        return result

    def _note_stage(self, name, mask, tracked, inference, graph, computes, args, kwargs) -> None:
        stage = next((stage for _, bits, stage in self._stages if mask & bits), None)
        if stage is None:
            return
        stage.ops += 1
        stage.graph = stage.graph or graph
        if computes and name not in NOT_COMPUTE:
            stage.grad = stage.grad or tracked
            stage.inference = stage.inference or inference
        if name in TRAINING_AT:
            at = TRAINING_AT[name]
            flag = kwargs.get("training", kwargs.get("train", args[at] if len(args) > at else True))
            stage.training = stage.training or bool(flag)

    def _note_loss(self, inputs) -> None:
        if len(self.loss_calls) < MAX_LOSS_CALLS and inputs:
            first = self._mask(inputs[0])
            self.loss_calls.append(bool(first) and not first & ~self._targets)

    def _pack(self, tensor):
        self._saved += 1
        if not self._inside:
            self.hidden_graph += 1
        return tensor

    @staticmethod
    def _unpack(tensor):
        return tensor

    def __enter__(self) -> CallRecorder:
        # Alone on both mode stacks, torch functions on: a mode pushed before the call (by the
        # student's file as it loaded) would otherwise run inside every recorded operation, and
        # after the call inside the job's own reading of the results.  Taken off for good.
        while _stack_length():
            _pop_mode()
        while _dispatch_length():
            _pop_dispatch_mode(None)
        _set_function_state(_ENABLED)
        self._hooks_before = _top_hooks(False)
        _push_hooks(self._pack, self._unpack)
        self._hooks = _top_hooks(False)
        _push_mode(self._mode)
        return self

    def __exit__(self, *exc) -> None:
        on_top = _stack_length() == 1 and _stack_at(0) is self._mode and not _dispatch_length()
        hooks = _top_hooks(False)
        hooks_on_top = hooks is not None and all(a is b for a, b in zip(hooks, self._hooks))
        self.intact = on_top and hooks_on_top and _function_state() == _ENABLED and _hooks_enabled()
        # Put the stacks back as they were when the call began, whatever it left on them.
        _set_function_state(_ENABLED)
        while _stack_length():
            _pop_mode()
        while _dispatch_length():
            _pop_dispatch_mode(None)
        for _ in range(100):
            top = _top_hooks(False)
            if top is None or (self._hooks_before is not None and all(a is b for a, b in zip(top, self._hooks_before))):
                break
            _pop_hooks()
            if all(a is b for a, b in zip(top, self._hooks)):
                break
        if not _hooks_enabled():
            torch._C._autograd._saved_tensors_hooks_enable()

    # -- the notes ---------------------------------------------------------------------------

    def reach(self, tensor) -> list[str]:
        """The groups every root of which went into ``tensor``."""
        mask = self._mask(tensor)
        return [name for name, bits in self._bits.items() if bits and mask & bits == bits]

    def describe(self, value) -> dict | None:
        """Where a returned tensor came from: seen made by the call, from which groups, whether a
        foreign tensor went into it.  None for anything but a tensor."""
        if not isinstance(value, _Tensor):
            return None
        mask = self._seen(value)
        if mask is None:
            return {"seen": False, "reach": [], "foreign": True}
        return {"seen": True, "reach": self.reach(value), "foreign": bool(mask & FOREIGN)}

    def notes(self) -> dict:
        """The record's ``trace``: plain data, bounded."""
        return {
            "intact": self.intact,
            "hidden_graph": self.hidden_graph,
            "foreign": self.foreign,
            "stages": {name: stage.as_dict() for name, _, stage in self._stages},
            "evidence": {name: seen for name, (_, seen) in self._evidence.items()},
            "scalars": {name: values[:MAX_SCALARS] for name, (_, values) in self._scalars.items()},
        }
