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


def test_configure_lets_lti_set_groups(tmp_path):
    from traitlets.config import Config

    (tmp_path / "roster.toml").write_text('instructors = ["instructor1"]\nlti_context = "ctx-1"\n')
    settings = {"AUTOGRADER_ROSTER": str(tmp_path / "roster.toml"), "AUTOGRADER_LTI_ISSUER": "https://canvas.instructure.com",
                "AUTOGRADER_LTI_CLIENT_ID": "10000000000042, 10000000000043",
                "AUTOGRADER_LTI_AUTHORIZE_URL": "https://sso.canvaslms.com/api/lti/authorize_redirect",
                "AUTOGRADER_LTI_JWKS_URL": "https://sso.canvaslms.com/api/lti/security/jwks",
                "AUTOGRADER_LTI_USERNAME_CLAIM": f"{CLAIM}/ext#user_username"}  # fmt: skip
    c = Config()
    c.JupyterHub.load_groups = {"students": {"users": ["student1"]}}
    lti.configure(c, settings)
    assert c.JupyterHub.authenticator_class == "ltiauthenticator.lti13.auth.LTI13Authenticator"
    assert c.LTI13Authenticator.client_id == {"10000000000042", "10000000000043"}
    assert c.LTI13Authenticator.username_key == "sub"  # a nested claim is the hook's to read
    assert c.Authenticator.manage_groups and c.JupyterHub.load_groups == {}
    with pytest.raises(ValueError, match="AUTOGRADER_LTI_JWKS_URL"):
        lti.configure(Config(), {**settings, "AUTOGRADER_LTI_JWKS_URL": ""})
