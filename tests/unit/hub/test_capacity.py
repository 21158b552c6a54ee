"""hub/capacity.py: what the hub is told about a class that arrives at once, and what each student may
use (the limits held for real: tests/hub/test_student_limits.py; a class at once: test_class_arrives.py)."""

from __future__ import annotations

import os
import re
import sys

import pytest
import yaml

from tests.conftest import ROOT
from tests.unit.hub.test_hub_config import hub_config

sys.path.insert(0, os.path.join(ROOT, "hub"))
import capacity  # noqa: E402

ONE_COURSE = 'instructors = ["instructor1"]\ntas = ["ta1"]\nstudents = ["student1", "student2"]\n'


def test_the_defaults_start_two_servers_per_core_and_wait_two_minutes_for_each():
    defaults = capacity.Capacity.from_environment({})
    assert defaults.spawn_limit == 2 * os.cpu_count()
    assert (defaults.start_timeout, defaults.http_timeout) == (120, 120)
    assert (defaults.spawner, defaults.mem_limit, defaults.cpu_limit) == ("cgroup", "2G", 1.0)
    assert defaults.cull_idle == 3600


def test_each_setting_comes_from_its_variable():
    given = capacity.Capacity.from_environment({
        "AUTOGRADER_SPAWN_LIMIT": "3", "AUTOGRADER_START_TIMEOUT": "90", "AUTOGRADER_HTTP_TIMEOUT": "45",
        "AUTOGRADER_SPAWNER": "systemd", "AUTOGRADER_MEM_LIMIT": "1536m", "AUTOGRADER_CPU_LIMIT": "0.5",
        "AUTOGRADER_TASKS_LIMIT": "200", "AUTOGRADER_CULL_IDLE": "600", "AUTOGRADER_CULL_EVERY": "60",
    })  # fmt: skip
    assert given == capacity.Capacity(3, (2, 6), 90, 45, "systemd", "1536M", 0.5, 200, 600, 60)
    assert given.mem_limit_bytes() == 1536 * 2**20


@pytest.mark.parametrize(
    "name, value, says",
    [
        ("AUTOGRADER_SPAWN_LIMIT", "many", "AUTOGRADER_SPAWN_LIMIT='many'"),
        ("AUTOGRADER_SPAWN_LIMIT", "-1", "0 (no limit) or more"),
        ("AUTOGRADER_MEM_LIMIT", "2 GB", "a size such as 2G"),
        ("AUTOGRADER_CPU_LIMIT", "nan", "a number of cores"),
        ("AUTOGRADER_SPAWNER", "kubernetes", "one of cgroup, systemd, local"),
        ("AUTOGRADER_HTTP_TIMEOUT", "1.5", "AUTOGRADER_HTTP_TIMEOUT"),
    ],
)
def test_a_wrong_value_stops_the_hub_naming_the_setting(name, value, says):
    with pytest.raises(ValueError, match=re.escape(says)):
        capacity.Capacity.from_environment({name: value})


def test_a_culler_that_looks_less_often_than_it_culls_is_refused():
    with pytest.raises(ValueError, match="AUTOGRADER_CULL_EVERY is longer"):
        capacity.Capacity.from_environment({"AUTOGRADER_CULL_IDLE": "60", "AUTOGRADER_CULL_EVERY": "300"})


def test_the_hub_limits_spawns_and_waits_long_enough(tmp_path, monkeypatch):
    c = hub_config(tmp_path, monkeypatch, ONE_COURSE, AUTOGRADER_SPAWN_LIMIT="5")
    assert c.JupyterHub.concurrent_spawn_limit == 5
    # The "class is starting" page comes back within seconds (JupyterHub reads it from its web settings).
    assert c.JupyterHub.tornado_settings.get_value({})["spawn_throttle_retry_range"] == (2, 6)
    assert (c.Spawner.start_timeout, c.Spawner.http_timeout) == (120, 120)
    assert os.path.exists(os.path.join(c.JupyterHub.template_paths[0], "429.html"))


def test_each_student_gets_a_cgroup_with_the_limits(tmp_path, monkeypatch):
    c = hub_config(tmp_path, monkeypatch, ONE_COURSE, AUTOGRADER_MEM_LIMIT="1G", AUTOGRADER_CPU_LIMIT="0.5")
    assert c.JupyterHub.spawner_class == "cgroup_spawner.CgroupSpawner"
    assert (c.Spawner.mem_limit, c.Spawner.cpu_limit, c.CgroupSpawner.tasks_limit) == (2**30, 0.5, 1024)


def test_systemd_takes_the_same_limits_for_the_same_local_accounts(tmp_path, monkeypatch):
    c = hub_config(tmp_path, monkeypatch, ONE_COURSE, AUTOGRADER_SPAWNER="systemd", AUTOGRADER_TASKS_LIMIT="300")
    assert c.JupyterHub.spawner_class == "systemdspawner.SystemdSpawner"
    assert c.SystemdSpawner.dynamic_users is False
    assert c.SystemdSpawner.unit_extra_properties == {"TasksMax": "300"}
    assert (c.Spawner.mem_limit, c.Spawner.cpu_limit) == (2 * 2**30, 1.0)


def test_the_local_spawner_is_jupyterhubs_with_no_limit(tmp_path, monkeypatch):
    c = hub_config(tmp_path, monkeypatch, ONE_COURSE, AUTOGRADER_SPAWNER="local")
    assert c.JupyterHub.spawner_class == "localprocess"
    assert "mem_limit" not in c.Spawner


def test_the_culler_runs_as_a_service_with_only_its_documented_rights(tmp_path, monkeypatch):
    c = hub_config(tmp_path, monkeypatch, ONE_COURSE, AUTOGRADER_CULL_IDLE="1800", AUTOGRADER_CULL_EVERY="120")
    (culler,) = [service for service in c.JupyterHub.services if service["name"] == "idle-culler"]
    assert culler["command"][1:] == ["-m", "jupyterhub_idle_culler", "--timeout=1800", "--cull-every=120"]
    (role,) = [role for role in c.JupyterHub.load_roles if role["name"] == "idle-culler"]
    assert role["services"] == ["idle-culler"]
    assert sorted(role["scopes"]) == ["delete:servers", "list:users", "read:servers", "read:users:activity"]


def test_no_culler_when_told_so(tmp_path, monkeypatch):
    c = hub_config(tmp_path, monkeypatch, ONE_COURSE, AUTOGRADER_CULL_IDLE="0")
    assert [service["name"] for service in c.JupyterHub.services] == ["autograd-course"]
    assert "idle-culler" not in [role["name"] for role in c.JupyterHub.load_roles]


def test_a_courses_staff_and_grading_server_may_start_its_students_servers_only(tmp_path, monkeypatch):
    c = hub_config(tmp_path, monkeypatch, ONE_COURSE)
    (role,) = [role for role in c.JupyterHub.load_roles if role["name"] == "prestart-autograd-course"]
    assert role["groups"] == ["formgrade-autograd-course"] and role["services"] == ["autograd-course"]
    assert all(scope.endswith("!group=nbgrader-autograd-course") for scope in role["scopes"])
    assert not any(scope.startswith("access:") for scope in role["scopes"])  # not into the students' servers


def test_students_servers_load_only_what_a_student_uses():
    folder = os.path.join(ROOT, "hub", "etc", "student")
    import json

    with open(os.path.join(folder, "jupyter_server_config.d", "autograd-course-student.json")) as f:
        server = json.load(f)["ServerApp"]
    off = {name for name, on in server["jpserver_extensions"].items() if not on}
    assert off == {"nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list",
                   "jupyter_lsp", "jupyter_server_terminals", "notebook"}  # fmt: skip
    assert server["terminals_enabled"] is False


def test_kubernetes_sets_the_same_limits_and_culler_as_the_hub():
    """hub/k8s/values.yaml repeats the single machine's defaults: a change to one fails here."""
    with open(os.path.join(ROOT, "hub", "k8s", "values.yaml")) as f:
        values = yaml.safe_load(f)
    defaults = capacity.Capacity()
    assert values["singleuser"]["memory"]["limit"] == defaults.mem_limit
    assert float(values["singleuser"]["cpu"]["limit"]) == defaults.cpu_limit
    assert values["cull"] == {"enabled": True, "timeout": defaults.cull_idle, "every": defaults.cull_every}
    hub = values["hub"]["config"]
    assert hub["Spawner"]["start_timeout"] == defaults.start_timeout
    assert hub["Spawner"]["http_timeout"] == defaults.http_timeout
    assert hub["JupyterHub"]["tornado_settings"]["spawn_throttle_retry_range"] == list(defaults.retry_seconds)
