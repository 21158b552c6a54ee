"""Judging train_step: the clearing mistake named from what step() saw, a pass only from the effects."""

from __future__ import annotations

from ..exercises._lesson3.scenarios import Scenario
from ..exercises.train_step import NAME
from ..verdict import Verdict, returned_kind
from ._lesson3.runs import SWAPPED_LOSS, correct, judge_runs, loss_matches, scaler_found_no_gradient, swapped_loss
from ._lesson3.schema import run_schema

NOT_FINITE = "wrong_gradient"  # inf or NaN in a gradient or a parameter


def schema(scenario: Scenario):
    return run_schema(scenario)


def _check_return(run, obs) -> str | None:
    for t, call in enumerate(obs["calls"]):
        returned = call["returned"]
        if "number" not in returned:
            what = returned_kind(returned.get("type"))
            return f"train_step returned {what} where the loss as a Python float was expected: return loss.item()."
        if not loss_matches(returned["number"], run.losses[t]):
            return (
                f"train_step returned {returned['number']:.6g}, but the loss of that batch before "
                f"the update was {run.losses[t]:.6g}: return the loss you called backward() on."
            )
    return None


MESSAGES = {
    "ok": lambda scenarios: correct(scenarios, "every optimizer.step() saw exactly the current batch's gradient"),
    "clears_after_step": lambda sc: (
        "Your function clears the gradients only after step(), so stale gradients left over from "
        "earlier code leaked into the very first update. Clear the gradients (optimizer.zero_grad()) at the "
        "start of each call, before backward()."
    ),
    "never_clears": lambda sc: (
        "Gradients pile up: each step() saw the gradients of all batches so far added together, "
        "because nothing cleared them. Call optimizer.zero_grad() at the start of every call "
        "(with the parentheses: optimizer.zero_grad without them does nothing)."
    ),
    "clears_once": lambda sc: (
        "You clear the gradients only on the first call; after that they pile up from one "
        "update to the next. Clear the gradients (optimizer.zero_grad()) at the start of every call."
    ),
    "clears_after_backward": lambda sc: (
        "The gradients are cleared between backward() and step(), so step() saw no gradient "
        "and nothing was learned. Clear first, then forward, loss, backward, step."
    ),
    "clears_some_params": lambda sc: (
        "Only some parameters are cleared; the gradients of the others pile up. Clear all of "
        "them, e.g. with optimizer.zero_grad() or model.zero_grad()."
    ),
    "no_backward": lambda sc: (
        "backward() never ran, so no new gradient reached the parameters before step() "
        "(loss.backward without parentheses does nothing)."
    ),
    "no_step": lambda sc: (
        "optimizer.step() never ran, so the parameters were never updated "
        "(optimizer.step without parentheses does nothing)."
    ),
    "wrong_gradient": lambda sc: (
        "step() saw a gradient that is neither this batch's gradient nor one of the usual clearing "
        f"mistakes (seen with {sc.name}). Check the order (clear, forward, loss, backward, step) and "
        "that backward() runs once, on loss_fn(model(x), y) for this batch."
    ),
    "swapped_loss_args": lambda sc: SWAPPED_LOSS,
    "step_count": lambda sc, got, expected: (
        f"optimizer.step() changed the parameters {got} time(s) over {expected} calls: exactly "
        "one step per call is expected."
    ),
    "check_return": _check_return,
}


def explain_error(error: dict, scenario=None) -> Verdict | None:
    """The loss called as loss_fn(target, prediction) raises with cross-entropy: name the swap."""
    if swapped_loss(error.get("observation")):
        return Verdict(NAME, "swapped_loss_args", MESSAGES["swapped_loss_args"](None))
    return scaler_found_no_gradient(NAME, error, MESSAGES)


def judge(scenarios: list[Scenario], observations: list[dict]) -> Verdict:
    return judge_runs(NAME, scenarios, observations, MESSAGES)
