"""Lesson 2's recorder (gradebox/exercises/_lesson2.py) and the judges that read its notes: what it
sees below the student's objects, how it knows it was removed, and judges that give nothing for
forged or contradictory notes while correct code keeps passing, through the notebook's self-check."""

from __future__ import annotations

import copy
import math

import pytest
import torch

from autograder.checks import NotYet, check
from autograder.judge._lesson2 import contradiction
from gradebox.exercises._lesson2 import (
    MAX_EVALUATIONS,
    MAX_GRADIENT_NUMEL,
    SCALAR_FUNCTIONS,
    AutogradRecorder,
    recorded_call,
)
from gradexercises.derivative import job as derivative_ex
from gradexercises.derivative import judge as derivative_judge
from gradexercises.finite_difference_grad import job as fdg_ex
from gradexercises.finite_difference_grad import judge as fdg_judge
from gradexercises.input_gradient import job as input_ex
from gradexercises.input_gradient import judge as input_judge
from tests.judging import observations_of
from tests.lesson2_attacks import ATTACKS, CASES, CORRECT, function_of

SQUARE = SCALAR_FUNCTIONS["square"]


def _stack_depth() -> int:
    return torch._C._len_torch_function_stack()


# ---- what the recorder sees ----------------------------------------------------------------------


def test_the_recorder_counts_every_evaluation_of_the_function_however_it_is_reached():
    def student():
        SQUARE(torch.tensor(1.0))  # the function handed over
        SCALAR_FUNCTIONS["square"](2.0)  # the module's own entry, with a plain number
        return None

    _, notes, raised = recorded_call(student, watched=SQUARE)
    assert raised is None and notes["intact"]
    assert notes["n_evaluations"] == 2 and len(notes["evaluations"]) == 2
    assert notes["evaluations"][1]["tensor"] is False and notes["evaluations"][1]["value"] == 2.0


def test_an_evaluation_on_a_tracked_tensor_is_noted_as_building_a_graph():
    def student():
        t = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
        SQUARE(t).backward()
        return t.grad.item()

    value, notes, _ = recorded_call(student, watched=SQUARE)
    (note,) = notes["evaluations"]
    assert note["requires_grad"] and note["graph"] and notes["graph_built"]
    assert notes["backward_calls"] == 1 and value == 1.0


def test_gradients_are_copied_when_backward_returns_before_the_code_can_change_them():
    def student():
        t = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
        SQUARE(t).backward()
        t.grad.mul_(0.5)  # rewritten in place afterwards
        (again,) = torch.autograd.grad(SQUARE(t), t)
        return again

    _, notes, _ = recorded_call(student, watched=SQUARE)
    assert [g.item() for g in notes["gradients"]] == [6.0, 6.0]
    assert notes["grad_calls"] == 1 and notes["n_gradients"] == 2


def test_a_tensor_switched_to_requires_grad_by_assignment_is_followed():
    def student():
        t = torch.tensor([1.0, 2.0])
        t.requires_grad = True
        (t * t).sum().backward()

    _, notes, _ = recorded_call(student)
    assert notes["graph_built"] and [g.tolist() for g in notes["gradients"]] == [[2.0, 4.0]]


def test_plain_arithmetic_builds_no_graph():
    _, notes, _ = recorded_call(lambda: (torch.ones(3) * 2).sum() + SQUARE(torch.ones(())), watched=SQUARE)
    assert not notes["graph_built"] and notes["backward_calls"] == notes["grad_calls"] == 0


def test_the_notes_are_bounded():
    def student():
        for _ in range(MAX_EVALUATIONS + 50):
            SQUARE(torch.zeros(()))
        big = torch.zeros(MAX_GRADIENT_NUMEL + 1, requires_grad=True)
        torch.autograd.grad(big.sum(), big)

    _, notes, _ = recorded_call(student, watched=SQUARE)
    assert notes["n_evaluations"] == MAX_EVALUATIONS + 50 and len(notes["evaluations"]) == MAX_EVALUATIONS
    assert notes["n_gradients"] == 1 and notes["gradients"] == []
    assert contradiction(notes) is None


def test_an_evaluation_that_raises_and_is_caught_is_counted_and_noted():
    def student():
        try:
            SQUARE("not a number")
        except (TypeError, ValueError):
            pass
        return SQUARE(torch.ones(()))

    _, notes, _ = recorded_call(student, watched=SQUARE)
    assert notes["n_evaluations"] == len(notes["evaluations"]) == 2 and contradiction(notes) is None


def test_an_exception_comes_back_beside_the_notes_and_the_stack_is_left_clean():
    def student():
        SQUARE(torch.ones(()))
        raise ValueError("boom")

    depth = _stack_depth()
    value, notes, raised = recorded_call(student, watched=SQUARE)
    assert value is None and isinstance(raised, ValueError) and notes["n_evaluations"] == 1
    assert _stack_depth() == depth


# ---- presence when the call ends ---------------------------------------------------------------------


def _pop_all():
    while torch._C._len_torch_function_stack():
        torch._C._pop_torch_function_stack()


def _disable_and_stay():
    torch._C.DisableTorchFunction().__enter__()


def _push_own_mode():
    class Quiet(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            with torch._C.DisableTorchFunction():
                return func(*args, **(kwargs or {}))

    torch._C._push_on_torch_function_stack(Quiet())


def _replace_method():
    recorder = torch.overrides._get_current_function_mode_stack()[-1]
    recorder.__torch_function__ = lambda func, types, args=(), kwargs=None: func(*args, **(kwargs or {}))


def _swap_class():
    class Other(AutogradRecorder):
        pass

    torch.overrides._get_current_function_mode_stack()[-1].__class__ = Other


def _push_dispatch_mode():
    from torch.utils._python_dispatch import TorchDispatchMode

    class Rewrites(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    Rewrites().__enter__()


@pytest.mark.parametrize(
    "tamper", [_pop_all, _disable_and_stay, _push_own_mode, _replace_method, _swap_class, _push_dispatch_mode]
)
def test_a_recorder_removed_disabled_covered_or_replaced_is_not_intact_and_torch_is_restored(tamper):
    depth, state = _stack_depth(), torch._C._get_torch_function_state()
    _, notes, raised = recorded_call(tamper)
    assert raised is None and notes["intact"] is False
    assert "no longer in place" in contradiction(notes)
    assert _stack_depth() == depth and torch._C._get_torch_function_state() == state
    assert torch._C._len_torch_dispatch_stack() == 0


def test_a_mode_pushed_before_the_call_is_taken_off_for_it_and_not_put_back():
    """A student's mode left on the stack when the file or the notebook ran would answer for the
    torch functions below the recorder, and rewrite what the job copies into the record after it."""

    class Lies(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return torch.zeros(()) if func is torch.Tensor.clone else func(*args, **(kwargs or {}))

    torch._C._push_on_torch_function_stack(Lies())
    try:
        _, notes, _ = recorded_call(lambda: SQUARE(torch.ones(())), watched=SQUARE)
        assert notes["intact"] and notes["n_evaluations"] == 1
        assert _stack_depth() == 0 and torch.ones(()).clone().item() == 1.0
    finally:
        while _stack_depth():
            torch._C._pop_torch_function_stack()


def test_an_untouched_recorder_is_intact():
    _, notes, _ = recorded_call(lambda: SQUARE(torch.ones(())), watched=SQUARE)
    assert notes["intact"] and contradiction(notes) is None


# ---- the judges on forged and contradictory notes ---------------------------------------------------


def _derivative_obs(fn, point):
    (obs,) = observations_of("derivative", fn, [point])
    return obs


def _autograd64(f, x):
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    f(t).backward()
    return t.grad.item()


POINT = derivative_ex.suite()[0]


@pytest.mark.parametrize(
    "forge, why",
    [
        (lambda n: n.update(intact=False), "no longer in place"),
        (lambda n: n.update(evaluations=[]), "does not match its count"),
        (lambda n: n.update(backward_calls=0), "no backward() or autograd.grad produced them"),
        (lambda n: n.update(n_gradients=0), "more gradients than it counted"),
        (lambda n: n.update(graph_built=False), "never built"),
    ],
)
def test_derivative_notes_that_contradict_themselves_are_tampered(forge, why):
    obs = _derivative_obs(_autograd64, POINT)
    assert derivative_judge.judge([POINT], [obs]).code == "ok"
    forge(obs["autograd"])
    verdict = derivative_judge.judge([POINT], [obs])
    assert verdict.code == "tampered" and why in verdict.message


def test_derivative_right_number_without_the_gradient_in_the_notes_is_tampered():
    obs = _derivative_obs(_autograd64, POINT)
    obs["autograd"]["gradients"] = [torch.tensor(123.0, dtype=torch.float64)]
    verdict = derivative_judge.judge([POINT], [obs])
    assert verdict.code == "tampered" and "no backward() or autograd.grad" in verdict.message


def test_derivative_a_finite_difference_with_forged_notes_earns_nothing():
    """Notes rewritten to say autograd produced a central difference: the number still decides."""
    points = derivative_ex.suite("all", 0)
    forged = [_derivative_obs(_autograd64, point) for point in points]
    for point, obs in zip(points, forged):
        f, h = SCALAR_FUNCTIONS[point.function], 1e-6
        up, down = (f(torch.tensor(point.x + s, dtype=torch.float64)) for s in (h, -h))
        estimate = ((up - down) / (2 * h)).item()
        obs["returned"]["number"] = estimate
        obs["autograd"]["gradients"] = [torch.tensor(estimate, dtype=torch.float64)]
    verdict = derivative_judge.judge(points, forged)
    assert verdict.code == "wrong_value" and "not the number autograd gives" in verdict.message


@pytest.mark.parametrize("seed", [0, 11])
def test_derivative_float32_autograd_passes_within_the_judges_own_float32_runs(seed):
    for point in derivative_ex.suite("all", seed):
        runs = derivative_judge.references32(point)
        assert max(runs) == min(runs)  # the honest float32 variants agree to the bit
        assert derivative_judge.autograd_slope(point, runs[0])
        away = torch.tensor(math.copysign(math.inf, runs[0]))  # away from 0: the ulps only grow
        off = torch.tensor(runs[0], dtype=torch.float32)
        for _ in range(2):
            off = torch.nextafter(off, away)
        assert not derivative_judge.autograd_slope(point, off.item())  # two float32 ulps off: not autograd's


@pytest.mark.parametrize("seed", [0, 11])
def test_derivative_no_fixed_step_central_difference_passes_a_whole_suite_in_float64(seed):
    for h in (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8):
        results = []
        for point in derivative_ex.suite("all", seed):
            f = SCALAR_FUNCTIONS[point.function]
            up, down = (f(torch.tensor(point.x + s, dtype=torch.float64)) for s in (h, -h))
            results.append(derivative_judge.autograd_slope(point, ((up - down) / (2 * h)).item()))
        assert not all(results), h


def _fdg_correct(f, x, eps=1e-4):
    return function_of(CASES["fdg_correct"][1], "finite_difference_grad")(f, x, eps)


def test_finite_difference_grad_the_exact_gradient_with_clean_notes_is_not_a_difference():
    """The notes say f was called twice per entry and never with autograd: the number still decides."""
    scenarios = [s for s in fdg_ex.suite("all", 0) if s.dtype == "float64"]
    observations = observations_of("finite_difference_grad", _fdg_correct, scenarios)
    for scenario, obs in zip(scenarios, observations):
        x = fdg_ex.make_x(scenario)
        obs["returned"]["tensor"] = fdg_judge.autograd_grad(fdg_ex.FIELD_FUNCTIONS[scenario.function], x)
        verdict = fdg_judge.judge([scenario], [obs])
        assert verdict.code in ("wrong_value", "ignores_eps"), verdict.message


def test_finite_difference_grad_the_difference_with_too_few_calls_recorded_is_tampered():
    scenario = fdg_ex.suite("all", 0)[1]
    (obs,) = observations_of("finite_difference_grad", _fdg_correct, [scenario])
    assert fdg_judge.judge([scenario], [obs]).code == "ok"
    notes = obs["autograd"]
    notes["n_evaluations"], notes["evaluations"] = 1, notes["evaluations"][:1]
    verdict = fdg_judge.judge([scenario], [obs])
    assert verdict.code == "tampered" and "evaluated 1 times" in verdict.message


def test_finite_difference_grad_a_graph_in_the_notes_is_autograd():
    scenario = fdg_ex.suite("all", 0)[0]
    (obs,) = observations_of("finite_difference_grad", _fdg_correct, [scenario])
    obs["autograd"]["graph_built"] = True
    assert fdg_judge.judge([scenario], [obs]).code == "used_autograd"


def _fd64(model, x):
    return function_of(ATTACKS["input_gradient_fd64"][1], "input_gradient")(model, x)


def test_input_gradient_a_float64_difference_with_forged_notes_is_not_autograds_numbers():
    scenarios = input_ex.suite("all", 0)
    observations = observations_of("input_gradient", _fd64, scenarios)
    for obs in observations:
        obs["autograd"].update(grad_calls=1, n_gradients=1, graph_built=True)
        obs["autograd"]["gradients"] = [obs["returned"]["tensor"].double()]
    verdict = input_judge.judge(scenarios, observations)
    assert verdict.code == "wrong_value" and "not the ones torch.autograd.grad produced" in verdict.message


@pytest.mark.parametrize("seed", [0, 13])
def test_input_gradient_honest_variants_are_bit_equal_to_one_of_the_judges_runs(seed):
    def with_backward(model, x):
        model, leaf = copy.deepcopy(model), x.detach().clone().requires_grad_()
        model(leaf).sum().backward()
        return leaf.grad

    def with_func(model, x):
        params = dict(model.named_parameters())
        return torch.func.grad(lambda z: torch.func.functional_call(model, params, (z,)).sum())(x)

    def jacobian_summed(model, x):
        jacobian = torch.autograd.functional.jacobian(model, x.detach().clone())
        return jacobian.sum(dim=(0, 1))

    for probe in input_ex.suite("all", seed):
        runs = input_judge.references(probe)
        for variant in (with_backward, with_func, jacobian_summed):
            model, x = input_ex.build(probe)
            assert input_judge.autograd_rows(variant(model, x), runs), (variant.__name__, probe)
        model, x = input_ex.build(probe)
        assert not input_judge.autograd_rows(_fd64(model, x).double(), runs)  # another dtype


# ---- every attack and its correct neighbours through the notebook's self-check ---------------------


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", [0, 11])
def test_each_attack_fails_the_self_check_and_each_correct_answer_passes(name, seed, capsys):
    exercise, source, passes = CASES[name]
    fn = function_of(source, exercise)
    if passes:
        check(exercise, fn, seed=seed)
        assert "passed" in capsys.readouterr().out
    else:
        with pytest.raises(NotYet):
            check(exercise, fn, seed=seed)


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_answers_keep_the_old_verdicts_meaning(name):
    exercise, source, _ = CORRECT[name]
    from tests.judging import verdict_of

    assert verdict_of(exercise, function_of(source, exercise)).code == "ok"
