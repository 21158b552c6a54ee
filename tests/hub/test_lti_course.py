"""An LMS course that works the first time, on a real JupyterHub (hub/jupyterhub_config.py with
AUTOGRADER_AUTH=lti13, hub/lti.py, hub/lti_web.py, hub/deep_linking.py, hub/lti_accounts.py).

What is real: the hub and its authenticator, the system accounts made at a first launch (useradd,
as root) and the server spawned as one, the LMS record the hub writes, the tool key and its key set
URL, the deep-linking page and its signed response, and ``python -m autograder publish`` posting a
score with nothing but that record.  What is played: the LMS.  tests/hub/test_lti_login.py's
stand-in signs the launches (Canvas's shapes: an opaque ``sub``, a 40-hex context id; Moodle's: a
numeric ``sub`` and course id), and tests/unit/autograder/grading/lti_platform.py plays its AGS side (token
endpoint checking the tool's client assertion against the hub's key set, line items, scores).  The
test itself does what the LMS does with a deep-linking response: checks its signature with the
hub's key set and makes the column it asks for.
"""

from __future__ import annotations

import grp
import html.parser
import json
import os
import pwd
import stat
import time
import urllib.parse

import jwt
import pytest

from tests.hub.conftest import own, remove_accounts
from tests.hub.test_lti_login import (
    CLAIM,
    CLIENT_ID,
    COURSE,
    ROLE,
    Form,
    api,
    assert_refused,
    browser,
    hub_with_lms,
    launch,
    logged_in,
    lti,
    person,
)
from tests.postgres import run
from tests.unit.autograder.grading.gradebook_class import LESSON, make_class
from tests.unit.autograder.grading.lti_platform import Platform as AgsPlatform

pytestmark = [pytest.mark.hub, pytest.mark.slow]

CANVAS_CONTEXT = "4dde05e8ca1973bcca9bffc13e1548820eee93a3"  # Canvas's context ids: 40 hex digits
MOODLE_COURSE, MOODLE_CONTEXT = own("moodle"), "7"  # Moodle's: the course's number
ROSTER = f"""
[courses.{COURSE}]
lti_context = "{CANVAS_CONTEXT}"
root = "{{base}}/course"

[courses.{MOODLE_COURSE}]
lti_context = "{MOODLE_CONTEXT}"
"""
AGS = "https://purl.imsglobal.org/spec/lti-ags"
# Launches whose claim is already an account name make that account: this run's own.
INSTRUCTOR_CANVAS_1, INSTRUCTOR_CANVAS_2 = own("instructor-canvas-1"), own("instructor-canvas-2")
LEARNER_FORGER, TA_THEN_LEARNER, STRANGER_DEPLOYMENT = (
    own("learner-forger"),
    own("ta-then-learner"),
    own("stranger-deployment"),
)
DL = "https://purl.imsglobal.org/spec/lti-dl/claim"


@pytest.fixture(scope="module")
def course_hub(accounts):
    """A hub that makes accounts at first launch, with an LMS that has AGS; the accounts it made go.
    The course's grader account is this run's (``accounts``): its group reads the course's LMS record."""
    made: list[str] = []
    with AgsPlatform({"keys": []}, set()) as ags:
        with hub_with_lms(ROSTER, AUTOGRADER_LTI_CREATE_ACCOUNTS="1", AUTOGRADER_LTI_TOKEN_URL=ags.token_url) as hub:
            hub.update(ags=ags, made=made)
            try:
                yield hub
            finally:
                remove_accounts(made)


def learner(hub: dict, context: str = CANVAS_CONTEXT, **claims) -> dict:
    """A Learner's launch with what Canvas sends with a public privacy level and AGS on."""
    endpoint = {"scope": [f"{AGS}/scope/lineitem", f"{AGS}/scope/score"], "lineitems": hub["ags"].lineitems_url}
    return person(context, f"{ROLE}#Learner", **{f"{AGS}/claim/endpoint": endpoint, **claims})


def account_of(hub: dict, sub: str) -> str:
    """The account a launch with ``sub`` logs in (hub/lti.py's safe name), noted to be removed after."""
    name = lti.account_name(sub)
    hub["made"].append(name)
    return name


def record(hub: dict, course: str = COURSE) -> dict:
    with open(os.path.join(hub["records"], course, "lms.json")) as f:
        return json.load(f)


def test_a_learners_first_canvas_launch_makes_the_account_and_spawns_jupyterlab(course_hub):
    sub = "535fa085-f8a3-4b1b-b4dd-b2f3ab4cf4b4"
    claims = learner(course_hub, sub=sub, name="Ada Lovelace", given_name="Ada", family_name="Lovelace",
                     email="ada@example.edu")  # fmt: skip
    started = time.monotonic()
    done = launch(course_hub, claims)
    assert logged_in(done), f"{done['answer'].status_code} {done['answer'].text[-800:]}\n{course_hub['log']()}"
    name = account_of(course_hub, sub)
    entry = pwd.getpwnam(name)  # the system account exists, and says who it is
    assert entry.pw_gecos == "Ada Lovelace" and os.path.isdir(entry.pw_dir)
    # the learner's browser goes on as the hub sends it: their server starts, as that account
    session = done["session"]
    session.get(f"{course_hub['url']}/hub/spawn", timeout=60)
    deadline = time.monotonic() + 120
    while not api(course_hub, f"/users/{name}").json()["servers"].get("", {}).get("ready"):
        assert time.monotonic() < deadline, f"the server did not start:\n{course_hub['log']()}"
        time.sleep(0.5)
    lab = session.get(f"{course_hub['url']}/user/{name}/lab", timeout=60)
    assert lab.status_code == 200 and lab.url.endswith(f"/user/{name}/lab"), lab.url
    print(f"\nfirst launch to JupyterLab: {time.monotonic() - started:.1f} s")
    # what the launch told is in the course's record, for publish and the exports
    kept = record(course_hub)
    assert kept["people"][name] | {"last_launch": None} == {
        "sub": sub, "name": "Ada Lovelace", "given_name": "Ada", "family_name": "Lovelace",
        "email": "ada@example.edu", "role": "students", "last_launch": None}  # fmt: skip
    assert kept["ags"]["lineitems"] == course_hub["ags"].lineitems_url
    assert kept["platform"]["deployment_id"] == "1:abc"
    assert kept["platform"]["auth_token_url"] == course_hub["ags"].token_url
    path = os.path.join(course_hub["records"], COURSE, "lms.json")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640


def test_a_moodle_launch_with_a_numeric_sub_and_course_id_gets_in(course_hub):
    ext = {"user_username": "learner7", "lms": "moodle-2"}
    done = launch(course_hub, learner(course_hub, MOODLE_CONTEXT, sub="17", **{f"{CLAIM}/ext": ext}))
    assert logged_in(done), f"{done['answer'].status_code} {done['answer'].text[-800:]}\n{course_hub['log']()}"
    name = account_of(course_hub, "17")
    assert name.startswith("u-17-")  # a number is no account name: its safe form
    pwd.getpwnam(name)
    assert record(course_hub, MOODLE_COURSE)["people"][name]["sub"] == "17"


def test_a_launch_from_another_deployment_is_refused_and_makes_no_account(course_hub):
    claims = learner(course_hub, sub=STRANGER_DEPLOYMENT, **{f"{CLAIM}/deployment_id": "2:other"})
    done = launch(course_hub, claims)
    assert_refused(course_hub, done, 403, STRANGER_DEPLOYMENT, says="AUTOGRADER_LTI_DEPLOYMENT_ID")
    with pytest.raises(KeyError):
        pwd.getpwnam(STRANGER_DEPLOYMENT)


class Inputs(html.parser.HTMLParser):
    """Every input of a page's form: its action, and (name, value, type) of each input."""

    def __init__(self, page: str):
        super().__init__()
        self.action, self.inputs = None, []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.action = attrs.get("action")
        elif tag == "input":
            self.inputs.append((attrs.get("name"), attrs.get("value"), attrs.get("type")))


def deep_linking_launch(hub: dict, role: str, sub: str, **settings) -> dict:
    dl_settings = {"deep_link_return_url": f"{hub['lms'].url}/courses/7/deep_linking_response",
                   "accept_types": ["ltiResourceLink"], "accept_presentation_document_targets": ["iframe", "window"],
                   "accept_multiple": True, "data": "csrf-9f2c", **settings}  # fmt: skip
    claims = person(CANVAS_CONTEXT, role, sub=sub, **{f"{CLAIM}/message_type": "LtiDeepLinkingRequest",
                                                      f"{DL}/deep_linking_settings": dl_settings})  # fmt: skip
    claims.pop(f"{CLAIM}/resource_link", None)
    return launch(hub, claims)


def test_an_instructor_adds_a_lesson_from_the_lms_and_publish_posts_to_its_column(course_hub, monkeypatch, capsys):
    done = deep_linking_launch(course_hub, f"{ROLE}#Instructor", INSTRUCTOR_CANVAS_1)
    answer = done["answer"]
    assert answer.status_code == 200, f"{answer.status_code} {answer.text[-800:]}\n{course_hub['log']()}"
    account_of(course_hub, INSTRUCTOR_CANVAS_1)
    page = Inputs(answer.text)
    offered = {value for name, value, _ in page.inputs if name == "lesson"}
    english = {"lesson1_requires_grad", "lesson2_backward", "lesson3_zeroing_grad", "lesson4_no_grad"}
    assert offered == english | {f"{lesson}_pt_br" for lesson in english}  # and each Portuguese edition
    fields = {"request": next(value for name, value, _ in page.inputs if name == "request"), "lesson": LESSON}
    back = done["session"].post(urllib.parse.urljoin(answer.url, page.action), data=fields, timeout=30)
    assert back.status_code == 200, f"{back.status_code} {back.text[-800:]}\n{course_hub['log']()}"
    form = Form(back.text)
    assert form.action == f"{course_hub['lms'].url}/courses/7/deep_linking_response"
    # the LMS checks the response with the tool's key set, as registered (here the course's own)
    keys = jwt.PyJWKClient(f"{course_hub['url']}/hub/lti13/jwks?course={COURSE}")
    assert len(browser().get(f"{course_hub['url']}/hub/lti13/jwks", timeout=10).json()["keys"]) == 2
    assert browser().get(f"{course_hub['url']}/hub/lti13/jwks?course=nope", timeout=10).status_code == 404
    token = form.fields["JWT"]
    claims = jwt.decode(token, keys.get_signing_key_from_jwt(token).key, algorithms=["RS256"],
                        audience=course_hub["lms"].issuer, issuer=CLIENT_ID)  # fmt: skip
    assert claims[f"{CLAIM}/message_type"] == "LtiDeepLinkingResponse"
    assert claims[f"{CLAIM}/deployment_id"] == "1:abc" and claims[f"{DL}/data"] == "csrf-9f2c"
    (item,) = claims[f"{DL}/content_items"]
    assert item["type"] == "ltiResourceLink" and item["custom"] == {"assignment": LESSON}
    assert item["url"] == f"{course_hub['url']}/hub/"
    assert item["lineItem"]["resourceId"] == LESSON and item["lineItem"]["scoreMaximum"] == 9
    ags = course_hub["ags"]
    for number in range(5):  # the course's other columns, listed two a page: publish must page through
        ags.add_lineitem(f"quiz-{number}", f"Quiz {number}", 5)
    ags.page_size = 2
    column = ags.add_lineitem(LESSON, item["lineItem"]["label"], item["lineItem"]["scoreMaximum"])

    # a learner launches the new link; the instructor grades; publish needs nothing but the record
    sub = "0f6e0c77-5a2d-4b7f-9a43-0c0b8f6f1d2e"
    done = launch(course_hub, learner(course_hub, sub=sub, name="Bo Yang", email="bo@example.edu"))
    assert logged_in(done)
    student = account_of(course_hub, sub)
    ags.users.add(sub)
    ags.tool_jwks = browser().get(f"{course_hub['url']}/hub/lti13/jwks", timeout=10).json()
    folder = make_class(os.path.join(course_hub["base"], "course"), {student: 7})
    monkeypatch.setenv("AUTOGRADER_LMS_RECORD", os.path.join(course_hub["records"], COURSE))
    monkeypatch.delenv("AUTOGRADER_DB_URL", raising=False)
    from autograder.cli import main

    status = main(["publish", LESSON, "--course", folder])
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert [(s["userId"], s["scoreGiven"], s["lineitem"]) for s in ags.scores] == [(sub, 7.0, column)], printed
    assert [r for r in ags.requests if r.startswith("GET")] == ["GET /api/lti/courses/7/line_items"] * 3  # 3 pages


def test_a_learner_cannot_add_lessons(course_hub):
    done = deep_linking_launch(course_hub, f"{ROLE}#Learner", "learner-dl")
    assert_refused(course_hub, done, 403, says="add lessons")


def test_a_deep_linking_form_posted_by_someone_else_is_refused(course_hub):
    done = deep_linking_launch(course_hub, f"{ROLE}#Instructor", INSTRUCTOR_CANVAS_2)
    assert done["answer"].status_code == 200
    account_of(course_hub, INSTRUCTOR_CANVAS_2)
    page = Inputs(done["answer"].text)
    signed = next(value for name, value, _ in page.inputs if name == "request")
    other = launch(course_hub, learner(course_hub, sub=LEARNER_FORGER))
    assert logged_in(other)
    account_of(course_hub, LEARNER_FORGER)
    action = f"{course_hub['url']}{page.action}"
    forged = other["session"].post(action, data={"request": signed, "lesson": LESSON}, timeout=30)
    assert forged.status_code == 403 and "not yours" in forged.text
    tampered = done["session"].post(action, data={"request": signed[:-4] + "AAAA", "lesson": LESSON}, timeout=30)
    assert tampered.status_code == 403
    unknown = done["session"].post(action, data={"request": signed, "lesson": "../../etc"}, timeout=30)
    assert unknown.status_code == 400


def test_a_claim_naming_the_hubs_own_or_a_system_account_is_refused(course_hub):
    for sub in ("daemon", f"grader-{COURSE}", COURSE, "root"):
        done = launch(course_hub, learner(course_hub, sub=sub))
        assert_refused(course_hub, done, 403, sub, says="AUTOGRADER_LTI_USERNAME_CLAIM")


def test_an_account_made_by_hand_is_used_only_once_an_admin_says_it_is_for_the_lms(course_hub):
    name = own("handmade-lms1")
    course_hub["made"].append(name)
    run("useradd", "--create-home", name)
    done = launch(course_hub, learner(course_hub, sub=name))
    assert_refused(course_hub, done, 403, name, says="lti-users")
    run("gpasswd", "--add", name, "lti-users")
    assert logged_in(launch(course_hub, learner(course_hub, sub=name)))


def test_a_learner_who_was_staff_leaves_the_instructors_group(course_hub):
    group = f"instructors-{COURSE}"
    made = run("groupadd", group, check=False).returncode == 0  # (another hub test's install may have made it)
    try:
        name = account_of(course_hub, TA_THEN_LEARNER)
        ta = person(CANVAS_CONTEXT, f"{ROLE}#Instructor", f"{ROLE}/Instructor#TeachingAssistant", sub=TA_THEN_LEARNER)
        assert logged_in(launch(course_hub, ta))
        assert name in grp.getgrnam(group).gr_mem
        assert name in grp.getgrnam("lti-users").gr_mem and grp.getgrgid(pwd.getpwnam(name).pw_gid).gr_name == name
        assert logged_in(launch(course_hub, learner(course_hub, sub=TA_THEN_LEARNER)))
        assert name not in grp.getgrnam(group).gr_mem  # their server would read the solutions
    finally:
        if made:
            run("groupdel", group, check=False)
