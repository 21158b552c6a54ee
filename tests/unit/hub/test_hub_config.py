"""hub/jupyterhub_config.py on paper: what the hub is told for a roster of one course and of two (the
hubs themselves run in tests/hub/test_class_on_hub.py and tests/hub/test_two_courses.py)."""

from __future__ import annotations

import os

import pytest
from traitlets.config import Config

from tests.conftest import ROOT

CONFIG = os.path.join(ROOT, "hub", "jupyterhub_config.py")
TWO_COURSES = """
[courses.autograd-fall]
instructors = ["instructor1"]
tas = ["ta1"]
students = ["student1", "student2"]

[courses.autograd-spring]
instructors = ["instructor2"]
students = ["student1", "student3"]
root = "/srv/courses/spring"
grader = "grader-spring"
"""


def hub_config(tmp_path, monkeypatch, roster: str, **settings: str) -> Config:
    (tmp_path / "roster.toml").write_text(roster)
    for name in [name for name in os.environ if name.startswith("AUTOGRAD")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AUTOGRADER_ROSTER", str(tmp_path / "roster.toml"))
    monkeypatch.setenv("AUTOGRADER_HUB_STATE", str(tmp_path))
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(os, "environ", os.environ.copy())  # what the hub's configuration writes there stays here
    c = Config()
    with open(CONFIG) as f:
        exec(compile(f.read(), CONFIG, "exec"), {"get_config": lambda: c, "__file__": CONFIG})
    return c


def test_two_courses_get_own_grader(tmp_path, monkeypatch):
    url = "postgresql://autograd:pw@db:5432/gradebook_{course}"
    c = hub_config(tmp_path, monkeypatch, TWO_COURSES, AUTOGRADER_DB_URL=url, AUTOGRADER_SERVICE_PORT="9100")
    services = {service["name"]: service for service in c.JupyterHub.services}
    assert sorted(services) == ["autograd-fall", "autograd-spring", "idle-culler"]
    fall, spring = services["autograd-fall"], services["autograd-spring"]
    assert (fall["user"], fall["cwd"], fall["url"]) == (
        "grader-autograd-fall",
        "/srv/autograd-fall",
        "http://127.0.0.1:9100",
    )
    assert (spring["user"], spring["cwd"], spring["url"]) == (
        "grader-spring",
        "/srv/courses/spring",
        "http://127.0.0.1:9101",
    )
    assert fall["environment"]["AUTOGRADER_COURSE_ID"] == "autograd-fall"
    assert fall["environment"]["AUTOGRADER_DB_URL"] == "postgresql://autograd:pw@db:5432/gradebook_autograd_fall"
    assert spring["environment"]["AUTOGRADER_DB_URL"] == "postgresql://autograd:pw@db:5432/gradebook_autograd_spring"


def test_formgraders_own_staff_no_admin(tmp_path, monkeypatch):
    c = hub_config(tmp_path, monkeypatch, TWO_COURSES)
    roles = {role["name"]: role for role in c.JupyterHub.load_roles}
    assert roles["formgrade-autograd-spring"]["groups"] == ["formgrade-autograd-spring"]
    assert "access:services!service=autograd-spring" in roles["formgrade-autograd-spring"]["scopes"]
    assert not any("autograd-fall" in scope for scope in roles["formgrade-autograd-spring"]["scopes"])
    groups = c.JupyterHub.load_groups
    assert groups["formgrade-autograd-spring"]["users"] == ["instructor2"]
    assert groups["nbgrader-autograd-fall"]["users"] == ["student1", "student2"]
    assert groups["students"]["users"] == ["student1", "student2", "student3"]
    assert c.Authenticator.admin_users == set()
    assert c.Authenticator.allowed_users == {"instructor1", "ta1", "instructor2", "student1", "student2", "student3"}
    # Users' servers ask the hub for their courses (nbgrader's JupyterHubAuthPlugin): an empty course id.
    assert c.Spawner.environment["AUTOGRADER_COURSE_ID"] == ""


def test_two_courses_refuse_shared_db(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match=r"write \{course\}"):
        hub_config(tmp_path, monkeypatch, TWO_COURSES, AUTOGRADER_DB_URL="postgresql://autograd:pw@db/autograd")


def test_one_course_keeps_admins(tmp_path, monkeypatch):
    roster = 'instructors = ["instructor1"]\nstudents = ["student1"]\n'
    c = hub_config(
        tmp_path, monkeypatch, roster, AUTOGRADER_COURSE_ROOT="/srv/here", AUTOGRADER_DB_URL="sqlite:///x.db"
    )
    service, culler = c.JupyterHub.services
    assert culler["name"] == "idle-culler"
    assert (service["name"], service["cwd"], service["user"]) == (
        "autograd-course",
        "/srv/here",
        "grader-autograd-course",
    )
    assert service["environment"]["AUTOGRADER_DB_URL"] == "sqlite:///x.db"
    assert c.Authenticator.admin_users == {"instructor1"}
    assert c.Spawner.environment["AUTOGRADER_COURSE_ID"] == "autograd-course"


def test_ngshare_enrols_every_course(tmp_path, monkeypatch):
    c = hub_config(tmp_path, monkeypatch, TWO_COURSES, AUTOGRADER_EXCHANGE_KIND="ngshare")
    (ngshare,) = [service for service in c.JupyterHub.services if service["name"] == "ngshare"]
    courses = [ngshare["command"][i + 1] for i, word in enumerate(ngshare["command"]) if word == "--course"]
    assert courses == ["autograd-fall", "autograd-spring"]


@pytest.mark.parametrize(
    "given, course_id, plugin",
    [(None, "autograd-course", None), ("autograd-spring", "autograd-spring", None), ("", None, "JupyterHubAuthPlugin")],
)
def test_servers_take_course_from_hub(monkeypatch, given, course_id, plugin):
    path = os.path.join(ROOT, "hub", "etc", "jupyter", "nbgrader_config.py")
    monkeypatch.delenv("AUTOGRADER_COURSE_ID", raising=False)
    if given is not None:
        monkeypatch.setenv("AUTOGRADER_COURSE_ID", given)
    c = Config()
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), {"get_config": lambda: c, "__file__": path})
    assert c.CourseDirectory.get("course_id") == course_id
    assert c.Authenticator.get("plugin_class", "").endswith(plugin) if plugin else "plugin_class" not in c.Authenticator
    assert bool(c.Exchange.get("path_includes_course")) is (plugin is not None)


def test_old_settings_warn_but_work(tmp_path, monkeypatch):
    roster = 'instructors = ["instructor1"]\n'
    with pytest.warns(FutureWarning, match="AUTOGRAD_DB_URL is deprecated: set AUTOGRADER_DB_URL"):
        c = hub_config(tmp_path, monkeypatch, roster, AUTOGRAD_DB_URL="sqlite:///old.db", AUTOGRAD_SERVICE_PORT="9200")
    service = c.JupyterHub.services[0]
    assert service["environment"]["AUTOGRADER_DB_URL"] == "sqlite:///old.db"
    assert service["url"] == "http://127.0.0.1:9200"


LMS_ROSTER = """
[courses.autograd-fall]
lti_context = "4dde05e8ca1973bcca9bffc13e1548820eee93a3"

[courses.autograd-spring]
lti_context = "7"
root = "/srv/courses/spring"
"""


def lms_hub_config(tmp_path, monkeypatch, **settings: str) -> Config:
    return hub_config(tmp_path, monkeypatch, LMS_ROSTER, AUTOGRADER_AUTH="lti13",
                      AUTOGRADER_LTI_ISSUER="https://canvas.instructure.com", AUTOGRADER_LTI_CLIENT_ID="10000000000042",
                      AUTOGRADER_LTI_DEPLOYMENT_ID="42:8865aa05",
                      AUTOGRADER_LTI_AUTHORIZE_URL="https://sso.canvaslms.com/api/lti/authorize_redirect",
                      AUTOGRADER_LTI_JWKS_URL="https://sso.canvaslms.com/api/lti/security/jwks",
                      AUTOGRADER_LTI_CREATE_ACCOUNTS="0", **settings)  # fmt: skip


def test_under_lti_each_grading_server_reads_its_courses_lms_record(tmp_path, monkeypatch):
    c = lms_hub_config(tmp_path, monkeypatch)  # a roster naming nobody: the LMS says who takes part
    services = {service["name"]: service for service in c.JupyterHub.services}
    for course in ("autograd-fall", "autograd-spring"):
        assert services[course]["environment"]["AUTOGRADER_LMS_RECORD"] == str(tmp_path / "lms" / course)
        assert (tmp_path / "lms" / course / "tool_key.pem").is_file()
    assert "AUTOGRADER_FRAME_ANCESTORS" not in c.Spawner.environment  # a new tab: the hub is not on https


def test_under_lti_in_the_lms_frame_every_server_is_told_its_frame_ancestors(tmp_path, monkeypatch):
    c = lms_hub_config(tmp_path, monkeypatch, AUTOGRADER_LTI_URI_SCHEME="https",
                       AUTOGRADER_LTI_FRAME_ANCESTORS="https://canvas.example.edu")  # fmt: skip
    ancestors = "'self' https://canvas.example.edu"
    assert c.Spawner.environment["AUTOGRADER_FRAME_ANCESTORS"] == ancestors
    grading = next(s for s in c.JupyterHub.services if s["name"] == "autograd-fall")
    assert grading["environment"]["AUTOGRADER_FRAME_ANCESTORS"] == ancestors


def test_under_lti_ngshare_reads_the_roster_as_an_lms_roster(tmp_path, monkeypatch):
    c = lms_hub_config(tmp_path, monkeypatch, AUTOGRADER_EXCHANGE_KIND="ngshare")
    ngshare = next(s for s in c.JupyterHub.services if s["name"] == "ngshare")
    assert "--lms" in ngshare["command"]
