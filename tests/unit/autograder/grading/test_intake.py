"""What intake refuses is kept beside the submission under a name that always fits
(autograder.grading.intake.refuse_irregular): a submitted name may be the file system's 255 bytes, and
a name refused twice (collected again, graded again) used to grow past it and stop that grading."""

import json
import os

import pytest

from autograder.grading.intake import PLACEHOLDER, refusals, refuse_irregular


def submission_with_link(tmp_path, name: str) -> str:
    folder = tmp_path / "submitted" / "mallory" / "lesson3_zeroing_grad"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lesson3_zeroing_grad.ipynb").write_text("{}")
    (folder / name).symlink_to("/etc/shadow")
    return str(folder / "lesson3_zeroing_grad.ipynb")


def test_a_255_byte_name_refused_twice_keeps_both(tmp_path):
    name = "l" * 255
    kept = tmp_path / "submitted" / "mallory" / ".refused" / "lesson3_zeroing_grad"
    refuse_irregular(notebooks=[submission_with_link(tmp_path, name)])
    refuse_irregular(notebooks=[submission_with_link(tmp_path, name)])  # collected again, graded again
    links = sorted(entry for entry in os.listdir(kept) if entry != "refused.json")
    assert len(links) == 2 and name in links and all((kept / link).is_symlink() for link in links)
    assert max(len(link) for link in links) <= 255
    assert json.loads((kept / "refused.json").read_text()) == [{"path": name, "why": "a link"}]


def test_a_short_name_refused_again_is_numbered(tmp_path):
    kept = tmp_path / "submitted" / "mallory" / ".refused" / "lesson3_zeroing_grad"
    for _ in range(3):
        refuse_irregular(notebooks=[submission_with_link(tmp_path, "data.csv")])
    assert sorted(os.listdir(kept)) == ["data.csv", "data.csv.again-1", "data.csv.again-2", "refused.json"]


# ---- what a submission folder may hold ----------------------------------------------------------


def test_special_files_out_first(tmp_path):
    folder = tmp_path / "submitted" / "mallory" / "lesson3_zeroing_grad"
    folder.mkdir(parents=True)
    notebook = folder / "lesson3_zeroing_grad.ipynb"
    notebook.symlink_to(tmp_path / "someone_elses.ipynb")
    (folder / "data.csv").symlink_to("/etc/shadow")
    os.mkfifo(folder / "pipe")
    with open(folder / "big.bin", "wb") as f:
        f.truncate(100 * 2**20)
    (folder / "notes.txt").write_text("fine")
    (folder / "sub").mkdir()
    (folder / "sub" / "loop").symlink_to(folder)
    found = {entry["path"]: entry["why"] for entry in refusals(str(folder))}
    assert found == {
        "lesson3_zeroing_grad.ipynb": "a link", "data.csv": "a link", "pipe": "a FIFO",
        "big.bin": "larger than 64 MiB", os.path.join("sub", "loop"): "a link",
    }  # fmt: skip
    refuse_irregular(notebooks=[str(notebook)])
    assert notebook.read_text() == PLACEHOLDER and not notebook.is_symlink()
    assert sorted(os.listdir(folder)) == ["lesson3_zeroing_grad.ipynb", "notes.txt", "sub"]
    kept = tmp_path / "submitted" / "mallory" / ".refused" / "lesson3_zeroing_grad"
    assert (kept / "data.csv").is_symlink() and (kept / "big.bin").stat().st_size == 100 * 2**20
    assert refusals(str(folder)) == []


def test_device_refused(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    folder = tmp_path / "a"
    folder.mkdir()
    os.mknod(folder / "zero", 0o600 | 0o020000, os.makedev(1, 5))  # a character device: /dev/zero
    assert refusals(str(folder)) == [{"path": "zero", "why": "a device"}]
