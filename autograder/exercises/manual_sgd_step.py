"""manual_sgd_step(params, lr) -> None: p <- p - lr * p.grad in place, untracked, then clear."""

from __future__ import annotations

import torch

from ..verdict import Verdict
from ._lesson3.scenarios import Scenario, lesson3_suite

NAME = "manual_sgd_step"


def suite(start: str = "all", seed: int = 0) -> list[Scenario]:
    """The scenarios of one check; ``seed`` varies models and data (hidden tests use others)."""
    return lesson3_suite(NAME, start, seed)


LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation"


def make_params(scenario: Scenario) -> tuple[list[torch.Tensor], callable]:
    """Leaf tensors of several shapes and a loss over all but the last one, whose .grad
    therefore stays None (the function must leave it alone)."""
    gen = torch.Generator().manual_seed(scenario.seed)
    dtype = torch.float64 if scenario.seed % 2 else torch.float32
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


def explain_error(error: dict) -> Verdict | None:
    """An in-place update of a leaf outside torch.no_grad() raises: that is update_tracked.  An
    error about None while some tensor's .grad was None: the update did not skip that tensor."""
    if LEAF_IN_PLACE in error["message"]:
        return Verdict(NAME, "update_tracked", MESSAGES["leaf_in_place"])
    observation = error.get("observation") or {}
    if any(observation.get("none_grads", ())) and "None" in error["message"]:
        return Verdict(NAME, "none_grad_crash", MESSAGES["none_grad_crash"].format(error=error["type"]))
    return None


def judge(scenarios: list[Scenario], observations: list[dict]) -> Verdict:
    for scenario, obs in zip(scenarios, observations):
        lr = scenario.lr
        for rnd in obs["rounds"]:
            if any(rnd["tracked"]) or not all(rnd["leaf"]) or any(rnd["list_tracked"]):
                return Verdict(NAME, "update_tracked", MESSAGES["update_tracked"])
            if not all(rnd["requires_grad"]):
                return Verdict(NAME, "update_tracked", MESSAGES["lost_requires_grad"])
            problem = _update_problem(rnd, lr)
            if problem:
                return Verdict(NAME, "wrong_update", problem)
            kept = [
                g_after is not None and bool(g_after.abs().max() > 0)
                for g_before, g_after in zip(rnd["grads"], rnd["grads_after"])
                if g_before is not None
            ]
            if all(kept):
                return Verdict(NAME, "no_clear", MESSAGES["no_clear"])
            if any(kept):
                return Verdict(NAME, "clears_some_params", MESSAGES["clears_some_params"])
    return Verdict(NAME, "ok", MESSAGES["ok"])


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.allclose(a.double(), b.double(), rtol=1e-5, atol=1e-7)


def _update_problem(rnd: dict, lr: float) -> str | None:
    for before, grad, after in zip(rnd["before"], rnd["grads"], rnd["after"]):
        if grad is None:
            if not _close(after, before):
                return "A tensor whose .grad is None was changed: leave such tensors as they are."
            continue
        if _close(after, before - lr * grad):
            continue
        if _close(after, before):
            return (
                "The tensors in params did not change: update them in place (p -= lr * p.grad "
                "inside torch.no_grad()), not by binding a new tensor to a name."
            )
        if _close(after, before + lr * grad):
            return "The update went uphill: subtract lr * p.grad, do not add it."
        if _close(after, before - grad):
            return "The update ignored lr: the step is lr * p.grad, not p.grad."
        return "The tensors changed, but not by -lr * p.grad."
    return None


MESSAGES = {
    "ok": "Correct: every tensor moved by -lr * grad in place, stayed a leaf, and its gradient was cleared.",
    "update_tracked": (
        "The update was recorded in the autograd graph: do it inside `with torch.no_grad():` "
        "so the tensors stay leaves."
    ),
    "lost_requires_grad": (
        "After your update a tensor no longer requires grad, so it cannot be trained further: "
        "update it in place under torch.no_grad() instead."
    ),
    "no_clear": (
        "The update is right, but the gradients were not cleared afterwards, so the next "
        "backward() will add to them: set p.grad = None."
    ),
    "clears_some_params": (
        "The update is right, but only some of the gradients were cleared afterwards: set "
        "p.grad = None for every tensor you updated."
    ),
    "none_grad_crash": (
        "Your update failed ({error}) on a tensor whose .grad is None: a tensor that took no part in "
        "the loss gets no gradient. Skip it (`if p.grad is None: continue`) and leave it unchanged."
    ),
    "leaf_in_place": (
        "`p -= ...` on a tensor that requires grad is not allowed while autograd records: "
        "wrap the update in `with torch.no_grad():`."
    ),
}
