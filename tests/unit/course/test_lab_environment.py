"""`course.py lab` starts JupyterLab with the settings every server of the course reads (hub/etc/jupyter:
the course's exchange, encrypted kernels, no warning a newcomer did not cause), keeping the user's own;
a student's reads the students' settings before them (lab/etc/student: no instructor tools, as on the hub,
but the terminal stays), and a learner with no class exchange on the machine also lab/etc/solo (no
Assignment List to fail on it); an instructor's (`course.py lab --instructor`) reads neither, so that the
formgrader is there."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SETTINGS = os.path.join(ROOT, "hub", "etc", "jupyter")
STUDENT = os.path.join(ROOT, "lab", "etc", "student")
SOLO = os.path.join(ROOT, "lab", "etc", "solo")
HUB_STUDENT = os.path.join(ROOT, "hub", "etc", "student")
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
# what a learner with no exchange loses besides: the assignment list and the menu that only opens it
SOLO_SERVER = {"nbgrader.server_extensions.assignment_list"}
SOLO_LAB = {"@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:menu"}


def course_script():
    spec = importlib.util.spec_from_file_location("course_script", os.path.join(ROOT, "course.py"))
    course = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course)
    return course


def test_a_students_lab_reads_the_students_settings_then_the_course_server_settings(tmp_path):
    environment = course_script().lab_environment({"HOME": "/home/ada", "AUTOGRADER_EXCHANGE": str(tmp_path)})
    assert environment["JUPYTER_CONFIG_PATH"] == os.pathsep.join([STUDENT, SETTINGS])
    assert environment["HOME"] == "/home/ada"
    assert os.path.isfile(os.path.join(SETTINGS, "jupyter_server_config.py"))


def test_a_learner_with_no_class_exchange_reads_the_solo_settings_first(tmp_path):
    environment = course_script().lab_environment({"AUTOGRADER_EXCHANGE": str(tmp_path / "none")})
    assert environment["JUPYTER_CONFIG_PATH"] == os.pathsep.join([SOLO, STUDENT, SETTINGS])


def test_an_instructors_lab_reads_the_course_server_settings_only():
    environment = course_script().lab_environment({"HOME": "/home/ada"}, instructor=True)
    assert environment["JUPYTER_CONFIG_PATH"] == SETTINGS


def test_a_users_own_config_path_is_kept_after_it_once(tmp_path):
    given = os.pathsep.join(["/opt/mine", SETTINGS, STUDENT, ""])
    environment = course_script().lab_environment({"JUPYTER_CONFIG_PATH": given, "AUTOGRADER_EXCHANGE": str(tmp_path)})
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
    exchange = str(tmp_path_factory.mktemp("exchange"))
    at_class, at_home = {**clean, "AUTOGRADER_EXCHANGE": exchange}, {**clean, "AUTOGRADER_EXCHANGE": exchange + "-none"}
    environments = {
        "student": course.lab_environment(at_class),
        "instructor": course.lab_environment(at_class, instructor=True),
        "solo": course.lab_environment(at_home),
        "hub student": {**clean, "JUPYTER_CONFIG_PATH": os.pathsep.join([HUB_STUDENT, SETTINGS])},
    }
    return {who: jupyter_sees(environment, str(tmp_path_factory.mktemp("jupyter-config")))
            for who, environment in environments.items()}  # fmt: skip


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


def test_a_learners_lab_keeps_the_terminal_the_hubs_students_do_without(seen):
    assert seen["student"][0].get("jupyter_server_terminals", True) is True
    assert seen["hub student"][0]["jupyter_server_terminals"] is False


def test_a_learner_with_no_exchange_has_no_assignment_list_and_still_no_instructor_tools(seen):
    server, lab = seen["solo"]
    nbgrader = {name for name in server if name.startswith("nbgrader.")}
    assert {name for name in nbgrader if not server[name]} == INSTRUCTOR_SERVER | SOLO_SERVER
    assert {name for name in lab if name.startswith("@jupyter/nbgrader")} == INSTRUCTOR_LAB | SOLO_LAB


def test_the_hubs_students_lose_at_least_what_a_learners_lab_turns_off(seen):
    """hub/etc/student and lab/etc/student each list nbgrader's instructor tools: they must not drift apart."""
    student_server, student_lab = seen["student"]
    hub_server, hub_lab = seen["hub student"]
    assert {n for n in student_server if not student_server[n]} <= {n for n in hub_server if not hub_server[n]}
    assert student_lab <= hub_lab
