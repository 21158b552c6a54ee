"""Lesson 4's recorder (gradebox/exercises/_lesson4/recorder.py) and the judges that read it: what it
sees of a call from below the student's objects, that it notices being switched off and puts torch's
stacks back, and that the judges give no pass on a forged or incomplete trace."""

from __future__ import annotations

import copy

import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from autograder.judge import get as judge_of
from autograder.judge.validate import InvalidRecord, check
from gradebox import exercises
from gradebox.exercises._lesson4 import build_batches, build_loss, build_model
from gradexercises.evaluate import job as evaluate
from gradexercises.head_forward import job as head_forward
from gradexercises.predict import job as predict
from tests.judging import observations_of, verdict_of
from tests.lesson4_hostile import ATTACKS, CORRECT, OWN_PROCESS


def _load(source: str, name: str):
    namespace = {"__name__": "submission"}
    exec(compile(source, f"<{name}>", "exec"), namespace)
    return namespace[name]


@pytest.fixture
def scene():
    """A predict scenario's model (starting in train mode) and input, and a recorder over them."""
    scenario = predict.suite()[0]
    model = build_model(scenario)
    ((x, _),) = build_batches(scenario)
    return model, x, predict.recorder_for(model, x)


def _stacks_clean() -> bool:
    return (
        torch._C._len_torch_function_stack() == 0
        and torch._C._len_torch_dispatch_stack() == 0
        and torch._C._autograd._top_saved_tensors_default_hooks(False) is None
        and torch._C._get_torch_function_state() == torch._C._TorchFunctionState.ENABLED
    )


# -- what the recorder sees ------------------------------------------------------------------------


def test_an_untracked_eval_forward_is_seen_whole(scene):
    model, x, recorder = scene
    model.eval()
    with recorder, torch.no_grad():
        out = model(x)
    notes = recorder.notes()
    assert notes["intact"] and notes["hidden_graph"] == 0 and notes["foreign"] == 0
    assert notes["stages"]["model"]["ops"] >= 5
    assert not any(notes["stages"]["model"][flag] for flag in ("grad", "graph", "inference", "training"))
    assert notes["evidence"] == {"forward": True}
    assert recorder.describe(out) == {"seen": True, "reach": ["model", "x"], "foreign": False}
    assert _stacks_clean()


def test_a_tracked_forward_detached_after_is_seen_building_a_graph(scene):
    model, x, recorder = scene
    model.eval()
    with recorder:
        out = model.net(x).detach()  # through the raw net, not the wrapper
    stage = recorder.notes()["stages"]["model"]
    assert stage["grad"] and stage["graph"]
    assert recorder.describe(out)["seen"]


def test_dropout_in_training_mode_is_seen_by_its_flag_not_the_models(scene):
    model, x, recorder = scene
    model.training = False  # the outer module only: dropout inside still trains
    with recorder, torch.no_grad():
        model(x)
    assert recorder.notes()["stages"]["model"]["training"]


def test_reading_a_parameter_with_tracking_on_is_not_a_tracked_forward(scene):
    model, x, recorder = scene
    model.eval()
    with recorder:
        device = next(model.parameters()).device
        with torch.no_grad():
            model(x.to(device))
    assert not recorder.notes()["stages"]["model"]["grad"]


def test_a_graph_built_with_torch_functions_off_is_counted_hidden(scene):
    model, x, recorder = scene
    with recorder, torch._C.DisableTorchFunction():
        out = model(x).detach()
    notes = recorder.notes()
    assert notes["intact"] and notes["hidden_graph"] > 0 and notes["stages"]["model"]["ops"] == 0
    assert recorder.describe(out) == {"seen": False, "reach": [], "foreign": True}


def test_a_graph_built_inside_a_subclass_handler_is_counted_hidden(scene):
    model, x, recorder = scene

    class Sneaky(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            model.net(x).detach()  # a tracked forward, run by the handler out of the mode's sight
            with torch._C.DisableTorchFunctionSubclass():
                return func(*args, **(kwargs or {}))

    with recorder:
        x.as_subclass(Sneaky).sum()
    assert recorder.notes()["hidden_graph"] > 0


@pytest.mark.parametrize(
    "escape",
    [
        lambda: torch._C._pop_torch_function_stack(),
        lambda: torch._C._autograd._pop_saved_tensors_default_hooks(),
        lambda: torch._C.DisableTorchFunction().__enter__(),
        lambda: torch._C._push_on_torch_function_stack(torch.overrides.TorchFunctionMode()),
        lambda: torch._C._autograd._push_saved_tensors_default_hooks(lambda t: t, lambda t: t),
        lambda: torch._C._push_on_torch_dispatch_stack(TorchDispatchMode()),
    ],
    ids=["mode popped", "hooks popped", "torch functions left off", "a mode left on top", "hooks left on top",
         "a dispatch mode left on"],
)  # fmt: skip
def test_a_recorder_not_in_place_at_the_end_is_noticed_and_the_stacks_put_back(scene, escape):
    model, x, recorder = scene
    with recorder:
        escape()
    assert not recorder.notes()["intact"]
    assert _stacks_clean()


class Liar(TorchFunctionMode):
    """A mode a student's file pushes as it loads: it answers for every tensor's grad_fn and memory."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in ("__get__", "untyped_storage"):
            return None
        return func(*args, **(kwargs or {}))


def test_modes_pushed_before_the_call_are_taken_off_for_good(scene):
    model, x, recorder = scene
    torch._C._push_on_torch_function_stack(Liar())
    torch._C._push_on_torch_dispatch_stack(TorchDispatchMode())
    torch._C._set_torch_function_state(torch._C._TorchFunctionState.ALL_DISABLED)
    model.eval()
    with recorder:
        out = model(x).detach()  # tracked: the liar must not hide the graph
    notes = recorder.notes()
    assert notes["intact"] and notes["stages"]["model"]["graph"] and notes["stages"]["model"]["ops"]
    assert recorder.describe(out)["seen"] and _stacks_clean()


def test_the_stacks_are_put_back_when_the_call_raises(scene):
    model, x, recorder = scene
    with pytest.raises(ValueError), recorder:
        model(x[:, :-1])
    assert recorder.notes()["intact"] and _stacks_clean()


def test_a_loss_called_target_first_is_noted():
    scenario = next(s for s in evaluate.suite() if s.kind == "regressor")  # MSE: the swapped call runs
    model, batches = build_model(scenario), build_batches(scenario)
    loss_fn, recorder = build_loss(scenario), evaluate.recorder_for(model, batches)
    (x, y), (x1, y1) = batches[0], batches[1]
    with recorder, torch.no_grad():
        loss_fn(y, model(x))
        loss_fn(model(x1), y1)
    assert recorder.loss_calls == [True, False]


def test_the_model_handed_over_keeps_no_notes(scene):
    model, x, recorder = scene
    with recorder, torch.no_grad():
        model(x)
    assert not any(isinstance(value, list) for value in vars(model).values())
    assert not hasattr(model, "calls") and not hasattr(model, "count")


def _eval_untracked(body):
    def predict(model, x):
        was = model.training
        model.eval()
        try:
            with torch.no_grad():
                return body(model, x)
        finally:
            model.train(was)

    return predict


@pytest.mark.parametrize(
    "body",
    [
        lambda model, x: model(x).clone(),
        lambda model, x: torch.from_numpy(model(x).numpy()),  # from_numpy: no mode sees it
        lambda model, x: copy.deepcopy(model)(x),  # nn.Parameter: made by _make_subclass, no mode sees it
    ],
    ids=["a clone", "through numpy", "a deep copy of the model"],
)
def test_honest_detours_through_functions_no_mode_sees_still_pass(body):
    assert verdict_of("predict", _eval_untracked(body)).code == "ok"


def test_an_evaluate_that_computes_each_loss_by_hand_passes():
    def evaluate(model, loss_fn, batches):
        was = model.training
        model.eval()
        losses = []
        with torch.no_grad():
            for x, y in batches:
                out = model(x)
                if y.dtype == torch.long:  # cross-entropy, written out
                    loss = -(out.log_softmax(dim=1).gather(1, y[:, None])).mean()
                else:
                    loss = ((out - y) ** 2).mean()
                losses.append(loss.item())
        model.train(was)
        return sum(losses) / len(losses)

    assert verdict_of("evaluate", evaluate).code == "ok"


def test_a_forward_with_tracking_on_over_frozen_parameters_is_still_named():
    def freezes(model, x):
        for p in model.parameters():
            p.requires_grad_(False)
        model.eval()
        return model(x)

    assert verdict_of("predict", freezes).code == "detach_only"  # as before: the output has no grad_fn


def test_output_copied_through_python_numbers_is_not_the_forward():
    verdict = verdict_of("predict", _eval_untracked(lambda model, x: torch.tensor(model(x).tolist())))
    assert verdict.code == "wrong_output" and "not computed by the model's forward pass" in verdict.message


# -- attacks, judged in this process (the job's code, the record format, the judge) ----------------


@pytest.mark.parametrize("exercise", sorted(CORRECT))
def test_a_correct_neighbour_passes(exercise):
    assert verdict_of(exercise, _load(CORRECT[exercise], exercise)).code == "ok"


IN_PROCESS = [attack for attack in ATTACKS if attack[1] not in OWN_PROCESS]


@pytest.mark.parametrize(
    "exercise, source, code", [(e, s, c) for e, _, s, c in IN_PROCESS], ids=[f"{e}-{n}" for e, n, _, _ in IN_PROCESS]
)
def test_each_attack_on_the_notes_earns_nothing_and_is_named(exercise, source, code):
    verdict = verdict_of(exercise, load=lambda: _load(source, exercise))
    assert not verdict.passed
    assert verdict.code == code, verdict.message


# -- the judges on forged records -------------------------------------------------------------------


def _correct_observations(exercise: str):
    scenarios = exercises.get(exercise).suite()
    return scenarios, observations_of(exercise, _load(CORRECT[exercise], exercise), scenarios)


def _forged(exercise: str, forge) -> str:
    scenarios, observations = _correct_observations(exercise)
    observations = copy.deepcopy(observations)
    for obs in observations:
        forge(obs)
    judge = judge_of(exercise)
    for scenario, obs in zip(scenarios, observations):
        check(judge.schema(scenario), obs)
    return judge.judge(scenarios, observations).code


def _stage(exercise: str) -> str:
    return "backbone" if exercise == "head_forward" else "model"


@pytest.mark.parametrize("exercise", sorted(CORRECT))
def test_forged_records_get_no_pass(exercise):
    stage = _stage(exercise)
    assert _forged(exercise, lambda obs: None) == "ok"
    assert _forged(exercise, lambda obs: obs["trace"].update(intact=False)) == "tampered"
    assert _forged(exercise, lambda obs: obs["trace"].update(hidden_graph=1)) == "tampered"
    # Notes wiped after the call: the right answer, and nothing seen computing it.
    assert _forged(exercise, lambda obs: obs["trace"]["stages"][stage].update(ops=0)) == "tampered"
    assert _forged(exercise, lambda obs: obs["trace"]["stages"][stage].update(graph=True)) != "ok"


@pytest.mark.parametrize("exercise", ["predict", "head_forward"])
def test_a_returned_tensor_not_seen_made_from_the_forward_gets_no_pass(exercise):
    def returned(**fields):
        return lambda obs: obs["trace"]["returned"] and obs["trace"]["returned"].update(fields)

    assert _forged(exercise, returned(seen=False)) == "tampered"
    assert _forged(exercise, returned(foreign=True)) == "tampered"
    assert _forged(exercise, returned(reach=["x"])) == "wrong_output"


def test_right_mean_from_losses_never_seen_computed_gets_no_pass():
    assert _forged("evaluate", lambda obs: obs["trace"]["scalars"].update(batch0=[])) == "tampered"
    off = lambda obs: obs["trace"]["scalars"].update(batch0=[v + 1 for v in obs["trace"]["scalars"]["batch0"]])  # noqa: E731
    assert _forged("evaluate", off) == "tampered"


def test_a_trace_out_of_shape_is_refused():
    scenarios, observations = _correct_observations("predict")
    schema = judge_of("predict").schema(scenarios[0])
    too_long = copy.deepcopy(observations[0])
    too_long["trace"]["returned"]["reach"] = ["model"] * 101
    missing = copy.deepcopy(observations[0])
    del missing["trace"]["hidden_graph"]
    for forged in (too_long, missing):
        with pytest.raises(InvalidRecord):
            check(schema, forged)


def test_head_forward_stages_split_backbone_from_head():
    scenario = head_forward.suite()[0]
    backbone, head = head_forward.build_pair(scenario)
    ((x, _),) = build_batches(scenario)
    recorder = head_forward.recorder_for(backbone, head, x)
    with recorder:
        with torch.no_grad():
            features = backbone(x)
        out = head(features)
    stages = recorder.notes()["stages"]
    assert not stages["backbone"]["grad"] and not stages["backbone"]["graph"]
    assert stages["head"]["grad"] and stages["head"]["graph"]
    assert recorder.describe(out)["reach"] == ["backbone", "head", "x"]


def test_rebinding_a_name_the_recorder_reads_torch_through_is_a_change(monkeypatch):
    """The recorder reads the grad mode and grad_fn through names taken at import; rebound, they would
    blind it (tests/lesson4_hostile.py's rebinds_the_recorders_reader): the tamper watch sees that."""
    from gradebox.exercises._lesson4 import recorder
    from gradebox.tamper.watch import start_watch

    changes = start_watch()
    monkeypatch.setattr(recorder, "_grad_fn", lambda tensor: None)
    assert "gradebox.exercises._lesson4.recorder._grad_fn" in changes()
