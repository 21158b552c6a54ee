"""The documentation holds together: every relative link of README.md and docs/*.md leads to a file
(and every #anchor to a heading there, as GitHub names it), docs/codes.md documents every exercise,
its code tables are the ones `python3 course.py sync` writes from autograder/codes.py, and
docs/instructor.md's settings tables the ones it writes from autograder/settings.py."""

import glob
import importlib.util
import os
import re
import unicodedata

import pytest

from gradebox.exercises import EXERCISES
from tests.conftest import LESSONS, ROOT

_spec = importlib.util.spec_from_file_location("course_script", os.path.join(ROOT, "course.py"))
course = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(course)

PAGES = [os.path.join(ROOT, "README.md"), *sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))]
CODES_DOC = os.path.join(ROOT, course.CODES_DOC)
FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def prose(text: str) -> str:
    """The page without its code: a link written inside a code span or block is an example, not a link."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text as rendered, lower case, punctuation and symbols
    dropped (letters, digits, `_` and `-` kept), spaces made hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link shows its text
    text = text.replace("`", "").replace("*", "").strip().lower()
    kept = "".join(c for c in text if c.isalnum() or c in " -_" or unicodedata.category(c).startswith("M"))
    return kept.replace(" ", "-")


def anchors(path: str) -> set[str]:
    found, seen = set(), {}
    for line in FENCE.sub("", read(path)).splitlines():
        match = re.match(r"#{1,6}\s+(.+?)\s*#*\s*$", line)
        if match:
            base = slug(match[1])
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def test_slugs_are_githubs():
    assert slug("Lesson 4: torch.no_grad() for inference") == "lesson-4-torchno_grad-for-inference"
    assert slug("What was tested, and what was not") == "what-was-tested-and-what-was-not"
    assert slug("Lesson 1: `lesson1_requires_grad`") == "lesson-1-lesson1_requires_grad"
    assert slug("Student's guide") == "students-guide"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: os.path.relpath(p, ROOT))
def test_links_and_anchors_resolve(page):
    broken = []
    for target in LINK.findall(prose(read(page))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not ours to check
            continue
        path, _, anchor = target.partition("#")
        where = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not where.startswith(ROOT + os.sep) or not os.path.exists(where):
            broken.append(f"{target}: no such file")
        elif anchor and (not where.endswith(".md") or anchor not in anchors(where)):
            broken.append(f"{target}: no heading #{anchor} in {os.path.relpath(where, ROOT)}")
    assert not broken, f"{os.path.relpath(page, ROOT)}: " + "; ".join(broken)


def test_code_tables_from_codes_py():
    text = read(CODES_DOC)
    covered = {name for match in course.CODES.finditer(text) for name in match[2].split()}
    assert covered == set(EXERCISES) | {"shared"}, "docs/codes.md needs a code table for every exercise"
    assert course.codes_blocks(text) == text, "run `python3 course.py sync` to write the code tables of docs/codes.md"


def test_settings_tables_from_settings_py():
    from autograder.settings import GROUPS

    text = read(os.path.join(ROOT, course.SETTINGS_DOC))
    shown = [group for match in course.SETTINGS_TABLES.finditer(text) for group in match[2].split()]
    assert sorted(shown) == sorted(GROUPS), "docs/instructor.md needs one settings table for every group"
    assert course.settings_blocks(text) == text, "run `python3 course.py sync` to write docs/instructor.md's settings"


def test_codes_md_has_every_signature():
    text = read(CODES_DOC)
    for name in EXERCISES:
        assert re.search(rf"`{name}\(", text), f"{name}: signature missing from docs/codes.md"


def test_codes_md_has_every_assignment():
    text = read(CODES_DOC)
    for assignment in LESSONS:  # an edition's exercises and codes are its English lesson's
        assert f"`{assignment}`" in text


def test_code_tables_only_in_codes_md():
    for page in PAGES:
        if page != CODES_DOC:
            where = os.path.relpath(page, ROOT)
            assert not course.CODES.search(read(page)), f"{where}: move its code table to docs/codes.md"


def test_the_code_map_names_every_module():
    """docs/architecture.md's code map names each module of the course's packages (its file name, or
    its name in a folder's line: "recorder (PyTorch hooks)"), so that it cannot drift."""
    text = open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8").read()
    code_map = text.split("## Code map", 1)[1].split("\n## ", 1)[0]
    missing = []
    for package in ("autograder", "gradebox", "gradexercises", "gradlessons"):
        for folder, dirs, files in os.walk(os.path.join(ROOT, package)):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "_locale", "templates")]
            for name in files:
                named = name in code_map or re.search(rf"\b{name[:-3]}\b", code_map)  # "recorder (PyTorch hooks)"
                if name.endswith(".py") and name != "__init__.py" and not named:
                    missing.append(os.path.relpath(os.path.join(folder, name), ROOT))
    assert missing == [], f"docs/architecture.md's code map does not name {missing}"
