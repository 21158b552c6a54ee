"""A function that makes two mistakes hears about both at once, the more important first (the order of
``autograder/codes.py``), each with the case it showed in: fixing one must not reveal the other
only on the next run.

Beside autograder/judge/ (how its verdicts combine, in the order of codes.py)."""

import torch

from autograder.codes import MEANINGS
from gradebox import exercises
from tests.judging import verdict_of


def position(message: str, words: str) -> int:
    assert words in message, f"{words!r} not in: {message}"
    return message.index(words)


def detr_style_predict(model, x):
    # Switches to eval mode for good and turns tracking off as a statement, as some inference
    # scripts do at the top of main().
    model.eval()
    torch.set_grad_enabled(False)
    return model(x)


def test_predict_both_in_code_order():
    verdict = verdict_of("predict", detr_style_predict)
    order = list(MEANINGS["predict"])
    assert order.index("mode_not_restored") < order.index("grad_left_off")
    assert verdict.code == "mode_not_restored"
    assert position(verdict.message, "eval mode") < position(verdict.message, "tracking was still off")
    torch.set_grad_enabled(True)


def weighted_evaluate(model, loss_fn, batches):
    model.eval()  # never restored
    total, count = 0.0, 0
    with torch.no_grad():
        for x, y in batches:
            total += loss_fn(model(x), y).item() * len(x)
            count += len(x)
    return total / count


def test_evaluate_mode_and_averaging():
    verdict = verdict_of("evaluate", weighted_evaluate)
    assert verdict.code == "mode_not_restored"
    assert "Also" in verdict.message
    assert position(verdict.message, "restore") < position(verdict.message, "weighted each batch")


def accumulate_clearing_after_step_returning_scaled_losses(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y) / accum_steps
        loss.backward()
        losses.append(loss.item())  # the scaled loss, not the micro-batch's
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return losses


def test_late_clear_and_scaled_losses():
    verdict = verdict_of("train_accumulated", accumulate_clearing_after_step_returning_scaled_losses)
    assert verdict.code == "clears_after_step"
    assert position(verdict.message, "only after step()") < position(verdict.message, "divided by accum_steps")


def rebinding_step_without_none_check(params, lr):
    with torch.no_grad():
        for p in params:
            p = p - lr * p.grad  # a new tensor bound to the loop's name; and no check for None
            p.grad = None


def test_wrong_update_beats_crash():
    verdict = verdict_of("manual_sgd_step", rebinding_step_without_none_check)
    order = list(MEANINGS["manual_sgd_step"])
    assert order.index("wrong_update") < order.index("none_grad_crash")
    assert verdict.code == "wrong_update"
    assert position(verdict.message, "in place") < position(verdict.message, "None")


def skipping_none_but_rebinding(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p = p - lr * p.grad


def test_wrong_update_and_no_clear():
    verdict = verdict_of("manual_sgd_step", skipping_none_but_rebinding)
    order = list(MEANINGS["manual_sgd_step"])
    assert verdict.code == min("no_clear", "wrong_update", key=order.index)
    assert "did not change" in verdict.message and "were not cleared" in verdict.message


def halves_stale_gradients(model, optimizer, loss_fn, x, y):
    # Right from a fresh start (and on every later call, after zero_grad()); from stale gradients
    # the first step sees half of them on top of the batch's gradient, which no clearing mistake gives.
    for p in model.parameters():
        if p.grad is not None:
            p.grad.mul_(0.5)
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()


def test_wrong_grad_shows_scenario():
    verdict = verdict_of("train_step", halves_stale_gradients)
    assert verdict.code == "wrong_gradient"
    assert "stale gradients already in .grad" in verdict.message
    assert "every .grad None at the start" not in verdict.message


def func_grad_derivative(f, x):
    return float(torch.func.grad(f)(torch.tensor(float(x))))


def test_func_grad_passes_no_backward():
    verdict = verdict_of("derivative", func_grad_derivative)
    assert verdict.passed, verdict.message
    assert "backward" not in verdict.message


def test_crash_spares_other_cases():
    def crashes_from_eval_mode(model, x):
        if not model.training:
            raise RuntimeError("only written for training mode")
        with torch.no_grad():
            return model(x)  # and never switched to eval mode

    verdict = verdict_of("predict", crashes_from_eval_mode)
    # predict's table of codes does not list `error`: the crash is named where it happened, after
    # the mistake of the first case (which starts in train mode).
    assert exercises.get("predict").suite()[0].start == "train"
    assert verdict.code == "not_eval"
    assert position(verdict.message, "training mode") < position(verdict.message, "RuntimeError")
    assert "Also, in another case" in verdict.message


def test_first_case_crash_named_first():
    def crashes_on_a_0d_tensor(f, x, eps=1e-4):
        if x.dim() == 0:
            raise ValueError("this function only handles tensors with at least one dimension")
        return torch.zeros_like(x)  # and wrong everywhere else

    assert exercises.get("finite_difference_grad").suite()[0].shape == ()  # the 0-d case comes first
    verdict = verdict_of("finite_difference_grad", crashes_on_a_0d_tensor)
    assert verdict.code == "error"
    assert position(verdict.message, "ValueError") < position(verdict.message, "Also, in another case")
