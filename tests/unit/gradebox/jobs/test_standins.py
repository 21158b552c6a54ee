"""A grading kernel's ``import autograder...`` finds the job side's stand-ins, and nothing else.

Run in a fresh interpreter whose ``autograder`` cannot be imported at all (as in a job, where the
grader's package is not on the file system): the stand-ins must carry the notebooks' imports alone."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.conftest import ROOT

KERNEL = textwrap.dedent(
    """
    import importlib.abc, json, sys

    class NoGrader(importlib.abc.MetaPathFinder):  # the job's file system: no autograder/ anywhere
        def find_spec(self, name, path=None, target=None):
            if name == "autograder" or name.startswith("autograder."):
                raise ModuleNotFoundError(name)

    sys.meta_path.insert(0, NoGrader())
    from gradebox.jobs import standins

    standins.install()
    seen = {}
    import importlib.util  # a lesson's install cell asks whether the course's packages are there

    seen["found"] = importlib.util.find_spec("autograder") is not None
    from autograder.checks import NotYet, check, check_quiz, check_train_step  # what test cells say
    from autograder.i18n import use_language  # what a Portuguese lesson's install cell says
    import gradebox.i18n

    use_language("pt_BR")
    seen["language"] = gradebox.i18n.language()
    use_language("en")
    try:
        check_train_step(lambda *a: None)
    except NotYet as error:
        seen["outside"] = error._render_traceback_()
    try:
        check("graph_ops", None)
    except NotYet:
        seen["check"] = "failed"
    seen["modules"] = sorted(n for n in sys.modules if n == "autograder" or n.startswith("autograder."))
    print(json.dumps(seen))
    """
)


def test_a_grading_kernels_autograder_is_the_job_sides_and_holds_nothing_else():
    done = subprocess.run([sys.executable, "-c", KERNEL], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    *printed, result = done.stdout.strip().splitlines()
    seen = json.loads(result)
    assert printed == ["train_step: checked by the grader outside the notebook.",
                       "graph_ops: checked by the grader outside the notebook."]  # fmt: skip
    assert seen["outside"] == ["NotYet: train_step: this check runs outside the notebook, in the grader (ScoreChecks)"]
    assert seen["check"] == "failed" and seen["language"] == "pt_BR" and seen["found"]
    assert seen["modules"] == ["autograder", "autograder.checks", "autograder.i18n"]  # the stand-ins alone


def test_the_stand_ins_say_what_the_graders_checks_say_outside(monkeypatch, capsys):
    """The student's own kernel, told it is graded outside, prints and raises the same."""
    import pytest

    from autograder import checks
    from gradebox import outside_checks

    monkeypatch.setenv("AUTOGRADER_CHECKS", "outside")
    for module in (checks, outside_checks):
        with pytest.raises(checks.NotYet) as caught:
            module.check_manual_sgd_step(lambda params, lr: None)
        assert capsys.readouterr().out == "manual_sgd_step: checked by the grader outside the notebook.\n"
        assert caught.value._render_traceback_()[0].startswith("NotYet: manual_sgd_step: this check runs outside")
