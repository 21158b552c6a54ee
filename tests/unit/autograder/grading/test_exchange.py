"""Collect takes a submission only from the account it names, at the server's time
(autograder.grading.exchange.OwnerCheckedCollect, nbgrader's collect for a shared exchange).

Submissions are folders in a temporary exchange, made as nbgrader submit makes them and given to
accounts made for the test with useradd; collect runs as root here, as the grader account would
(root reads everything, so a refusal below is the owner check's, not a permission's)."""

from __future__ import annotations

import datetime
import json
import logging
import os
import pwd
import secrets
import shutil
import stat
import subprocess
import sys
import time

import pytest
from nbgrader.api import Gradebook
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import capture_log, parse_utc

from autograder.grading.exchange import OwnerCheckedCollect, RefusalRecord
from tests.conftest import ROOT

COURSE = "autograd-course"
LESSON = "lesson1_requires_grad"
ACCOUNTS = ("autograder-ann", "autograder-bob")
EARLY = "2020-01-01 09:00:00.000000 UTC"  # a time every submission below is made long after

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="gives files to other accounts (chown): needs root")


@pytest.fixture(scope="module")
def accounts() -> dict[str, int]:
    """Two students' accounts (system accounts without a home, left in place for the next run)."""
    for name in ACCOUNTS:
        try:
            pwd.getpwnam(name)
        except KeyError:
            subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                           capture_output=True)  # fmt: skip
    return {name: pwd.getpwnam(name).pw_uid for name in ACCOUNTS}


@pytest.fixture(scope="module")
def empty_gradebook(tmp_path_factory) -> str:
    """An empty gradebook made once: nbgrader takes seconds to make one (alembic), milliseconds to open it."""
    path = str(tmp_path_factory.mktemp("gradebook") / "gradebook.db")
    with Gradebook(f"sqlite:///{path}", COURSE):
        pass
    return path


@pytest.fixture
def empty_course_folder(tmp_path, empty_gradebook) -> str:
    folder = tmp_path / "course"
    folder.mkdir()
    shutil.copy(empty_gradebook, folder / "gradebook.db")
    return str(folder)


@pytest.fixture
def exchange(tmp_path) -> str:
    inbound = tmp_path / "exchange" / COURSE / "inbound"
    inbound.mkdir(parents=True)
    os.chmod(inbound, 0o733)  # as nbgrader's release leaves it
    return str(tmp_path / "exchange")


def submit(exchange: str, owner: str, student_id: str, answer: str = "my work", claimed: str | None = None) -> str:
    """An inbound folder as ``nbgrader submit`` leaves it, made by ``owner`` in ``student_id``'s name."""
    claimed = claimed or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    name = f"{student_id}+{LESSON}+{claimed}+{secrets.token_urlsafe(9)}"
    folder = os.path.join(exchange, COURSE, "inbound", name)
    os.makedirs(folder)
    for filename, text in {f"{LESSON}.ipynb": answer, "timestamp.txt": claimed, "submission_secret.txt": "s"}.items():
        with open(os.path.join(folder, filename), "w") as f:
            f.write(text)
        os.chmod(os.path.join(folder, filename), 0o644)
    give(folder, owner)
    os.chmod(folder, 0o777)
    return folder


def give(path: str, owner: str) -> None:
    uid = pwd.getpwnam(owner).pw_uid
    os.lchown(path, uid, uid)
    for parent, folders, files in os.walk(path):
        for name in folders + files:
            os.lchown(os.path.join(parent, name), uid, uid)


def collect(course: str, exchange: str, **settings) -> str:
    """nbgrader collect of LESSON with the course's collect; its log."""
    coursedir = CourseDirectory(root=course, course_id=COURSE, assignment_id=LESSON)
    log = logging.getLogger(f"collect-{secrets.token_hex(4)}")
    log.setLevel(logging.INFO)  # as the formgrader and nbgrader collect log
    collector = OwnerCheckedCollect(coursedir=coursedir, authenticator=Authenticator(), root=exchange, log=log,
                                    **settings)  # fmt: skip
    result = capture_log(collector)
    assert result["success"], result
    return result.get("log", "")


def collected(course: str, student: str, name: str = f"{LESSON}.ipynb") -> str | None:
    path = os.path.join(course, "submitted", student, LESSON, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read()


def refusals(course: str) -> list[dict]:
    folder = os.path.join(course, ".autograder", "refused-submissions")
    if not os.path.isdir(folder):
        return []
    found = []
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as f:
            found.append(json.load(f))
    return found


def test_own_submission_collected(accounts, empty_course_folder, exchange):
    submit(exchange, "autograder-ann", "autograder-ann", "ann's answer")
    log = collect(empty_course_folder, exchange)
    assert collected(empty_course_folder, "autograder-ann") == "ann's answer"
    assert "Refused" not in log and refusals(empty_course_folder) == []


def test_forgery_refused_and_left(accounts, empty_course_folder, exchange):
    honest = submit(exchange, "autograder-bob", "autograder-bob", "bob's own answer")
    time.sleep(0.05)  # the forgery is the later one, which nbgrader's collect would take as bob's
    forged = submit(exchange, "autograder-ann", "autograder-bob", "ann's answer, in bob's name")
    log = collect(empty_course_folder, exchange)
    assert collected(empty_course_folder, "autograder-bob") == "bob's own answer"
    assert "Refused autograder-bob's submission" in log and "belongs to autograder-ann, not autograder-bob" in log
    [record] = refusals(empty_course_folder)
    assert record["student_id"] == "autograder-bob" and record["inbound"] == forged
    assert any("belongs to autograder-ann" in problem for problem in record["problems"])
    assert os.path.isdir(forged) and os.path.isdir(honest)  # nothing is deleted from the exchange
    assert record["inbound_name"] == os.path.basename(forged)
    named = RefusalRecord.file_name(os.path.basename(forged))  # the sha256 of the inbound name
    mode = os.stat(os.path.join(empty_course_folder, ".autograder", "refused-submissions", named))
    assert stat.S_IMODE(mode.st_mode) == 0o600


def test_lone_forgery_refused(accounts, empty_course_folder, exchange):
    submit(exchange, "autograder-ann", "autograder-bob", "ann's answer, in bob's name")
    assert "Refused" in collect(empty_course_folder, exchange)
    assert not os.path.exists(os.path.join(empty_course_folder, "submitted", "autograder-bob"))


def test_notebook_of_another_refused(accounts, empty_course_folder, exchange):
    folder = submit(exchange, "autograder-ann", "autograder-ann")
    give(os.path.join(folder, f"{LESSON}.ipynb"), "autograder-bob")  # e.g. a hard link to bob's file
    log = collect(empty_course_folder, exchange)
    assert collected(empty_course_folder, "autograder-ann") is None
    assert f"{LESSON}.ipynb belongs to autograder-bob, not autograder-ann" in log


def test_nested_foreign_file_refused(accounts, empty_course_folder, exchange):
    folder = submit(exchange, "autograder-ann", "autograder-ann")
    os.makedirs(os.path.join(folder, "data"))
    with open(os.path.join(folder, "data", "extra.csv"), "w") as f:
        f.write("1,2\n")
    give(os.path.join(folder, "data"), "autograder-ann")
    os.lchown(os.path.join(folder, "data", "extra.csv"), 0, 0)
    log = collect(empty_course_folder, exchange)
    assert collected(empty_course_folder, "autograder-ann") is None
    assert "data/extra.csv belongs to root" in log


def test_link_refused_nothing_copied(accounts, empty_course_folder, exchange):
    bobs = submit(exchange, "autograder-bob", "autograder-bob", "bob's secret answer")
    folder = submit(exchange, "autograder-ann", "autograder-ann")
    notebook = os.path.join(folder, f"{LESSON}.ipynb")
    os.remove(notebook)
    os.symlink(os.path.join(bobs, f"{LESSON}.ipynb"), notebook)
    os.lchown(notebook, accounts["autograder-ann"], accounts["autograder-ann"])
    log = collect(empty_course_folder, exchange)
    assert collected(empty_course_folder, "autograder-ann") is None
    assert f"{LESSON}.ipynb is a link" in log
    assert collected(empty_course_folder, "autograder-bob") == "bob's secret answer"  # bob's own, under his name only


def test_linked_folder_refused(accounts, empty_course_folder, exchange):
    folder = submit(exchange, "autograder-ann", "autograder-ann")
    os.symlink(os.path.join(empty_course_folder), os.path.join(folder, "course"))  # the grader could read it all
    os.lchown(os.path.join(folder, "course"), accounts["autograder-ann"], accounts["autograder-ann"])
    assert "course is a link" in collect(empty_course_folder, exchange)
    assert collected(empty_course_folder, "autograder-ann") is None


def test_linked_inbound_refused(accounts, empty_course_folder, exchange):
    bobs = submit(exchange, "autograder-bob", "autograder-bob", "bob's secret answer")
    name = f"autograder-ann+{LESSON}+{EARLY}+{secrets.token_urlsafe(9)}"
    link = os.path.join(exchange, COURSE, "inbound", name)
    os.symlink(bobs, link)
    os.lchown(link, accounts["autograder-ann"], accounts["autograder-ann"])
    assert "it is not a folder that can be opened" in collect(empty_course_folder, exchange)
    assert collected(empty_course_folder, "autograder-ann") is None


def test_fifo_refused_no_stall(accounts, empty_course_folder, exchange):
    folder = submit(exchange, "autograder-ann", "autograder-ann")
    os.mkfifo(os.path.join(folder, "pipe"))
    give(folder, "autograder-ann")
    assert "pipe is not a regular file" in collect(empty_course_folder, exchange)
    assert collected(empty_course_folder, "autograder-ann") is None


def test_id_without_account_refused(accounts, empty_course_folder, exchange):
    submit(exchange, "autograder-ann", "nobody-by-that-name")
    assert "there is no account named 'nobody-by-that-name'" in collect(empty_course_folder, exchange)
    assert not os.path.exists(os.path.join(empty_course_folder, "submitted", "nobody-by-that-name"))


def test_unparsable_time_not_fatal(accounts, empty_course_folder, exchange):
    submit(exchange, "autograder-ann", "autograder-ann", "ann's answer", claimed="not-a-time")
    submit(exchange, "autograder-bob", "autograder-bob", "bob's answer")
    collect(empty_course_folder, exchange)
    assert collected(empty_course_folder, "autograder-ann") == "ann's answer"
    assert collected(empty_course_folder, "autograder-bob") == "bob's answer"


def server_time(course: str, student: str) -> datetime.datetime:
    return parse_utc(collected(course, student, "timestamp.txt"))


def test_server_time_beats_forgery(accounts, empty_course_folder, exchange):
    # the kernel stamps ctimes from a clock that may lag the one Python reads by a tick
    before = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None) - datetime.timedelta(seconds=1)
    folder = submit(exchange, "autograder-ann", "autograder-ann", claimed=EARLY)
    early = datetime.datetime(2020, 1, 1, 9).timestamp()
    for name in os.listdir(folder):  # the file times a student can set: no use
        os.utime(os.path.join(folder, name), (early, early))
    os.utime(folder, (early, early))
    log = collect(empty_course_folder, exchange)
    recorded = server_time(empty_course_folder, "autograder-ann")
    assert before <= recorded <= datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    assert "claims to be from 2020-01-01T09:00:00" in log


def test_moved_in_gets_move_time(accounts, empty_course_folder, exchange, tmp_path):
    prepared = submit(str(tmp_path / "elsewhere"), "autograder-ann", "autograder-ann", claimed=EARLY)
    ready = max(os.stat(path).st_ctime for path in walk(prepared))
    time.sleep(0.5)
    os.rename(prepared, os.path.join(exchange, COURSE, "inbound", os.path.basename(prepared)))
    collect(empty_course_folder, exchange)
    moved = datetime.datetime.fromtimestamp(ready + 0.4, datetime.timezone.utc).replace(tzinfo=None)
    assert server_time(empty_course_folder, "autograder-ann") >= moved


def test_penalty_uses_server_time(accounts, empty_course_folder, exchange):
    """What nbgrader's autograde does with timestamp.txt (converters/autograde.py): the gradebook's
    submission time, and how late it is."""
    due = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None) - datetime.timedelta(hours=1)
    coursedir = CourseDirectory(root=empty_course_folder, course_id=COURSE)
    with Gradebook(coursedir.db_url, COURSE) as gb:
        gb.add_assignment(LESSON, duedate=due)
    submit(exchange, "autograder-ann", "autograder-ann", claimed=EARLY)  # late, claiming to be early
    collect(empty_course_folder, exchange)
    timestamp = coursedir.get_existing_timestamp(
        os.path.join(empty_course_folder, "submitted", "autograder-ann", LESSON)
    )
    with Gradebook(coursedir.db_url, COURSE) as gb:
        gb.update_or_create_student("autograder-ann")  # as autograde does for a student it does not know
        submission = gb.update_or_create_submission(LESSON, "autograder-ann", timestamp=timestamp)
        assert submission.total_seconds_late > 3000


def test_latest_by_server_time(accounts, empty_course_folder, exchange):
    submit(exchange, "autograder-ann", "autograder-ann", "first")
    time.sleep(0.05)
    submit(exchange, "autograder-ann", "autograder-ann", "second, named as if early", claimed=EARLY)
    collect(empty_course_folder, exchange)
    assert collected(empty_course_folder, "autograder-ann") == "second, named as if early"


def test_early_name_stays_late(accounts, empty_course_folder, exchange):
    submit(exchange, "autograder-ann", "autograder-ann", "on time")
    time.sleep(0.1)
    due = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    time.sleep(0.1)
    just_before = (due - datetime.timedelta(milliseconds=1)).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    submit(exchange, "autograder-ann", "autograder-ann", "late, named as if just in time", claimed=just_before)
    with Gradebook(CourseDirectory(root=empty_course_folder, course_id=COURSE).db_url, COURSE) as gb:
        gb.add_assignment(LESSON, duedate=due)
    collect(empty_course_folder, exchange, before_duedate=True)
    assert collected(empty_course_folder, "autograder-ann") == "on time"


def test_changed_is_recollected(accounts, empty_course_folder, exchange):
    folder = submit(exchange, "autograder-ann", "autograder-ann", "first version")
    collect(empty_course_folder, exchange)
    first = server_time(empty_course_folder, "autograder-ann")
    time.sleep(0.05)
    with open(os.path.join(folder, f"{LESSON}.ipynb"), "w") as f:  # the folder is the student's to change
        f.write("changed after collect")
    collect(empty_course_folder, exchange, update=True)
    assert collected(empty_course_folder, "autograder-ann") == "changed after collect"
    assert server_time(empty_course_folder, "autograder-ann") > first


def test_collected_modes_are_private(accounts, empty_course_folder, exchange):
    folder = submit(exchange, "autograder-ann", "autograder-ann")
    os.makedirs(os.path.join(folder, "sub"))
    give(folder, "autograder-ann")
    os.chmod(os.path.join(folder, "sub"), 0o777)
    os.chmod(os.path.join(folder, f"{LESSON}.ipynb"), 0o6777)  # set-user-id: it would run as the grader
    collect(empty_course_folder, exchange)
    top = os.path.join(empty_course_folder, "submitted", "autograder-ann", LESSON)
    modes = {os.path.relpath(p, top): stat.S_IMODE(os.lstat(p).st_mode) for p in walk(top)}
    assert modes == {".": 0o700, "sub": 0o700, f"{LESSON}.ipynb": 0o600, "timestamp.txt": 0o600,
                     "submission_secret.txt": 0o600}  # fmt: skip


def test_umask_077_then_restored(accounts, empty_course_folder, exchange):
    submit(exchange, "autograder-ann", "autograder-ann")
    previous = os.umask(0o022)
    try:
        collect(empty_course_folder, exchange)
        assert os.umask(0o022) == 0o022
    finally:
        os.umask(previous)
    for path in [
        os.path.join(empty_course_folder, "submitted"),
        os.path.join(empty_course_folder, "submitted", "autograder-ann"),
    ]:
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o700


def walk(top: str) -> list[str]:
    found = [top]
    for parent, folders, files in os.walk(top):
        found += [os.path.join(parent, name) for name in folders + files]
    return found


@pytest.mark.parametrize("config", ["nbgrader_config.py", "hub/etc/jupyter/nbgrader_config.py"])
def test_collect_cli_checks_owners(accounts, empty_course_folder, exchange, config):
    """`nbgrader collect` itself, with the course's configuration or (alone) the hub's."""
    env = {**os.environ, "AUTOGRADER_EXCHANGE": exchange, "PYTHONPATH": ROOT}
    env.pop("AUTOGRADER_DB_URL", None)
    if config == "nbgrader_config.py":
        shutil.copy(os.path.join(ROOT, config), empty_course_folder)
        arguments = [f"--Exchange.root={exchange}"]
    else:
        env["JUPYTER_CONFIG_PATH"] = os.path.join(ROOT, os.path.dirname(config))
        arguments = []
    submit(exchange, "autograder-ann", "autograder-bob", "ann's answer, in bob's name")
    done = subprocess.run([os.path.join(os.path.dirname(sys.executable), "nbgrader"), "collect", LESSON, *arguments],
                          cwd=empty_course_folder, env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Refused autograder-bob's submission" in done.stderr
    assert not os.path.exists(os.path.join(empty_course_folder, "submitted", "autograder-bob"))


# ---- one student's folder cannot stop the class's collect ------------------------------------------


def long_name(student_id: str, length: int = 255) -> str:
    """An inbound folder name of ``length`` bytes (the file system's longest) in ``student_id``'s name."""
    start = f"{student_id}+{LESSON}+{EARLY}+"
    return start + "x" * (length - len(start.encode()))


def submit_named(exchange: str, owner: str, name: str, answer: str = "a forgery") -> str:
    folder = os.path.join(exchange, COURSE, "inbound", name)
    os.makedirs(folder)
    with open(os.path.join(folder, f"{LESSON}.ipynb"), "w") as f:
        f.write(answer)
    give(folder, owner)
    return folder


@pytest.mark.parametrize("student", [None, "autograder-ann"], ids=["whole class", "--student ann"])
def test_a_255_byte_inbound_name_is_refused_and_the_rest_collected(accounts, empty_course_folder, exchange, student):
    """The refusal record of a 255-byte folder is named by a hash, so it is written and collect goes on,
    also for ``--student`` of the student whose id the long folder claims."""
    submit(exchange, "autograder-ann", "autograder-ann", "ann's answer")
    submit(exchange, "autograder-bob", "autograder-bob", "bob's answer")
    name = long_name("autograder-ann")
    submit_named(exchange, "autograder-bob", name, "bob's work, in ann's name")
    coursedir = CourseDirectory(
        root=empty_course_folder, course_id=COURSE, assignment_id=LESSON, student_id=student or ""
    )
    log = logging.getLogger(f"collect-{secrets.token_hex(4)}")
    result = capture_log(
        OwnerCheckedCollect(coursedir=coursedir, authenticator=Authenticator(), root=exchange, log=log)
    )
    assert result["success"], result
    assert collected(empty_course_folder, "autograder-ann") == "ann's answer"
    assert collected(empty_course_folder, "autograder-bob") == (None if student else "bob's answer")
    [record] = refusals(empty_course_folder)
    assert record["inbound_name"] == name and "belongs to autograder-bob" in " ".join(record["problems"])
    # the list at the end names it, shortened
    tail = result["log"].split("Not collected: 1 inbound folder(s)")[1]
    assert "autograder-ann+" in tail and "…" in tail and name not in tail


def test_control_characters_in_a_folder_name_are_shown_escaped(accounts, empty_course_folder, exchange):
    submit(exchange, "autograder-ann", "autograder-ann", "ann's answer")
    submit_named(exchange, "autograder-bob", f"autograder-ann+{LESSON}+\x1b[2J\x1b[Hall clear+x")
    log = collect(empty_course_folder, exchange)
    assert "\x1b" not in log and "\\x1b[2J\\x1b[H" in log
    assert collected(empty_course_folder, "autograder-ann") == "ann's answer"


def test_an_error_judging_one_folder_leaves_it_out_and_collects_the_rest(
    accounts, empty_course_folder, exchange, monkeypatch
):
    from autograder.grading import exchange as module

    submit(exchange, "autograder-ann", "autograder-ann", "ann's answer")
    submit(exchange, "autograder-bob", "autograder-bob", "bob's answer")
    judged = module.SubmissionOwner.problems

    def breaks_on_bob(self, fd, student_id):
        if student_id == "autograder-bob":
            raise ValueError("something no one foresaw")
        return judged(self, fd, student_id)

    monkeypatch.setattr(module.SubmissionOwner, "problems", breaks_on_bob)
    log = collect(empty_course_folder, exchange)
    assert (
        collected(empty_course_folder, "autograder-ann") == "ann's answer"
        and collected(empty_course_folder, "autograder-bob") is None
    )
    assert "Not collected: 1 inbound folder(s)" in log and "ValueError: something no one foresaw" in log


def test_an_error_copying_one_folder_leaves_it_out_and_collects_the_rest(
    accounts, empty_course_folder, exchange, monkeypatch
):
    bobs = submit(exchange, "autograder-bob", "autograder-bob", "bob's answer")
    submit(exchange, "autograder-ann", "autograder-ann", "ann's answer")
    copy = OwnerCheckedCollect.do_copy

    def vanishes(self, src, dest, log=None):
        if src == bobs:
            raise FileNotFoundError(2, "No such file or directory", src)  # removed by its owner meanwhile
        return copy(self, src, dest, log)

    monkeypatch.setattr(OwnerCheckedCollect, "do_copy", vanishes)
    log = collect(empty_course_folder, exchange)
    assert collected(empty_course_folder, "autograder-ann") == "ann's answer"
    assert "Not collected: 1 inbound folder(s)" in log and "FileNotFoundError" in log


def test_a_refusals_folder_made_by_a_student_is_not_written_and_collect_goes_on(
    accounts, empty_course_folder, exchange
):
    folder = os.path.join(empty_course_folder, ".autograder", "refused-submissions")
    os.makedirs(folder)
    os.chown(folder, accounts["autograder-bob"], accounts["autograder-bob"])
    submit(exchange, "autograder-ann", "autograder-ann", "ann's answer")
    submit(exchange, "autograder-ann", "autograder-bob", "ann's work, in bob's name")
    log = collect(empty_course_folder, exchange)
    assert (
        collected(empty_course_folder, "autograder-ann") == "ann's answer"
        and collected(empty_course_folder, "autograder-bob") is None
    )
    assert "no record" in log and "was made by autograder-bob" in log
    assert os.listdir(folder) == []  # nothing written where the student could read or replace it


def test_collect_cli_goes_past_a_255_byte_folder_for_another_student(accounts, empty_course_folder, exchange):
    """`nbgrader collect --student autograder-ann` with the course's configuration."""
    env = {**os.environ, "PYTHONPATH": ROOT}
    env.pop("AUTOGRADER_DB_URL", None)
    shutil.copy(os.path.join(ROOT, "nbgrader_config.py"), empty_course_folder)
    submit(exchange, "autograder-ann", "autograder-ann", "ann's answer")
    submit_named(exchange, "autograder-bob", long_name("autograder-ann"))
    done = subprocess.run([os.path.join(os.path.dirname(sys.executable), "nbgrader"), "collect", LESSON,
                           f"--Exchange.root={exchange}", "--student", "autograder-ann"],
                          cwd=empty_course_folder, env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert collected(empty_course_folder, "autograder-ann") == "ann's answer"
    assert done.stderr.rstrip().splitlines()[-1].strip().startswith("autograder-ann+")  # listed last
