"""Judging manual_sgd_step: a pass only when every tensor ends where p - lr * p.grad puts it, as the
judge computes it from the seed, with its gradient cleared, still a leaf that requires grad; what the
job saw before each call (the values and gradients it was given) only names the mistake."""

from __future__ import annotations

import functools

import torch

from autograder.i18n import N_, _, pgettext
from autograder.judge.texts import Texts
from autograder.judge.validate import Fields, Flag, InvalidRecord, Items, ListOf, NotFinite, Optional, Tensor, check
from autograder.verdict import Verdict, first_failure, together
from gradebox.exercises._lesson3.scenarios import Scenario

from .job import NAME, make_params

LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation"
NOT_FINITE = "wrong_update"
ROUNDS = 2
# What was wrong with an update's values, by the key ``_update_problem`` gives (translated where shown).
UPDATE_PROBLEMS = {
    "changed_none": N_("A tensor whose .grad is None was changed: leave such tensors as they are."),
    "unchanged": N_(
        "The tensors in params did not change: update them in place (p -= lr * p.grad "
        "inside torch.no_grad()), not by binding a new tensor to a name."
    ),
    "uphill": N_("The update went uphill: subtract lr * p.grad, do not add it."),
    "ignores_lr": N_("The update ignored lr: the step is lr * p.grad, not p.grad."),
    "other": N_("The tensors changed, but not by -lr * p.grad."),
}


@functools.lru_cache(maxsize=64)
def expected_rounds(scenario: Scenario) -> list[dict]:
    """Each round as a correct update leaves it: the values and gradients the function is given, and
    the values after (every gradient then cleared)."""
    params, loss = make_params(scenario)
    rounds = []
    for round_ in range(ROUNDS):
        loss(round_).backward()
        before = [p.detach().clone() for p in params]
        grads = [None if p.grad is None else p.grad.detach().clone() for p in params]
        with torch.no_grad():
            for p in params:
                if p.grad is not None:
                    p -= scenario.lr * p.grad
                p.grad = None
        rounds.append({"before": before, "grads": grads, "after": [p.detach().clone() for p in params]})
    return rounds


def schema(scenario: Scenario):
    shapes = [tuple(p.shape) for p in make_params(scenario)[0]]
    values = Items(tuple(Tensor(shape=s) for s in shapes))
    grads = Items(tuple(Optional(Tensor(shape=s)) for s in shapes))
    flags = ListOf(Flag(), length=len(shapes))
    one = Fields(
        {"before": values, "grads": grads, "after": values, "grads_after": grads, "leaf": flags,
         "requires_grad": flags, "tracked": flags, "list_tracked": ListOf(Flag(), max_length=1000),
         "list_replaced": ListOf(Flag(), max_length=1001)}
    )  # fmt: skip
    return Fields({"rounds": ListOf(one, length=ROUNDS)})


def explain_error(error: dict, scenario=None) -> Verdict | None:
    """An in-place update of a leaf outside torch.no_grad() raises: that is update_tracked.  An
    error about None while some tensor's .grad was None: the update did not skip that tensor."""
    if LEAF_IN_PLACE in error["message"]:
        return Verdict(NAME, "update_tracked", MESSAGES["leaf_in_place"])
    observation = error.get("observation") or {}
    if any(observation.get("none_grads", ())) and "None" in error["message"]:
        crash = Verdict(NAME, "none_grad_crash", MESSAGES["none_grad_crash"].format(error=error["type"]))
        update = _update_without_none(observation.get("without_none"), scenario)
        return crash if update is None else together(NAME, [crash, Verdict(NAME, "wrong_update", update)])
    return None


def _update_without_none(probe, scenario) -> str | None:
    """What was wrong with the update when the function was called again with only the tensors
    that have a gradient (``exercises.manual_sgd_step._without_none``)."""
    if scenario is None or not isinstance(probe, dict):
        return None
    shapes = [tuple(p.shape) for p in make_params(scenario)[0][:-1]]  # the last one's .grad is None
    values = Items(tuple(Tensor(shape=s) for s in shapes))
    try:
        check(Fields({"before": values, "grads": values, "after": values}), probe, _("the second call"))
    except (InvalidRecord, NotFinite):
        return None  # the record so far is the job's to shape: only a well-formed one names a mistake
    problem = _update_problem(probe, scenario.lr)
    return None if problem is None else _(UPDATE_PROBLEMS[problem])


def judge(scenarios: list[Scenario], observations: list[dict]) -> Verdict:
    verdict = first_failure(NAME, scenarios, observations, _judge_one, MESSAGES["ok"])
    if not verdict.passed:
        return verdict
    for scenario, obs in zip(scenarios, observations):
        for rnd, want in zip(obs["rounds"], expected_rounds(scenario)):
            if not all(_close(a, w) for a, w in zip(rnd["after"], want["after"])):
                return Verdict(NAME, "tampered", MESSAGES["contradiction"])
    return verdict


def _judge_one(scenario: Scenario, obs: dict) -> list[Verdict]:
    """Every mistake the rounds show: how the update was recorded, its values, the clearing."""
    found: dict[str, Verdict] = {}
    for rnd in obs["rounds"]:
        if any(rnd["tracked"]) or not all(rnd["leaf"]) or any(rnd["list_tracked"]):
            found.setdefault("update_tracked", Verdict(NAME, "update_tracked", MESSAGES["update_tracked"]))
        elif not all(rnd["requires_grad"]):
            found.setdefault("update_tracked", Verdict(NAME, "update_tracked", MESSAGES["lost_requires_grad"]))
        problem = _update_problem(rnd, scenario.lr)
        kept = [
            g_after is not None and bool(g_after.abs().max() > 0)
            for g_before, g_after in zip(rnd["grads"], rnd["grads_after"])
            if g_before is not None
        ]
        if kept and all(kept) and problem == "unchanged":
            # One mistake, usually p = p - lr * p.grad: the real problem (nothing changed) said first.
            found.setdefault("no_clear", Verdict(NAME, "no_clear", MESSAGES["unchanged_and_kept"]))
        elif problem:
            found.setdefault("wrong_update", Verdict(NAME, "wrong_update", _(UPDATE_PROBLEMS[problem])))
        if kept and all(kept):
            found.setdefault("no_clear", Verdict(NAME, "no_clear", MESSAGES["no_clear"]))
        elif any(kept):
            found.setdefault("clears_some_params", Verdict(NAME, "clears_some_params", MESSAGES["clears_some_params"]))
        untouched = [g is None for g in rnd["grads"]]
        if any(u and g is not None for u, g in zip(untouched, rnd["grads_after"])):
            found.setdefault("wrong_update", Verdict(NAME, "wrong_update", MESSAGES["grad_created"]))
    return list(found.values())


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal up to rounding; never on inf or NaN (allclose would call inf close to inf)."""
    if a.shape != b.shape or not (bool(torch.isfinite(a).all()) and bool(torch.isfinite(b).all())):
        return False
    return torch.allclose(a.double(), b.double(), rtol=1e-5, atol=1e-7)


def _update_problem(rnd: dict, lr: float) -> str | None:
    """What was wrong with the update's values (a key of ``UPDATE_PROBLEMS``), or None."""
    for before, grad, after in zip(rnd["before"], rnd["grads"], rnd["after"]):
        if grad is None:
            if not _close(after, before):
                return "changed_none"
            continue
        if _close(after, before - lr * grad):
            continue
        if _close(after, before):
            return "unchanged"
        if _close(after, before + lr * grad):
            return "uphill"
        if _close(after, before - grad):
            return "ignores_lr"
        return "other"
    return None


MESSAGES = Texts(
    {
        "ok": lambda: pgettext(
            "manual_sgd_step:ok",
            "Correct: every tensor moved by -lr * grad in place, stayed a leaf, and its gradient was cleared.",
        ),
        "update_tracked": (
            lambda: pgettext(
                "manual_sgd_step:update_tracked",
                "The update was recorded in the autograd graph: do it inside `with torch.no_grad():` so "
                "the tensors stay leaves.",
            )
        ),
        "lost_requires_grad": (
            lambda: pgettext(
                "manual_sgd_step:lost_requires_grad",
                "After your update a tensor no longer requires grad, so it cannot be trained further: "
                "update it in place under torch.no_grad() instead.",
            )
        ),
        "unchanged_and_kept": (
            lambda: pgettext(
                "manual_sgd_step:unchanged_and_kept",
                "The tensors in params did not change, and their gradients were not cleared. If you "
                "wrote p = p - lr * p.grad: that makes a new tensor and binds the name p to it, so the "
                "update (and any p.grad = None after it) reaches the new tensor, not the one in params. "
                "Update in place (p -= lr * p.grad inside torch.no_grad()), then set p.grad = None.",
            )
        ),
        "no_clear": (
            lambda: pgettext(
                "manual_sgd_step:no_clear",
                "The gradients were not cleared after the update, so the next backward() will add to "
                "them: set p.grad = None.",
            )
        ),
        "clears_some_params": (
            lambda: pgettext(
                "manual_sgd_step:clears_some_params",
                "Only some of the gradients were cleared after the update: set p.grad = None for every "
                "tensor you updated.",
            )
        ),
        "none_grad_crash": (
            lambda: pgettext(
                "manual_sgd_step:none_grad_crash",
                "Your update failed ({error}) on a tensor whose .grad is None: a tensor that took no "
                "part in the loss gets no gradient. Skip a tensor whose .grad is None (`if p.grad is "
                "None: continue`) and leave it unchanged.",
            )
        ),
        "grad_created": lambda: pgettext(
            "manual_sgd_step:grad_created",
            "A tensor whose .grad was None got a gradient: leave the tensors without a gradient alone.",
        ),
        "contradiction": (
            lambda: pgettext(
                "manual_sgd_step:contradiction",
                "The record of your run contradicts itself: the tensors did not end where the values and "
                "gradients it reports lead. The grader recomputes every update, so only code that really "
                "updates the tensors earns points.",
            )
        ),
        "leaf_in_place": (
            lambda: pgettext(
                "manual_sgd_step:leaf_in_place",
                "`p -= ...` on a tensor that requires grad is not allowed while autograd records: wrap "
                "the update in `with torch.no_grad():`.",
            )
        ),
    }
)
