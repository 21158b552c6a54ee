"""derivative(f, x) -> float: df/dx at the Python float x, with autograd (one call of f, backward)."""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch

from ._lesson2 import SCALAR_FUNCTIONS, RecordedFunction, returned

NAME = "derivative"

MAX_CALLS = 100  # calls of f written down; a loop of more is counted (n_calls), not recorded


@dataclass(frozen=True)
class Point:
    """One call of the student's function: ``derivative(SCALAR_FUNCTIONS[function], x)``."""

    function: str
    x: float

    @property
    def name(self) -> str:
        return f"{self.function} at x={self.x:g}"


def suite(start: str = "all", seed: int = 0) -> list[Point]:
    """Smooth functions at random points, a steep one, and two kinks a finite difference gets wrong.

    ``start`` is accepted for the CLI's sake and ignored (there is no training state here)."""
    rng = random.Random(1000 + seed)
    smooth = ["square", "sin", "cubic", "gauss", "softplus_x"]
    rng.shuffle(smooth)
    return [
        Point(smooth[0], round(rng.uniform(-2, 2), 3)),
        Point(smooth[1], round(rng.uniform(-2, 2), 3)),
        Point(smooth[2], round(rng.uniform(0.2, 1.5), 3)),
        Point("steep", 0.3 + rng.choice((-1, 1)) * rng.uniform(0.005, 0.02)),
        # A kink 1e-5..4e-5 away: any finite-difference step of 1e-4 or more reaches across it.
        Point("abs_kink", rng.choice((-1, 1)) * rng.uniform(1e-5, 4e-5)),
        Point("relu_mix", 1.0 + rng.uniform(1e-5, 4e-5)),
    ]


def run(fn, scenario: Point) -> dict:
    """Call ``fn`` once with an instrumented function; record its calls and what it returned."""
    f = RecordedFunction(SCALAR_FUNCTIONS[scenario.function], scenario.function)
    value = fn(f, scenario.x)
    grads = []
    for arg in f.arguments:
        grad = getattr(arg, "grad", None) if isinstance(arg, torch.Tensor) and arg.is_leaf else None
        grads.append(None if grad is None else grad.detach().double().clone())
    return {"calls": f.calls[:MAX_CALLS], "n_calls": len(f.calls), "returned": returned(value),
            "arg_grads": grads[:MAX_CALLS]}  # fmt: skip
