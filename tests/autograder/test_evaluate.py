"""evaluate: the reference losses, and that the hypotheses are told apart on every seed."""

import torch

from autograder.diagnose import diagnose_function
from autograder.exercises import evaluate as exercise
from autograder.exercises._inference import build_batches, build_loss, build_model


def test_reference_losses_match_a_plain_eval_mode_loop():
    scenario = exercise.suite(seed=2)[0]
    model, loss_fn = build_model(scenario), build_loss(scenario)
    model.eval()
    with torch.no_grad():
        expected = [loss_fn(model(x), y).item() for x, y in build_batches(scenario)]
    losses, sizes = exercise.reference_losses(scenario)
    assert losses == expected
    assert sizes == [len(x) for x, _ in build_batches(scenario)]


def test_every_scenario_has_unequal_batches_so_the_hypotheses_differ():
    for seed in (0, 1, 2, 21):
        for scenario in exercise.suite(seed=seed):
            losses, sizes = exercise.reference_losses(scenario)
            assert len(set(sizes)) > 1
            mean = sum(losses) / len(losses)
            weighted = sum(loss * n for loss, n in zip(losses, sizes)) / sum(sizes)
            others = [sum(losses), losses[-1], weighted]
            assert all(abs(mean - other) > 1e-3 for other in others)


def test_a_numpy_style_float_subclass_is_accepted():
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


def test_a_zero_dimensional_tensor_is_returns_tensor():
    def tensor_mean(model, loss_fn, batches):
        was = model.training
        model.eval()
        with torch.no_grad():
            result = torch.stack([loss_fn(model(x), y) for x, y in batches]).mean()
        model.train(was)
        return result

    assert diagnose_function("evaluate", tensor_mean)[0].code == "returns_tensor"
