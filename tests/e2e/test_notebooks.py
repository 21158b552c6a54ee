"""Every lesson runs top to bottom headless, with no error and nothing on stderr, and the
committed student versions are exactly what nbgrader generates from the sources."""

import json
import os

import nbformat
import pytest

from tests.conftest import ASSIGNMENTS, ROOT
from tests.course_copy import problems, read
from tests.unit.course.test_course_sync import load_course

course = load_course()

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def executed():
    """Each source lesson run top to bottom once, for every test of this file that reads its outputs:
    the run `python3 course.py sync` makes of it and keeps (``course.run_lesson``: nbclient in the
    course's environment, figures kept without their pixels), keyed by everything the run can read, so
    that this file, sync's own tests and an author's sync on the same machine run a lesson once."""
    done = {}

    def run(assignment: str):
        if assignment not in done:
            found = course.run_lesson(os.path.join(ROOT, "notebooks", assignment, f"{assignment}.ipynb"))
            done[assignment] = (nbformat.from_dict(found["executed"]), found["guides"])
        return done[assignment]

    return run


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_source_runs_cleanly(assignment, executed):
    notebook, _ = executed(assignment)
    assert problems(notebook) == []
    assert all(c.execution_count is not None for c in notebook.cells if c.cell_type == "code")


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_source_passes_nbgrader_validate(assignment, executed, tmp_path):
    """`nbgrader validate`'s verdict on every source lesson (the contract): nbgrader's own Validator and
    its checks, on the run above.  Its first two steps, clearing the outputs and running the notebook
    in the same kernel, are that run: nothing in the course reads nbgrader's validating variables, so
    running every lesson a second time would only repeat it."""
    from nbgrader.preprocessors import CheckCellMetadata
    from nbgrader.validator import Validator

    notebook, _ = executed(assignment)
    path = tmp_path / f"{assignment}.ipynb"
    nbformat.write(notebook, str(path))
    validator = Validator(preprocessors=[CheckCellMetadata])
    assert validator.validate(str(path)) == {}, "nbgrader validate would report these cells"
    assert len(validator._get_passed_cells(nbformat.read(str(path), as_version=4))) > 0


def figures(notebook) -> list[tuple[str, str | None]]:
    """Every image the run shows, where it is, and its alt text: in a cell's outputs (alt from the output's
    metadata, else the cell's, as nbconvert's templates read it) or in an ``Output`` widget's saved state."""
    found = []
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if "image/png" in output.get("data", {}):
                alt = output.get("metadata", {}).get("image/png", {}).get("alt") or cell.metadata.get("alt")
                found.append((f"cell {index}", alt))
    state = notebook.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    for model_id, model in state.get("state", {}).items():
        for output in model.get("state", {}).get("outputs", []):
            if "image/png" in output.get("data", {}):
                found.append((f"widget {model_id}", output.get("metadata", {}).get("image/png", {}).get("alt")))
    return found


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_figure_says_what_it_shows(assignment, executed):
    """Alt text on every figure: a screen reader reads it, and the feedback page's <img> carries it
    (without it, nbconvert warns once per student while generating feedback)."""
    notebook, _ = executed(assignment)
    shown = figures(notebook)
    assert shown, "the run drew no figure"
    assert [where for where, alt in shown if not (isinstance(alt, str) and alt.strip())] == []


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_time_told_from_the_run(assignment, executed):
    """The lesson's time cell and the README's row are the account of what this run shows."""
    notebook, _ = executed(assignment)
    executed_nb = json.loads(nbformat.writes(notebook))
    time = course.lesson_time(assignment, executed_nb, course.explorer_guides(executed_nb))
    source = read(os.path.join(ROOT, "notebooks", assignment, f"{assignment}.ipynb"))
    [told] = [cell for cell in source["cells"] if cell.get("id") == course.TIME_CELL]
    assert "".join(told["source"]) == course.time_text(executed_nb, time), "run `python3 course.py sync`"
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        assert course.length_row(assignment, time) in f.read(), "run `python3 course.py sync`"


# The answered release runs cleanly too: tests/e2e/test_nbgrader_roundtrip.py reads the run that autograde
# makes of it (alice's submission of every assignment), instead of running every lesson once more.


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_notebooks_store_no_outputs(assignment):
    for folder in ("notebooks", "release"):
        nb = read(os.path.join(ROOT, folder, assignment, f"{assignment}.ipynb"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None, folder


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_is_up_to_date(assignment, course):
    committed = read(os.path.join(ROOT, "release", assignment, f"{assignment}.ipynb"))
    generated = read(os.path.join(course, "release", assignment, f"{assignment}.ipynb"))
    assert committed == generated, (
        f"release/{assignment} is stale: run `nbgrader generate_assignment {assignment} --force` "
        "from the repository root and commit the result"
    )
