"""derivative(f, x) -> float: df/dx at the Python float x, with autograd (one call of f, backward).

The job hands the student the scenario's function itself and writes down, with an
``AutogradRecorder`` below it, every evaluation of that function, every ``backward()`` or
``torch.autograd.grad`` and the gradients they produced; the function keeps no notes of its own."""

from __future__ import annotations

import random
from dataclasses import dataclass

from gradebox.exercises._lesson2 import MAX_EVALUATIONS, SCALAR_FUNCTIONS, recorded_call, returned
from gradebox.i18n import pgettext

NAME = "derivative"

MAX_CALLS = MAX_EVALUATIONS  # calls of f written down; a loop of more is counted, not recorded


@dataclass(frozen=True)
class Point:
    """One call of the student's function: ``derivative(SCALAR_FUNCTIONS[function], x)``."""

    function: str
    x: float

    @property
    def name(self) -> str:
        # i18n: a case of derivative: the function f (its name in code) and the point x
        return pgettext("scenario", "{function} at x={x}").format(function=self.function, x=f"{self.x:g}")


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
    """Call ``fn`` once on the scenario's function, with the recorder watching; write down what it
    returned and what the recorder saw."""
    f = SCALAR_FUNCTIONS[scenario.function]
    value, notes, raised = recorded_call(lambda: fn(f, scenario.x), watched=f)
    if raised is not None:
        raise raised
    return {"returned": returned(value), "autograd": notes}
