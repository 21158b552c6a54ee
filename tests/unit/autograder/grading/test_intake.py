"""What intake refuses is kept beside the submission under a name that always fits
(autograder.grading.intake.refuse_irregular): a submitted name may be the file system's 255 bytes, and
a name refused twice (collected again, graded again) used to grow past it and stop that grading."""

import json
import os

from autograder.grading.intake import refuse_irregular


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
