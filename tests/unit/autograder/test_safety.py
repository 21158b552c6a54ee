"""The pieces that keep scores unforgeable and submissions inside their folder, one by one: the
tamper watch over whole surfaces, the checks read from a test cell, unique user ids, what a
submission folder may hold, spreadsheet-safe CSV and one grading run per course."""

import csv
import json
import os
import sys

import pytest
import torch

from autograder.grading.csv_export import spreadsheet_safe
from autograder.grading.intake import PLACEHOLDER, refusals, refuse_irregular
from autograder.grading.score import checks_in, quiz_answer, quiz_question
from autograder.host.client import UidPool
from gradebox.tamper.provenance import provenance_problems
from gradebox.tamper.watch import start_watch

# ---- tamper: the whole surface, not a short list of names ------------------------------------


@pytest.mark.parametrize(
    "owner, name, replacement",
    [
        (torch.Tensor, "__sub__", lambda self, other: self),
        (torch.nn.functional, "mse_loss", lambda *a, **k: torch.zeros(())),
        (torch.nn.utils, "clip_grad_norm_", lambda *a, **k: 0.0),
        (torch.optim.SGD, "step", lambda self, closure=None: None),
        (torch.nn.Linear, "forward", lambda self, x: x),
        (torch, "allclose", lambda *a, **k: True),
    ],
    ids=["Tensor.__sub__", "functional.mse_loss", "clip_grad_norm_", "SGD.step", "Linear.forward", "allclose"],
)
def test_replaced_attribute_seen(monkeypatch, owner, name, replacement):
    changes = start_watch()
    monkeypatch.setattr(owner, name, replacement)
    assert changes(), name
    assert provenance_problems(), name


def test_builtin_tracer_and_hook_seen(monkeypatch):
    import builtins

    changes = start_watch()
    monkeypatch.setattr(builtins, "float", lambda x=0: 0.0)
    assert "builtins.float" in changes()
    monkeypatch.undo()

    class Finder:
        def find_spec(self, *args):
            return None

    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    assert "sys.meta_path" in changes() and "sys.meta_path" in provenance_problems()
    monkeypatch.undo()
    previous = sys.gettrace()
    sys.settrace(lambda *a: None)
    try:
        assert "sys.settrace" in changes() and "sys.settrace" in provenance_problems()
    finally:
        sys.settrace(previous)
    assert changes() == []


def test_training_is_not_tampering():
    changes = start_watch()
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    for make in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop, torch.optim.Adagrad):
        optimizer = make(model.parameters(), lr=0.01)
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(torch.randn(5, 3)), torch.randn(5, 1)).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    assert changes() == []


# ---- the checks a test cell calls, read from its code ---------------------------------------


def test_all_checks_read_in_order():
    source = (
        "from autograder.checks import check_train_step\n"
        "check_train_step(train_step)\n"
        "### BEGIN HIDDEN TESTS\n"
        "check_train_step(train_step, start='dirty', seed=12)\n"
        "check('graph_ops', graph_ops, seed=3)\n"
        "check_manual_sgd_step(manual_sgd_step, 31)\n"
        "### END HIDDEN TESTS\n"
    )
    assert checks_in(source) == [
        {"exercise": "train_step", "function": "train_step", "start": "fresh", "seed": 0, "hidden": False},
        {"exercise": "train_step", "function": "train_step", "start": "dirty", "seed": 12, "hidden": True},
        {"exercise": "graph_ops", "function": "graph_ops", "start": "fresh", "seed": 3, "hidden": True},
        {"exercise": "manual_sgd_step", "function": "manual_sgd_step", "start": "fresh", "seed": 31, "hidden": True},
    ]
    assert checks_in("print('no checks')") == [] and checks_in("def (") == []


def test_a_quiz_named_by_a_path_opens_no_file(tmp_path):
    """A check cell's assignment is read from the notebook: a name that walks out of the package's
    keys must not make the grader open a file there, even one that exists and holds a key."""
    from gradebox.quick_checks import QUIZ_DIR, known_quizzes, load_quiz

    planted = tmp_path / "planted.json"
    planted.write_text(json.dumps({"q1": {"answer_sha256": "0" * 64}}))
    walk = os.path.relpath(str(planted)[: -len(".json")], QUIZ_DIR)
    assert walk.startswith("..") and os.path.isfile(os.path.join(QUIZ_DIR, walk + ".json"))
    with pytest.raises(FileNotFoundError, match="no quick check is known"):
        load_quiz(walk)
    assert "lesson3_zeroing_grad" in known_quizzes() and load_quiz("lesson3_zeroing_grad")["q1"]


def test_quiz_answer_read_never_run():
    assert quiz_question('check_quiz("lesson3_zeroing_grad", "q2", q2)') == ("lesson3_zeroing_grad", "q2")
    assert quiz_answer('q2 = "b"', "q2") == "b"
    assert quiz_answer("q2 = __import__('os').system('true')", "q2") is None


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


# ---- what a submission folder may hold --------------------------------------------------------


def test_special_files_out_first(tmp_path):
    folder = tmp_path / "submitted" / "mallory" / "lesson3_zeroing_grad"
    folder.mkdir(parents=True)
    notebook = folder / "lesson3_zeroing_grad.ipynb"
    notebook.symlink_to(tmp_path / "someone_elses.ipynb")
    (folder / "data.csv").symlink_to("/etc/shadow")
    os.mkfifo(folder / "pipe")
    with open(folder / "big.bin", "wb") as f:
        f.truncate(100 * 2**20)
    (folder / "notes.txt").write_text("fine")
    (folder / "sub").mkdir()
    (folder / "sub" / "loop").symlink_to(folder)
    found = {entry["path"]: entry["why"] for entry in refusals(str(folder))}
    assert found == {
        "lesson3_zeroing_grad.ipynb": "a link", "data.csv": "a link", "pipe": "a FIFO",
        "big.bin": "larger than 64 MiB", os.path.join("sub", "loop"): "a link",
    }  # fmt: skip
    refuse_irregular(notebooks=[str(notebook)])
    assert notebook.read_text() == PLACEHOLDER and not notebook.is_symlink()
    assert sorted(os.listdir(folder)) == ["lesson3_zeroing_grad.ipynb", "notes.txt", "sub"]
    kept = tmp_path / "submitted" / "mallory" / ".refused" / "lesson3_zeroing_grad"
    assert (kept / "data.csv").is_symlink() and (kept / "big.bin").stat().st_size == 100 * 2**20
    assert refusals(str(folder)) == []


def test_device_refused(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    folder = tmp_path / "a"
    folder.mkdir()
    os.mknod(folder / "zero", 0o600 | 0o020000, os.makedev(1, 5))  # a character device: /dev/zero
    assert refusals(str(folder)) == [{"path": "zero", "why": "a device"}]


# ---- CSV a spreadsheet does not run -------------------------------------------------------------


def test_formulas_marked_as_text():
    for formula in ('=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx"):
        assert spreadsheet_safe(formula) == "'" + formula
    assert spreadsheet_safe("alice") == "alice" and spreadsheet_safe(-1.5) == -1.5 and spreadsheet_safe(3) == 3


def test_nbgrader_export_is_quoted(tmp_path):
    from nbgrader.api import Gradebook

    from autograder.grading.csv_export import SafeCsvExport

    db = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(db) as gb:
        gb.add_assignment("lesson3_zeroing_grad")
        gb.add_student('=HYPERLINK("http://evil","x")', first_name="Ann, the first", last_name='O"Neil')
        exporter = SafeCsvExport(to=str(tmp_path / "grades.csv"))
        exporter.export(gb)
    with open(tmp_path / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["student_id"] == '\'=HYPERLINK("http://evil","x")'
    assert rows[0]["first_name"] == "Ann, the first" and rows[0]["last_name"] == 'O"Neil'
    assert rows[0]["score"] == "0.0"


def test_grading_check_fails_briefly(monkeypatch):
    """In a grading kernel a check only says that the grader runs it outside, and fails the cell
    in case that step is missing; IPython shows the exception's own line instead of formatting a
    traceback (which cost the grading kernel time in every test cell)."""
    from autograder.checks import NotYet, check_train_step

    monkeypatch.setenv("AUTOGRADER_CHECKS", "outside")
    with pytest.raises(NotYet) as caught:
        check_train_step(lambda *a: None)
    assert caught.value._render_traceback_() == [
        "NotYet: train_step: this check runs outside the notebook, in the grader (ScoreChecks)"
    ]
