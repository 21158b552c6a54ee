"""finite_difference_grad(f, x, eps=1e-4) -> Tensor: the central-difference gradient of the
scalar-valued f at x (any shape), without autograd, same shape and dtype as x, x left unchanged."""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch

from gradebox.exercises._lesson2 import FIELD_FUNCTIONS, recorded_call, returned
from gradebox.i18n import pgettext

NAME = "finite_difference_grad"
DEFAULT_EPS = 1e-4


@dataclass(frozen=True)
class Field:
    """One call: ``finite_difference_grad(FIELD_FUNCTIONS[function], x[, eps])``; ``x`` is drawn
    from ``seed`` with ``shape`` and ``dtype``; ``eps=None`` means the default is not passed."""

    function: str
    shape: tuple
    dtype: str
    eps: float | None
    seed: int

    @property
    def name(self) -> str:
        """In words for the student: the function, x and eps of this call."""
        fields = {"f": FIELD_TEXT[self.function], "shape": tuple(self.shape), "dtype": self.dtype}
        if self.eps is not None:
            fields["eps"] = f"{self.eps:g}"
        # One whole phrase per case: a 0-d x or a shaped one, eps given or left at its default.
        if not self.shape and self.eps is None:
            text = pgettext("scenario", "{f}, a 0-d x ({dtype}), eps left at its default")
        elif not self.shape:
            text = pgettext("scenario", "{f}, a 0-d x ({dtype}), eps={eps}")
        elif self.eps is None:
            text = pgettext("scenario", "{f}, x of shape {shape} ({dtype}), eps left at its default")
        else:
            text = pgettext("scenario", "{f}, x of shape {shape} ({dtype}), eps={eps}")
        return text.format(**fields)


FIELD_TEXT = {
    "cubic_sum": "f(x) = sum(x³ - 2x)",
    "sin_coupled": "f(x) = sum(x·sin x) + 0.5·(sum x)²",
    "logsumexp": "f(x) = logsumexp(1.5x) + mean(x³)",
}


def suite(start: str = "all", seed: int = 0) -> list[Field]:
    """A 0-d, a vector, a matrix and a 3-d tensor, float64 (tight comparisons) and one float32;
    a large eps on a cubic, where the central difference visibly depends on eps."""
    rng = random.Random(2000 + seed)
    n = rng.randint(3, 6)
    return [
        Field("cubic_sum", (), "float64", None, 10 * seed + 1),
        Field("sin_coupled", (n,), "float64", 1e-3, 10 * seed + 2),
        Field("logsumexp", (2, rng.randint(2, 4)), "float64", None, 10 * seed + 3),
        Field("cubic_sum", (rng.randint(2, 3), 2), "float64", 0.5, 10 * seed + 4),
        Field("sin_coupled", (2, 2, 2), "float32", 0.05, 10 * seed + 5),
    ]


def make_x(scenario: Field) -> torch.Tensor:
    gen = torch.Generator().manual_seed(scenario.seed)
    x = torch.randn(scenario.shape, generator=gen, dtype=torch.float64)
    x = x + 0.4 * x.sign()  # keep entries away from 0, where the cubic's curvature vanishes
    return x.to(getattr(torch, scenario.dtype))


def run(fn, scenario: Field) -> dict:
    """Call ``fn`` on the scenario's function and x, with the recorder watching: what it returned,
    x as it was left (the judge compares it bit for bit with x as the seed makes it), and whether
    autograd touched x or anything the call made (the recorder's notes)."""
    f = FIELD_FUNCTIONS[scenario.function]
    x = make_x(scenario)
    before = x.clone()
    args = (f, x) if scenario.eps is None else (f, x, scenario.eps)
    value, notes, raised = recorded_call(lambda: fn(*args), watched=f)
    if raised is not None:
        raise raised
    return {
        "returned": returned(value),
        "x_after": x.detach().clone(),
        "x_changed": not torch.equal(x.detach(), before),
        "x_requires_grad": bool(x.requires_grad),
        "x_grad_set": x.grad is not None,
        "autograd": notes,
    }
