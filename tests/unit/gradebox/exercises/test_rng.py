"""Scenario models are the same whichever thread builds them, and however many build at once.

nn layers draw their first weights from torch's one global generator. ``diagnose`` and ``grade``
judge several submissions at once, in threads, and each judge rebuilds its scenarios' models to
compare with what the student's run recorded. Unless builders take turns, one thread's draws
come from another thread's seed, and a correct submission is judged wrong (seen in CI: a correct
``input_gradient`` told its result was not the gradient, once in a few runs).

Beside gradebox/exercises/_rng.py; also tries the scenario builders that draw from it."""

import threading

import torch
from torch import nn

from gradebox import exercises
from gradebox.exercises import _lesson1, _lesson4
from gradebox.exercises._lesson3 import scenarios as lesson3
from gradexercises.head_forward import job as head_forward
from gradexercises.input_gradient import job as input_gradient

# Every builder that seeds the global generator, with the scenarios it is given while judging.
BUILDERS = [
    (input_gradient.build, exercises.get("input_gradient").suite("all", 0)),
    (_lesson1.build_model, exercises.get("freeze_all_but").suite("all", 0)),
    (lesson3.build_model, exercises.get("train_step").suite("all", 0)),
    (lesson3.build_model, exercises.get("train_accumulated").suite("all", 1)),
    (_lesson4.build_model, exercises.get("predict").suite("all", 0)),
    (head_forward.build_pair, exercises.get("head_forward").suite("all", 0)),
]
THREADS, ROUNDS = 6, 15


def tensors(value) -> list[torch.Tensor]:
    """Every tensor a build returned, in a fixed order (a module's by its state_dict)."""
    if isinstance(value, torch.Tensor):
        return [value.detach()]
    if isinstance(value, nn.Module):
        return [t.detach() for t in value.state_dict().values()]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in tensors(item)]
    if hasattr(value, "__dict__"):
        return [t for item in vars(value).values() for t in tensors(item)]
    return []


def built(build, scenario) -> list[torch.Tensor]:
    return tensors(build(scenario))


def same(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return len(a) == len(b) and all(torch.equal(x, y) for x, y in zip(a, b))


def test_builders_return_tensors():
    for build, scenarios in BUILDERS:
        assert scenarios and built(build, scenarios[0]), build.__qualname__


def test_repeatable_keeps_caller_rng():
    torch.manual_seed(1234)
    expected_next = torch.rand(3)
    torch.manual_seed(1234)
    for build, scenarios in BUILDERS:
        for scenario in scenarios:
            assert same(built(build, scenario), built(build, scenario)), build.__qualname__
    assert torch.equal(torch.rand(3), expected_next)


def test_threads_get_their_own_model():
    jobs = [(build, s) for build, scenarios in BUILDERS for s in scenarios]
    expected = [built(build, s) for build, s in jobs]
    start = threading.Barrier(THREADS)
    wrong: list[str] = []

    def worker(offset: int) -> None:
        start.wait()
        for r in range(ROUNDS):
            for i in range(len(jobs)):
                k = (i + offset + r) % len(jobs)  # threads build different scenarios at the same moment
                build, scenario = jobs[k]
                if not same(built(build, scenario), expected[k]):
                    wrong.append(f"{build.__module__}.{build.__qualname__}({scenario})")

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong, f"{len(wrong)} builds drew from another thread's seed, e.g. {wrong[0]}"
