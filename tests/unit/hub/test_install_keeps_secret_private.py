"""hub/install.py, run again after every update of the course, gives the grader's files the
instructors' group; the course secret stays the grader account's alone, or grading would refuse it."""

from __future__ import annotations

import importlib.util
import os

from autograder.grading.secret import FILE_NAME, FOLDER, course_secret, default_path
from tests.conftest import ROOT


def _install():
    spec = importlib.util.spec_from_file_location("hub_install", os.path.join(ROOT, "hub", "install.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_install_names_the_secret_grading_reads():
    assert _install().GRADER_SECRETS == (f"{FOLDER}/{FILE_NAME}",)


def test_closing_the_course_keeps_the_secret_private_and_usable(tmp_path):
    install = _install()
    secret = course_secret(default_path(str(tmp_path)))
    ledger = tmp_path / FOLDER / "lesson3_zeroing_grad.json"
    ledger.write_text("{}")
    install.close_course(str(tmp_path), os.geteuid(), os.getegid(), [])
    assert oct(os.stat(default_path(str(tmp_path))).st_mode & 0o7777) == "0o600"
    assert oct(os.stat(ledger).st_mode & 0o7777) == "0o640"  # the rest of the folder: the instructors' too
    assert course_secret(default_path(str(tmp_path))) == secret


def test_closing_the_course_leaves_the_hubs_lms_records_as_the_hub_made_them(tmp_path):
    records = tmp_path / "hub" / "lms" / "autograd-spring"
    records.mkdir(parents=True)
    (records / "lms.json").write_text("{}")
    os.chmod(records, 0o750)
    os.chmod(records / "lms.json", 0o640)
    os.chmod(tmp_path / "hub" / "lms", 0o711)
    before = [(os.stat(p).st_uid, os.stat(p).st_gid, os.stat(p).st_mode) for p in (records, records / "lms.json")]
    _install().close_course(str(tmp_path), os.geteuid(), os.getegid() + 1, [])  # another course's group
    after = [(os.stat(p).st_uid, os.stat(p).st_gid, os.stat(p).st_mode) for p in (records, records / "lms.json")]
    assert after == before
    assert oct(os.stat(tmp_path / "hub" / "lms").st_mode & 0o777) == "0o711"
