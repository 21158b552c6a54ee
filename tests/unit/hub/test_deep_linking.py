"""hub/deep_linking.py on paper: what a deep-linking request asks, which lessons a course offers
(its released notebooks, read as the hub reads them), and the signed response the LMS checks;
plus the account comment of hub/lti_accounts.py and the frame policy of autograder/lms_frame.py.
The whole round trip on a real hub is tests/hub/test_lti_course.py."""

from __future__ import annotations

import json
import os
import shutil
import sys

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from autograder.lms_frame import allow_partitioned_cookies, frame_ancestors
from tests.conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "hub"))
import deep_linking  # noqa: E402
import lti_accounts  # noqa: E402

CLAIM = "https://purl.imsglobal.org/spec/lti/claim"
RETURN = "https://canvas.example.edu/courses/7/deep_linking_response"


def request_claims(**settings) -> dict:
    return {"iss": "https://canvas.instructure.com", "aud": "10000000000042", f"{CLAIM}/deployment_id": "42:abc",
            deep_linking.SETTINGS_CLAIM: {"deep_link_return_url": RETURN, "accept_types": ["ltiResourceLink", "file"],
                                          "data": "opaque-1", **settings}}  # fmt: skip


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> str:
    """A course folder with the repository's released lessons, and things that are not lessons."""
    course = tmp_path_factory.mktemp("course")
    shutil.copytree(os.path.join(ROOT, "release"), course / "release")
    (course / "release" / "notes").mkdir()  # a folder with no notebook of its name
    (course / "release" / "broken").mkdir()
    (course / "release" / "broken" / "broken.ipynb").write_text("{not json")
    (course / "release" / "linked").mkdir()
    os.symlink("/etc/passwd", course / "release" / "linked" / "linked.ipynb")
    return str(course)


def test_a_course_offers_each_released_lesson_with_its_title_and_points(released):
    lessons = deep_linking.course_lessons(released)
    english = [("lesson1_requires_grad", 6), ("lesson2_backward", 6), ("lesson3_zeroing_grad", 9),
               ("lesson4_no_grad", 6)]  # fmt: skip
    # each lesson, then its Portuguese edition (same points: the same tests)
    assert [(lesson.assignment, lesson.points) for lesson in lessons] == [
        row for lesson, points in english for row in ((lesson, points), (f"{lesson}_pt_br", points))
    ]
    assert all(lesson.title and not lesson.title.startswith("#") for lesson in lessons)
    assert deep_linking.course_lessons("/nonexistent/course") == []


def test_a_lesson_link_carries_its_column_named_by_the_assignment_id(released):
    request = deep_linking.DeepLinkingRequest.from_claims(request_claims(), "autograd-course")
    [lesson] = [one for one in deep_linking.course_lessons(released) if one.assignment == "lesson3_zeroing_grad"]
    claims = deep_linking.response_claims(request, [lesson], "https://hub.example.edu/hub/", now=1_800_000_000)
    assert claims["iss"] == "10000000000042" and claims["aud"] == "https://canvas.instructure.com"
    assert claims["exp"] - claims["iat"] == deep_linking.RESPONSE_SECONDS
    assert claims[f"{CLAIM}/message_type"] == "LtiDeepLinkingResponse"
    assert claims[f"{CLAIM}/deployment_id"] == "42:abc"
    assert claims[f"{deep_linking.DL_CLAIM}/data"] == "opaque-1"  # sent back as it came
    (item,) = claims[f"{deep_linking.DL_CLAIM}/content_items"]
    assert item["lineItem"] == {"scoreMaximum": 9, "label": lesson.title, "resourceId": "lesson3_zeroing_grad",
                                "tag": "autograd-course"}  # fmt: skip
    assert item["custom"] == {"assignment": "lesson3_zeroing_grad"}


def test_the_response_verifies_with_the_public_key_and_names_its_kid():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()  # fmt: skip
    token = deep_linking.signed_response({"iss": "tool", "aud": "lms"}, pem, "kid-1")
    assert jwt.get_unverified_header(token)["kid"] == "kid-1"
    assert jwt.decode(token, key.public_key(), algorithms=["RS256"], audience="lms")["iss"] == "tool"


def test_a_request_the_hub_cannot_answer_is_refused_with_why():
    cases = {"no return URL": request_claims(deep_link_return_url=None),
             "a return URL that is no web address": request_claims(deep_link_return_url="javascript:alert(1)"),
             "files only": request_claims(accept_types=["file"])}  # fmt: skip
    for claims in cases.values():
        with pytest.raises(deep_linking.DeepLinkingRefused):
            deep_linking.DeepLinkingRequest.from_claims(claims, "autograd-course")
    with pytest.raises(deep_linking.DeepLinkingRefused, match="without its settings"):
        deep_linking.DeepLinkingRequest.from_claims({"iss": "x", "aud": "y"}, "autograd-course")


def test_one_lesson_at_a_time_when_the_lms_takes_one(released):
    request = deep_linking.DeepLinkingRequest.from_claims(request_claims(accept_multiple=False), "autograd-course")
    lessons = deep_linking.course_lessons(released)
    with pytest.raises(deep_linking.DeepLinkingRefused, match="one lesson at a time"):
        deep_linking.response_claims(request, lessons[:2], "https://hub.example.edu/hub/")
    with pytest.raises(deep_linking.DeepLinkingRefused, match="choose a lesson"):
        deep_linking.response_claims(request, [], "https://hub.example.edu/hub/")
    assert deep_linking.DeepLinkingRequest.from_json(request.to_json()) == request


def test_a_notebook_that_lies_about_its_points_counts_only_sane_numbers(tmp_path):
    cells = [{"cell_type": "markdown", "source": ["# Lesson X\n"], "metadata": {}},
             {"cell_type": "code", "source": "", "metadata": {"nbgrader": {"grade": True, "points": 3}}},
             {"cell_type": "code", "source": "", "metadata": {"nbgrader": {"grade": True, "points": 1e9}}},
             {"cell_type": "code", "source": "", "metadata": {"nbgrader": {"grade": True, "points": True}}},
             {"cell_type": "code", "source": "", "metadata": {"nbgrader": {"grade": False, "points": 5}}}]  # fmt: skip
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps({"cells": cells}))
    assert deep_linking.read_lesson(str(path), "x") == deep_linking.Lesson("x", "Lesson X", 3)


def test_an_account_comment_keeps_the_lms_name_and_nothing_passwd_would_split():
    assert lti_accounts.comment("Ada Lovelace", "LMS user u-1") == "Ada Lovelace"
    assert lti_accounts.comment("Zoë Ngũgĩ", "x") == "Zoë Ngũgĩ"
    assert lti_accounts.comment("evil:0:0:root\n,,=x", "x") == "evil 0 0 root x"
    assert lti_accounts.comment("\x1b[31m", "LMS user u-1") == "[31m"
    assert lti_accounts.comment(None, "LMS user u-1") == "LMS user u-1"
    assert len(lti_accounts.comment("a" * 500, "x")) == lti_accounts.COMMENT_CHARACTERS


def test_frame_ancestors_take_origins_only():
    assert frame_ancestors("'self' https://canvas.example.edu http://127.0.0.1:8080") is not None
    assert frame_ancestors("") is None
    for bad in ("*", "https://a.edu/path", "https://a.edu;script-src", "data:"):
        with pytest.raises(ValueError):
            frame_ancestors(bad)


def test_a_partitioned_cookie_is_written_as_browsers_expect():
    from http.cookies import SimpleCookie

    allow_partitioned_cookies()
    cookie = SimpleCookie()
    cookie["state"] = "1"
    cookie["state"].update({"samesite": "None", "secure": True, "partitioned": True})
    assert cookie.output() == "Set-Cookie: state=1; Partitioned; SameSite=None; Secure"


def test_a_lesson_folder_swapped_for_a_link_to_another_course_lends_nothing(tmp_path):
    elsewhere = tmp_path / "other-course" / "autograded" / "ada" / "lesson9"
    elsewhere.mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "release", "lesson1_requires_grad", "lesson1_requires_grad.ipynb"),
                elsewhere / "lesson9.ipynb")  # fmt: skip
    (tmp_path / "course" / "release").mkdir(parents=True)
    os.symlink(elsewhere, tmp_path / "course" / "release" / "lesson9")
    assert deep_linking.course_lessons(str(tmp_path / "course")) == []
    os.symlink(tmp_path / "other-course", tmp_path / "linked-course")
    os.symlink(tmp_path / "course" / "release", tmp_path / "release-link")
    (tmp_path / "course2").mkdir()
    os.symlink(tmp_path / "course" / "release", tmp_path / "course2" / "release")
    assert deep_linking.course_lessons(str(tmp_path / "course2")) == []  # release itself a link
