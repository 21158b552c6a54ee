"""Hostile and broken lesson 3 submissions, one per case the grader must survive.

Each case is a function of (release notebook, correct answers, paths) that writes a
submission folder and returns what grading must record: the expected score and a phrase the
grading notes (or the graded cells) must contain.  Nasty code goes into the answer cell of
``train_accumulated``, after a correct definition, so the ``train_step`` tests that come before
it are still graded normally.  Forgeries go into the first answer cell, with every exercise
answered wrongly: whatever they do in the kernel, the score must stay zero, because the checks
are scored outside it.  Submission folders with links, devices, FIFOs and big files test what
nbgrader may copy.
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass

from tests.course_copy import NEVER_CLEARS, answered, grade_id, write
from tests.hostile import EMPTY_RECORDS, FORGE_SCORE, INF_GRADIENTS, SLOW_RECORDS
from tests.lesson3_attacks import TRAIN_STEP_LR_SLIGHTLY_OFF

LESSON = "lesson3_zeroing_grad"
NASTY_CELL = "train_accumulated"


@dataclass
class Case:
    student: str
    # "full", "before" (points of tests before NASTY_CELL), "zero", "without:<id>", or two of these
    # joined by "|" where the case races two limits and either may stop it first.
    expect_score: str
    expect_text: str  # a regular expression found in the grading notes or the graded outputs
    build: object  # (release, answers, ctx) -> None
    # Graded by plain `nbgrader autograde` too, not only by `python -m autograder grade`. Both drive
    # nbgrader's own Autograde converter with the same preprocessors, sandbox and judge; what differs
    # is the driver around a kernel: one nbgrader process grading in turn, or grade's threads. So the
    # cases that end or flood a kernel, reach for files, or are refused at intake go through both;
    # a case decided wholly by the sanitizing preprocessors or inside the scoring job and the judge
    # (edited structure, forged scores, records) would repeat grade's run line for line: False.
    stock: bool = True


def cases(path: str) -> list[Case]:
    """The cases one grading path grades (``nbgrader`` or ``grade``)."""
    return [case for case in CASES if case.stock or path != "nbgrader"]


@dataclass
class Context:
    course: str  # absolute path of the course, which the student code must not reach
    canary: str  # a file outside the course that must survive

    def path(self, student: str) -> str:
        return os.path.join(self.course, "submitted", student, LESSON, f"{LESSON}.ipynb")


def _with_nasty(code: str):
    def build(release, answers, ctx, student):
        nasty = {
            **answers,
            NASTY_CELL: answers[NASTY_CELL] + "\n\n" + code.format(course=ctx.course, canary=ctx.canary),
        }
        write(ctx.path(student), answered(release, nasty))

    return build


WRONG = {
    "train_step": NEVER_CLEARS,
    "train_accumulated": "def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):\n    return []",
    "manual_sgd_step": "def manual_sgd_step(params, lr):\n    pass",
}


def _forged(code: str):
    """Every exercise answered wrongly, and ``code`` in the first answer cell (a quiz answer)."""

    def build(release, answers, ctx, student):
        first = next(grade_id(c) for c in release["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("solution"))
        forged = {**answers, **WRONG, first: answers[first] + "\n" + code}
        write(ctx.path(student), answered(release, forged))

    return build


def _answer(grade: str, code: str):
    """Every other exercise answered correctly, and ``code`` as the answer of ``grade``."""

    def build(release, answers, ctx, student):
        write(ctx.path(student), answered(release, {**answers, grade: code}))

    return build


def _beside(make):
    """The correct notebook, which tries to read what ``make(folder, ctx)`` puts beside it."""

    def build(release, answers, ctx, student):
        nasty = {**answers, NASTY_CELL: answers[NASTY_CELL] + "\n" + READ_BESIDE}
        write(ctx.path(student), answered(release, nasty))
        make(os.path.dirname(ctx.path(student)), ctx)

    return build


def _links(folder, ctx):
    os.symlink(os.path.join(ctx.course, "gradebook.db"), os.path.join(folder, "data.csv"))
    os.symlink(os.path.join(ctx.course, "notebooks", LESSON, f"{LESSON}.ipynb"), os.path.join(folder, "notes.txt"))
    os.symlink("/etc/shadow", os.path.join(folder, "shadow.txt"))


def _specials(folder, ctx):
    os.symlink("/dev/zero", os.path.join(folder, "zeros.bin"))
    os.mkfifo(os.path.join(folder, "pipe"))
    with open(os.path.join(folder, "big.bin"), "wb") as f:
        f.truncate(100 * 2**20)  # sparse, but 100 MiB to whoever copies it


def _other_students_notebook(release, answers, ctx, student):
    victim = ctx.path("alice")
    os.makedirs(os.path.dirname(ctx.path(student)), exist_ok=True)
    os.symlink(victim, ctx.path(student))


READ_BESIDE = """
for name in ['data.csv', 'notes.txt', 'shadow.txt', 'zeros.bin', 'big.bin']:
    try:
        print(name, open(name, 'rb').read(200))
    except Exception as error:
        print('could not read', name, type(error).__name__)
"""


def _edited(change):
    def build(release, answers, ctx, student):
        nb = answered(release, answers)
        change(nb)
        write(ctx.path(student), nb)

    return build


def _index(nb, gid):
    return next(i for i, c in enumerate(nb["cells"]) if grade_id(c) == gid)


def _delete_tests(nb):
    nb["cells"] = [c for c in nb["cells"] if not (grade_id(c) or "").startswith("test_train_step")]


def _edit_tests(nb):
    nb["cells"][_index(nb, "test_train_step")]["source"] = "pass  # trust me"
    nb["cells"][_index(nb, "test_manual_sgd_step")]["source"] = "print('all good')"


def _duplicate_tests(nb):
    i = _index(nb, "test_train_step")
    nb["cells"].insert(i + 1, copy.deepcopy(nb["cells"][i]))
    j = _index(nb, "test_quiz_q1")
    nb["cells"].insert(j, copy.deepcopy(nb["cells"][j]))


def _reorder_tests(nb):
    i = _index(nb, "test_train_step")
    cell = nb["cells"].pop(i)
    nb["cells"].insert(_index(nb, "train_step"), cell)  # the test now comes before the answer


def _strip_metadata(nb):
    for cell in nb["cells"]:
        cell.get("metadata", {}).pop("nbgrader", None)


def _change_metadata(nb):
    i = _index(nb, "test_train_step")
    nb["cells"][i]["metadata"]["nbgrader"]["points"] = 100
    j = _index(nb, "test_manual_sgd_step")
    nb["cells"][j]["metadata"]["nbgrader"]["grade"] = False
    nb["cells"][j]["metadata"]["nbgrader"]["locked"] = False


def _other_kernel(nb):
    nb["metadata"]["kernelspec"] = {"name": "bash", "display_name": "Bash", "language": "bash"}


FORGED = "FORGED by the student"  # shows nowhere: not in a graded copy, a feedback, a summary or a report
FORGED_CHECK = {"exercise": "train_step", "passed": True, "code": "ok", "message": FORGED}


def _grader_metadata(release, answers, ctx, student):
    """Every exercise answered wrongly, with the grader's metadata written in: notes and review items
    (with a terminal's clear-screen in them), the graded mark, passing verdicts and right quiz answers."""
    nb = answered(release, {**answers, **WRONG})
    nb["metadata"]["autograder"] = {"notes": [f"{FORGED} \x1b[2J\x1b[H"], "review": [FORGED], "graded": True}
    for cell in nb["cells"]:
        cell["metadata"]["autograder"] = {"checks": [FORGED_CHECK], "added": True,
                                          "quiz": {"question": "q1", "answer": FORGED, "right": True}}  # fmt: skip
    write(ctx.path(student), nb)


def _escape_named_link(folder, ctx):
    os.symlink("/etc/hostname", os.path.join(folder, "a\x1b[2J\x1b[Hb.txt"))  # a name that clears a terminal


def _invalid_json(release, answers, ctx, student):
    path = ctx.path(student)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = json.dumps(answered(release, answers))
    with open(path, "w") as f:
        f.write(text[: len(text) // 2])  # cut in half, as an interrupted upload would


def _files_beside(release, answers, ctx, student):
    write(ctx.path(student), answered(release, answers))
    folder = os.path.dirname(ctx.path(student))
    hijack = f"import os, shutil\nshutil.rmtree({ctx.course!r}, ignore_errors=True)\nprint('HIJACKED')\n"
    for name in ("torch.py", "sitecustomize.py", "numpy.py", "autograder.py"):
        with open(os.path.join(folder, name), "w") as f:
            f.write(hijack + "raise SystemExit('HIJACKED')\n")


WARNS = """
import sys, warnings
_correct_train_step = train_step
def train_step(model, optimizer, loss_fn, x, y):
    warnings.warn("this is only a warning", UserWarning)
    print("a note on stderr", file=sys.stderr)
    return _correct_train_step(model, optimizer, loss_fn, x, y)
warnings.warn("a warning at the top level")
print("top-level stderr", file=sys.stderr)
"""

DELETE = """
import os, shutil
for target in ['../../../gradebook.db', {course!r} + '/gradebook.db', {canary!r}]:
    try:
        os.remove(target)
    except Exception as error:
        print('could not delete:', type(error).__name__)
for folder in [{course!r}, '../..', os.path.dirname({canary!r}), os.path.expanduser('~'), '/root', '/home']:
    shutil.rmtree(folder, ignore_errors=True)
try:
    open({course!r} + '/notebooks/evil.txt', 'w')
except Exception as error:
    print('could not write:', type(error).__name__)
"""

READ = """
import glob
for target in [{course!r} + '/gradebook.db', '../../../gradebook.db',
               {course!r} + '/notebooks/lesson3_zeroing_grad/lesson3_zeroing_grad.ipynb']:
    try:
        print(open(target, errors='replace').read()[:5000])
    except Exception as error:
        print('could not read:', type(error).__name__)
found = [p for top in ('/work', '/var', '/root', '/home', '/tmp', '/srv', '/opt', '/mnt')
         for p in glob.glob(top + '/**/gradebook.db', recursive=True)]
print('found:', found[:3])
"""

MANY = """
import os, time
for _ in range(6):
    if os.fork() == 0:
        try:
            block = b'x' * (600 * 2**20)
            time.sleep(60)
        finally:
            os._exit(0)
time.sleep(60)
"""

REPLACE_CHECKS = """
import autograder.checks as checks
for name in ('check', 'check_train_step', 'check_train_accumulated', 'check_manual_sgd_step'):
    setattr(checks, name, lambda *args, **kwargs: print('all good'))
checks._report = lambda *args, **kwargs: None
"""
IMPORT_HOOK = """
import sys, types
fake = types.ModuleType('autograder.checks')
for name in ('check', 'check_train_step', 'check_train_accumulated', 'check_manual_sgd_step', 'check_quiz'):
    setattr(fake, name, lambda *args, **kwargs: None)
class Finder:
    def find_spec(self, name, path=None, target=None):
        return None
sys.meta_path.insert(0, Finder())
sys.modules['autograder.checks'] = fake
"""
INPUT_TRANSFORMER = """
get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])
"""
SETTRACE = """
import sys, threading
def tracer(frame, event, arg):
    if event == 'exception' and type(arg[1]).__name__ == 'NotYet':
        raise SystemExit
    return tracer
sys.settrace(tracer)
threading.settrace(tracer)
"""
TENSOR_SUB = """
import torch
_sub = torch.Tensor.__sub__
torch.Tensor.__sub__ = lambda self, other: _sub(self, other) * 0
torch.optim.SGD.step = lambda self, closure=None: None
"""
# Both forgeries below clear every leaf's gradient before a backward pass, walking the graph from
# ``roots``: a loop that never clears then looks right.  The walk is written into each, because
# a swapped ``__code__`` runs with torch's globals, not the cell's.
CLEAR_LEAVES = """
    stack, seen = [t.grad_fn for t in roots], set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, 'variable'):
            node.variable.grad = None
        stack.extend(f for f, _ in node.next_functions)"""
# A function's code replaced in place keeps the function's identity: Tensor.backward.
CODE_IN_PLACE = f"""
import torch
def _clearing_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    roots = [self]{CLEAR_LEAVES}
    torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)
torch.Tensor.backward.__code__ = _clearing_backward.__code__
"""
# One module deeper: torch.autograd.graph.Variable runs every backward pass.
TORCH_INTERNALS = f"""
import torch.autograd.graph as graph
_engine = graph.Variable._execution_engine
def _clear_leaves(roots):{CLEAR_LEAVES}
class _Engine:
    def run_backward(self, roots, *args, **kwargs):
        _clear_leaves(roots)
        return _engine.run_backward(roots, *args, **kwargs)
class _Variable:
    _execution_engine = _Engine()
graph.Variable = _Variable
"""
DISK = """
import os
try:
    with open('fill.bin', 'wb') as f:
        for _ in range(1024):
            f.write(b'x' * 2**20)
except OSError as error:
    print('write stopped:', error)
folder = os.path.dirname(os.path.dirname(os.getcwd()))
for i in range(40):
    with open(os.path.join(folder, 'junk%d.bin' % i), 'wb') as f:
        for _ in range(60):
            f.write(b'x' * 2**20)
"""
COMM_FLOOD = """
from comm import create_comm
for _ in range(40):
    create_comm(target_name='flood', data=dict(blob='x' * 25_000_000))
"""
SLEEPING_FORKS = """
import os, time
children = []
for _ in range(60):
    pid = os.fork()
    if pid == 0:
        time.sleep(20)
        os._exit(0)
    children.append(pid)
time.sleep(1)
print('forked', len(children))
"""

# An exception whose value is 120 MB and whose traceback is empty: the output limit once counted
# text and tracebacks but not an error's name and value, and a notebook of that size came out.
HUGE_EVALUE = """
class Huge(Exception):
    def _render_traceback_(self):
        return []
raise Huge("x" * 120_000_000)
"""

CASES = [
    # A cell that hangs stops the notebook, not the score: the checks are scored from the answer
    # cells in a job of their own, which gives each cell its time and goes on.
    Case("loop_forever", "full", "this cell ran longer than its limit", _with_nasty("while True:\n    pass")),
    Case(
        "swallow_interrupt",
        "full",
        "this cell ran longer than its limit",
        _with_nasty(
            "import time\nwhile True:\n    try:\n        time.sleep(0.05)\n    except KeyboardInterrupt:\n        pass"
        ),
    ),
    Case(
        "memory_one_process",
        "full",
        "MemoryError",
        _with_nasty(
            "hoard = []\ntry:\n    while True:\n        hoard.append(b'x' * 2**28)\n"
            "except MemoryError:\n    hoard = None\n    raise"
        ),
    ),
    # On a busy machine the processes (one scheduling group at low priority) may not reach the
    # memory limit within the short cell limit the suite sets: either stop contains them. The
    # memory limit stops the scoring job (the checks after the cell need review); the cell's time
    # limit ends its processes, and the checks after it are scored.
    Case(
        "memory_many_processes",
        "before|full",
        "memory: .* processes used more than|this cell ran longer than its limit",
        _with_nasty(MANY),
    ),
    # Its processes end with the cell that ran out of time, in the kernel and in the scoring job:
    # the checks after it are scored as usual.  `grade` alone: what the driver does here (stop a cell
    # at its time limit) is loop_forever's, which both paths grade; what ends the forks is the job's
    # process group and limits, the same under either driver; and it keeps every CPU busy for two
    # cell limits (the kernel and the scoring job), which the stock path would spend again.
    Case(
        "fork_bomb",
        "full",
        "this cell ran longer than its limit",
        _with_nasty("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"),
        stock=False,
    ),
    # An answer cell that ends the process ends the scoring of what comes after it: those checks
    # fail, and the submission is marked for review rather than given a silent 0.
    Case("os_exit", "before", "exited with code 3(.|\n)*Needs review", _with_nasty("import os\nos._exit(3)")),
    Case(
        "segfault", "before", "segmentation fault(.|\n)*Needs review", _with_nasty("import ctypes\nctypes.string_at(0)")
    ),  # fmt: skip
    Case("delete_files", "full", "could not delete: (FileNotFoundError|PermissionError)", _with_nasty(DELETE)),
    Case("read_secrets", "full", "could not read", _with_nasty(READ)),
    Case(
        "print_gigabyte",
        "full",
        "printed more than",
        _with_nasty("import sys\nfor _ in range(1024):\n    sys.stdout.write('x' * 2**20)"),
    ),
    Case("tests_deleted", "full", "was missing; the original was put back", _edited(_delete_tests), stock=False),
    Case("tests_edited", "full", "had been edited; the original was put back", _edited(_edit_tests), stock=False),
    Case("tests_duplicated", "full", "A duplicate of cell", _edited(_duplicate_tests), stock=False),
    Case("tests_reordered", "full", "graded in the handed-out order", _edited(_reorder_tests), stock=False),
    Case("metadata_stripped", "full", "had lost its grading metadata", _edited(_strip_metadata), stock=False),
    Case("metadata_changed", "full", "", _edited(_change_metadata), stock=False),
    Case("other_kernelspec", "full", "", _edited(_other_kernel), stock=False),
    Case("invalid_json", "zero", "Needs review: the submitted file is not a readable notebook", _invalid_json),
    Case("forged_grader_metadata", "zero", "", _grader_metadata),
    Case("files_beside", "full", "", _files_beside),
    Case("warnings_on_stderr", "full", "", _with_nasty(WARNS), stock=False),
    # forged scores: every exercise wrong, and the kernel told otherwise in every way known
    Case("forge_replace_checks", "zero", r"❌ train_step \[tampered\]", _forged(REPLACE_CHECKS), stock=False),
    Case("forge_import_hook", "zero", r"❌ train_step \[tampered\]", _forged(IMPORT_HOOK), stock=False),
    Case("forge_input_transformer", "zero", r"❌ train_step \[never_clears\]", _forged(INPUT_TRANSFORMER), stock=False),
    Case("forge_settrace", "zero", r"❌ train_step \[tampered\]", _forged(SETTRACE), stock=False),
    Case("forge_tensor_sub", "zero", r"❌ train_step \[tampered\]", _forged(TENSOR_SUB), stock=False),
    Case("forge_code_in_place", "zero", "own functions cannot be changed", _forged(CODE_IN_PLACE), stock=False),
    Case("forge_torch_internals", "zero", r"❌ train_step \[tampered\]", _forged(TORCH_INTERNALS), stock=False),
    # what nbgrader would copy: links and special files are refused before, and noted
    Case("links_beside", "full", "'data.csv' was not graded: it was a link", _beside(_links)),
    Case("specials_beside", "full", "'pipe' was not graded: it was a FIFO", _beside(_specials)),
    Case("notebook_is_a_link", "zero", "was not graded: it was a link", _other_students_notebook),
    Case(
        "escape_in_file_name",
        "full",
        r"'a\x1b\[2J\x1b\[Hb.txt' was not graded: it was a link",
        _beside(_escape_named_link),
    ),
    # one notebook's disk, widget messages and forks
    Case("disk_filler", "before", "disk: the notebook wrote more than(.|\n)*Needs review", _with_nasty(DISK)),
    Case("comm_flood", "full", "more than 8 MiB of output", _with_nasty(COMM_FLOOD)),
    Case("sleeping_forks", "full", "forked 60", _with_nasty(SLEEPING_FORKS)),
    # what the notebook shows may be cut; the score may not
    Case("debug_print_50mb", "full", "printed more than", _with_nasty("print('x' * 50_000_000)")),
    Case("huge_error_value", "full", "printed more than|output of", _with_nasty(HUGE_EVALUE)),
    # the trust boundary: records are data, a pass needs the effects the judge computes itself
    Case(
        "inf_gradients",
        "without:test_train_step",
        r"❌ train_step \[wrong_gradient\]",
        _answer("train_step", INF_GRADIENTS),
        stock=False,
    ),
    Case("forge_records", "zero", r"❌ train_step \[(tampered|wrong_update)\]", _forged(FORGE_SCORE), stock=False),
    Case("forge_empty_records", "zero", "Needs review: .*unreadable record", _forged(EMPTY_RECORDS), stock=False),
    Case("forge_slow_records", "zero", "Needs review: .*unreadable record", _forged(SLOW_RECORDS), stock=False),
    # the tolerance is the judge's: a throw-away autocast forward once loosened it to 2e-2, and a learning
    # rate 2% off passed the visible check and most hidden seeds (tests/lesson3_attacks.py)
    Case(
        "autocast_lr_off",
        "without:test_train_step",
        r"❌ train_step \[wrong_update\]",
        _answer("train_step", TRAIN_STEP_LR_SLIGHTLY_OFF),
        stock=False,
    ),
]


def build_all(release: dict, answers: dict, ctx: Context, path: str) -> None:
    for case in cases(path):
        case.build(release, answers, ctx, case.student)


def expected_points(case: Case, release: dict, source_points: dict[str, float]) -> set[float]:
    """The scores the case may get: one, or two where it races two limits."""
    return {_points(expected, release, source_points) for expected in case.expect_score.split("|")}


def _points(expected: str, release: dict, source_points: dict[str, float]) -> float:
    if expected.startswith("without:"):
        prefix = expected.split(":", 1)[1]
        return sum(p for g, p in source_points.items() if not g.startswith(prefix))
    return {"full": sum(source_points.values()), "zero": 0.0, "before": points_before(release, source_points)}[expected]


def points_before(release: dict, source_points: dict[str, float], cell: str = NASTY_CELL) -> float:
    """Points of the test cells that come before ``cell`` in the released notebook."""
    ids = [grade_id(c) for c in release["cells"]]
    before = set(ids[: ids.index(cell)])
    return sum(p for g, p in source_points.items() if g in before)
