"""`course.py lab` starts JupyterLab with the settings every server of the course reads (hub/etc/jupyter:
the course's exchange, encrypted kernels, no warning a newcomer did not cause), keeping the user's own;
a student's reads the students' settings before them (hub/etc/student: no instructor tools, as on the hub),
an instructor's (`course.py lab --instructor`) does not, so that the formgrader is there."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SETTINGS = os.path.join(ROOT, "hub", "etc", "jupyter")
STUDENT = os.path.join(ROOT, "hub", "etc", "student")
JUPYTER = os.path.join(os.path.dirname(sys.executable), "jupyter")
# nbgrader's parts for instructors, as a server extension and as JupyterLab plugins: what students never see
INSTRUCTOR_SERVER = {"nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list"}
INSTRUCTOR_LAB = {
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:create-assignment",
    "@jupyter/nbgrader:course-list",
}
# and the students' own, which stay: the assignment list (fetch, submit) and Validate
STUDENT_SERVER = {"nbgrader.server_extensions.assignment_list", "nbgrader.server_extensions.validate_assignment"}


def course_script():
    spec = importlib.util.spec_from_file_location("course_script", os.path.join(ROOT, "course.py"))
    course = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course)
    return course


def test_a_students_lab_reads_the_students_settings_then_the_course_server_settings():
    environment = course_script().lab_environment({"HOME": "/home/ada"})
    assert environment["JUPYTER_CONFIG_PATH"] == os.pathsep.join([STUDENT, SETTINGS])
    assert environment["HOME"] == "/home/ada"
    assert os.path.isfile(os.path.join(SETTINGS, "jupyter_server_config.py"))


def test_an_instructors_lab_reads_the_course_server_settings_only():
    environment = course_script().lab_environment({"HOME": "/home/ada"}, instructor=True)
    assert environment["JUPYTER_CONFIG_PATH"] == SETTINGS


def test_a_users_own_config_path_is_kept_after_it_once():
    given = os.pathsep.join(["/opt/mine", SETTINGS, STUDENT, ""])
    environment = course_script().lab_environment({"JUPYTER_CONFIG_PATH": given})
    assert environment["JUPYTER_CONFIG_PATH"].split(os.pathsep) == [STUDENT, SETTINGS, "/opt/mine"]


def jupyter_sees(environment: dict, own: str) -> tuple[dict, set]:
    """The server extensions Jupyter enables and the JupyterLab plugins it disables, read by Jupyter itself
    under ``environment``'s config path (the user's own config folder an empty ``own``: Jupyter may write there)."""
    read = (
        "import json; from jupyter_core.paths import jupyter_config_path; "
        "from jupyter_server.extension.config import ExtensionConfigManager; "
        "print(json.dumps(ExtensionConfigManager(read_config_path=jupyter_config_path()).get_jpserver_extensions()))"
    )
    environment = {**environment, "JUPYTER_CONFIG_DIR": own}
    found = subprocess.run([sys.executable, "-c", read], env=environment, capture_output=True, text=True, check=True)
    listed = subprocess.run([JUPYTER, "labextension", "list"], env=environment, capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    text = listed.stdout + listed.stderr  # JupyterLab prints its list on stderr
    disabled = text.split("Disabled extensions:", 1)[1] if "Disabled extensions:" in text else ""
    return json.loads(found.stdout), {line.split()[0] for line in disabled.splitlines() if line.strip()}


@pytest.fixture(scope="module")
def seen(tmp_path_factory) -> dict:
    course = course_script()
    clean = {k: v for k, v in os.environ.items() if k != "JUPYTER_CONFIG_PATH"}
    return {who: jupyter_sees(course.lab_environment(clean, instructor=who == "instructor"),
                              str(tmp_path_factory.mktemp(f"{who}-jupyter-config")))
            for who in ("student", "instructor")}  # fmt: skip


def test_a_students_lab_disables_exactly_nbgraders_instructor_tools(seen):
    server, lab = seen["student"]
    nbgrader = {name for name in server if name.startswith("nbgrader.")}
    assert {name for name in nbgrader if not server[name]} == INSTRUCTOR_SERVER
    assert {name for name in nbgrader if server[name]} == STUDENT_SERVER
    assert {name for name in lab if name.startswith("@jupyter/nbgrader")} == INSTRUCTOR_LAB


def test_an_instructors_lab_keeps_the_formgrader_and_create_assignment(seen):
    server, lab = seen["instructor"]
    assert all(server[name] for name in INSTRUCTOR_SERVER | STUDENT_SERVER)
    assert not {name for name in lab if name.startswith("@jupyter/nbgrader")}
