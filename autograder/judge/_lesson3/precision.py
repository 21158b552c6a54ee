"""How the judge computes its references: the precisions it replays a scenario in, chosen by the judge.

A lesson-3 scenario is a float32 model, loss and optimizer, so its reference is the float32 loop
computed in float64 (the same numbers, to rounding).  Real training code also wraps its forward pass
in ``torch.autocast`` on its own (the PyTorch AMP recipe; see tests/fixtures/realworld), and then
computes other numbers: bfloat16 matrix products, and a backward whose rounding depends on whether
the loss was divided by ``accum_steps`` first.  Such a loop is judged against the judge's own replay
of it: the same scenario under CPU autocast, in each way the judge knows (``candidates``), compared
at the same strict tolerance as the float32 reference.  Autocast runs in the job and in the judge
give the same numbers to the last bit (the same kernels on the same values), so no looser tolerance
is needed there.

What the record says about autocast plays no part: a throw-away forward under autocast changes no
reference and no tolerance.  The precision of a run is the first candidate whose replay explains
what the run did; the scenario's own precision comes first.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import torch

#: CPU autocast's low-precision dtypes (bfloat16 is its default).
AUTOCAST_DTYPES = ("bfloat16", "float16")


@dataclass(frozen=True)
class Precision:
    """One way of computing a scenario's forward pass, loss and backward.

    ``forward`` / ``loss``: the CPU autocast dtype the model's forward pass / the loss run under
    (None: outside autocast).  ``divided``: backward starts from ``loss / accum_steps`` rather than
    from the loss (under autocast the low-precision backward rounds the two differently)."""

    forward: str | None = None
    loss: str | None = None
    divided: bool = False

    @property
    def autocast(self) -> bool:
        return self.forward is not None or self.loss is not None

    def describe(self) -> str:
        if not self.autocast:
            return "float32"
        where = "forward pass and loss" if self.loss else "forward pass"
        return f"{where} under autocast ({self.forward or self.loss})"


#: The scenario's own precision: float32, referenced in float64.
SCENARIO = Precision()


def candidates(accumulates: bool) -> tuple[Precision, ...]:
    """Every precision the judge replays, the scenario's own first.  Without accumulation the
    division by accum_steps (1) changes nothing, so it is not tried twice."""
    divisions = (False, True) if accumulates else (False,)
    replays = tuple(
        Precision(dtype, loss, divided) for dtype in AUTOCAST_DTYPES for loss in (dtype, None) for divided in divisions
    )
    return (SCENARIO, *replays)


def autocast(dtype: str | None):
    """CPU autocast in ``dtype`` (one of AUTOCAST_DTYPES), or nothing."""
    if dtype is None:
        return contextlib.nullcontext()
    if dtype not in AUTOCAST_DTYPES:
        raise ValueError(f"unknown autocast dtype {dtype!r}; the judge replays {AUTOCAST_DTYPES}")
    return torch.autocast("cpu", dtype=getattr(torch, dtype))
