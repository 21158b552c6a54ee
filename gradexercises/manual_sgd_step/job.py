"""manual_sgd_step(params, lr) -> None: p <- p - lr * p.grad in place, untracked, then clear."""

from __future__ import annotations

import torch

from gradebox.exercises._lesson3.scenarios import Scenario, lesson3_suite, params_dtype

NAME = "manual_sgd_step"


def suite(start: str = "all", seed: int = 0) -> list[Scenario]:
    """The scenarios of one check; ``seed`` varies models and data (hidden tests use others)."""
    return lesson3_suite(NAME, start, seed)


def make_params(scenario: Scenario) -> tuple[list[torch.Tensor], callable]:
    """Leaf tensors of several shapes and a loss over all but the last one, whose .grad
    therefore stays None (the function must leave it alone)."""
    gen = torch.Generator().manual_seed(scenario.seed)
    dtype = params_dtype(scenario.seed)
    shapes = [(3, 2), (2,), (4,)]
    params = [torch.randn(s, generator=gen, dtype=dtype).requires_grad_() for s in shapes]
    data = [torch.randn(5, 3, generator=gen, dtype=dtype) for _ in range(2)]

    def loss(round_: int) -> torch.Tensor:
        w, b, _ = params
        return ((data[round_] @ w + b).tanh() ** 2).sum() + (w**3).sum()

    return params, loss


def run(fn, scenario: Scenario) -> dict:
    """Two rounds of backward + ``fn(params, lr)``, recording everything the judge needs."""
    params, loss = make_params(scenario)
    listed = list(params)  # the list the student receives (they may mutate it)
    out = {"rounds": []}
    for round_ in range(2):
        loss(round_).backward()
        before = [p.detach().clone() for p in params]
        grads = [None if p.grad is None else p.grad.detach().clone() for p in params]
        try:
            fn(listed, scenario.lr)
        except Exception as exc:  # noqa: BLE001 - judged with what the tensors held at the call
            out["exception"] = exc
            out["none_grads"] = [g is None for g in grads]
            if any(out["none_grads"]):
                out["without_none"] = _without_none(fn, scenario)
            return out
        out["rounds"].append(
            {
                "before": before,
                "grads": grads,
                "after": [p.detach().clone() for p in params],
                "grads_after": [None if p.grad is None else p.grad.detach().clone() for p in params],
                "leaf": [bool(p.is_leaf) for p in params],
                "requires_grad": [bool(p.requires_grad) for p in params],
                "tracked": [p.grad_fn is not None for p in params],
                "list_tracked": [
                    isinstance(q, torch.Tensor) and (q.grad_fn is not None or not q.is_leaf) for q in listed
                ],
                "list_replaced": [q is not p for q, p in zip(listed, params)] + [len(listed) != len(params)],
            }
        )
        listed[:] = params  # the next round starts from the real tensors again
    return out


def _without_none(fn, scenario: Scenario) -> dict | None:
    """After a crash on the tensor whose .grad is None: one more call with only the tensors that have
    a gradient, so that the crash cannot hide a second mistake in the update itself."""
    params, loss = make_params(scenario)
    loss(0).backward()
    given = [p for p in params if p.grad is not None]
    before = [p.detach().clone() for p in given]
    grads = [p.grad.detach().clone() for p in given]
    try:
        fn(list(given), scenario.lr)
    except Exception:  # noqa: BLE001 - then the crash is all there is to say
        return None
    return {"before": before, "grads": grads, "after": [p.detach().clone() for p in given]}
