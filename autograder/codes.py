# ruff: noqa: E501 - one meaning per line, as the tables of docs/codes.md show them
"""What each diagnosis code means, in words, and the lesson section a student who got it should
read again: for the class report (what to teach next) and the code tables of docs/codes.md, which
``python3 course.py sync`` writes from here.

``MEANINGS[exercise]`` lists the codes of an exercise as its documentation gives them (an
exercise's own table; the three lesson 3 exercises share the contract's table); ``SHARED`` holds
the codes every exercise can end with, including the two error names a test cell ends with when
the notebook was stopped (``NotRun``, ``KernelStopped``): the report lists those, ``unanswered``,
``error`` and ``timeout`` as "not judged", apart from the misconceptions.  ``REVISIT[exercise]`` names a lesson section (its heading,
without the ``## ``) per code, with ``None`` for the section of the exercise's default; a test
checks every heading against the lesson notebooks, so renaming a section cannot leave the report
pointing at nothing.  Pure data: ``course.py`` reads it without torch.

The meanings are English here (the report and docs/codes.md read them so), each marked ``N_`` for
the ``autograder`` catalogue; ``in_words``, what a learner reads under a ❌, says them in the
learner's language (``autograder.i18n``).  The headings of ``REVISIT`` stay English for now.
"""

from __future__ import annotations

import re

try:
    from .i18n import N_, _
except ImportError:  # course.py loads this file by path, as plain data outside the package: English only

    def N_(message: str) -> str:
        return message

    _ = N_

# One meaning per line, as docs/codes.md shows them.
# fmt: off
SHARED = {
    "ok": N_("correct"),
    "unanswered": N_("the answer cell was left as it was handed out"),
    "error": N_("the function raised, or the process running it died"),
    "timeout": N_("it did not finish within the time limit"),
    "tampered": N_("the code changed torch, the optimizer or the grader's own tools"),
    "NotRun": N_("not judged: a limit (output, memory, time) or a crash stopped the notebook before this test cell, and the grader had no verdict for it (the grading notes say what stopped it)"),
    "KernelStopped": N_("not judged: a limit or a crash stopped the notebook in this test cell (the grading notes say which)"),
}

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

MEANINGS: dict[str, dict[str, str]] = {
    "graph_ops": {
        "ok": N_("correct"),
        "crashes_on_leaf": N_("raised on a tensor whose `grad_fn` is `None` instead of returning `[]`"),
        "includes_none": N_('`None` entries of `next_functions` were listed (as `None`/`"NoneType"`) or expanded (crash)'),
        "not_a_list": N_("returned something other than a list (a tuple, a generator, `None`)"),
        "wrong_names": N_("node objects, reprs (`<MulBackward0 object at ...>`) or C++ names (`torch::autograd::AccumulateGrad` from `node.name()`) instead of `type(node).__name__`"),
        "duplicates": N_("a node reached by several paths is listed more than once"),
        "dedupe_by_name": N_("distinct nodes with the same class name (two leaves' `AccumulateGrad`) listed once"),
        "depth_first": N_("the right nodes in a depth-first order (recursive or stack)"),
        "wrong_order": N_("the right nodes in another order (e.g. children reversed)"),
        "missing_leaves": N_("the `AccumulateGrad` nodes are missing"),
        "wrong_nodes": N_("other lists (e.g. `t.grad_fn` itself missing, nodes for a leaf)"),
    },
    "freeze_all_but": {
        "ok": N_("correct"),
        "replaced_parameters": N_("parameters replaced, detached or their values changed instead of flagged"),
        "inverted": N_("the named parameters were frozen and the others made trainable"),
        "never_unfreezes": N_("only freezes: a named parameter frozen before the call stays frozen"),
        "never_freezes": N_("only unfreezes: unnamed parameters keep their old flag"),
        "exact_name_match": N_("compares whole names (`name in trainable`) instead of prefixes"),
        "substring_match": N_('`prefix in name`, so `"0"` also matches `"10.weight"`'),
        "layer_name_match": N_('whole layer names (`name.startswith(prefix + ".")`, or the part of the name before the first dot), so `"1"` does not select `"10.weight"` as the plain prefix rule does'),
        "wrong_params": N_("flags that match none of the above"),
        "wrong_count": N_("flags right, but the return is not the trainable scalar count as an `int` (tensors counted, all or frozen parameters counted, `None`, a float or a tensor)"),
    },
    "make_trainable": {
        "ok": N_("correct"),
        "integer_requires_grad": N_("asked an integer tensor to require grad (PyTorch raises)"),
        "not_a_tensor": N_("did not return a tensor"),
        "wrong_values": N_("values or shape differ from the input (rounded through an integer dtype, flattened)"),
        "wrong_dtype": N_("not `float32`"),
        "changes_input": N_("the caller's tensor was changed (values, or its `requires_grad` flag flipped because `as_tensor` returned it)"),
        "shares_input": N_("the result shares memory with the input (`detach()` without `clone()`, or the input itself)"),
        "no_requires_grad": N_("the result does not require grad"),
        "not_leaf": N_("the result has a `grad_fn` (cloned without `detach()`, or computed after `requires_grad_()`)"),
    },
    "derivative": {
        "finite_difference": N_("`f` was called several times and never on a tensor that requires grad: a finite difference instead of autograd"),
        "too_many_calls": N_("`f` was called more than once (e.g. once to print its value, once for `backward()`)"),
        "no_requires_grad": N_('`f` got a tensor that does not require grad, or `backward()` raised "element 0 of tensors does not require grad" (forgotten `requires_grad=True`, or `f` run under `torch.no_grad()`)'),
        "wrong_type": N_("the slope came back as a tensor (or anything else), not a Python float"),
        "wrong_value": N_("any other wrong number; the message says which: `f` never called, `f` called at another point, `f(x)` returned instead of the slope, a number close to the slope but not autograd's own (float64 to rounding, or float32 within the judge's float32 runs: a finite difference hidden from the grader's recorder), or both numbers (e.g. after two `backward()` calls)"),
    },
    "finite_difference_grad": {
        "used_autograd": N_("`f` saw a tensor that requires grad, or `x` was switched to `requires_grad` / got a `.grad`"),
        "modifies_x": N_("`x` was not exactly the same after the call, compared bit for bit: nudged in place and not put back, or put back by arithmetic (`+= eps` then `-= eps`), which can round to a neighbouring number"),
        "wrong_type": N_("the result is not a tensor (a list, a float)"),
        "wrong_shape": N_("the result has another shape than `x` (typically flattened)"),
        "wrong_scale": N_("divided by `eps` instead of `2·eps`"),
        "forward_difference": N_("a one-sided difference, `(f(x + eps) − f(x)) / eps` (or the backward one)"),
        "ignores_eps": N_("the `eps` argument was ignored: the result is the central difference of another step (1e-2 … 1e-8), or much closer to the exact gradient than the given `eps` allows"),
        "wrong_dtype": N_("the estimate is right but has another dtype than `x` (typically `torch.zeros(x.shape)`, always float32, for a float64 `x`); with a wrong estimate too, the message adds the dtype to that code"),
        "wrong_value": N_("any other wrong estimate (e.g. the sign flipped), or in float64 one close to the central difference but not that difference to rounding (the exact gradient from autograd hidden from the grader's recorder)"),
    },
    "input_gradient": {
        "touches_param_grad": N_("a parameter's `.grad` changed: `backward()` was used, or `zero_grad()` wiped the stale gradients"),
        "modifies_input": N_("the caller's `x` now requires grad, has a `.grad`, or other values"),
        "non_scalar_output": N_('autograd was started from the non-scalar `model(x)`: "grad can be implicitly created only for scalar outputs"'),
        "no_requires_grad": N_("the differentiated tensor had no graph: the input did not require grad, or the forward ran under `torch.no_grad()`"),
        "not_in_graph": N_("the gradient was asked with respect to a tensor the model never saw (a leaf copy made, but the model run on the original `x`)"),
        "wrong_type": N_("not a tensor"),
        "wrong_shape": N_("not shaped like `x` (e.g. only the first example)"),
        "wrong_reduction": N_("the gradient of the mean of the outputs instead of their sum"),
        "wrong_value": N_("any other wrong gradient (also: the parameters were changed; a result close to the gradient but not, row by row, autograd's own float32 numbers, or made while no `autograd.grad` or `backward()` ran: a finite difference on a float64 copy of the model)"),
    },
    "train_step": LESSON3,
    "train_accumulated": LESSON3,
    "manual_sgd_step": LESSON3,
    "predict": {
        "ok": N_("correct"),
        "builds_graph": N_("the forward pass ran with tracking on and the output has a `grad_fn` (e.g. `eval()` without `no_grad()`)"),
        "detach_only": N_("tracking was on during the forward pass, the output was detached afterwards"),
        "not_eval": N_("the forward pass ran in training mode (dropout active), e.g. `no_grad()` without `eval()`, or `model.training = False` set by hand"),
        "mode_not_restored": N_("left in eval mode after a call that started in train mode, or switched to train mode after a call that started in eval mode"),
        "not_restored_on_error": N_("when the forward pass raised, the model stayed in eval mode (no `finally`)"),
        "swallows_error": N_("the forward pass's exception did not reach the caller"),
        "grad_left_off": N_("tracking was still off (or inference mode still on) after the call (`torch.set_grad_enabled(False)` as a statement)"),
        "wrong_output": N_("not the model's eval-mode output (argmax, softmax, a list, the model never called)"),
    },
    "evaluate": {
        "ok": N_("correct"),
        "builds_graph": N_("a forward pass ran with tracking on (also `total += loss` without `no_grad()`)"),
        "not_eval": N_("a forward pass ran in training mode"),
        "mode_not_restored": N_("the model's previous mode was not restored"),
        "grad_left_off": N_("tracking still off after the call"),
        "returns_tensor": N_("returned a tensor instead of a Python float"),
        "sum_not_mean": N_("the sum of the per-batch losses"),
        "last_batch_only": N_("the loss of the last batch only"),
        "weighted_by_examples": N_("the per-example mean (each batch weighted by its size) instead of the per-batch mean"),
        "swapped_loss_args": N_("the loss is called as `loss_fn(y, output)` (fails with cross-entropy; harmless with MSE)"),
        "wrong_value": N_("any other value, a non-float, or the model never called"),
    },
    "head_forward": {
        "ok": N_("correct"),
        "backbone_tracked": N_("the backbone ran with tracking on and backward reached its parameters"),
        "detach_only": N_("the backbone ran with tracking on, its output was detached afterwards"),
        "head_not_tracked": N_("the head ran with tracking off (or its output was detached): backward cannot train it"),
        "inference_tensor": N_("features made under `inference_mode()` were fed to the tracked head (PyTorch raises)"),
        "froze_params": N_("`requires_grad` of some parameter was changed"),
        "grad_left_off": N_("tracking still off after the call"),
        "wrong_output": N_("not `head(backbone(x))`, wrong head gradients, or a model never called"),
    },
}

# fmt: on

# The section to read again, per code; "" is the exercise's default (the section that teaches what
# the exercise asks).  Headings as in the source notebooks, without "## ".
REVISIT: dict[str, dict[str, str]] = {
    "graph_ops": {
        "": "5. Walking the graph: `next_functions`",
        "crashes_on_leaf": "4. Leaves",
        "missing_leaves": "5. Walking the graph: `next_functions`",
        "includes_none": "5. Walking the graph: `next_functions`",
        "wrong_names": "5. Walking the graph: `next_functions`",
        "duplicates": "5. Walking the graph: `next_functions`",
        "dedupe_by_name": "5. Walking the graph: `next_functions`",
        "depth_first": "5. Walking the graph: `next_functions`",
        "wrong_order": "5. Walking the graph: `next_functions`",
    },
    "freeze_all_but": {"": "8. Freezing parameters"},
    "make_trainable": {
        "": "1. A tensor that requires grad",
        "not_leaf": "4. Leaves",
        "no_requires_grad": "7. Switching tracking on and off",
        "shares_input": "7. Switching tracking on and off",
    },
    "derivative": {
        "": "1. `backward()` fills `.grad`",
        "finite_difference": "Going deeper (optional): choosing `eps`, and `gradcheck`",
        "wrong_value": "3. The chain rule by hand",
    },
    "finite_difference_grad": {
        "": "2. What a gradient means: a nudge",
        "ignores_eps": "Going deeper (optional): choosing `eps`, and `gradcheck`",
    },
    "input_gradient": {
        "": "7. `torch.autograd.grad`: gradients without `.grad`",
        "non_scalar_output": "4. A vector output needs a reduction",
        "wrong_reduction": "4. A vector output needs a reduction",
        "no_requires_grad": "1. `backward()` fills `.grad`",
    },
    "train_step": {
        "": "4. The fix: clear every step",
        "never_clears": "3. The bug: forgetting to clear",
        "clears_once": "3. The bug: forgetting to clear",
        "clears_after_step": "5. Where the clear may go, and why first",
        "clears_after_backward": "5. Where the clear may go, and why first",
        "clips_gradients": "Going deeper (optional): more on debugging gradients",
    },
    "train_accumulated": {
        "": "6. Gradient accumulation: one update from several micro-batches",
        "never_clears": "3. The bug: forgetting to clear",
        "clears_once": "3. The bug: forgetting to clear",
        "clears_after_step": "5. Where the clear may go, and why first",
        "clears_after_backward": "5. Where the clear may go, and why first",
        "weighted_by_examples": "Going deeper (optional): accumulation with unequal micro-batches",
        "clips_gradients": "Going deeper (optional): more on debugging gradients",
    },
    "manual_sgd_step": {
        "": "7. Clearing by hand; `None` versus zeros",
        "update_tracked": "7. Clearing by hand; `None` versus zeros",
        "none_grad_crash": "Going deeper (optional): why `None` is cheaper, and what optimizers do with it",
    },
    "predict": {
        "": "4. `model.eval()` is not `no_grad()`",
        "builds_graph": "2. `torch.no_grad()`",
        "detach_only": "6. `detach()` or `no_grad()`: a frozen backbone",
        "mode_not_restored": "5. Switching to eval and back: `try` / `finally`",
        "not_restored_on_error": "5. Switching to eval and back: `try` / `finally`",
        "swallows_error": "5. Switching to eval and back: `try` / `finally`",
        "grad_left_off": "Going deeper (optional): `torch.set_grad_enabled(False)` as a statement",
    },
    "evaluate": {
        "": "7. Validation loops: keep numbers, not loss tensors",
        "not_eval": "4. `model.eval()` is not `no_grad()`",
        "mode_not_restored": "5. Switching to eval and back: `try` / `finally`",
        "grad_left_off": "Going deeper (optional): `torch.set_grad_enabled(False)` as a statement",
    },
    "head_forward": {
        "": "6. `detach()` or `no_grad()`: a frozen backbone",
        "inference_tensor": "Going deeper (optional): `torch.inference_mode()`",
        "grad_left_off": "Going deeper (optional): `torch.set_grad_enabled(False)` as a statement",
    },
}


def meaning(exercise: str, code: str) -> str:
    """The code's meaning in words ("" for a code nobody documented: a test keeps that from happening)."""
    return MEANINGS.get(exercise, {}).get(code) or SHARED.get(code, "")


def named_codes(exercise: str, text: str, own: str = "") -> list[str]:
    """The codes of ``exercise`` (or shared ones) that ``text`` names in backticks, other than ``own``:
    a meaning that says "also what a fresh start shows for `clears_once`" names a code the reader
    may not have met yet."""
    known = {**SHARED, **MEANINGS.get(exercise, {})}
    found = []
    for name in re.findall(r"`([A-Za-z_]+)`", text):
        if name in known and name != own and name not in found:
            found.append(name)
    return found


# i18n: joins a code's meaning to the meaning of another code it names ("...; `clears_once` means: ...")
MEANS = N_("`{code}` means: {meaning}")


def _english(message: str) -> str:
    return message


def explained(exercise: str, code: str, say=_english) -> str:
    """The code's meaning, followed by the meaning of every other code it names, so that each code
    shown is explained where it appears ("...; `clears_once` means: clears once before the loop ...").
    ``say`` puts a meaning into the reader's language: English (the report) unless told."""
    words = meaning(exercise, code)
    # The codes a meaning names are read from the English table: a translation keeps them as they are.
    others = [
        say(MEANS).format(code=name, meaning=say(meaning(exercise, name)))
        for name in named_codes(exercise, words, code)
    ]
    return "; ".join([say(words), *others])


def in_words(exercise: str, code: str) -> str:
    """``explained`` for a documented code in the learner's language, "" for any other (an error's
    name): what a verdict's ``[code]`` is shown with, wherever a verdict is shown."""
    return explained(exercise, code, say=_) if meaning(exercise, code) else ""


def revisit(exercise: str, code: str) -> str:
    """The heading of the lesson section to read again after getting ``code`` in ``exercise``."""
    sections = REVISIT.get(exercise, {})
    return sections.get(code) or sections.get("", "")


def table(exercises: list[str]) -> str:
    """The markdown table (docs/codes.md) of the codes of ``exercises`` (one table when they share theirs);
    ``["shared"]`` gives the shared codes."""
    found = {e: SHARED if e == "shared" else MEANINGS[e] for e in exercises}
    one = len({id(codes) for codes in found.values()}) == 1
    rows = ["| code | meaning |", "| --- | --- |"] if one else ["| exercise | code | meaning |", "| --- | --- | --- |"]
    for exercise in exercises[:1] if one else exercises:
        for code, words in found[exercise].items():
            rows.append(f"| `{code}` | {words} |" if one else f"| `{exercise}` | `{code}` | {words} |")
    return "\n".join(rows)
