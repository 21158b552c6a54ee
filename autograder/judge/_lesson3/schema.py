"""The shape of a lesson-3 training run's record (``exercises._lesson3.loops.record``), per scenario:
the model's parameters have the scenario's shapes, so every tensor's shape is known in advance."""

from __future__ import annotations

import functools

from gradebox.exercises._lesson3.scenarios import Scenario, build_model

from ..validate import Fields, Flag, Items, ListOf, Number, OneOf, Optional, Tensor, Text

MAX_STEPS = 2000  # far more than any loop over a scenario's few batches takes, however wrong
MAX_CALLS = 64


@functools.lru_cache(maxsize=256)
def _shapes(scenario: Scenario) -> tuple:
    model, _, _ = build_model(scenario)
    return tuple(tuple(p.shape) for p in model.parameters())


def returned():
    return OneOf(
        (
            Fields({"number": Number(finite=False)}),
            Fields({"numbers": ListOf(Number(finite=False), max_length=1000)}),
            Fields({"type": Text(200)}),
        )
    )


@functools.lru_cache(maxsize=256)
def run_schema(scenario: Scenario) -> Fields:
    shapes = _shapes(scenario)
    params = Items(tuple(Tensor(shape=s) for s in shapes))
    grads = Items(tuple(Optional(Tensor(shape=s)) for s in shapes))
    state = Items(
        tuple(
            Fields(
                {
                    "momentum_buffer": Tensor(shape=s),
                    "exp_avg": Tensor(shape=s),
                    "exp_avg_sq": Tensor(shape=s),
                    "max_exp_avg_sq": Tensor(shape=s),
                    "step": Tensor(shape=()),
                },
                optional=frozenset({"momentum_buffer", "exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"}),
            )  # fmt: skip
            for s in shapes
        )
    )
    integer = Number(integer=True)
    return Fields(
        {
            "initial": params,
            "calls": ListOf(
                Fields({"params": params, "after": params, "returned": returned(), "accumulations": integer}),
                max_length=MAX_CALLS,
            ),
            "steps": ListOf(
                Fields(
                    {
                        "call": integer,
                        "params": params,
                        "closure": Flag(),
                        "params_after": params,
                        "grads": grads,
                        "backward_grads": grads,
                        "rewritten": ListOf(Flag(), length=len(shapes)),
                    }
                ),  # fmt: skip
                max_length=MAX_STEPS,
            ),
            "forwards": ListOf(
                Fields({"call": integer, "batch": integer, "params": params}),
                max_length=MAX_STEPS,
            ),
            "loss_calls": ListOf(Fields({"call": integer, "swapped": Flag()}), max_length=MAX_STEPS),
            "loss_scales": ListOf(Number(), max_length=MAX_STEPS),
            "accumulations": integer,
            "final": params,
            "optimizer_state": state,
        }
    )
