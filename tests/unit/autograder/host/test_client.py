"""What the grader's side of the sandbox (autograder/host/client.py) lets a caller put into a job."""

from __future__ import annotations

import os
import sys

import pytest

from autograder.grading.kernel import KERNEL_ENV
from autograder.host.client import ServerProcess, UidPool


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


# ---- user ids: unique across servers and runs ---------------------------------------------------


def test_pools_never_share_a_uid(tmp_path):
    """And a closed lock frees its user id."""
    first, second = UidPool(str(tmp_path), 62000, 4), UidPool(str(tmp_path), 62000, 4)
    taken = [first.take(), second.take(), first.take(), second.take()]
    assert len({uid for uid, _ in taken}) == 4
    with pytest.raises(Exception, match="in use"):
        first.take()
    os.close(taken[0][1])
    assert second.take()[0] == taken[0][0]


def test_other_process_keeps_its_id(tmp_path):
    import subprocess

    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from autograder.host.client import UidPool; "
         f"uid, _ = UidPool({str(tmp_path)!r}, 63000, 2).take(); print(uid, flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        held = int(holder.stdout.readline())
        mine, _ = UidPool(str(tmp_path), 63000, 2).take()
        assert mine != held
    finally:
        holder.kill()
        holder.wait()
