"""zip_collect reads whose a file is from the LMS download's top level only
(autograder.grading.lms_download: TopLevelExtractor, TopLevelCollector, LeftOut).

Downloads are zips built here as Canvas names its "Download Submissions" members:
<name>_[LATE_]<user id>_<submission id>_<the student's file name>, with -1, -2 for re-uploads."""

from __future__ import annotations

import io
import json
import logging
import os
import stat
import tarfile
import zipfile

import pytest
from traitlets.config import Config

from autograder.grading.lms_download import LeftOut, TopLevelCollector, TopLevelExtractor, is_archive
from tests.conftest import ROOT

NOTEBOOK = "lesson3_zeroing_grad.ipynb"


def course_regexp() -> str:
    """The course's own named_regexp, read from nbgrader_config.py."""
    config = Config()
    with open(os.path.join(ROOT, "nbgrader_config.py")) as f:
        exec(compile(f.read(), "nbgrader_config.py", "exec"), {"get_config": lambda: config, "__file__": f.name})
    return config.FileNameCollectorPlugin.named_regexp


def notebook(answer: str) -> bytes:
    return json.dumps({"cells": [], "metadata": {"answer": answer}, "nbformat": 4, "nbformat_minor": 5}).encode()


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, content in members.items():
            z.writestr(name, content)
    return buffer.getvalue()


def unpack_and_decide(tmp_path, members: dict[str, bytes], **settings) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Extract a download holding ``members`` and decide; ({student: the answer collected}, what was left out)."""
    archive, extracted = tmp_path / "archive", tmp_path / "extracted"
    archive.mkdir()
    extracted.mkdir()
    (archive / "submissions.zip").write_bytes(zipped(members))
    extractor = TopLevelExtractor(**settings)
    extractor.extract(str(archive), str(extracted))
    collector = TopLevelCollector(named_regexp=course_regexp(), log=extractor.log)
    collector.__dict__["_left_out"] = LeftOut.of(extractor)  # one list, as one app would hold
    files = sorted(os.path.join(top, name) for top, _, names in os.walk(extracted) for name in names)
    decided = collector.decide(str(extracted), files)
    answers = {}
    for path, info in decided.items():
        assert info["file_id"] == NOTEBOOK
        with open(path) as f:
            answers[info["student_id"]] = json.load(f)["metadata"]["answer"]
    return answers, LeftOut.of(extractor).entries


def why(left_out: list[tuple[str, str]], name: str) -> str:
    reasons = [reason for what, reason in left_out if what.endswith(name)]
    assert reasons, f"{name} is not listed among {left_out}"
    return reasons[0]


def test_a_plain_canvas_download_is_collected(tmp_path):
    answers, left_out = unpack_and_decide(tmp_path, {
        f"ada_101_201_{NOTEBOOK}": notebook("ada's"),
        f"bob_LATE_102_202_{NOTEBOOK}": notebook("bob's, late"),
    })  # fmt: skip
    assert answers == {"ada": "ada's", "bob": "bob's, late"} and left_out == []


def test_a_notebook_the_release_does_not_have_is_listed_not_collected(tmp_path):
    archive, extracted = tmp_path / "archive", tmp_path / "extracted"
    archive.mkdir()
    extracted.mkdir()
    (archive / f"ada_101_201_{NOTEBOOK}").write_bytes(notebook("ada's"))
    (archive / "bob_102_202_lesson3_zeroing_grad_copy.ipynb").write_bytes(notebook("bob's, misnamed"))
    extractor = TopLevelExtractor()
    extractor.extract(str(archive), str(extracted))
    collector = TopLevelCollector(named_regexp=course_regexp(), log=extractor.log)
    collector.__dict__["_left_out"] = left_out = LeftOut.of(extractor)
    files = sorted(str(path) for path in extracted.iterdir())
    decided = collector.decide(str(extracted), files, released={NOTEBOOK})
    assert [info["student_id"] for info in decided.values()] == ["ada"]
    assert why(left_out.entries, "grad_copy.ipynb").startswith(
        f"not a notebook of this assignment (its release has {NOTEBOOK})"
    )
    assert left_out.collected == {"ada": 1}


def test_a_nested_zip_naming_another_student_is_refused_and_named(tmp_path):
    """mallory uploads a zip holding a notebook named as ada's: ada keeps her own, the zip is not opened."""
    answers, left_out = unpack_and_decide(tmp_path, {
        f"ada_101_201_{NOTEBOOK}": notebook("ada's"),
        f"mallory_102_202_{NOTEBOOK}": notebook("mallory's"),
        "mallory_102_202_extra.zip": zipped({f"ada_101_999_{NOTEBOOK}": notebook("mallory's, in ada's name")}),
    })  # fmt: skip
    assert answers == {"ada": "ada's", "mallory": "mallory's"}
    assert "an archive inside the download" in why(left_out, "submissions.zip/mallory_102_202_extra.zip")
    assert not any("999" in what for what, _ in left_out)  # its files were never read


@pytest.mark.parametrize("kind", ["zip named .ipynb", "tar.gz", "7z by its name"])
def test_every_kind_of_nested_archive_is_refused(tmp_path, kind):
    inner = io.BytesIO()
    with tarfile.open(fileobj=inner, mode="w:gz") as tar:
        data = notebook("in ada's name")
        info = tarfile.TarInfo(f"ada_101_999_{NOTEBOOK}")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    member = {
        "zip named .ipynb": (f"mallory_102_202_{NOTEBOOK}", zipped({f"ada_101_999_{NOTEBOOK}": notebook("x")})),
        "tar.gz": ("mallory_102_202_work.tar.gz", inner.getvalue()),
        "7z by its name": ("mallory_102_202_work.7z", b"not even a real 7z"),
    }[kind]
    answers, left_out = unpack_and_decide(
        tmp_path, {f"ada_101_201_{NOTEBOOK}": notebook("ada's"), member[0]: member[1]}
    )
    assert answers == {"ada": "ada's"} and "an archive inside the download" in why(left_out, member[0])


def test_two_downloads_side_by_side_count_one_file_once(tmp_path):
    """The second day's download put beside the first: a file in both (same name, same bytes) is
    collected once, a re-upload only the second has (-1) wins, and one name with other bytes is refused."""
    archive, extracted = tmp_path / "archive", tmp_path / "extracted"
    archive.mkdir()
    extracted.mkdir()
    first = {f"ada_101_201_{NOTEBOOK}": notebook("ada's"), f"bob_102_202_{NOTEBOOK}": notebook("bob's first"),
             f"carol_103_203_{NOTEBOOK}": notebook("carol's")}  # fmt: skip
    second = {**first, "bob_102_202_lesson3_zeroing_grad-1.ipynb": notebook("bob's second"),
              f"carol_103_203_{NOTEBOOK}": notebook("another carol's, same name")}  # fmt: skip
    (archive / "day1.zip").write_bytes(zipped(first))
    (archive / "day2.zip").write_bytes(zipped(second))
    extractor = TopLevelExtractor()
    extractor.extract(str(archive), str(extracted))
    collector = TopLevelCollector(named_regexp=course_regexp(), log=extractor.log)
    collector.__dict__["_left_out"] = left_out = LeftOut.of(extractor)
    files = sorted(os.path.join(top, name) for top, _, names in os.walk(extracted) for name in names)
    decided = collector.decide(str(extracted), files)
    answers = {}
    for path, info in decided.items():
        with open(path) as f:
            answers[info["student_id"]] = json.load(f)["metadata"]["answer"]
    assert answers == {"ada": "ada's", "bob": "bob's second"}
    listed = dict(left_out.entries)
    assert listed[f"day2.zip/ada_101_201_{NOTEBOOK}"] == (
        f"the same file as day1.zip/ada_101_201_{NOTEBOOK} (the same name and bytes, in another download), "
        "which is collected"
    )
    assert listed[f"day1.zip/carol_103_203_{NOTEBOOK}"].startswith(f"one of 2 files for carol's {NOTEBOOK}")
    assert listed[f"day2.zip/carol_103_203_{NOTEBOOK}"].startswith(f"one of 2 files for carol's {NOTEBOOK}")
    assert listed[f"day1.zip/bob_102_202_{NOTEBOOK}"].startswith("an earlier upload of bob's")
    assert listed[f"day2.zip/bob_102_202_{NOTEBOOK}"].startswith("an earlier upload of bob's")


def test_a_student_id_from_below_the_top_level_is_refused(tmp_path):
    """A folder in the download (Canvas writes none) does not make its files anyone's."""
    answers, left_out = unpack_and_decide(tmp_path, {
        f"mallory_102_202_files/ada_101_201_{NOTEBOOK}": notebook("in a folder"),
        f"ada_101_201_{NOTEBOOK}": notebook("ada's"),
    })  # fmt: skip
    assert answers == {"ada": "ada's"}
    assert "does not say whose" in why(left_out, f"mallory_102_202_files/ada_101_201_{NOTEBOOK}")


def test_a_duplicate_refuses_that_file_and_collects_the_rest(tmp_path):
    """Two accounts of one name: neither file can be told to be the right one, everyone else is collected."""
    answers, left_out = unpack_and_decide(tmp_path, {
        f"carol_104_204_{NOTEBOOK}": notebook("one carol"),
        f"carol_105_205_{NOTEBOOK}": notebook("another carol"),
        f"ada_101_201_{NOTEBOOK}": notebook("ada's"),
    })  # fmt: skip
    assert answers == {"ada": "ada's"}
    assert "one of 2 files for carol's lesson3_zeroing_grad.ipynb" in why(left_out, f"carol_104_204_{NOTEBOOK}")
    assert "none is collected" in why(left_out, f"carol_105_205_{NOTEBOOK}")


def test_canvas_resubmissions_keep_the_highest_suffix(tmp_path):
    stem = NOTEBOOK.removesuffix(".ipynb")
    answers, left_out = unpack_and_decide(tmp_path, {
        f"bob_103_203_{stem}-2.ipynb": notebook("third upload"),
        f"bob_103_203_{NOTEBOOK}": notebook("first upload"),
        f"bob_103_203_{stem}-1.ipynb": notebook("second upload"),
        f"bob_103_203_{stem}-10.ipynb": notebook("eleventh upload"),
    })  # fmt: skip
    assert answers == {"bob": "eleventh upload"}
    assert sorted(what.rsplit("/", 1)[1] for what, _ in left_out) == sorted(
        [f"bob_103_203_{NOTEBOOK}", f"bob_103_203_{stem}-1.ipynb", f"bob_103_203_{stem}-2.ipynb"]
    )
    assert all("an earlier upload of bob's" in reason for _, reason in left_out)


@pytest.mark.parametrize("name", ["../escape.ipynb", "/etc/evil.ipynb", "a/../../b.ipynb"])
def test_a_member_climbing_out_of_the_download_is_refused(tmp_path, name):
    answers, left_out = unpack_and_decide(tmp_path, {name: notebook("out"), f"ada_101_201_{NOTEBOOK}": notebook("a")})
    assert "climbs out" in why(left_out, name) and not (tmp_path / "escape.ipynb").exists()


def test_a_link_in_the_download_is_refused(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        link = zipfile.ZipInfo(f"mallory_102_202_{NOTEBOOK}")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(link, "/work/gradebook.db")
    archive, extracted = tmp_path / "archive", tmp_path / "extracted"
    archive.mkdir()
    extracted.mkdir()
    (archive / "submissions.zip").write_bytes(buffer.getvalue())
    extractor = TopLevelExtractor()
    extractor.extract(str(archive), str(extracted))
    assert why(LeftOut.of(extractor).entries, f"mallory_102_202_{NOTEBOOK}") == "a link"
    assert list(extracted.rglob("*.ipynb")) == []


def test_a_second_member_of_the_same_name_is_refused(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z, pytest.warns(UserWarning, match="Duplicate name"):
        z.writestr(f"ada_101_201_{NOTEBOOK}", notebook("first"))
        z.writestr(f"ada_101_201_{NOTEBOOK}", notebook("second, same name"))
    archive, extracted = tmp_path / "archive", tmp_path / "extracted"
    archive.mkdir()
    extracted.mkdir()
    (archive / "submissions.zip").write_bytes(buffer.getvalue())
    extractor = TopLevelExtractor()
    extractor.extract(str(archive), str(extracted))
    assert "a second file of the same name" in why(LeftOut.of(extractor).entries, f"ada_101_201_{NOTEBOOK}")


def test_a_download_past_its_size_is_refused_member_by_member(tmp_path):
    answers, left_out = unpack_and_decide(tmp_path, {f"ada_101_201_{NOTEBOOK}": notebook("ada's")}, max_download_mb=0)
    assert answers == {} and "past the 0 MiB" in why(left_out, f"ada_101_201_{NOTEBOOK}")


def test_unpacked_files_are_private(tmp_path):
    unpack_and_decide(tmp_path, {f"ada_101_201_{NOTEBOOK}": notebook("ada's")})
    [unpacked] = (tmp_path / "extracted").rglob("*.ipynb")
    assert stat.S_IMODE(unpacked.stat().st_mode) == 0o600


def test_loose_files_and_folders_in_archive(tmp_path):
    """A notebook put in archive/ is read by its own name; a folder there is refused and named."""
    archive, extracted = tmp_path / "archive", tmp_path / "extracted"
    (archive / "unzipped").mkdir(parents=True)
    extracted.mkdir()
    (archive / f"ada_101_201_{NOTEBOOK}").write_bytes(notebook("ada's"))
    extractor = TopLevelExtractor()
    extractor.extract(str(archive), str(extracted))
    assert os.listdir(extracted) == [f"ada_101_201_{NOTEBOOK}"]
    assert "a folder in archive/" in why(LeftOut.of(extractor).entries, "unzipped")


def test_names_are_shown_escaped_in_the_list(caplog):
    left_out = LeftOut()
    log = logging.getLogger("zip-collect-test")
    left_out.add("ada\x1b[2J\x1b[H_1_2_" + "x" * 300, "a reason", log)
    with caplog.at_level(logging.WARNING, logger="zip-collect-test"):
        left_out.report(log)
    listed = caplog.records[-1].getMessage()
    assert "\x1b" not in listed and "ada\\x1b[2J\\x1b[H_1_2_" in listed and "…" in listed


@pytest.mark.parametrize(
    ("name", "head", "archive"),
    [("a.ipynb", b'{"cells": []}', False), ("a.ipynb", b"PK\x03\x04rest", True), ("A.TGZ", b"", True),
     ("a.bin", b"\x00" * 257 + b"ustar\x00", True), ("notes.txt", b"BZh91AY", True)],
)  # fmt: skip
def test_archives_known_by_name_or_first_bytes(name, head, archive):
    assert is_archive(name, head) is archive
