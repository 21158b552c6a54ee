"""Helpers shared by the lesson 2 exercises (``derivative``, ``finite_difference_grad``,
``input_gradient``): the instrumented functions handed to the student and small record helpers.

Everything here runs on both sides: in the job (to build the objects and record what the student
did) and in the judge (to rebuild them and compute references, ``autograder.judge._lesson2``)."""

from __future__ import annotations

import torch

from . import type_name

#: Scalar functions of a scalar tensor for ``derivative`` (name -> function of a tensor).
SCALAR_FUNCTIONS = {
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
}

#: Scalar-valued functions of a tensor of any shape for ``finite_difference_grad``.
FIELD_FUNCTIONS = {
    # Central difference of t**3 is 3 t**2 + eps**2: the result depends on eps.
    "cubic_sum": lambda t: (t**3).sum() - 2 * t.sum(),
    "sin_coupled": lambda t: (torch.sin(t) * t).sum() + 0.5 * t.sum() ** 2,
    "logsumexp": lambda t: torch.logsumexp(1.5 * t.reshape(-1), 0) + (t**3).mean(),
}


def describe_arg(arg) -> dict:
    """What a function handed to the student saw as its argument, as plain data."""
    if not isinstance(arg, torch.Tensor):
        try:
            value = float(arg)
        except (TypeError, ValueError):
            value = None
        return {"tensor": False, "requires_grad": False, "dtype": type_name(arg), "value": value, "shape": None}
    return {
        "tensor": True,
        "requires_grad": bool(arg.requires_grad),
        "dtype": str(arg.dtype).replace("torch.", ""),
        "value": arg.detach().double().clone(),
        "shape": list(arg.shape),
    }


class RecordedFunction:
    """Wraps a function of a tensor: records every call, then computes the real function.

    A plain float argument is turned into a float64 tensor first, so that code that calls the
    function with numbers still runs to the end and can be diagnosed by what it did."""

    def __init__(self, function, name: str) -> None:
        self.function = function
        self.calls: list[dict] = []
        self.arguments: list = []
        self.__name__ = name

    def __call__(self, t):
        self.calls.append(describe_arg(t))
        self.arguments.append(t)
        if not isinstance(t, torch.Tensor):
            t = torch.as_tensor(t, dtype=torch.float64)
        return self.function(t)


def returned(value) -> dict:
    """A student's return value as plain data: its type and, when possible, its numbers."""
    out = {"type": type_name(value), "is_tensor": isinstance(value, torch.Tensor), "tensor": None, "number": None}
    if isinstance(value, torch.Tensor):
        out["tensor"] = value.detach().clone()
        out["requires_grad"] = bool(value.requires_grad)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out["number"] = float(value)
    return out
