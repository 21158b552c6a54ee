"""Judging train_accumulated: the clearing mistake named from what step() saw, a pass only from the effects."""

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
    returned = obs["calls"][0]["returned"]
    if "numbers" not in returned:
        what = returned_kind(returned.get("type"))
        return pgettext(
            "train_accumulated:check_return",
            "train_accumulated returned {what} where a list of floats was expected: one loss.item() per micro-batch.",
        ).format(what=what)
    got, want = returned["numbers"], run.losses
    if len(got) != len(want):
        return npgettext(
            "train_accumulated:check_return",
            "train_accumulated returned {n_got} loss for {n_want} micro-batches.",
            "train_accumulated returned {n_got} losses for {n_want} micro-batches.",
            len(got),
        ).format(n_got=len(got), n_want=len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        if not loss_matches(g, w):
            if loss_matches(g * run.k, w):
                text = pgettext(
                    "train_accumulated:check_return",
                    "The loss at index {i} of the list you returned is {got:.6g}, but that micro-batch's loss is "
                    "{want:.6g} (divided by accum_steps?): return each micro-batch's unscaled loss.",
                )
            else:
                text = pgettext(
                    "train_accumulated:check_return",
                    "The loss at index {i} of the list you returned is {got:.6g}, but that micro-batch's loss is "
                    "{want:.6g}: return each micro-batch's unscaled loss.",
                )
            return text.format(i=i, got=g, want=w)
    return None


def _saw_mean(scenarios: list[Scenario]) -> str:
    """What a correct function's steps saw, with the accum_steps the runs had ("2 and 3")."""
    steps = sorted({s.accum_steps for s in scenarios})
    if len(steps) == 1:
        text = pgettext(
            "train_accumulated:ok",
            "each optimizer.step() saw the mean gradient of its micro-batches, with accum_steps {last}",
        )
    else:
        # i18n: {some} is one number or several separated by commas, {last} the last one: "2 and 3", "2, 3 and 4"
        text = pgettext(
            "train_accumulated:ok",
            "each optimizer.step() saw the mean gradient of its micro-batches, with accum_steps {some} and {last}",
        )
    return text.format(some=", ".join(map(str, steps[:-1])), last=steps[-1])


MESSAGES = {
    "ok": lambda scenarios: correct(scenarios, _saw_mean(scenarios)),
    "clears_after_step": lambda sc: pgettext(
        "train_accumulated:clears_after_step",
        "You clear only after step(), so stale gradients from before the call leaked into the "
        "first update. Clear at the start of each update, before its first micro-batch.",
    ),
    "never_clears": lambda sc: pgettext(
        "train_accumulated:never_clears",
        "Gradients are not cleared between updates: every update also carried the gradients of "
        "all the earlier ones. Clear once per update, before its first micro-batch "
        "(optimizer.zero_grad(), with the parentheses).",
    ),
    "clears_once": lambda sc: pgettext(
        "train_accumulated:clears_once",
        "You clear once before the loop, then never again: from the second update on, old "
        "gradients pile up. Clear at the start of every update, not only before the loop.",
    ),
    "clears_after_backward": lambda sc: pgettext(
        "train_accumulated:clears_after_backward",
        "The gradients are cleared between backward() and step(), so step() saw nothing.",
    ),
    "clears_every_micro_batch": lambda sc: pgettext(
        "train_accumulated:clears_every_micro_batch",
        "The gradients are cleared between the micro-batches of an update, so with "
        "accum_steps={accum_steps} step() saw only the last micro-batch's gradient. Clear once "
        "per update, before its first micro-batch (if i % accum_steps == 0: "
        "optimizer.zero_grad()), never in between.",
    ).format(accum_steps=sc.accum_steps),
    "clears_some_params": lambda sc: pgettext(
        "train_accumulated:clears_some_params",
        "Only some parameters are cleared between updates; the others pile up gradients.",
    ),
    "loss_not_scaled": lambda sc: pgettext(
        "train_accumulated:loss_not_scaled",
        "step() saw the sum of the {accum_steps} micro-batch gradients, not their mean: divide "
        "each micro-batch loss by accum_steps before backward().",
    ).format(accum_steps=sc.accum_steps),
    "weighted_by_examples": lambda sc: pgettext(
        "train_accumulated:weighted_by_examples",
        "step() saw each micro-batch's gradient weighted by its number of examples (what one big "
        "batch would give); the exercise asks for the mean of the micro-batch gradients, each "
        "micro-batch counting once: divide each micro-batch loss by accum_steps. The "
        "micro-batches here have different sizes, so the two are not the same.",
    ),
    "steps_every_micro_batch": lambda sc: pgettext(
        "train_accumulated:steps_every_micro_batch",
        "optimizer.step() ran after every micro-batch; with accum_steps={accum_steps} it should "
        "run once every {accum_steps} micro-batches.",
    ).format(accum_steps=sc.accum_steps),
    "no_backward": lambda sc: pgettext(
        "train_accumulated:no_backward",
        "backward() never ran, so no gradient was accumulated (loss.backward without parentheses does nothing).",
    ),
    "no_step": lambda sc: pgettext(
        "train_accumulated:no_step",
        "optimizer.step() never ran, so the parameters were never updated (optimizer.step "
        "without parentheses does nothing).",
    ),
    "wrong_gradient": lambda sc: pgettext(
        "train_accumulated:wrong_gradient",
        "step() saw a gradient that is neither the mean over its micro-batches nor one of the "
        "usual mistakes (seen with {case}). Check that each update clears once, runs backward() "
        "on every micro-batch's loss divided by accum_steps, then steps once.",
    ).format(case=sc.name),
    "swapped_loss_args": lambda sc: _(SWAPPED_LOSS),
    "step_count": lambda sc, got, expected: npgettext(
        "train_accumulated:step_count",
        "optimizer.step() ran {got} time for {n_batches} micro-batches with accum_steps={accum_steps}: "
        "{expected} updates were expected.",
        "optimizer.step() ran {got} times for {n_batches} micro-batches with accum_steps={accum_steps}: "
        "{expected} updates were expected.",
        got,
    ).format(got=got, n_batches=sc.n_batches, accum_steps=sc.accum_steps, expected=expected),
    "check_return": _check_return,
}


def explain_error(error: dict, scenario=None) -> Verdict | None:
    """The loss called as loss_fn(target, prediction) raises with cross-entropy: name the swap."""
    if swapped_loss(error.get("observation")):
        return Verdict(NAME, "swapped_loss_args", MESSAGES["swapped_loss_args"](None))
    return scaler_found_no_gradient(NAME, error, MESSAGES)


def judge(scenarios: list[Scenario], observations: list[dict]) -> Verdict:
    return judge_runs(NAME, scenarios, observations, MESSAGES)
