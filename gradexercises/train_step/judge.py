"""Judging train_step: the clearing mistake named from what step() saw, a pass only from the effects."""

from __future__ import annotations

from autograder.i18n import _, npgettext, pgettext
from autograder.judge._lesson3.runs import (
    SWAPPED_LOSS,
    correct,
    judge_runs,
    loss_matches,
    scaler_found_no_gradient,
    swapped_loss,
)
from autograder.judge._lesson3.schema import run_schema
from autograder.verdict import Verdict, returned_kind
from gradebox.exercises._lesson3.scenarios import Scenario

from .job import NAME

NOT_FINITE = "wrong_gradient"  # inf or NaN in a gradient or a parameter


def schema(scenario: Scenario):
    return run_schema(scenario)


def _check_return(run, obs) -> str | None:
    for t, call in enumerate(obs["calls"]):
        returned = call["returned"]
        if "number" not in returned:
            what = returned_kind(returned.get("type"))
            return pgettext(
                "train_step:check_return",
                "train_step returned {what} where the loss as a Python float was expected: return loss.item().",
            ).format(what=what)
        if not loss_matches(returned["number"], run.losses[t]):
            return pgettext(
                "train_step:check_return",
                "train_step returned {got:.6g}, but the loss of that batch before the update was {loss:.6g}: "
                "return the loss you called backward() on.",
            ).format(got=returned["number"], loss=run.losses[t])
    return None


MESSAGES = {
    "ok": lambda scenarios: correct(
        scenarios, pgettext("train_step:ok", "every optimizer.step() saw exactly the current batch's gradient")
    ),
    "clears_after_step": lambda sc: pgettext(
        "train_step:clears_after_step",
        "Your function clears the gradients only after step(), so stale gradients left over from "
        "earlier code leaked into the very first update. Clear the gradients "
        "(optimizer.zero_grad()) at the start of each call, before backward().",
    ),
    "never_clears": lambda sc: pgettext(
        "train_step:never_clears",
        "Gradients pile up: each step() saw the gradients of all batches so far added together, "
        "because nothing cleared them. Call optimizer.zero_grad() at the start of every call "
        "(with the parentheses: optimizer.zero_grad without them does nothing).",
    ),
    "clears_once": lambda sc: pgettext(
        "train_step:clears_once",
        "You clear the gradients only on the first call; after that they pile up from one update "
        "to the next. Clear the gradients (optimizer.zero_grad()) at the start of every call.",
    ),
    "clears_after_backward": lambda sc: pgettext(
        "train_step:clears_after_backward",
        "The gradients are cleared between backward() and step(), so step() saw no gradient and "
        "nothing was learned. Clear first, then forward, loss, backward, step.",
    ),
    "clears_some_params": lambda sc: pgettext(
        "train_step:clears_some_params",
        "Only some parameters are cleared; the gradients of the others pile up. Clear all of "
        "them, e.g. with optimizer.zero_grad() or model.zero_grad().",
    ),
    "no_backward": lambda sc: pgettext(
        "train_step:no_backward",
        "backward() never ran, so no new gradient reached the parameters before step() "
        "(loss.backward without parentheses does nothing).",
    ),
    "no_step": lambda sc: pgettext(
        "train_step:no_step",
        "optimizer.step() never ran, so the parameters were never updated (optimizer.step "
        "without parentheses does nothing).",
    ),
    "wrong_gradient": lambda sc: pgettext(
        "train_step:wrong_gradient",
        "step() saw a gradient that is neither this batch's gradient nor one of the usual "
        "clearing mistakes (seen with {case}). Check the order (clear, forward, loss, backward, "
        "step) and that backward() runs once, on loss_fn(model(x), y) for this batch.",
    ).format(case=sc.name),
    "swapped_loss_args": lambda sc: _(SWAPPED_LOSS),
    "step_count": lambda sc, got, expected: npgettext(
        "train_step:step_count",
        "optimizer.step() changed the parameters {got} time over {expected} calls: exactly one step per call is "
        "expected.",
        "optimizer.step() changed the parameters {got} times over {expected} calls: exactly one step per call is "
        "expected.",
        got,
    ).format(got=got, expected=expected),
    "check_return": _check_return,
}


def explain_error(error: dict, scenario=None) -> Verdict | None:
    """The loss called as loss_fn(target, prediction) raises with cross-entropy: name the swap."""
    if swapped_loss(error.get("observation")):
        return Verdict(NAME, "swapped_loss_args", MESSAGES["swapped_loss_args"](None))
    return scaler_found_no_gradient(NAME, error, MESSAGES)


def judge(scenarios: list[Scenario], observations: list[dict]) -> Verdict:
    return judge_runs(NAME, scenarios, observations, MESSAGES)
