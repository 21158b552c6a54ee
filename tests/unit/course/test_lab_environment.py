"""`course.py lab` starts JupyterLab with the settings every server of the course reads (hub/etc/jupyter:
the course's exchange, encrypted kernels, no warning a newcomer did not cause), keeping the user's own."""

import importlib.util
import os

from tests.conftest import ROOT

SETTINGS = os.path.join(ROOT, "hub", "etc", "jupyter")


def course_script():
    spec = importlib.util.spec_from_file_location("course_script", os.path.join(ROOT, "course.py"))
    course = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course)
    return course


def test_lab_reads_the_course_server_settings_first():
    environment = course_script().lab_environment({"HOME": "/home/ada"})
    assert environment["JUPYTER_CONFIG_PATH"] == SETTINGS and environment["HOME"] == "/home/ada"
    assert os.path.isfile(os.path.join(SETTINGS, "jupyter_server_config.py"))


def test_a_users_own_config_path_is_kept_after_it_once():
    given = os.pathsep.join(["/opt/mine", SETTINGS, ""])
    environment = course_script().lab_environment({"JUPYTER_CONFIG_PATH": given})
    assert environment["JUPYTER_CONFIG_PATH"].split(os.pathsep) == [SETTINGS, "/opt/mine"]
