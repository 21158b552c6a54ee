"""Grade a submission on the notebook that was handed out, whatever happened to its cells.

Students (and their tools) delete, edit, duplicate and reorder cells, and Colab drops cell
metadata.  Stock nbgrader restores an edited test cell, but a deleted, duplicated or stripped
one makes the whole submission fail, and a test moved above the answer fails unfairly.

``RestoreStructure`` rebuilds the notebook from the released copy: every cell the student
received comes back in its place, untouched, except that each answer cell carries the
student's answer; cells the student added stay, right after the cell they followed.  Every
repair is written down as a grading note.  ``SubmissionExporter`` does the same for a file that
is not a readable notebook at all (UTF-16, a byte-order mark, cut short): it is graded as the
unanswered handed-out notebook, and marked *needs review* with the reason, since its 0 says how it
was saved, not what the student knows.
"""

from __future__ import annotations

import copy
import os
from collections import defaultdict

import nbformat
from nbconvert.exporters import NotebookExporter
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.preprocessors import OverwriteCells as NbgraderOverwriteCells
from traitlets import Unicode

from .cell_label import SEEN_AS, student_label
from .intake import PLACEHOLDER
from .notes import add_note, add_review


def _meta(cell) -> dict:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta if isinstance(meta, dict) else {}


def grade_id(cell) -> str | None:
    value = _meta(cell).get("grade_id")
    return value if isinstance(value, str) and value else None


def is_answer(cell) -> bool:
    return bool(_meta(cell).get("solution"))


def released_notebook(config, resources: dict, fallback: str = ""):
    """The notebook students received for this submission, or None if it cannot be found."""
    info = resources.get("nbgrader", {})
    path = fallback
    if not path and info.get("assignment") and info.get("notebook"):
        coursedir = CourseDirectory(config=config)
        folder = coursedir.format_path(coursedir.release_directory, ".", info["assignment"])
        path = os.path.join(folder, info["notebook"] + ".ipynb")
    if not path or not os.path.isfile(path):
        return None
    return nbformat.read(path, as_version=nbformat.NO_CONVERT)


def restore_cells(released: list, submitted: list) -> tuple[list, list[str]]:
    """The cells to grade, and notes on what was repaired."""
    notes: list[str] = []
    first_with_id: dict[str, int] = {}
    duplicates: set[int] = set()
    for index, cell in enumerate(submitted):
        gid = grade_id(cell)
        if gid is None:
            continue
        if gid in first_with_id:
            duplicates.add(index)
        else:
            first_with_id[gid] = index

    student_for: dict[int, int] = {}  # released index -> submitted index
    released_of: dict[int, int] = {}

    def pair(r: int, s: int) -> None:
        student_for[r], released_of[s] = s, r

    # 1. cells that kept their grade id (and their kind)
    for r, cell in enumerate(released):
        gid = grade_id(cell)
        s = first_with_id.get(gid) if gid else None
        if s is not None and submitted[s].get("cell_type") == cell.get("cell_type"):
            pair(r, s)
    # 2. cells that lost their metadata but not their text (everything but answers)
    by_text: dict[tuple, list[int]] = defaultdict(list)
    for s, cell in enumerate(submitted):
        if s not in released_of and s not in duplicates:
            by_text[(cell.get("cell_type"), cell.get("source", ""))].append(s)
    for r, cell in enumerate(released):
        if r in student_for or is_answer(cell):
            continue
        candidates = by_text.get((cell.get("cell_type"), cell.get("source", "")))
        if candidates:
            pair(r, candidates.pop(0))
    # 3. answers that lost their metadata: the same cell id, else the cell right after the
    #    cell that precedes the answer in the handed-out notebook
    ids = {cell.get("id"): s for s, cell in enumerate(submitted) if cell.get("id")}
    for r, cell in enumerate(released):
        if r in student_for or not is_answer(cell):
            continue
        s = ids.get(cell.get("id"))
        if s is None and r > 0 and (r - 1) in student_for:
            s = student_for[r - 1] + 1
        if (
            s is not None
            and s < len(submitted)
            and s not in released_of
            and s not in duplicates
            and submitted[s].get("cell_type") == cell.get("cell_type")
            and grade_id(submitted[s]) in (None, grade_id(cell))
        ):
            pair(r, s)

    released_ids = {grade_id(c) for c in released if grade_id(c)}
    attached: dict[int, list] = defaultdict(list)
    after = -1
    for s, cell in enumerate(submitted):
        if s in released_of:
            after = released_of[s]
            continue
        gid = grade_id(cell)
        if gid and s in duplicates:
            if gid in released_ids and not is_answer(released[student_for_gid(released, gid)]):
                notes.append(f"A duplicate of cell '{gid}' was removed.")
                continue
            notes.append(f"A duplicate of cell '{gid}' was kept as an ordinary cell.")
        elif gid and gid not in released_ids:
            notes.append(f"Cell '{gid}' is not part of the assignment; it was kept as an ordinary cell.")
        extra = copy.deepcopy(cell)
        extra.setdefault("metadata", {}).pop("nbgrader", None)
        # the student's code, scored with the answers, and named in messages as their notebook shows it
        extra["metadata"]["autograder"] = {"added": True, SEEN_AS: student_label(cell, s)}
        if extra.get("cell_type") == "code":
            extra["outputs"], extra["execution_count"] = [], None
        attached[after].append(extra)

    order = [student_for[r] for r in sorted(student_for) if grade_id(released[r])]
    if order != sorted(order):
        notes.append("Some graded cells had been moved; they were graded in the handed-out order.")

    cells = list(attached[-1])
    for r, cell in enumerate(released):
        restored = copy.deepcopy(cell)
        gid = grade_id(cell)
        s = student_for.get(r)
        if is_answer(cell):
            if s is None:
                notes.append(f"The answer cell '{gid}' was missing; it was graded as unanswered.")
            else:
                restored["source"] = submitted[s].get("source", "")
                restored.setdefault("metadata", {})["autograder"] = {SEEN_AS: student_label(submitted[s], s)}
                if grade_id(submitted[s]) != gid:
                    notes.append(f"The answer cell '{gid}' had lost its grading metadata; it was restored.")
        elif gid:
            if s is None:
                notes.append(f"The cell '{gid}' was missing; the original was put back.")
            elif submitted[s].get("source", "") != cell.get("source", ""):
                notes.append(f"The cell '{gid}' had been edited; the original was put back.")
        cells.append(restored)
        cells.extend(attached[r])
    return cells, notes


def student_for_gid(released: list, gid: str) -> int:
    return next(r for r, cell in enumerate(released) if grade_id(cell) == gid)


class RestoreStructure(NbGraderPreprocessor):
    """Rebuild each submission on its released notebook, keeping the student's answers and
    added cells, and note every repair (first of the sanitizing steps)."""

    release_notebook = Unicode(
        "", help="Path of the released notebook to rebuild on (default: release/<assignment>/<notebook>.ipynb)."
    ).tag(config=True)

    def preprocess(self, nb, resources):
        released = released_notebook(self.config, resources, self.release_notebook)
        if released is None:
            add_note(resources, "The released notebook was not found, so the cells were graded as submitted.")
            return nb, resources
        nb.cells, notes = restore_cells(released.cells, nb.cells)
        for note in notes:
            add_note(resources, note)
        return nb, resources


class SubmissionExporter(NotebookExporter):
    """A notebook exporter that grades an unreadable submission as the unanswered notebook."""

    def from_file(self, file_stream, resources=None, **kw):
        resources = resources if resources is not None else {}
        text = None
        try:
            text = file_stream.read()  # a UTF-16 file fails here, as text that is not UTF-8
            nb = nbformat.reads(text, as_version=4)
            cells = nb.get("cells")
            if not isinstance(cells, list) or not all(isinstance(c, dict) and "cell_type" in c for c in cells):
                raise ValueError("it has no proper list of cells")
        except Exception as error:  # noqa: BLE001 - any unreadable file is graded, not fatal
            released = released_notebook(self.config, resources)
            if released is None:
                raise
            nb = nbformat.v4.upgrade(released) if released.nbformat < 4 else released
            if text != PLACEHOLDER:  # a refused notebook's stand-in: RecordRefusals says why
                reason = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
                # It scores 0 for how it was saved, not for what it says: a person should look.
                add_review(
                    resources,
                    f"the submitted file is not a readable notebook ({reason}); it was graded as the "
                    "unanswered handed-out notebook",
                )
        return self.from_notebook_node(nb, resources, **kw)


class OverwriteCells(NbgraderOverwriteCells):
    """nbgrader's ``OverwriteCells``, without its "Attribute 'checksum' for cell test_... has changed!"
    warning.  Every test cell with hidden tests raised it, five per lesson 3 submission: the released
    cell lacks the hidden tests, so its checksum never matches the source's, and nbgrader puts the
    source back all the same (that is how hidden tests get run).  ``RestoreStructure``, which runs
    before this, has already rebuilt any cell a student changed on the released notebook and written
    a grading note, so the warning never meant tampering here.  It is logged at debug level; the
    other changes nbgrader reports (points, cell types) still warn."""

    def report_change(self, name, attr, old, new) -> None:
        if attr == "checksum":
            self.log.debug("Checksum of cell %s differs from the source's (its hidden tests): restored", name)
            return
        super().report_change(name, attr, old, new)
