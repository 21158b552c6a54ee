"""Judging train_accumulated: the clearing mistake named from what step() saw, a pass only from the effects."""

from __future__ import annotations

from ..exercises._lesson3.scenarios import Scenario
from ..exercises.train_accumulated import NAME
from ..verdict import Verdict, returned_kind
from ._lesson3.runs import SWAPPED_LOSS, correct, judge_runs, loss_matches, scaler_found_no_gradient, swapped_loss
from ._lesson3.schema import run_schema

NOT_FINITE = "wrong_gradient"  # inf or NaN in a gradient or a parameter


def schema(scenario: Scenario):
    return run_schema(scenario)


def _check_return(run, obs) -> str | None:
    returned = obs["calls"][0]["returned"]
    if "numbers" not in returned:
        what = returned_kind(returned.get("type"))
        return (
            f"train_accumulated returned {what} where a list of floats was expected: one loss.item() per micro-batch."
        )
    got, want = returned["numbers"], run.losses
    if len(got) != len(want):
        return f"train_accumulated returned {len(got)} losses for {len(want)} micro-batches."
    for i, (g, w) in enumerate(zip(got, want)):
        if not loss_matches(g, w):
            hint = " (divided by accum_steps?)" if loss_matches(g * run.k, w) else ""
            return (
                f"The loss at index {i} of the list you returned is {g:.6g}, but that micro-batch's loss is "
                f"{w:.6g}{hint}: "
                "return each micro-batch's unscaled loss."
            )
    return None


MESSAGES = {
    "ok": lambda scenarios: correct(
        scenarios,
        "each optimizer.step() saw the mean gradient of its micro-batches, with accum_steps "
        + " and ".join(str(k) for k in sorted({s.accum_steps for s in scenarios})),
    ),
    "clears_after_step": lambda sc: (
        "You clear only after step(), so stale gradients from before the call leaked into the "
        "first update. Clear at the start of each update, before its first micro-batch."
    ),
    "never_clears": lambda sc: (
        "Gradients are not cleared between updates: every update also carried the gradients of all the "
        "earlier ones. Clear once per update, before its first micro-batch (optimizer.zero_grad(), "
        "with the parentheses)."
    ),
    "clears_once": lambda sc: (
        "You clear once before the loop, then never again: from the second update on, old "
        "gradients pile up. Clear at the start of every update, not only before the loop."
    ),
    "clears_after_backward": lambda sc: (
        "The gradients are cleared between backward() and step(), so step() saw nothing."
    ),
    "clears_every_micro_batch": lambda sc: (
        f"The gradients are cleared between the micro-batches of an update, so with accum_steps={sc.accum_steps} "
        "step() saw only the last micro-batch's gradient. Clear once per update, before its first "
        "micro-batch (if i % accum_steps == 0: optimizer.zero_grad()), never in between."
    ),
    "clears_some_params": lambda sc: "Only some parameters are cleared between updates; the others pile up gradients.",
    "loss_not_scaled": lambda sc: (
        f"step() saw the sum of the {sc.accum_steps} micro-batch gradients, not their mean: "
        "divide each micro-batch loss by accum_steps before backward()."
    ),
    "weighted_by_examples": lambda sc: (
        "step() saw each micro-batch's gradient weighted by its number of examples (what one big batch "
        "would give); the exercise asks for the mean of the micro-batch gradients, each micro-batch "
        "counting once: divide each micro-batch loss by accum_steps. The micro-batches here have "
        "different sizes, so the two are not the same."
    ),
    "steps_every_micro_batch": lambda sc: (
        f"optimizer.step() ran after every micro-batch; with accum_steps={sc.accum_steps} it "
        f"should run once every {sc.accum_steps} micro-batches."
    ),
    "no_backward": lambda sc: (
        "backward() never ran, so no gradient was accumulated (loss.backward without parentheses does nothing)."
    ),
    "no_step": lambda sc: (
        "optimizer.step() never ran, so the parameters were never updated "
        "(optimizer.step without parentheses does nothing)."
    ),
    "wrong_gradient": lambda sc: (
        "step() saw a gradient that is neither the mean over its micro-batches nor one of the "
        f"usual mistakes (seen with {sc.name}). Check that each update clears once, runs backward() "
        "on every micro-batch's loss divided by accum_steps, then steps once."
    ),
    "swapped_loss_args": lambda sc: SWAPPED_LOSS,
    "step_count": lambda sc, got, expected: (
        f"optimizer.step() ran {got} time(s) for {sc.n_batches} micro-batches with "
        f"accum_steps={sc.accum_steps}: {expected} updates were expected."
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
