"""publish: the class's scores reach the LMS's gradebook over LTI AGS, once each.

The LMS is played by a real HTTP server on localhost (tests/unit/autograder/grading/lti_platform.py): it checks
the tool's signed client assertion against the key set the tool gives to register, the bearer
tokens, the media types and every score's fields, and records what it accepted."""

import datetime
import json
import os

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from autograder.cli import main
from autograder.grading.lms_record import RecordFolder
from autograder.grading.publish import jwks, load_settings, published_path
from tests.unit.autograder.grading.gradebook_class import LESSON, set_late_penalty, set_score
from tests.unit.autograder.grading.lti_platform import CLIENT_ID, SCORE, Platform

LMS_USERS = {"ada": "lms-ada", "bob": "lms-bob", "cy": "lms-cy"}


@pytest.fixture(scope="module")
def tool_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()  # fmt: skip


def write_settings(course: str, platform: Platform, key: str, lineitem: str | None = None, users: dict | None = None):
    with open(os.path.join(course, "lti_private_key.pem"), "w") as f:
        f.write(key)
    users = LMS_USERS if users is None else users
    lines = [
        'issuer = "https://lms.example.edu"',
        f'client_id = "{CLIENT_ID}"',
        'deployment_id = "7:deployment"',
        f'auth_token_url = "{platform.token_url}"',
        f'key_set_url = "{platform.url}/api/lti/security/jwks"',
        'private_key_file = "lti_private_key.pem"',
        f'lineitems = "{platform.lineitems_url}"',
    ]
    if lineitem:
        lines += [f"[assignments.{LESSON}]", f'lineitem = "{lineitem}"']
    lines += ["[users]", *(f'{k} = "{v}"' for k, v in users.items())]
    with open(os.path.join(course, "lti.toml"), "w") as f:
        f.write("\n".join(lines) + "\n")


@pytest.fixture
def lms(graded_course, tool_key):
    """The graded class, its settings, and the LMS, whose course has the assignment's column and
    knows the tool's public key set."""
    with Platform({"keys": []}, set(LMS_USERS.values())) as platform:
        column = platform.add_lineitem(LESSON, "Lesson 3", 10)
        write_settings(graded_course, platform, tool_key, lineitem=column)
        platform.tool_jwks = jwks(load_settings(os.path.join(graded_course, "lti.toml")))  # registering the tool
        yield graded_course, platform, column


def publish(course: str, capsys, *args: str) -> tuple[int, str]:
    code = main(["publish", LESSON, "--course", course, *args])
    return code, capsys.readouterr().out


def test_first_run_names_refused(lms, capsys):
    course, platform, column = lms
    platform.refuse.add("lms-cy")
    code, out = publish(course, capsys)
    assert code == 1
    assert platform.posted() == {"lms-ada": 7.0, "lms-bob": 10.0}
    assert "posted               ada 7/10  as LMS user lms-ada" in out
    assert "posted               bob 10/10" in out
    assert "failed               cy 4/10  HTTP 400 from " + column + "/scores" in out
    assert "User not found in course" in out
    assert "no submission        dee" in out
    assert out.strip().splitlines()[-1] == f"{LESSON} to {column}: 1 failed, 2 posted, 1 no submission"


def test_scores_are_ags_for_line_item(lms, capsys):
    course, platform, column = lms
    publish(course, capsys)
    for score in platform.scores:
        assert score["lineitem"] == column
        assert score["scoreMaximum"] == 10.0
        assert score["activityProgress"] == "Completed" and score["gradingProgress"] == "FullyGraded"
        assert score["timestamp"].endswith("+00:00") and "." in score["timestamp"]  # sub-second, with its zone
    assert platform.requests.count("POST /login/oauth2/token") == 1  # one token for the whole class
    (claims,) = platform.assertions
    assert claims["iss"] == claims["sub"] == CLIENT_ID and claims["aud"] == platform.token_url
    assert list(platform.tokens.values()) == [{SCORE}]  # a known line item needs the score scope only


def test_rerun_posts_only_failures(lms, capsys):
    course, platform, _ = lms
    platform.refuse.add("lms-cy")
    publish(course, capsys)
    platform.refuse.clear()
    platform.scores.clear()
    code, out = publish(course, capsys)
    assert code == 0
    assert platform.posted() == {"lms-cy": 4.0}
    assert "unchanged            ada 7/10" in out and "unchanged            bob 10/10" in out


def test_only_changed_score_reposted(lms, capsys):
    course, platform, _ = lms
    publish(course, capsys)
    platform.scores.clear()
    set_score(course, "ada", 9)
    code, out = publish(course, capsys)
    assert code == 0
    assert platform.posted() == {"lms-ada": 9.0}
    assert "posted               ada 9/10" in out


def test_unchanged_posts_nothing(lms, capsys):
    course, platform, _ = lms
    publish(course, capsys)
    before = len(platform.requests)
    code, out = publish(course, capsys)
    assert code == 0
    assert len(platform.requests) == before
    assert out.strip().splitlines()[-1].endswith(": 3 unchanged, 1 no submission")


def test_posts_total_after_penalty(lms, capsys):
    course, platform, _ = lms
    set_late_penalty(course, "ada", 2)
    publish(course, capsys)
    assert platform.posted()["lms-ada"] == 5.0


def private_key(course: str) -> str:
    with open(os.path.join(course, "lti_private_key.pem")) as f:
        return f.read()


def test_missing_as_zero_posts_zero(lms, capsys):
    course, platform, _ = lms
    write_settings(course, platform, private_key(course),
                   lineitem=platform.lineitems[0]["id"], users={**LMS_USERS, "dee": "lms-dee"})  # fmt: skip
    platform.users.add("lms-dee")
    publish(course, capsys, "--missing-as-zero")
    assert platform.posted()["lms-dee"] == 0.0


def test_no_lms_id_says_where_to_add(lms, tmp_path, capsys):
    course, platform, column = lms
    write_settings(course, platform, private_key(course), lineitem=column,
                   users={"ada": "lms-ada", "bob": "lms-bob"})  # fmt: skip
    code, out = publish(course, capsys)
    assert code == 1
    assert "failed               cy 4/10  no LMS user id: add it to [users] in" in out
    (tmp_path / "users.csv").write_text("student_id,lms_user_id\ncy,lms-cy\n")
    code, out = publish(course, capsys, "--users", str(tmp_path / "users.csv"))
    assert code == 0 and platform.posted()["lms-cy"] == 4.0


def test_posts_one_names_unknown(lms, capsys):
    course, platform, _ = lms
    code, out = publish(course, capsys, "--student", "bob", "--student", "zed")
    assert code == 1
    assert platform.posted() == {"lms-bob": 10.0}
    assert "failed               zed  not a student of the gradebook" in out


def test_ledger_remembers_each_post(lms, capsys):
    course, platform, column = lms
    platform.refuse.add("lms-cy")
    publish(course, capsys)
    path = published_path(course, LESSON)
    assert path == os.path.join(course, ".autograder", "published", f"{LESSON}.json")
    with open(path) as f:
        ledger = json.load(f)
    assert ledger["ada"]["status"] == "posted" and ledger["ada"]["score_given"] == 7.0
    assert ledger["ada"]["lineitem"] == column and ledger["ada"]["user_id"] == "lms-ada"
    assert ledger["cy"]["status"] == "failed" and "HTTP 400" in ledger["cy"]["error"]
    assert "dee" not in ledger
    assert [n for n in os.listdir(os.path.dirname(path)) if n.endswith(".tmp")] == []  # replaced atomically


def test_column_found_by_resource_id(lms, capsys):
    course, platform, _ = lms
    write_settings(course, platform, private_key(course))
    code, _ = publish(course, capsys)
    assert code == 0
    assert {s["lineitem"] for s in platform.scores} == {platform.lineitems[0]["id"]}
    assert platform.created == []


def test_missing_column_created(graded_course, tool_key, capsys):
    with Platform({"keys": []}, {"lms-ada"}) as platform:
        write_settings(graded_course, platform, tool_key, users={"ada": "lms-ada"})
        platform.tool_jwks = jwks(load_settings(os.path.join(graded_course, "lti.toml")))
        code, _ = publish(graded_course, capsys, "--student", "ada")
        assert code == 0
        assert platform.created == [{"scoreMaximum": 10.0, "label": LESSON, "resourceId": LESSON}]
        assert platform.scores[0]["lineitem"] == platform.lineitems[0]["id"]
        assert platform.scores[0]["userId"] == "lms-ada"


def test_unknown_key_gets_no_token(lms, capsys):
    course, platform, _ = lms
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = other.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()).decode()  # fmt: skip
    write_settings(course, platform, pem, lineitem=platform.lineitems[0]["id"])
    code = main(["publish", LESSON, "--course", course])
    captured = capsys.readouterr()
    assert code == 2
    assert "the LMS gave no access token: HTTP 401" in captured.err and "invalid_client" in captured.err
    assert platform.scores == [] and not os.path.exists(published_path(course, LESSON))


def test_dry_run_contacts_nobody(lms, capsys):
    course, platform, _ = lms
    code, out = publish(course, capsys, "--dry-run")
    assert code == 0 and platform.requests == []
    assert "would post           ada 7/10  as LMS user lms-ada" in out


def test_printed_jwks_is_public_key(lms, capsys):
    course, platform, _ = lms
    assert main(["publish", "--jwks", "--course", course]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == platform.tool_jwks
    assert set(printed["keys"][0]) >= {"kty", "n", "e", "kid", "alg", "use"} and "d" not in printed["keys"][0]


def test_incomplete_settings_refused(graded_course, capsys):
    with open(os.path.join(graded_course, "lti.toml"), "w") as f:
        f.write('issuer = "https://lms.example.edu"\n')
    assert main(["publish", LESSON, "--course", graded_course]) == 2
    assert "missing client_id, deployment_id, auth_token_url, key_set_url, private_key_file" in capsys.readouterr().err
    os.unlink(os.path.join(graded_course, "lti.toml"))
    assert main(["publish", LESSON, "--course", graded_course]) == 2
    err = capsys.readouterr().err
    assert "no LTI settings: no " in err and "and no LMS record" in err
    assert "--record DIR" in err and "AUTOGRADER_LMS_RECORD" in err and "or give --config" in err


# -- nothing copied by hand: the hub's LMS record ---------------------------------------------
SUBS = {"ada": "535fa085-f8a3-4b1b-b4dd-b2f3ab4cf4b4", "bob": "8d1c0e6a-2b7f-4c39-9e0d-3a5f7b1c9d22", "cy": "17"}


def hub_record(folder: str, platform: Platform, lineitems: bool = True, lineitem: str | None = None) -> RecordFolder:
    """The record folder the hub leaves after ada, bob and cy launched the tool (Canvas-shaped claims;
    cy's ``sub`` numeric, as Moodle's), with the course's tool key."""
    from autograder.grading.lms_record import (
        AGS_CLAIM,
        CONTEXT_CLAIM,
        CUSTOM_CLAIM,
        DEPLOYMENT_CLAIM,
        LINK_CLAIM,
        record_launch,
    )

    settings = {"issuer": "https://lms.example.edu", "client_id": CLIENT_ID, "auth_token_url": platform.token_url,
                "key_set_url": f"{platform.url}/api/lti/security/jwks"}  # fmt: skip
    record = None
    for student, sub in SUBS.items():
        claims = {"sub": sub, "aud": CLIENT_ID, "given_name": student.title(), DEPLOYMENT_CLAIM: "7:deployment",
                  CONTEXT_CLAIM: {"id": "4dde05e8ca1973bcca9bffc13e1548820eee93a3"},
                  LINK_CLAIM: {"id": "link-3", "title": "Lesson 3"}}  # fmt: skip
        if lineitems:
            claims[AGS_CLAIM] = {"lineitems": platform.lineitems_url, "scope": [SCORE]}
        if lineitem:  # a link the instructor made for the lesson (deep linking: its line item, the lesson's id)
            claims[AGS_CLAIM]["lineitem"], claims[CUSTOM_CLAIM] = lineitem, {"assignment": LESSON}
        record = record_launch(record, course="autograd-course", account=student, role="students", claims=claims,
                               platform=settings, now=datetime.datetime.now(datetime.timezone.utc))  # fmt: skip
    found = RecordFolder(folder)
    found.save(record)
    found.private_key(create=True)
    return found


@pytest.fixture
def recorded(graded_course, tmp_path):
    """The graded class with no lti.toml and no users CSV, the hub's record folder, and the LMS that
    knows the tool by the record's key and the students by their ``sub``."""
    assert not os.path.exists(os.path.join(graded_course, "lti.toml"))
    with Platform({"keys": []}, set(SUBS.values())) as platform:
        column = platform.add_lineitem(LESSON, "Lesson 3", 10)
        folder = hub_record(str(tmp_path / "lms" / "autograd-course"), platform)
        platform.tool_jwks = {"keys": [folder.jwk()]}  # what the hub serves at /hub/lti13/jwks
        yield graded_course, platform, column, folder


def test_publish_with_only_the_record_posts_to_each_sub(recorded, capsys):
    course, platform, column, folder = recorded
    code, out = publish(course, capsys, "--record", folder.path)
    assert code == 0, out
    assert platform.posted() == {SUBS["ada"]: 7.0, SUBS["bob"]: 10.0, SUBS["cy"]: 4.0}
    assert {s["lineitem"] for s in platform.scores} == {column}  # found by resource id in the record's lineitems
    assert f"posted               cy 4/10  as LMS user {SUBS['cy']}" in out
    assert "no submission        dee" in out


def test_the_record_folder_comes_from_the_environment_the_hub_sets(recorded, capsys, monkeypatch):
    course, platform, _, folder = recorded
    monkeypatch.setenv("AUTOGRADER_LMS_RECORD", folder.path)
    code, out = publish(course, capsys)
    assert code == 0, out
    assert len(platform.posted()) == 3


def test_the_client_assertion_carries_the_kid_of_the_record_jwk(recorded, capsys):
    course, platform, _, folder = recorded
    assertions = []
    verify = platform.verify_assertion

    def seen(assertion):
        import jwt

        assertions.append(jwt.get_unverified_header(assertion))
        return verify(assertion)

    platform.verify_assertion = seen
    publish(course, capsys, "--record", folder.path)
    assert [header["kid"] for header in assertions] == [folder.jwk()["kid"]]


def test_publish_jwks_prints_the_record_key(recorded, capsys):
    course, _, _, folder = recorded
    assert main(["publish", "--jwks", "--course", course, "--record", folder.path]) == 0
    assert json.loads(capsys.readouterr().out) == {"keys": [folder.jwk()]}


def test_a_record_without_the_ags_claim_says_to_turn_on_the_services(graded_course, tmp_path, capsys):
    with Platform({"keys": []}, set(SUBS.values())) as platform:
        folder = hub_record(str(tmp_path / "record"), platform, lineitems=False)
        code = main(["publish", LESSON, "--course", graded_course, "--record", folder.path])
    err = capsys.readouterr().err
    assert code == 2
    assert f"no line item for {LESSON}" in err and "no LTI launch carried the AGS claim" in err
    assert "Assignment and Grade Services" in err


def test_a_link_that_names_the_lesson_gives_its_line_item(graded_course, tmp_path, capsys):
    with Platform({"keys": []}, set(SUBS.values())) as platform:
        platform.add_lineitem("something-else", "Other", 10)
        column = platform.add_lineitem("canvas-made-42", "Lesson 3 (Canvas)", 10)
        folder = hub_record(str(tmp_path / "record"), platform, lineitem=column)
        platform.tool_jwks = {"keys": [folder.jwk()]}
        code, out = publish(graded_course, capsys, "--record", folder.path)
    assert code == 0, out
    assert {s["lineitem"] for s in platform.scores} == {column} and platform.created == []


def test_lti_toml_wins_key_by_key_and_its_users_per_student(recorded, capsys):
    course, platform, column, folder = recorded
    with open(os.path.join(course, "lti.toml"), "w") as f:
        f.write(f'[assignments.{LESSON}]\nlineitem = "{column}"\n[users]\nbob = "lms-bob"\n')
    platform.users.add("lms-bob")
    code, out = publish(course, capsys, "--record", folder.path)
    assert code == 0, out
    assert platform.posted() == {SUBS["ada"]: 7.0, "lms-bob": 10.0, SUBS["cy"]: 4.0}
    assert "GET /api/lti/courses/7/line_items" not in platform.requests  # the toml's line item, as is


def test_a_student_who_never_launched_is_named(recorded, capsys):
    course, platform, _, folder = recorded
    record = folder.load()
    del record["people"]["cy"]
    folder.save(record)
    code, out = publish(course, capsys, "--record", folder.path)
    assert code == 1
    assert "failed               cy 4/10  no LMS user id (not in the LMS record: they have not launched" in out
    assert SUBS["cy"] not in platform.posted() and len(platform.posted()) == 2


def test_two_students_with_one_lms_user_id_get_nothing_and_the_others_their_scores(recorded, capsys):
    course, platform, _, folder = recorded
    record = folder.load()
    record["people"]["cy"]["sub"] = SUBS["ada"]  # cy's score would land on ada
    folder.save(record)
    code, out = publish(course, capsys, "--record", folder.path)
    assert code == 1
    assert platform.posted() == {SUBS["bob"]: 10.0}
    assert f"failed               ada 7/10  LMS user id {SUBS['ada']} is also given to cy: nothing posted" in out
    assert f"failed               cy 4/10  LMS user id {SUBS['ada']} is also given to ada" in out


def test_a_broken_record_is_named_and_nothing_is_posted(recorded, capsys):
    course, platform, _, folder = recorded
    with open(folder.record_path, "w") as f:
        f.write("{not json")
    code = main(["publish", LESSON, "--course", course, "--record", folder.path])
    assert code == 2
    assert f"{folder.record_path}: not an LMS record (not JSON" in capsys.readouterr().err
    assert platform.requests == []


def test_publish_jwks_prints_the_hub_key_before_any_launch(tmp_path, capsys):
    folder = RecordFolder(str(tmp_path / "record"))
    folder.private_key(create=True)  # what the hub makes first, to serve /hub/lti13/jwks
    assert main(["publish", "--jwks", "--course", str(tmp_path), "--record", folder.path]) == 0
    assert json.loads(capsys.readouterr().out) == {"keys": [folder.jwk()]}
