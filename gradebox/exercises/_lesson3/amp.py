"""Mixed precision, seen from the recorder: what a float32 twin of a GradScaler loop would hold in .grad.

``torch.amp.GradScaler`` multiplies the loss by a power of two before ``backward()`` (so ``.grad``
holds S times the gradient) and divides the gradients back in place (``unscale_``, also done by
``scaler.step``) before the optimizer reads them.  What the student's loop does with ``.grad`` in
between (clearing or not, clipping, accumulating) is what the exercise is about, but the scale hides
it: a stale gradient left in ``.grad`` before a scaled backward reaches ``step()`` divided by S, far
below any tolerance.  So while a scaler is in use the recorder keeps, per parameter, the *twin*: the
``.grad`` the same loop would hold with the scaler removed.

* a backward adds ``incoming / S`` to the twin (S the scale of the loss that backward started from);
* the scaler's own ``unscale_`` changes the student's ``.grad`` and not the twin;
* clearing (``None``, zeros) clears the twin; any other write by the student is carried over to the
  twin in proportion (a clip of the scaled or of the unscaled gradient scales the twin alike).

``watch_scalers`` wraps ``GradScaler.scale`` and ``GradScaler.unscale_`` once, so that the recorder
hears of both; it runs where the grader imports the recorder, before any tamper snapshot is taken.
"""

from __future__ import annotations

import functools

import torch

LISTENERS: list = []  # the recorders of the runs under way (one at a time in a job)


def watch_scalers() -> None:
    """Tell the active recorders about every GradScaler's scale and unscale_ (idempotent)."""
    try:
        from torch.amp.grad_scaler import GradScaler
    except ImportError:  # a torch without torch.amp: nothing to watch
        return
    if getattr(GradScaler.scale, "_autograder_watch", False):
        return
    original_scale, original_unscale = GradScaler.scale, GradScaler.unscale_

    @functools.wraps(original_scale)
    def scale(self, outputs):
        result = original_scale(self, outputs)
        if LISTENERS and self.is_enabled() and getattr(self, "_scale", None) is not None:
            factor = float(self._scale)
            for listener in LISTENERS:
                listener.on_scale(factor)
        return result

    @functools.wraps(original_unscale)
    def unscale_(self, optimizer):
        for listener in LISTENERS:
            listener.on_unscale(optimizer, before=True)
        result = original_unscale(self, optimizer)
        for listener in LISTENERS:
            listener.on_unscale(optimizer)
        return result

    scale._autograder_watch = unscale_._autograder_watch = True
    GradScaler.scale, GradScaler.unscale_ = scale, unscale_


def identity(grad: torch.Tensor | None) -> tuple[int, int] | None:
    """Which tensor ``.grad`` is, and how often it was written in place since it was made."""
    return None if grad is None else (grad.data_ptr(), grad._version)


class Twin:
    """The float32 twin of one parameter's ``.grad`` (see the module's docstring)."""

    def __init__(self) -> None:
        self.value: torch.Tensor | None = None  # the twin's .grad
        self.known: tuple[int, int] | None = None  # the student's .grad when last accounted for
        self.known_value: torch.Tensor | None = None
        self.scaled = False  # does the student's .grad still hold scaled gradients?
        self.written = False  # did the student write .grad since the last backward (not the scaler)?
        self.after_backward: torch.Tensor | None = None

    def _account(self, grad: torch.Tensor | None, scaled: bool) -> None:
        self.known, self.scaled = identity(grad), scaled
        self.known_value = None if grad is None else grad.detach().clone()

    def before_accumulate(self, current: torch.Tensor | None, incoming: torch.Tensor, scale: float) -> None:
        if current is None:
            self.value = None
        elif identity(current) != self.known:  # the student wrote .grad since we last looked
            self.value = self._carried(current)
        self.value = (0 if self.value is None else self.value) + incoming.detach() / scale

    def after_accumulate(self, current: torch.Tensor, scale: float) -> None:
        self._account(current, scaled=scale != 1.0)
        self.written = False
        self.after_backward = None if self.value is None else self.value.clone()

    def before_unscale(self, current: torch.Tensor | None) -> None:
        """What the student wrote since backward (a clip of the scaled gradients) reaches the twin now,
        before the scaler's own write hides it."""
        if current is not None and identity(current) != self.known:
            self.value = self._carried(current)
            self._account(current, scaled=self.scaled)
            self.written = True

    def unscaled(self, current: torch.Tensor | None) -> None:
        """The scaler divided the student's .grad: the twin does not change.  (Its kernel writes in
        place without counting a version, so the identity alone would not show it.)"""
        if current is not None:
            self._account(current, scaled=False)

    def _carried(self, current: torch.Tensor) -> torch.Tensor | None:
        """The twin after the student's own write made ``.grad`` ``current``: cleared when it is all
        zeros; otherwise the twin scaled as the write scaled each entry."""
        if not bool(current.any()):
            return None
        before = self.known_value
        if before is None or self.value is None or before.shape != current.shape:
            return current.detach().clone()
        ratio = torch.where(before != 0, current / torch.where(before != 0, before, torch.ones_like(before)), 1.0)
        return self.value * ratio

    def seen(self, current: torch.Tensor | None) -> tuple[torch.Tensor | None, bool]:
        """What a step of the twin would read now, and whether the student wrote .grad since backward
        (other than the scaler's unscale)."""
        if current is None:
            return None, self.known is not None
        if identity(current) == self.known:
            if self.scaled:  # the step reads scaled gradients: what it reads is what counts
                return current.detach().clone(), self.written
            return None if self.value is None else self.value.clone(), self.written
        return self._carried(current), True
