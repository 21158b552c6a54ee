"""Names from the LMS reach the gradebook through both grading paths: ``python -m autograder grade``
and plain ``nbgrader autograde`` create each student with an id only, and the grader's naming step
fills the names and email from the hub's LMS record (AUTOGRADER_LMS_RECORD)."""

import datetime
import os
import subprocess
import sys

from tests.conftest import requires_bwrap
from tests.course_copy import read, write

LESSON = "lesson1_requires_grad"  # an unanswered notebook grades quickly: the names are what is tested
LAUNCHES = {"alice": {"sub": "535fa085-f8a3", "given_name": "Alice", "family_name": "Liddell",
                      "email": "alice@lms.example"},
            "bob": {"sub": "17", "name": "Bob Babbage", "email": "bob@lms.example"}}  # fmt: skip


@requires_bwrap
def test_grade_and_plain_autograde_name_students_from_the_lms_record(tmp_path, released):
    from nbgrader.api import Gradebook

    from autograder.grading.lms_record import RecordFolder, record_launch

    course = released(str(tmp_path / "course"), LESSON)
    release = read(os.path.join(course, "release", LESSON, f"{LESSON}.ipynb"))
    for student in LAUNCHES:
        write(os.path.join(course, "submitted", student, LESSON, f"{LESSON}.ipynb"), release)
    record, when = None, datetime.datetime(2026, 12, 5, tzinfo=datetime.timezone.utc)
    for student, claims in LAUNCHES.items():
        record = record_launch(record, course="autograd-course", account=student, role="students", claims=claims,
                               platform={}, now=when)  # fmt: skip
    RecordFolder(str(tmp_path / "record")).save(record)
    env = {**os.environ, "AUTOGRADER_LMS_RECORD": str(tmp_path / "record")}
    run = dict(cwd=course, env=env, capture_output=True, text=True, timeout=900)
    graded = subprocess.run([sys.executable, "-m", "autograder", "grade", LESSON, "--student", "alice"], **run)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    plain = subprocess.run(["nbgrader", "autograde", LESSON, "--student", "bob"], **run)
    assert plain.returncode == 0, plain.stdout[-3000:] + plain.stderr[-3000:]
    with Gradebook("sqlite:///" + os.path.join(course, "gradebook.db"), "autograd-course") as gb:
        people = {s.id: (s.first_name, s.last_name, s.email) for s in gb.students}
    assert people == {
        "alice": ("Alice", "Liddell", "alice@lms.example"),
        "bob": ("Bob Babbage", "—", "bob@lms.example"),
    }
