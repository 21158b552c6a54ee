"""RestoreStructure: a submission is graded on the notebook that was handed out."""

import copy

from nbformat.v4 import new_code_cell, new_markdown_cell

from autograder.grading.structure import restore_cells


def graded(gid, source, points=1, solution=False, cell=new_code_cell):
    c = cell(source)
    c.metadata["nbgrader"] = {"grade_id": gid, "grade": not solution or points > 0, "solution": solution,
                              "locked": not solution, "points": points}  # fmt: skip
    return c


def released():
    return [
        new_markdown_cell("# Lesson"),
        new_code_cell("import torch"),
        new_markdown_cell("Write f."),
        graded("f", "# YOUR CODE HERE\nraise NotImplementedError()", points=0, solution=True),
        graded("test_f", "check(f)"),
        new_markdown_cell("Write g."),
        graded("g", "# YOUR CODE HERE\nraise NotImplementedError()", points=0, solution=True),
        graded("test_g", "check(g)"),
    ]


def answered(cells, **answers):
    cells = copy.deepcopy(cells)
    for cell in cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell.source = answers[gid]
    return cells


def sources(cells):
    return [c.source for c in cells]


def test_untouched_comes_back_same():
    submitted = answered(released(), f="def f(): return 1", g="def g(): return 2")
    cells, notes = restore_cells(released(), submitted)
    assert sources(cells) == sources(submitted) and notes == []


def test_tests_restored_and_noted():
    submitted = answered(released(), f="def f(): return 1")
    submitted[4].source = "pass"
    del submitted[7]
    cells, notes = restore_cells(released(), submitted)
    assert cells[4].source == "check(f)" and cells[7].source == "check(g)"
    assert any("'test_f' had been edited" in n for n in notes)
    assert any("'test_g' was missing" in n for n in notes)


def test_duplicated_test_runs_once():
    """And a duplicated answer stays as code."""
    submitted = answered(released(), f="def f(): return 1")
    submitted.insert(5, copy.deepcopy(submitted[4]))
    submitted.insert(4, copy.deepcopy(submitted[3]))
    cells, notes = restore_cells(released(), submitted)
    assert sources(cells).count("check(f)") == 1
    assert sources(cells).count("def f(): return 1") == 2
    assert [c for c in cells if c.source == "def f(): return 1"][1].metadata.get("nbgrader") is None
    assert sum("A duplicate of cell" in n for n in notes) == 2


def test_moved_test_graded_in_order():
    submitted = answered(released(), f="def f(): return 1")
    test = submitted.pop(4)
    submitted.insert(3, test)
    cells, notes = restore_cells(released(), submitted)
    assert sources(cells)[3:5] == ["def f(): return 1", "check(f)"]
    assert any("handed-out order" in n for n in notes)


def test_bare_answers_by_position():
    submitted = answered(released(), f="def f(): return 1", g="def g(): return 2")
    for cell in submitted:
        cell.metadata.pop("nbgrader", None)
        cell.pop("id", None)
    cells, notes = restore_cells(released(), submitted)
    assert cells[3].source == "def f(): return 1" and cells[6].source == "def g(): return 2"
    assert cells[3].metadata["nbgrader"]["grade_id"] == "f"
    assert any("'f' had lost its grading metadata" in n for n in notes)


def test_added_cells_keep_place():
    submitted = answered(released(), f="def f(): return helper()")
    submitted.insert(3, new_code_cell("def helper(): return 1"))
    submitted.insert(0, new_code_cell("print('first')"))
    cells, notes = restore_cells(released(), submitted)
    assert sources(cells)[0] == "print('first')"
    assert sources(cells).index("def helper(): return 1") < sources(cells).index("def f(): return helper()")
    assert notes == []


def test_unknown_grade_id_dropped():
    submitted = answered(released(), f="def f(): return 1")
    submitted.append(graded("test_bonus", "print('free points')", points=50))
    cells, notes = restore_cells(released(), submitted)
    assert cells[-1].source == "print('free points')" and "nbgrader" not in cells[-1].metadata
    assert any("'test_bonus' is not part of the assignment" in n for n in notes)


def test_missing_answer_is_unanswered():
    submitted = [
        c for c in answered(released(), f="def f(): return 1") if c.metadata.get("nbgrader", {}).get("grade_id") != "g"
    ]
    cells, notes = restore_cells(released(), submitted)
    assert cells[6].source.startswith("# YOUR CODE HERE")
    assert any("answer cell 'g' was missing" in n for n in notes)


def test_each_answer_is_named_as_the_students_notebook_shows_it():
    """The grading kernel's own count (In [20]) is not what the student saw: the submission's count is
    kept as a label, or the cell's place in the submission when it had none."""
    submitted = answered(released(), f="def f(:\n  return 1", g="def g(): return 2")
    submitted[3].execution_count = 7
    submitted.insert(0, new_code_cell("def helper(): return 1", execution_count=2))
    submitted[7].execution_count = True  # g, not a count: a student's file may hold anything
    cells, _ = restore_cells(released(), submitted)
    labels = {c.metadata.get("nbgrader", {}).get("grade_id", c.source): label(c) for c in cells if label(c)}
    assert labels == {"f": "In [7] of your notebook", "g": "cell 8 of your notebook",
                      "def helper(): return 1": "In [2] of your notebook"}  # fmt: skip


def test_a_label_written_by_the_student_is_not_read():
    from autograder.grading.cell_label import recorded_label, student_label

    assert student_label({"execution_count": "3] of your notebook<script>"}, 4) == "cell 5 of your notebook"
    assert student_label({"execution_count": 10**12}, 0) == "cell 1 of your notebook"
    submitted = answered(released(), f="def f(): return 1")
    submitted[3].metadata["autograder"] = {"seen_as": "In [99] forged"}
    cells, _ = restore_cells(released(), submitted)
    assert recorded_label(cells[3]) == "cell 4 of your notebook"


def label(cell):
    from autograder.grading.cell_label import recorded_label

    return recorded_label(cell)
