"""Judging a recorded training run: which way of clearing gradients explains what step() saw.

Every mistake of the contract is a hypothesis about the gradient each ``optimizer.step()``
should see, built from gradients the judge computes itself (``reference_gradients``) at the
parameter values the run really had.  A parameter "follows" a hypothesis when its ``.grad`` at
every step matches that hypothesis; the verdict is the hypothesis every parameter follows.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass

import torch

from gradebox.exercises._lesson3.scenarios import Scenario, build_model

from .precision import SCENARIO, Precision, autocast

# When several hypotheses explain a run equally well (a fresh start cannot tell "never clears"
# from "clears once"), the earlier one names it.
PRIORITY = (
    "ok",
    "clears_after_backward",
    "clears_every_micro_batch",
    "loss_not_scaled",
    "weighted_by_examples",
    "clears_after_step",
    "never_clears",
    "clears_once",
)
NOT_CLEARING = ("never_clears", "clears_once", "clears_after_step")
# The one tolerance of every comparison, whatever precision the run computed in: the judge replays
# autocast itself (``precision``), so a low-precision run is compared with low-precision references.
RTOL, ATOL = 1e-4, 1e-6


@dataclass
class JudgedRun:
    """One scenario's record, with the judge's own reference gradients."""

    scenario: Scenario
    steps: list[dict]  # effective steps, in order
    micro: list[list[torch.Tensor]]  # reference gradient of every batch, per parameter
    losses: list[float]  # reference loss of every batch
    stale: list[torch.Tensor] | None
    sizes: list[int]  # examples in every batch
    precision: Precision = SCENARIO  # how the judge computed ``micro`` and ``losses``

    @property
    def k(self) -> int:
        return self.scenario.accum_steps


@functools.lru_cache(maxsize=64)
def _reference_model(scenario: Scenario, dtype: torch.dtype = torch.float64):
    """The scenario's model in ``dtype``, its loss and batches: built once per scenario (seeding the
    generators is most of the judge's time), then only copied."""
    model, loss_fn, batches = build_model(scenario)
    return model.to(dtype), loss_fn, batches


def reference_gradients(scenario: Scenario, params_at: list[list[torch.Tensor]], precision: Precision = SCENARIO):
    """Gradient and loss of every batch of the scenario, batch i evaluated at ``params_at[i]``.

    Computed on a private copy of the model with ``torch.autograd.grad``: nothing the student's code
    did in its own process can reach this computation.  In float64 for the scenario's own precision;
    for one of the judge's autocast replays (``precision``), in float32 under that autocast, from
    ``loss / accum_steps`` when the replay divides (the gradient then multiplied back, so that every
    hypothesis reads the gradient of one batch's loss).
    """
    low = precision.autocast
    model, loss_fn, batches = _reference_model(scenario, torch.float32 if low else torch.float64)
    model = copy.deepcopy(model)  # a copy of its own: judges run in several threads at once
    k = scenario.accum_steps if precision.divided else 1
    grads, losses = [], []
    for (x, y), values in zip(batches, params_at):
        with torch.no_grad():
            for p, v in zip(model.parameters(), values):
                p.copy_(v.to(p.dtype))
        if not low:
            x = x.double()
            y = y if not y.is_floating_point() else y.double()
        with autocast(precision.forward):
            out = model(x)
        with autocast(precision.loss):
            loss = loss_fn(out, y)
        batch = torch.autograd.grad(loss / k if k > 1 else loss, list(model.parameters()))
        grads.append([g.detach().double() * k for g in batch])
        losses.append(float(loss.detach()))
    return grads, losses


def expected(run: JudgedRun, hypothesis: str, s: int, p: int, key: str = "grads") -> torch.Tensor | None:
    """The gradient of parameter p that step s sees (``key`` "grads") or that backward() left
    before it (``key`` "backward_grads") if the student's code behaves as ``hypothesis`` says
    (None when the hypothesis does not apply to this run)."""
    k, micro = run.k, run.micro
    zero = torch.zeros_like(micro[0][p])
    stale = zero if run.stale is None else run.stale[p].double()
    if key == "backward_grads" and s > 0 and hypothesis in ("never_clears", "clears_once"):
        # Nothing cleared since the last step: backward added this update's gradient to what that
        # step saw, which a clip in between may have changed (so the running sum does not hold).
        seen = run.steps[s - 1]["grads"][p]
        return (zero if seen is None else seen.double()) + sum(micro[i][p] for i in range(s * k, (s + 1) * k)) / k

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
    if hypothesis == "weighted_by_examples":
        # Each micro-batch weighted by its share of the examples: one big batch's gradient.
        sizes = run.sizes[s * k : (s + 1) * k]
        return sum(g * (n / sum(sizes)) for g, n in zip(group(s), sizes))
    if hypothesis == "clears_every_micro_batch":
        return group(s)[-1] / k
    raise ValueError(hypothesis)


def close(actual: torch.Tensor | None, target: torch.Tensor, rtol: float = RTOL) -> bool:
    """``actual`` is ``target`` up to rounding (None counts as zeros).  False wherever either holds
    inf or NaN: inf - inf is NaN and NaN compares false, but inf <= inf would hold, so a run that
    wrote inf into every gradient would otherwise match every hypothesis."""
    actual = torch.zeros_like(target) if actual is None else actual.double()
    if actual.shape != target.shape:
        return False
    if not (bool(torch.isfinite(actual).all()) and bool(torch.isfinite(target).all())):
        return False
    scale = max(float(target.norm()), float(actual.norm()))
    return float((actual - target).norm()) <= rtol * scale + ATOL


def follows(run: JudgedRun, p: int, key: str = "grads") -> set[str]:
    """The hypotheses that parameter p follows at every step of the run.  ``key`` is "grads"
    (what step() saw) or "backward_grads" (what backward() left, before any clipping)."""
    found = set()
    for hypothesis in PRIORITY:
        ok = True
        for s, step in enumerate(run.steps):
            target = expected(run, hypothesis, s, p, key)
            if hypothesis == "clears_every_micro_batch" and target is not None:
                # Clearing before each micro-batch keeps only the last one, scaled or not.
                ok = close(step[key][p], target) or close(step[key][p], target * run.k)
            else:
                ok = target is not None and close(step[key][p], target)
            if not ok:
                break
        if ok:
            found.add(hypothesis)
    return found


def explain(runs: list[JudgedRun], key: str = "grads") -> str:
    """One code for all runs together: the hypothesis that every parameter of every run follows,
    ``clears_some_params`` when some parameters are cleared and others are not, else
    ``wrong_gradient``."""
    per_param = [follows(run, p, key) for run in runs for p in range(len(run.micro[0]))]
    common = set.intersection(*per_param) if per_param else set()
    for hypothesis in PRIORITY:
        if hypothesis in common:
            return hypothesis
    cleared = [("ok" in found) for found in per_param]
    leaking = [bool(found & set(NOT_CLEARING)) and "ok" not in found for found in per_param]
    if any(cleared) and any(leaking) and all(c or lk for c, lk in zip(cleared, leaking)):
        return "clears_some_params"
    return "wrong_gradient"


def showing(runs: list[JudgedRun], key: str = "grads") -> JudgedRun:
    """The first run whose gradients are not all right: the scenario a message names (a mistake
    such as clearing after step() shows only in some of them)."""
    for run in runs:
        if not all("ok" in follows(run, p, key) for p in range(len(run.micro[0]))):
            return run
    return runs[0]


# ---- what happened to the gradient between backward() and step() ----------------------------


def _pairs(runs: list[JudgedRun]):
    """(gradient backward left, gradient step saw) for every parameter of every step."""
    for run in runs:
        for step in run.steps:
            for before, seen in zip(step["backward_grads"], step["grads"]):
                if before is not None and seen is not None:
                    yield before.double(), seen.double()


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and float((a - b).norm()) <= 1e-9 * max(1.0, float(a.norm()))


def rewritten(runs: list[JudgedRun]) -> bool:
    """Did anything write into a gradient after backward() and before step()?"""
    flags = any(any(step.get("rewritten", ())) for run in runs for step in run.steps)
    return flags or any(not _same(before, seen) for before, seen in _pairs(runs))


def _scale(before: torch.Tensor, seen: torch.Tensor) -> float | None:
    """c when ``seen`` is c times ``before`` (0 < c), else None."""
    norm = float(before.norm())
    if norm == 0.0:
        return 1.0 if float(seen.norm()) == 0.0 else None
    c = float((seen * before).sum()) / norm**2
    if c <= 0 or not close(seen, before * c):
        return None
    return c


def _norm_clipped(runs: list[JudgedRun]) -> bool:
    """Each step's gradients scaled by one factor c <= 1, and every scaled-down step ends at the
    same total norm (the max_norm of clip_grad_norm_), over all parameters or parameter by parameter."""
    for per_parameter in (False, True):
        groups = []  # (before, seen) of one step, all parameters together or one parameter
        for run in runs:
            for step in run.steps:
                pairs = [(b.double(), g.double()) for b, g in zip(step["backward_grads"], step["grads"])
                         if b is not None and g is not None]  # fmt: skip
                if per_parameter:
                    groups += [(b.reshape(-1), g.reshape(-1)) for b, g in pairs]
                elif pairs:
                    groups.append((torch.cat([b.reshape(-1) for b, _ in pairs]),
                                   torch.cat([g.reshape(-1) for _, g in pairs])))  # fmt: skip
        norms, ok = [], True
        for before, seen in groups:
            c = _scale(before, seen)
            if c is None or c > 1 + 1e-6:
                ok = False
                break
            if c < 1 - 1e-6:
                norms.append(float(seen.norm()))
        if ok and (not norms or max(norms) - min(norms) <= 1e-4 * max(norms)):
            return True
    return False


def _value_clipped(runs: list[JudgedRun]) -> bool:
    """Every gradient clamped to [-v, v] for one v (clip_grad_value_, or clamp_ by hand)."""
    pairs = list(_pairs(runs))
    if not pairs:
        return False
    v = max(float(seen.abs().max()) for _, seen in pairs)
    return all(_same(before.clamp(-v, v), seen) for before, seen in pairs)


def _rescaled(runs: list[JudgedRun]) -> float | None:
    """The factor c when every gradient step() saw is c times what backward left, one c for all."""
    factors = [_scale(before, seen) for before, seen in _pairs(runs) if float(before.norm()) > 0]
    if not factors or any(c is None for c in factors):
        return None
    c = factors[0]
    return c if all(abs(f - c) <= 1e-6 * c for f in factors) else None


def modification(runs: list[JudgedRun]) -> str:
    """What student code did to the gradients between backward() and step(): "unchanged" (written
    in place with the same values: a clip that did not fire), "clipped" (by norm or by value),
    "rescaled" (one factor for all), or "changed" (anything else)."""
    pairs = list(_pairs(runs))
    if all(_same(before, seen) for before, seen in pairs):
        return "unchanged"
    # A clip ends every scaled-down step at the same norm (or clamps to one value); a rescale
    # by a constant factor leaves steps of different sizes different.
    if _norm_clipped(runs) or _value_clipped(runs):
        return "clipped"
    if _rescaled(runs) is not None:
        return "rescaled"
    return "changed"
