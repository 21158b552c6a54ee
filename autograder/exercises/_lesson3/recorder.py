"""Recording what really happens during a student's training step.

Attached through PyTorch's own extension points, so nothing in torch is replaced:

* ``Optimizer.register_step_pre_hook``: the gradient every parameter holds at the moment
  ``step()`` runs (that is what the update uses);
* ``Tensor.register_post_accumulate_grad_hook``: every time backward adds into a parameter's
  ``.grad`` (proof that backward ran);
* ``Module.register_forward_pre_hook``: the parameters in place when each batch goes forward,
  so the judge can recompute that batch's gradient at exactly those values.

The record holds only tensors, numbers, strings and lists, so it can be saved with
``torch.save`` and loaded by the judge with ``weights_only=True``.
"""

from __future__ import annotations

import torch


def snapshot(params) -> list[torch.Tensor]:
    return [p.detach().clone() for p in params]


def grads(params) -> list[torch.Tensor | None]:
    return [None if p.grad is None else p.grad.detach().clone() for p in params]


class Recorder:
    def __init__(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer, batches) -> None:
        self.params = list(model.parameters())
        self.batches = batches
        self.call = -1
        self.steps: list[dict] = []
        self.forwards: list[dict] = []
        self.accumulations = 0
        self._handles = [
            optimizer.register_step_pre_hook(self._on_step),
            model.register_forward_pre_hook(self._on_forward),
            optimizer.register_step_post_hook(self._after_step),
        ]
        self._handles += [p.register_post_accumulate_grad_hook(self._on_accumulate) for p in self.params]
        self._optimizer = optimizer
        self._model = model

    def _on_step(self, optimizer, args, kwargs):
        self.steps.append({"call": self.call, "grads": grads(self.params), "params": snapshot(self.params)})
        self.steps[-1]["params_after"] = self.steps[-1]["params"]  # until the step finishes

    def _after_step(self, optimizer, args, kwargs):
        if self.steps:
            self.steps[-1]["params_after"] = snapshot(self.params)

    def _on_forward(self, module, args):
        x = args[0] if args else None
        self.forwards.append({"call": self.call, "batch": self._batch_index(x), "params": snapshot(self.params)})

    def _on_accumulate(self, param):
        self.accumulations += 1

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
