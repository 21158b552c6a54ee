"""Recording what really happens during a student's training step.

Attached through PyTorch's own extension points, so nothing in torch is replaced:

* ``Optimizer.register_step_pre_hook``: the parameters when ``step()`` starts, and the gradient
  every parameter holds at the moment the update reads it.  With ``optimizer.step(closure)``
  (torch.optim's documented form, LBFGS's only one) the optimizer runs the closure first, so the
  hook hands the optimizer a wrapped closure and reads the gradients when the closure returns;
* ``Tensor.register_post_accumulate_grad_hook``: every time backward adds into a parameter's
  ``.grad`` (proof that backward ran), with the gradient as backward left it and its version
  counter, so that a change made between ``backward()`` and ``step()`` (clipping) is seen even
  when it leaves the values as they were (a clip under its threshold still writes in place);
* ``Module.register_forward_pre_hook`` on the model: the parameters in place when each batch
  goes forward, so the judge can recompute that batch's gradient at exactly those values;
* ``Module.register_forward_pre_hook`` on the loss: whether it was called as
  ``loss_fn(target, prediction)`` (arguments swapped).

The record holds only tensors, numbers, strings and lists, so it can be saved with
``torch.save`` and loaded by the judge with ``weights_only=True``.
"""

from __future__ import annotations

import torch

from .amp import LISTENERS, Twin, watch_scalers


def snapshot(params) -> list[torch.Tensor]:
    return [p.detach().clone() for p in params]


def grads(params) -> list[torch.Tensor | None]:
    return [None if p.grad is None else p.grad.detach().clone() for p in params]


def _identity(grad: torch.Tensor | None) -> tuple[int, int] | None:
    """Which tensor ``.grad`` is, and how often it was written in place since it was made."""
    return None if grad is None else (grad.data_ptr(), grad._version)


watch_scalers()  # before any snapshot of torch is taken: the wrappers are the grader's, not the student's


class TrainingRecorder:
    """Hooks on one run's model and optimizer that write down what the training code really did:
    the gradient each ``step()`` read, what ``backward()`` left, every forward and loss call."""

    def __init__(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer, batches, loss_fn=None) -> None:
        self.params = list(model.parameters())
        self.batches = batches
        self.call = -1
        self.steps: list[dict] = []
        self.forwards: list[dict] = []
        self.loss_calls: list[dict] = []
        self.accumulations = 0
        # Per parameter: the gradient as the latest backward left it, and that tensor's identity.
        self._after_backward: list[torch.Tensor | None] = [None] * len(self.params)
        self._written: list[tuple[int, int] | None] = [None] * len(self.params)
        self._index = {id(p): i for i, p in enumerate(self.params)}
        self._handles = [
            optimizer.register_step_pre_hook(self._on_step),
            model.register_forward_pre_hook(self._on_forward),
            optimizer.register_step_post_hook(self._after_step),
        ]
        self._handles += [p.register_post_accumulate_grad_hook(self._on_accumulate) for p in self.params]
        # Mixed precision: the loss scale of the backward under way, and each parameter's twin.
        self.scale, self.scales = 1.0, []
        self._twins = [Twin() for _ in self.params]
        self._handles += [p.register_hook(self._before_accumulate(i)) for i, p in enumerate(self.params)]
        LISTENERS.append(self)
        if isinstance(loss_fn, torch.nn.Module):
            self._handles.append(loss_fn.register_forward_pre_hook(self._on_loss))
        self._optimizer = optimizer
        self._model = model

    # -- optimizer.step() -----------------------------------------------------------------

    def _on_step(self, optimizer, args, kwargs):
        step = {"call": self.call, "params": snapshot(self.params), "closure": False}
        step["params_after"] = step["params"]  # until the step finishes
        self.steps.append(step)
        closure = args[1] if len(args) > 1 else kwargs.get("closure")
        if closure is None:
            self._read_grads(step)
            return None

        def closure_then_read():
            loss = closure()
            self._read_grads(step)  # what the optimizer is about to use
            return loss

        step["closure"] = True
        self._read_grads(step)  # replaced when the closure returns
        if len(args) > 1:
            return (args[0], closure_then_read, *args[2:]), kwargs
        return args, {**kwargs, "closure": closure_then_read}

    def _read_grads(self, step: dict) -> None:
        if self.scales:  # a GradScaler is in use: what the float32 twin of this loop would hold
            seen = [twin.seen(p.grad) for twin, p in zip(self._twins, self.params)]
            step["grads"] = [grad for grad, _ in seen]
            step["backward_grads"] = [
                None if t.after_backward is None else t.after_backward.clone() for t in self._twins
            ]
            step["rewritten"] = [written for _, written in seen]
            return
        step["grads"] = grads(self.params)
        step["backward_grads"] = [None if g is None else g.clone() for g in self._after_backward]
        # Written in place, or replaced, since backward left it: clipping, rescaling, clearing.
        step["rewritten"] = [
            p.grad is not None and written is not None and _identity(p.grad) != written
            for p, written in zip(self.params, self._written)
        ]

    def _after_step(self, optimizer, args, kwargs):
        if self.steps:
            self.steps[-1]["params_after"] = snapshot(self.params)

    # -- backward, forward, loss ----------------------------------------------------------

    def _on_accumulate(self, param):
        self.accumulations += 1
        i = self._index.get(id(param))
        if i is not None and param.grad is not None:
            self._after_backward[i] = param.grad.detach().clone()
            self._written[i] = _identity(param.grad)
            self._twins[i].after_accumulate(param.grad, self.scale)

    def _before_accumulate(self, i: int):
        def hook(incoming):
            self._twins[i].before_accumulate(self.params[i].grad, incoming, self.scale)
            return None  # the gradient goes on unchanged

        return hook

    def on_scale(self, factor: float) -> None:
        self.scale = factor
        self.scales.append(factor)

    def on_unscale(self, optimizer, before: bool = False) -> None:
        if optimizer is not self._optimizer:
            return
        for twin, p in zip(self._twins, self.params):
            twin.before_unscale(p.grad) if before else twin.unscaled(p.grad)

    def _on_forward(self, module, args):
        x = args[0] if args else None
        self.forwards.append({"call": self.call, "batch": self._batch_index(x), "params": snapshot(self.params)})

    def _on_loss(self, module, args):
        if len(args) >= 2:
            first, second = args[0], args[1]
            swapped = self._is_target(first) and not self._is_target(second)
            self.loss_calls.append({"call": self.call, "swapped": swapped})

    def _is_target(self, value) -> bool:
        if not isinstance(value, torch.Tensor):
            return False
        for _, by in self.batches:
            if value is by or (value.shape == by.shape and value.dtype == by.dtype and torch.equal(value.detach(), by)):
                return True
        return False

    def _batch_index(self, x) -> int:
        if not isinstance(x, torch.Tensor):
            return -1
        for i, (bx, _) in enumerate(self.batches):
            if x is bx:
                return i
        for i, (bx, _) in enumerate(self.batches):
            if x.shape == bx.shape and torch.equal(x.detach(), bx):
                return i
        return -1

    def hooks_intact(self) -> bool:
        """False when student code removed the grader's hooks from the optimizer or model."""
        step_hooks = getattr(self._optimizer, "_optimizer_step_pre_hooks", {})
        forward_hooks = getattr(self._model, "_forward_pre_hooks", {})
        return (
            self._handles[0].id in step_hooks
            and self._handles[1].id in forward_hooks
            and self._handles[2].id in getattr(self._optimizer, "_optimizer_step_post_hooks", {})
            and "step" not in vars(self._optimizer)
            and "zero_grad" not in vars(self._optimizer)
        )

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        if self in LISTENERS:
            LISTENERS.remove(self)
