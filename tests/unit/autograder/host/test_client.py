"""What the grader's side of the sandbox (autograder/host/client.py) lets a caller put into a job."""

from __future__ import annotations

import pytest

from autograder.grading.kernel import KERNEL_ENV
from autograder.host.client import ServerProcess


def _unstarted() -> ServerProcess:
    return object.__new__(ServerProcess)  # spawn_kernel refuses before it would talk to a server


@pytest.mark.parametrize("name", ["PATH", "LANG"])
def test_a_kernels_environment_cannot_replace_the_sandboxs_own(name, monkeypatch):
    monkeypatch.setenv("LANG", "C.UTF-8")
    with pytest.raises(ValueError, match=f"not replace the sandbox's own: \\['{name}'\\]"):
        _unstarted().spawn_kernel("job", "kernel.json", None, {**KERNEL_ENV, name: "/tmp/mine"})


def test_grading_kernels_say_they_are_autograded_and_no_one_can_change_that():
    assert dict(KERNEL_ENV) == {"NBGRADER_EXECUTION": "autograde", "AUTOGRADER_CHECKS": "outside"}
    with pytest.raises(TypeError):
        KERNEL_ENV["AUTOGRADER_CHECKS"] = "inside"  # type: ignore[index]
