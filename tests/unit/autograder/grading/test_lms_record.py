"""The LMS record: what each accepted LTI launch carried, kept per course by the hub, read by publish,
the exports and grade.  Claims shaped as Canvas and Moodle send them (Canvas: an opaque uuid ``sub``,
a 40-hex context id, the ``lis`` claim; Moodle: a numeric ``sub``, the ``ext`` claim's login name)."""

import datetime
import json
import os
import stat

import pytest

from autograder.grading.lms_record import (
    AGS_CLAIM,
    ASSIGNMENTS,
    CONTEXT_CLAIM,
    CUSTOM_CLAIM,
    DEPLOYMENT_CLAIM,
    EXT_CLAIM,
    KEY_NAME,
    LINK_CLAIM,
    LIS_CLAIM,
    RECORD_NAME,
    LmsRecordError,
    RecordFolder,
    check,
    record_launch,
    tool_jwk,
)
from tests.conftest import ROOT

LINEITEMS = "https://canvas.example.edu/api/lti/courses/7/line_items"
SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
]
PLATFORM = {"issuer": "https://canvas.instructure.com", "client_id": "10000000000042",
            "auth_token_url": "https://sso.canvaslms.com/login/oauth2/token",
            "key_set_url": "https://sso.canvaslms.com/api/lti/security/jwks"}  # fmt: skip
NOW = datetime.datetime(2026, 12, 5, 7, 30, tzinfo=datetime.timezone.utc)


def canvas_claims(**extra) -> dict:
    return {
        "iss": "https://canvas.instructure.com", "aud": "10000000000042",
        "sub": "535fa085-f8a3-4b1b-b4dd-b2f3ab4cf4b4", "name": "Ada Lovelace", "given_name": "Ada",
        "family_name": "Lovelace", "email": "ada@example.edu",
        DEPLOYMENT_CLAIM: "42:8865aa05b4b79b64a91a86042e43af5ea8ae79eb",
        CONTEXT_CLAIM: {"id": "4dde05e8ca1973bcca9bffc13e1548820eee93a3", "title": "Autograd", "label": "AG101"},
        LINK_CLAIM: {"id": "6f3a1c2e-link", "title": "Lesson 1"},
        CUSTOM_CLAIM: {"assignment": "lesson1_requires_grad"},
        LIS_CLAIM: {"person_sourcedid": "S-1001"},
        AGS_CLAIM: {"scope": SCOPES, "lineitems": LINEITEMS, "lineitem": LINEITEMS + "/31"},
        **extra,
    }  # fmt: skip


def moodle_claims(**extra) -> dict:
    return {
        "iss": "https://moodle.example.edu", "aud": ["kJ3mN0pQ"], "azp": "kJ3mN0pQ", "sub": "17",
        "given_name": "Bob", "family_name": "Babbage", "email": "bob@example.edu",
        DEPLOYMENT_CLAIM: "3",
        CONTEXT_CLAIM: {"id": "12", "title": "Autograd", "label": "AG"},
        EXT_CLAIM: {"user_username": "bbabbage", "lms": "moodle-2"},
        LINK_CLAIM: {"id": "5", "title": "Lesson 2"},
        **extra,
    }  # fmt: skip


def launch(record, account="ada", claims=None, role="students", platform=PLATFORM, now=NOW) -> dict:
    return record_launch(record, course="autograd-course", account=account, role=role,
                         claims=canvas_claims() if claims is None else claims, platform=platform, now=now)  # fmt: skip


# -- record_launch -----------------------------------------------------------------------------
def test_a_canvas_launch_gives_the_whole_record():
    record = launch(None)
    assert record == {
        "version": 1, "course": "autograd-course",
        "platform": {**PLATFORM, "deployment_id": "42:8865aa05b4b79b64a91a86042e43af5ea8ae79eb"},
        "context": {"id": "4dde05e8ca1973bcca9bffc13e1548820eee93a3", "title": "Autograd", "label": "AG101"},
        "ags": {"lineitems": LINEITEMS, "scope": SCOPES},
        "people": {"ada": {"sub": "535fa085-f8a3-4b1b-b4dd-b2f3ab4cf4b4", "name": "Ada Lovelace",
                           "given_name": "Ada", "family_name": "Lovelace", "email": "ada@example.edu",
                           "sis_id": "S-1001", "role": "students", "last_launch": "2026-12-05T07:30:00+00:00"}},
        "links": {"6f3a1c2e-link": {"title": "Lesson 1", "assignment": "lesson1_requires_grad",
                                    "lineitem": LINEITEMS + "/31"}},
    }  # fmt: skip
    assert check(record) is record


def test_a_moodle_launch_keeps_its_numeric_sub_login_name_and_client_id_from_azp():
    record = launch(None, "bbabbage", moodle_claims(), platform={**PLATFORM, "client_id": "a,b"})
    person = record["people"]["bbabbage"]
    assert person["sub"] == "17" and person["username"] == "bbabbage" and "name" not in person
    assert record["platform"]["client_id"] == "kJ3mN0pQ" and record["platform"]["deployment_id"] == "3"
    assert record["ags"] == {}  # AGS off in Moodle: nothing to keep, nothing made up
    assert record["links"] == {"5": {"title": "Lesson 2", "assignment": None, "lineitem": None}}


def test_a_later_launch_without_email_or_ags_keeps_what_the_first_gave():
    first = launch(None)
    later = canvas_claims()
    for claim in ("email", "name", "given_name", "family_name", AGS_CLAIM):
        del later[claim]
    second = launch(first, claims=later, now=NOW + datetime.timedelta(hours=1))
    ada = second["people"]["ada"]
    assert ada["email"] == "ada@example.edu" and ada["name"] == "Ada Lovelace"
    assert ada["last_launch"] == "2026-12-05T08:30:00+00:00"
    assert second["ags"] == first["ags"]
    assert second["links"]["6f3a1c2e-link"]["lineitem"] == LINEITEMS + "/31"


def test_the_input_record_is_not_changed():
    first = launch(None)
    before = json.dumps(first, sort_keys=True)
    launch(first, "bob", canvas_claims(sub="other", email="bob@example.edu"))
    assert json.dumps(first, sort_keys=True) == before


def test_odd_claims_are_dropped_not_raised_on():
    odd = canvas_claims(name=["Ada", "Lovelace"], given_name="A" * 10_000, family_name="Love\x1b[2Jlace",
                        email="not an email", sub={"id": 1})  # fmt: skip
    odd[AGS_CLAIM] = {"scope": ["ok", 3], "lineitems": "javascript:alert(1)", "lineitem": 7}
    odd[CONTEXT_CLAIM] = "not an object"
    odd[CUSTOM_CLAIM] = {"assignment": "../../etc"}
    record = launch(None, claims=odd)
    ada = record["people"]["ada"]
    assert set(ada) == {"sis_id", "role", "last_launch"}  # no name, no sub, no email of those
    assert record["ags"] == {} and record["context"] == {}
    assert record["links"]["6f3a1c2e-link"] == {"title": "Lesson 1", "assignment": None, "lineitem": None}
    check(record)


def test_an_odd_claim_does_not_erase_a_good_earlier_value():
    first = launch(None)
    second = launch(first, claims=canvas_claims(name="N" * 10_000, email=["x@y"]))
    assert second["people"]["ada"]["name"] == "Ada Lovelace" and second["people"]["ada"]["email"] == "ada@example.edu"


def test_the_course_assignments_are_those_of_the_notebooks_folder():
    notebooks = os.path.join(ROOT, "notebooks")
    lessons = [name for name in os.listdir(notebooks) if os.path.isfile(os.path.join(notebooks, name, f"{name}.ipynb"))]
    assert sorted(ASSIGNMENTS) == sorted(lessons)


# -- the folder --------------------------------------------------------------------------------
def test_save_then_load_gives_the_record_with_modes_0640_and_0750(tmp_path):
    folder = RecordFolder(str(tmp_path / "lms" / "autograd-course"))
    assert folder.load() is None
    record = launch(None)
    folder.save(record, group_id=os.getgid())
    assert folder.load() == record
    info = os.stat(folder.record_path)
    assert stat.S_IMODE(info.st_mode) == 0o640 and info.st_gid == os.getgid()
    assert stat.S_IMODE(os.stat(folder.path).st_mode) == 0o750
    assert sorted(os.listdir(folder.path)) == [RECORD_NAME]  # no temporary file left


def test_a_symlinked_record_folder_is_refused(tmp_path):
    real = tmp_path / "elsewhere"
    real.mkdir()
    os.symlink(real, tmp_path / "course")
    with pytest.raises(LmsRecordError, match="refusing the record folder .*course"):
        RecordFolder(str(tmp_path / "course")).save(launch(None))
    assert os.listdir(real) == []


def test_a_symlinked_record_file_is_not_read(tmp_path):
    (tmp_path / "secret.json").write_text(json.dumps(launch(None)))
    os.symlink(tmp_path / "secret.json", tmp_path / RECORD_NAME)
    with pytest.raises(LmsRecordError, match=f"cannot read {tmp_path / RECORD_NAME}"):
        RecordFolder(str(tmp_path)).load()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another account needs root")
def test_a_record_folder_owned_by_another_account_is_refused(tmp_path):
    folder = tmp_path / "course"
    folder.mkdir()
    os.chown(folder, 65534, -1)
    with pytest.raises(LmsRecordError, match="owned by uid 65534"):
        RecordFolder(str(folder)).save(launch(None))
    assert os.listdir(folder) == []


@pytest.mark.parametrize("text, why", [
    ("{", "not JSON"), ("[]", "not a JSON object"), ('{"version": 2, "course": "c"}', "version 2"),
    ('{"version": 1, "course": "c", "people": {"ada": {"sub": 17}}}', "people['ada'].sub is not a string"),
])  # fmt: skip
def test_a_file_that_is_not_a_record_is_named_with_why(tmp_path, text, why):
    (tmp_path / RECORD_NAME).write_text(text)
    with pytest.raises(LmsRecordError) as raised:
        RecordFolder(str(tmp_path)).load()
    assert str(tmp_path / RECORD_NAME) in str(raised.value) and why in str(raised.value)


def test_the_tool_key_is_made_once_0640_and_its_jwk_is_public(tmp_path):
    folder = RecordFolder(str(tmp_path / "course"))
    with pytest.raises(LmsRecordError, match="no tool key"):
        folder.private_key()
    pem = folder.private_key(create=True, group_id=os.getgid())
    assert "BEGIN PRIVATE KEY" in pem and folder.private_key(create=True) == pem  # made once
    assert stat.S_IMODE(os.stat(os.path.join(folder.path, KEY_NAME)).st_mode) == 0o640
    jwk = folder.jwk()
    assert jwk["alg"] == "RS256" and jwk["use"] == "sig" and jwk["kty"] == "RSA" and "d" not in jwk
    assert jwk == tool_jwk(pem) and len(jwk["kid"]) == 43  # a base64url SHA-256 thumbprint


def test_the_jwk_kid_is_pylti1p3s(tmp_path):
    from pylti1p3.registration import Registration

    from autograder.grading.publish import public_key_pem

    pem = RecordFolder(str(tmp_path)).private_key(create=True)
    assert tool_jwk(pem)["kid"] == Registration.get_jwk(public_key_pem(pem))["kid"]
