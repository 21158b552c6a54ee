"""Judging a recorded training run: which way of clearing gradients explains what step() saw.

Every mistake of the contract is a hypothesis about the gradient each ``optimizer.step()``
should see, built from gradients the judge computes itself (``reference_gradients``) at the
parameter values the run really had.  A parameter "follows" a hypothesis when its ``.grad`` at
every step matches that hypothesis; the verdict is the hypothesis every parameter follows.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch

from .scenarios import Scenario, build_model

# When several hypotheses explain a run equally well (a fresh start cannot tell "never clears"
# from "clears once"), the earlier one names it.
PRIORITY = (
    "ok",
    "clears_after_backward",
    "clears_every_micro_batch",
    "loss_not_scaled",
    "clears_after_step",
    "never_clears",
    "clears_once",
)
NOT_CLEARING = ("never_clears", "clears_once", "clears_after_step")
RTOL, ATOL = 1e-4, 1e-6


@dataclass
class Run:
    """One scenario's record, with the judge's own reference gradients."""

    scenario: Scenario
    steps: list[dict]  # effective steps, in order
    micro: list[list[torch.Tensor]]  # reference gradient of every batch, per parameter
    losses: list[float]  # reference loss of every batch
    stale: list[torch.Tensor] | None

    @property
    def k(self) -> int:
        return self.scenario.accum_steps


def reference_gradients(scenario: Scenario, params_at: list[list[torch.Tensor]]):
    """Gradient and loss of every batch of the scenario, batch i evaluated at ``params_at[i]``.

    Computed in float64 on a private copy of the model with ``torch.autograd.grad``: nothing
    the student's code did in its own process can reach this computation.
    """
    model, loss_fn, batches = build_model(scenario)
    model = copy.deepcopy(model).double()
    grads, losses = [], []
    for (x, y), values in zip(batches, params_at):
        with torch.no_grad():
            for p, v in zip(model.parameters(), values):
                p.copy_(v.double())
        x = x.double()
        y = y if not y.is_floating_point() else y.double()
        loss = loss_fn(model(x), y)
        grads.append([g.detach() for g in torch.autograd.grad(loss, list(model.parameters()))])
        losses.append(float(loss.detach()))
    return grads, losses


def expected(run: Run, hypothesis: str, s: int, p: int) -> torch.Tensor | None:
    """The gradient of parameter p that step s sees if the student's code behaves as
    ``hypothesis`` says (None when the hypothesis does not apply to this run)."""
    k, micro = run.k, run.micro
    zero = torch.zeros_like(micro[0][p])
    stale = zero if run.stale is None else run.stale[p].double()

    def group(u):
        return [micro[i][p] for i in range(u * k, (u + 1) * k)]

    def mean(u):
        return sum(group(u)) / k

    if hypothesis == "ok":
        return mean(s)
    if hypothesis == "clears_after_step":
        return mean(s) + (stale if s == 0 else zero)
    if hypothesis == "never_clears":
        return stale + sum(mean(u) for u in range(s + 1))
    if hypothesis == "clears_once":
        return sum(mean(u) for u in range(s + 1))
    if hypothesis == "clears_after_backward":
        return zero
    if k == 1:
        return None  # the remaining mistakes exist only with accumulation
    if hypothesis == "loss_not_scaled":
        return sum(group(s))
    if hypothesis == "clears_every_micro_batch":
        return group(s)[-1] / k
    raise ValueError(hypothesis)


def close(actual: torch.Tensor | None, target: torch.Tensor) -> bool:
    actual = torch.zeros_like(target) if actual is None else actual.double()
    if actual.shape != target.shape:
        return False
    scale = max(float(target.norm()), float(actual.norm()))
    return float((actual - target).norm()) <= RTOL * scale + ATOL


def follows(run: Run, p: int) -> set[str]:
    """The hypotheses that parameter p follows at every step of the run."""
    found = set()
    for hypothesis in PRIORITY:
        ok = True
        for s, step in enumerate(run.steps):
            target = expected(run, hypothesis, s, p)
            if hypothesis == "clears_every_micro_batch" and target is not None:
                # Clearing before each micro-batch keeps only the last one, scaled or not.
                ok = close(step["grads"][p], target) or close(step["grads"][p], target * run.k)
            else:
                ok = target is not None and close(step["grads"][p], target)
            if not ok:
                break
        if ok:
            found.add(hypothesis)
    return found


def explain(runs: list[Run]) -> str:
    """One code for all runs together: the hypothesis that every parameter of every run follows,
    ``clears_some_params`` when some parameters are cleared and others are not, else
    ``wrong_gradient``."""
    per_param = [follows(run, p) for run in runs for p in range(len(run.micro[0]))]
    common = set.intersection(*per_param) if per_param else set()
    for hypothesis in PRIORITY:
        if hypothesis in common:
            return hypothesis
    cleared = [("ok" in found) for found in per_param]
    leaking = [bool(found & set(NOT_CLEARING)) and "ok" not in found for found in per_param]
    if any(cleared) and any(leaking) and all(c or lk for c, lk in zip(cleared, leaking)):
        return "clears_some_params"
    return "wrong_gradient"
