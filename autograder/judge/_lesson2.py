"""What the lesson 2 judges share: comparing tensors, never calling inf or NaN close; the shape of
the recorder's notes (``exercises._lesson2.AutogradRecorder``) and what they prove.

The notes come from the process that ran the student's code, so they are read as evidence a pass
needs, never as a pass: a returned number earns a point only when it is the right number (the
judge's own reference) AND the notes show where it came from (``made_by_autograd``).  Notes that
contradict themselves, or a recorder that was not in place when the call ended, are ``tampered``.
"""

from __future__ import annotations

import torch

from gradebox.exercises._lesson2 import MAX_EVALUATIONS, MAX_GRADIENT_NUMEL, MAX_GRADIENTS, MAX_VALUE_NUMEL

from ..i18n import _
from ..verdict import Verdict
from .validate import Fields, Flag, ListOf, Number, OneOf, Optional, Tensor, Text


def same(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> bool:
    """Same shape and close values (compared in float64); false on inf or NaN on either side."""
    if tuple(a.shape) != tuple(b.shape) or not (bool(torch.isfinite(a).all()) and bool(torch.isfinite(b).all())):
        return False
    return bool(torch.allclose(a.double(), b.double(), rtol=rtol, atol=atol))


def returned_spec(max_numel: int = 1_000_000) -> Fields:
    """What ``exercises._lesson2.returned`` writes: a value's type, and its tensor or its number."""
    return Fields(
        {
            "type": Text(100),
            "is_tensor": Flag(),
            "tensor": Optional(Tensor(dtypes=None, finite=False, max_numel=max_numel)),
            "number": Optional(Number(finite=False)),
            "requires_grad": Flag(),
        },
        optional=frozenset({"requires_grad"}),
    )


def argument_spec(graph: bool = False) -> Fields:
    """What ``exercises._lesson2.describe_arg`` writes about one call of an instrumented function
    (``graph``: and the recorder's note of whether its result is part of a graph)."""
    fields = {
        "tensor": Flag(),
        "requires_grad": Flag(),
        "dtype": Text(100),
        "value": Optional(OneOf((Number(finite=False), Tensor(dtypes=None, finite=False, max_numel=MAX_VALUE_NUMEL)))),
        "shape": Optional(ListOf(Number(integer=True), max_length=8)),
    }
    if graph:
        fields["graph"] = Flag()
    return Fields(fields)


def recorder_spec() -> Fields:
    """What ``AutogradRecorder.notes`` writes: bounded lists, counters, float64 gradients."""
    return Fields(
        {
            "intact": Flag(),
            "evaluations": ListOf(argument_spec(graph=True), max_length=MAX_EVALUATIONS),
            "n_evaluations": Number(integer=True),
            "backward_calls": Number(integer=True),
            "grad_calls": Number(integer=True),
            "graph_built": Flag(),
            "gradients": ListOf(
                Tensor(dtypes=("float64",), finite=False, max_numel=MAX_GRADIENT_NUMEL), max_length=MAX_GRADIENTS
            ),
            "n_gradients": Number(integer=True),
        }
    )


def contradiction(notes: dict) -> str | None:
    """Why the recorder's notes cannot come from an honest run (None when they can), a phrase in
    today's language: the recorder was not in place when the call ended, or its notes disagree."""
    if not notes["intact"]:
        return _("the grader's recorder was no longer in place when your function returned")
    counts = (notes["n_evaluations"], notes["backward_calls"], notes["grad_calls"], notes["n_gradients"])
    if any(n < 0 for n in counts):
        return _("the recorder's counters are negative")
    if len(notes["evaluations"]) > notes["n_evaluations"] or len(notes["evaluations"]) < min(
        notes["n_evaluations"], MAX_EVALUATIONS
    ):
        return _("the recorder's list of calls of f does not match its count")
    if len(notes["gradients"]) > notes["n_gradients"]:
        return _("the recorder holds more gradients than it counted")
    if notes["n_gradients"] and not (notes["backward_calls"] or notes["grad_calls"]):
        return _("the recorder holds gradients, but no backward() or autograd.grad produced them")
    if any(e["graph"] for e in notes["evaluations"]) and not notes["graph_built"]:
        return _("a call of f built a graph the recorder says was never built")
    return None


def tampered(exercise: str, why: str) -> Verdict:
    return Verdict(
        exercise,
        "tampered",
        _(
            "The grader could not trust the record of your call: {why}. Solve the exercise without touching "
            "torch's function modes (torch.overrides) or the grader's recorder."
        ).format(why=why),
    )


def used_autograd(notes: dict) -> bool:
    """Did the call use autograd: a call of f on a tensor that requires grad, a graph built, a
    backward() or an autograd.grad, as the recorder saw them."""
    return bool(
        notes["graph_built"]
        or notes["backward_calls"]
        or notes["grad_calls"]
        or any(e["requires_grad"] or e["graph"] for e in notes["evaluations"])
    )


def made_by_autograd(value: torch.Tensor, notes: dict) -> bool:
    """Is every number of ``value`` one that a ``backward()`` or ``autograd.grad`` the recorder
    watched produced (exactly: a copy, a reshape, ``.item()`` or a stack of per-example gradients
    keeps autograd's numbers; a finite difference or a hand-made formula does not)?"""
    grads = [g.reshape(-1) for g in notes["gradients"] if g.numel()]
    if not grads or not value.numel():
        return False
    seen = torch.cat(grads)
    return bool(torch.isin(value.detach().double().reshape(-1), seen).all())
