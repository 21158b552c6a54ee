"""Every grading container that hub/k8s/ declares grades a class in the course image, started here
with podman under the security context its manifest declares (tests/hub/pods.py maps it); without
the setting the sandbox needs, grading stops at once and says which setting.

What Kubernetes would add around it is played here: the course volume is a folder owned by the
container's user (mapped into the pod's user namespace, as an idmap mount would), the gradebook is
the PostgreSQL server of tests/hub (reached through the host's network), and the shard is 1/2.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

from tests.conftest import ROOT
from tests.course_copy import CLEARS_AFTER_STEP, NEVER_CLEARS, answered, make_course, nbgrader, read, solutions, write
from tests.hub.image import LIMITS, PODMAN
from tests.hub.pods import declared_containers, give_volume, podman_options, without

pytestmark = [pytest.mark.hub, pytest.mark.slow]

LESSON = "lesson3_zeroing_grad"
MOUNT = "/srv/course"
CONTAINERS = declared_containers()
GRADERS = [c for c in CONTAINERS if c.name in ("grader", "grade")]


def test_manifests_have_server_and_job():
    assert {c.workload.split("/")[0] for c in GRADERS} == {"Deployment", "Job"}


@pytest.fixture(scope="module")
def make_class(postgres, tmp_path_factory):
    """A class of four lesson 3 submissions in a course folder with its own PostgreSQL gradebook,
    owned by the container's user as the course volume would be."""
    made = {"n": 0}

    def course(container) -> tuple[str, str]:
        made["n"] += 1
        folder = str(tmp_path_factory.mktemp("pod") / "course")
        make_course(folder)
        shutil.copytree(os.path.join(ROOT, "autograder"), os.path.join(folder, "autograder"))
        shutil.copytree(os.path.join(ROOT, "gradlessons"), os.path.join(folder, "gradlessons"))
        database = f"pod_{made['n']}"
        with open(os.path.join(folder, "nbgrader_config.py"), "a") as f:
            f.write(f"\nc.CourseDirectory.db_url = {postgres.database(database)!r}\n")
        nbgrader(folder, "generate_assignment", LESSON)
        source = read(os.path.join(folder, "notebooks", LESSON, f"{LESSON}.ipynb"))
        release = read(os.path.join(folder, "release", LESSON, f"{LESSON}.ipynb"))
        good = solutions(source)
        mix = [good, {**good, "train_step": NEVER_CLEARS}, {**good, "train_step": CLEARS_AFTER_STEP}, {}]
        for i, answers in enumerate(mix):
            path = os.path.join(folder, "submitted", f"student{i}", LESSON, f"{LESSON}.ipynb")
            write(path, answered(release, answers))
        give_volume(folder, container)
        os.chmod(os.path.dirname(folder), 0o755)
        return folder, database

    return course


def grade_in_pod(image: str, container, course: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """`grade --shard 1/2` in the course image, as the manifest's container would run it."""
    command = [*PODMAN, "run", "--rm", "--network", "host", *LIMITS, *podman_options(container),
               "-v", f"{course}:{MOUNT}", "-w", MOUNT, image,
               "python", "-m", "autograder", "grade", LESSON, "--shard", "1/2"]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def graded(postgres, database: str) -> dict[str, float]:
    rows = postgres.sql(
        "SELECT s.student_id, coalesce(sum(coalesce(g.manual_score, g.auto_score)), 0) FROM submitted_assignment s "
        "JOIN submitted_notebook n ON n.assignment_id = s.id LEFT JOIN grade g ON g.notebook_id = n.id "
        "GROUP BY s.student_id ORDER BY s.student_id",
        database=database,
    )
    return {student: float(total) for student, total in (line.split("|") for line in rows.splitlines())}


@pytest.mark.parametrize("container", GRADERS, ids=lambda c: c.label)
def test_container_grades_its_shard(container, course_image, make_class, postgres):
    course, database = make_class(container)
    done = grade_in_pod(course_image, container, course)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "(shard 1/2: 2 of the submissions): 2 graded" in done.stdout, done.stdout[-3000:]
    scores = graded(postgres, database)
    assert len(scores) == 2 and max(scores.values()) == 9.0, scores  # a correct submission earns full marks


@pytest.mark.parametrize("container", GRADERS, ids=lambda c: c.label)
def test_masked_proc_stops_at_once(container, course_image, make_class, postgres):
    course, database = make_class(container)
    began = time.monotonic()
    done = grade_in_pod(course_image, without(container, "procMount"), course, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output[-3000:]
    assert "procMount: Unmasked" in output and output.count("procMount") == 1, output[-3000:]
    assert time.monotonic() - began < 120  # at start, not once per submission
    assert "student0" not in done.stdout and not graded(postgres, database)
