"""predict: the judge's reference, the error scenario and the inference-mode path."""

import torch

from autograder.diagnose import diagnose_function
from autograder.judge._lesson4 import reference_outputs
from gradebox.exercises._lesson4 import build_batches, build_model
from gradexercises.predict import job as exercise


def correct(model, x):
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            return model(x)
    finally:
        model.train(was)


def test_reference_is_eval_no_grad():
    scenario = exercise.suite(seed=3)[0]
    model = build_model(scenario)
    ((x, _),) = build_batches(scenario)
    model.eval()
    with torch.no_grad():
        expected = model(x)
    assert torch.equal(reference_outputs(scenario, [x])[0], expected)


def test_suite_both_modes_then_raise():
    for seed in (0, 1, 11):
        scenarios = exercise.suite(seed=seed)
        assert {s.start for s in scenarios} == {"train", "eval"}
        assert scenarios[-1].raises and not any(s.raises for s in scenarios[:-1])


def test_models_drop_out_in_training():
    scenario = exercise.suite()[0]
    model = build_model(scenario)
    ((x, _),) = build_batches(scenario)
    with torch.no_grad():
        assert not torch.equal(model(x), model(x))


def test_correct_passes_every_seed():
    for seed in (0, 1, 11):
        assert diagnose_function("predict", correct, seed=seed)[0].code == "ok"


def test_wrapped_exception_propagates():
    def wraps(model, x):
        try:
            return correct(model, x)
        except ValueError as err:
            raise RuntimeError("prediction failed") from err

    assert diagnose_function("predict", wraps)[0].code == "ok"


def test_unrelated_exception_is_error():
    def raises_its_own(model, x):
        raise KeyError("oops")

    assert diagnose_function("predict", raises_its_own)[0].code == "error"


def test_inference_mode_is_no_grad():
    def with_inference_mode(model, x):
        was = model.training
        model.eval()
        try:
            with torch.inference_mode():
                return model(x)
        finally:
            model.train(was)

    assert diagnose_function("predict", with_inference_mode)[0].code == "ok"


def test_left_in_eval_mode_caught():
    def no_restore(model, x):
        model.eval()
        with torch.no_grad():
            return model(x)

    verdict, _ = diagnose_function("predict", no_restore)
    assert verdict.code == "mode_not_restored"
    assert "model.train(was_training)" in verdict.message
