# ruff: noqa: E501 - one meaning per line, as the tables of docs/codes.md show them
"""Lesson 3's table of codes, the contract's, shared by its three exercises (``train_step``,
``train_accumulated``, ``manual_sgd_step``): plain data the job side may read too."""

from gradexercises import N_

# fmt: off
# The contract's table for lesson 3, shared by its three exercises.
LESSON3 = {
    "ok": N_("correct (the only code that passes)"),
    "clears_after_step": N_("clears only after `step()`: stale gradients leak into the first update"),
    "never_clears": N_("gradients pile up across updates (also what a fresh start shows for `clears_once`)"),
    "clears_once": N_("clears once before the loop (or on the first call), then never again"),
    "clears_after_backward": N_("clears between `backward()` and `step()`: the step sees no gradient"),
    "clears_every_micro_batch": N_("accumulation: only the last micro-batch of each update counts"),
    "clears_some_params": N_("clears only some parameters"),
    "loss_not_scaled": N_("accumulation: the sum of the micro-batch gradients, not the mean"),
    "steps_every_micro_batch": N_("accumulation: a step after every micro-batch"),
    "no_backward": N_("backward never ran"),
    "no_step": N_("`step()` never ran"),
    "no_clear": N_("manual step: the gradient is not cleared"),
    "update_tracked": N_("manual step: the update is recorded by autograd (or the tensor stops requiring grad)"),
    "wrong_update": N_("manual step: wrong sign, scale, or not in place; for the optimizer exercises, a number of effective `step()` calls other than one per update"),
    "wrong_gradient": N_("`step()` saw a gradient that matches none of the above (also: the gradients were rescaled or changed between `backward()` and `step()`)"),
    "clips_gradients": N_("the gradient is clipped (`clip_grad_norm_`, `clip_grad_value_`, `.grad.clamp_` by hand) between `backward()` and `step()`; named from the in-place write, whatever the gradient norms (a clip that does not fire still writes)"),
    "swapped_loss_args": N_("the loss is computed as `loss_fn(target, prediction)` (fails with cross-entropy; with MSE it gives the same numbers)"),
    "weighted_by_examples": N_("accumulation: each micro-batch weighted by its number of examples (one big batch's gradient) instead of the mean of the micro-batch gradients; the graded micro-batches have different sizes"),
    "none_grad_crash": N_("manual step: the update fails on a tensor whose `.grad` is `None` instead of skipping it (`p -= lr * p.grad` for every tensor, as d2l and fastbook write it)"),
    "error": N_("the function raised, the process died, the file has no such function, or the returned value is not the loss (a tensor instead of a float, a scaled loss)"),
    "timeout": N_("it did not finish within the time limit"),
    "tampered": N_("the code changed torch, the optimizer, their hooks or the grader's own functions"),
}
# fmt: on
