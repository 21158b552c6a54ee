"""The README is for students and instructors: short, with the quick start CI runs, the blocks
`course.py sync` writes, and every lesson.  The reference material lives in docs/ (tests/unit/course/test_docs.py)."""

import importlib.util
import os

from tests.conftest import ASSIGNMENTS, ROOT

README = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
MAX_LINES = 200


def test_stays_short():
    lines = len(README.splitlines())
    assert lines <= MAX_LINES, f"README.md has {lines} lines (at most {MAX_LINES}): move the detail to docs/"


def test_quick_start_is_what_ci_runs():
    ci = open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8").read()
    assert "\npython3 course.py test\n" in ci
    assert "```bash\npython3 course.py lab\npython3 course.py test\n```" in README


def test_keeps_blocks_sync_writes():
    spec = importlib.util.spec_from_file_location("course_script", os.path.join(ROOT, "course.py"))
    course = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course)
    for start, end in ((course.README_START, course.README_END), (course.LENGTH_START, course.LENGTH_END)):
        assert README.count(start) == 1 and README.count(end) == 1 and README.index(start) < README.index(end)


def test_lists_every_assignment():
    for assignment in ASSIGNMENTS:
        assert f"`{assignment}`" in README


def test_links_every_docs_page():
    for name in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        if name.endswith(".md"):
            assert f"(docs/{name})" in README, f"docs/{name} is not linked from README.md"
