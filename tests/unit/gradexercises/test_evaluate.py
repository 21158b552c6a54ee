"""evaluate: the reference losses, and that the hypotheses are told apart on every seed."""

import torch

from autograder.diagnose import diagnose_function
from gradebox.exercises._lesson4 import build_batches, build_loss, build_model
from gradexercises.evaluate import job as exercise
from gradexercises.evaluate import judge as judge
from tests.judging import observations_of


def test_reference_matches_eval_loop():
    scenario = exercise.suite(seed=2)[0]
    model, loss_fn = build_model(scenario), build_loss(scenario)
    model.eval()
    with torch.no_grad():
        expected = [loss_fn(model(x), y).item() for x, y in build_batches(scenario)]
    losses, sizes = judge.reference_losses(scenario)
    assert losses == expected
    assert sizes == [len(x) for x, _ in build_batches(scenario)]


def test_batches_always_unequal():
    for seed in (0, 1, 2, 21):
        for scenario in exercise.suite(seed=seed):
            losses, sizes = judge.reference_losses(scenario)
            assert len(set(sizes)) > 1
            mean = sum(losses) / len(losses)
            weighted = sum(loss * n for loss, n in zip(losses, sizes)) / sum(sizes)
            others = [sum(losses), losses[-1], weighted]
            assert all(abs(mean - other) > 1e-3 for other in others)


def test_float_subclass_accepted():
    class MyFloat(float):
        pass

    def correct(model, loss_fn, batches):
        was = model.training
        model.eval()
        with torch.no_grad():
            values = [loss_fn(model(x), y).item() for x, y in batches]
        model.train(was)
        return MyFloat(sum(values) / len(values))

    assert diagnose_function("evaluate", correct, seed=21)[0].code == "ok"


def test_0d_tensor_is_returns_tensor():
    def tensor_mean(model, loss_fn, batches):
        was = model.training
        model.eval()
        with torch.no_grad():
            result = torch.stack([loss_fn(model(x), y) for x, y in batches]).mean()
        model.train(was)
        return result

    assert diagnose_function("evaluate", tensor_mean)[0].code == "returns_tensor"


def test_mean_of_items_told_to_convert():
    """Told to convert the final value, not to use .item(), which it already uses."""

    def mean_of_items(model, loss_fn, batches):
        was = model.training
        model.eval()
        losses = torch.zeros(len(batches))
        with torch.no_grad():
            for k, (x, y) in enumerate(batches):
                losses[k] = loss_fn(model(x), y).item()
        model.train(was)
        return losses.mean()

    verdict, _ = diagnose_function("evaluate", mean_of_items)
    assert verdict.code == "returns_tensor"
    assert "loss.item()" not in verdict.message and "final value" in verdict.message


def test_mistakes_named_worst_first():
    def nanogpt_estimate_loss(model, loss_fn, batches):
        model.eval()
        losses = torch.zeros(len(batches))
        with torch.no_grad():
            for k, (x, y) in enumerate(batches):
                losses[k] = loss_fn(model(x), y).item()
        model.train()
        return losses.mean()

    verdict, _ = diagnose_function("evaluate", nanogpt_estimate_loss)
    assert verdict.code == "mode_not_restored"
    assert "Also: your function returned a tensor" in verdict.message


def test_swap_named_if_asymmetric():
    def swapped(model, loss_fn, batches):
        was = model.training
        model.eval()
        with torch.no_grad():
            losses = [loss_fn(y, model(x)).item() for x, y in batches]
        model.train(was)
        return sum(losses) / len(losses)

    assert diagnose_function("evaluate", swapped)[0].code == "swapped_loss_args"
    regressors = [s for s in exercise.suite() if s.kind == "regressor"]
    assert judge.judge(regressors, observations_of("evaluate", swapped, regressors)).code == "ok"
