"""hub/lti.py on paper: which course and groups an LTI 1.3 launch's claims give, which account name,
and what it refuses (the launch itself, on a real hub, is tests/hub/test_lti_login.py)."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("hub_lti", os.path.join(ROOT, "hub", "lti.py"))
lti = sys.modules["hub_lti"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lti)
roster = lti.roster

ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim"
COURSES = roster.parse({
    "courses": {
        "autograd-fall": {"instructors": ["instructor1"], "lti_context": "ctx-fall"},
        "autograd-spring": {"instructors": ["instructor2"], "root": "/srv/spring", "lti_context": "ctx-spring"},
        "autograd-lab": {"instructors": ["instructor3"], "root": "/srv/lab"},  # no LMS course
    }
})  # fmt: skip


def launch(context: str | None, *roles: str, **claims) -> dict:
    return {f"{CLAIM}/roles": list(roles), **({f"{CLAIM}/context": {"id": context}} if context else {}), **claims}


@pytest.mark.parametrize(
    "roles, role, groups",
    [
        ([f"{ROLE}#Instructor"], "instructors", ["instructors-autograd-spring", "formgrade-autograd-spring"]),
        ([f"{ROLE}#TeachingAssistant"], "tas", ["tas-autograd-spring", "formgrade-autograd-spring"]),
        ([f"{ROLE}#Instructor", f"{ROLE}/Instructor#TeachingAssistant"], "tas",
         ["tas-autograd-spring", "formgrade-autograd-spring"]),
        ([f"{ROLE}#Learner", "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Student"], "students",
         ["students-autograd-spring", "nbgrader-autograd-spring"]),
    ],
)  # fmt: skip
def test_role_gives_course_groups(roles, role, groups):
    member = lti.membership(launch("ctx-spring", *roles), COURSES)
    assert (member.course, member.role, list(member.groups)) == ("autograd-spring", role, groups)


def test_unknown_context_refused():
    """A launch from an LMS course no roster course names is refused with the line to add."""
    with pytest.raises(lti.LaunchRefused, match='lti_context = "ctx-other"'):
        lti.membership(launch("ctx-other", f"{ROLE}#Learner"), COURSES)


def test_no_context_or_role_refused():
    with pytest.raises(lti.LaunchRefused, match="no context claim"):
        lti.membership(launch(None, f"{ROLE}#Learner"), COURSES)
    with pytest.raises(lti.LaunchRefused, match="Mentor"):
        lti.membership(launch("ctx-fall", f"{ROLE}#Mentor"), COURSES)


@pytest.mark.parametrize(
    "claims, claim, name",
    [
        ({"sub": "student1"}, "sub", "student1"),  # already an account name: unchanged
        ({"sub": "Student1"}, "sub", "student1"),  # JupyterHub's names ignore case
        ({"email": "Alice@Example.edu"}, "email", "alice-example.edu-dd36b1bc"),
        ({"sub": "7d0b1d5e-3c4a-4e1f-9a53-2f64c0b1a9e2"}, "sub", "u-7d0b1d5e-3c4a-4e1f-9a-045f9a00"),
        ({f"{CLAIM}/ext": {"user_username": "bob", "lms": "moodle-2"}}, f"{CLAIM}/ext#user_username", "bob"),
        ({f"{CLAIM}/custom": {"login": "Élève"}}, f"{CLAIM}/custom#login", "eleve-86aceee0"),
    ],
)  # fmt: skip
def test_name_from_claim_is_safe(claims, claim, name):
    assert lti.username(claims, claim) == name
    assert lti.ACCOUNT.fullmatch(name) and roster.ACCOUNT.fullmatch(name)


def test_missing_name_claim_refused():
    with pytest.raises(lti.LaunchRefused, match="'email'"):
        lti.username({"sub": "student1"}, "email")


def test_launch_counts_once():
    used = lti.UsedLaunches()
    claims = {"iss": "https://canvas.instructure.com", "nonce": "n1", "exp": 2_000_000_000}
    assert used.first_use(claims) and not used.first_use(claims)
    assert used.first_use({**claims, "nonce": "n2"})


def lti_settings(tmp_path, **more) -> dict:
    """A hub's LTI settings as docs/instructor.md gives them, with a roster that names no one."""
    (tmp_path / "roster.toml").write_text('lti_context = "ctx-1"\n')
    return {"AUTOGRADER_ROSTER": str(tmp_path / "roster.toml"), "AUTOGRADER_LTI_ISSUER": "https://canvas.instructure.com",
            "AUTOGRADER_LTI_CLIENT_ID": "10000000000042, 10000000000043", "AUTOGRADER_LTI_DEPLOYMENT_ID": "42:8865aa05",
            "AUTOGRADER_LTI_AUTHORIZE_URL": "https://sso.canvaslms.com/api/lti/authorize_redirect",
            "AUTOGRADER_LTI_JWKS_URL": "https://sso.canvaslms.com/api/lti/security/jwks",
            "AUTOGRADER_LTI_USERNAME_CLAIM": f"{CLAIM}/ext#user_username", "AUTOGRADER_LTI_CREATE_ACCOUNTS": "0",
            "AUTOGRADER_LMS_RECORDS": str(tmp_path / "lms"), **more}  # fmt: skip


def test_configure_lets_lti_set_groups(tmp_path):
    from traitlets.config import Config

    settings = lti_settings(tmp_path)
    c = Config()
    c.JupyterHub.load_groups = {"students": {"users": ["student1"]}}
    setup = lti.configure(c, settings)
    assert c.JupyterHub.authenticator_class.__name__ == "CourseLTI13Authenticator"
    assert c.LTI13Authenticator.client_id == {"10000000000042", "10000000000043"}
    assert c.LTI13Authenticator.username_key == "sub"  # a nested claim is the hook's to read
    assert c.Authenticator.manage_groups and c.JupyterHub.load_groups == {}
    assert c.Authenticator.admin_users == set()  # the roster's names make nobody an admin under LTI
    # each course's record folder and tool key exist before any launch: the key set URL answers
    assert setup.records == str(tmp_path / "lms")
    assert (tmp_path / "lms" / "autograd-course" / "tool_key.pem").is_file()
    assert oct((tmp_path / "lms").stat().st_mode & 0o777) == "0o711"
    assert setup.environment == {}  # launched in a new tab unless the hub is served over https
    for missing in ("AUTOGRADER_LTI_JWKS_URL", "AUTOGRADER_LTI_DEPLOYMENT_ID"):
        with pytest.raises(ValueError, match=missing):
            lti.configure(Config(), {**settings, missing: ""})


def test_a_launch_from_an_unknown_deployment_is_refused_with_the_setting_to_change():
    lti.check_deployment({f"{CLAIM}/deployment_id": "42:8865aa05"}, frozenset({"42:8865aa05"}))
    for claims in ({f"{CLAIM}/deployment_id": "7:other"}, {}, {f"{CLAIM}/deployment_id": ["42:8865aa05"]}):
        with pytest.raises(lti.LaunchRefused, match="AUTOGRADER_LTI_DEPLOYMENT_ID"):
            lti.check_deployment(claims, frozenset({"42:8865aa05"}))


def test_in_the_lms_frame_cookies_are_partitioned_and_the_lms_may_frame_every_server(tmp_path):
    from traitlets.config import Config

    c = Config()
    setup = lti.configure(c, lti_settings(tmp_path, AUTOGRADER_LTI_URI_SCHEME="https",
                                          AUTOGRADER_LTI_FRAME_ANCESTORS="https://canvas.example.edu"))  # fmt: skip
    tornado = c.JupyterHub.tornado_settings.get_value({})  # what the hub gets when it loads its config
    assert tornado["cookie_options"] == {"samesite": "None", "secure": True, "partitioned": True}
    assert tornado["headers"]["Content-Security-Policy"] == "frame-ancestors 'self' https://canvas.example.edu"
    assert setup.environment == {"AUTOGRADER_FRAME_ANCESTORS": "'self' https://canvas.example.edu"}
    # the default ancestors are the platform's own origins (Moodle: the issuer is the LMS's site)
    c = Config()
    lti.configure(c, lti_settings(tmp_path, AUTOGRADER_LTI_IN_FRAME="1"))
    assert c.JupyterHub.tornado_settings.get_value({})["headers"]["Content-Security-Policy"] == (
        "frame-ancestors 'self' https://canvas.instructure.com https://sso.canvaslms.com"
    )
    for bad in ("https://lms.example.edu; script-src *", "javascript:alert(1)"):
        with pytest.raises(ValueError, match="not an origin"):
            lti.configure(Config(), lti_settings(tmp_path, AUTOGRADER_LTI_IN_FRAME="1",
                                                 AUTOGRADER_LTI_FRAME_ANCESTORS=bad))  # fmt: skip
    with pytest.raises(ValueError, match="AUTOGRADER_LTI_IN_FRAME='maybe': expected 1 or 0"):
        lti.configure(Config(), lti_settings(tmp_path, AUTOGRADER_LTI_IN_FRAME="maybe"))


def platform_with_record(tmp_path, people: dict, create_accounts: bool = False):
    from autograder.grading.lms_record import RecordFolder

    folder = tmp_path / "lms" / "autograd-fall"
    folder.mkdir(parents=True)
    record = {"version": 1, "course": "autograd-fall", "platform": {}, "context": {}, "ags": {}, "people": people,
              "links": {}}  # fmt: skip
    RecordFolder(str(folder)).save(record)
    return lti.Platform(issuer="https://canvas.instructure.com", deployments=frozenset({"1"}),
                        create_accounts=create_accounts, records=str(tmp_path / "lms"),
                        reserved=frozenset({"root", "grader-autograd-fall", "autograd-fall"}))  # fmt: skip


def test_an_account_is_never_the_hubs_own_a_system_one_or_another_lms_users(tmp_path):
    platform = platform_with_record(tmp_path, {"ada": {"sub": "sub-ada"}})
    platform.check_account("ada", "sub-ada", COURSES)  # the same LMS user again
    platform.check_account("newcomer", "sub-new", COURSES)
    for name, says in (("grader-autograd-fall", "one of this hub's own"), ("autograd-fall", "one of this hub's own"),
                       ("root", "one of this hub's own"), ("daemon", "system account"),
                       ("ada", "belongs to another LMS user")):  # fmt: skip
        with pytest.raises(lti.LaunchRefused, match=says):
            platform.check_account(name, "sub-mallory", COURSES)


def test_with_accounts_made_at_launch_an_account_made_by_hand_is_refused(tmp_path, monkeypatch):
    import pwd

    platform = platform_with_record(tmp_path, {}, create_accounts=True)
    hand_made = pwd.struct_passwd(("student1", "x", 1500, 1500, "", "/home/student1", "/bin/bash"))
    monkeypatch.setattr(lti.pwd, "getpwnam", lambda name: hand_made if name == "student1" else pwd.getpwnam(name))
    monkeypatch.setattr(lti.lti_accounts, "in_group", lambda name, group: False)
    with pytest.raises(lti.LaunchRefused, match="lti-users"):
        platform.check_account("student1", "sub-x", COURSES)
    monkeypatch.setattr(lti.lti_accounts, "in_group", lambda name, group: group == "lti-users")  # an admin said so
    platform.check_account("student1", "sub-x", COURSES)


def test_in_the_frame_needs_https(tmp_path):
    from traitlets.config import Config

    with pytest.raises(ValueError, match="needs the hub on https"):
        lti.configure(Config(), lti_settings(tmp_path, AUTOGRADER_LTI_IN_FRAME="1", AUTOGRADER_LTI_URI_SCHEME="http"))


def test_the_first_uid_of_a_person_comes_from_login_defs(tmp_path):
    (tmp_path / "login.defs").write_text("# UID_MIN 5\nUID_MIN\t\t 2000\nUID_MAX 60000\n")
    assert lti.lti_accounts.uid_min(str(tmp_path / "login.defs")) == 2000
    assert lti.lti_accounts.uid_min(str(tmp_path / "none")) == 1000


def test_a_grader_whose_group_others_share_stops_the_hub(tmp_path, monkeypatch):
    import pwd

    from traitlets.config import Config

    grader = pwd.struct_passwd(("grader-autograd-course", "x", 1600, 100, "", "/home/g", "/bin/bash"))
    learner = pwd.struct_passwd(("learner1", "x", 1601, 100, "", "/home/l", "/bin/bash"))
    monkeypatch.setattr(lti.pwd, "getpwall", lambda: [grader, learner])
    monkeypatch.setattr(lti.Platform, "record_group", lambda self, course: 100)
    with pytest.raises(ValueError, match="learner1, who would read its LMS record and tool key"):
        lti.configure(Config(), lti_settings(tmp_path))
