"""Labelled student-style files, shared by the corpus written here (tests/fixtures/corpus/) and the corpus of
real-world code (tests/fixtures/realworld/): reading their headers, judging them (through the real CLI, or
the API it calls), and the real-world README's table, which is made from the headers.

    python -m tests.labelled          rewrite the table in tests/fixtures/realworld/README.md from the headers

Each file starts with ``# expect: passed=<true|false> code=<code>``; real-world files add
``# source:``, ``# adapted:`` and ``# why:`` lines.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(TESTS, "fixtures", "corpus")
REALWORLD = os.path.join(TESTS, "fixtures", "realworld")
LABEL = re.compile(r"^# expect: passed=(true|false) code=(\w+)$")
FIELD = re.compile(r"^# (source|adapted|why): (.*)$")
# Words of the grader's own that a student's message must not show (a tampered verdict names what was
# changed, which may be the grader's own code, so it is exempt).
INTERNALS = re.compile(
    r"\bscenarios?\b|\bobservations?\b|\bhooks?\b|sgd_momentum|two_layer_relu|tanh_mlp|sigmoid_net|cubic_sum|"
    r"sin_coupled|logsumexp(?!\()|\bProbe\b|_lesson|Traceback|autograder[./]|KeyError|\bNoneType\b"
)
TABLE_START, TABLE_END = "<!-- table: made by `python -m tests.labelled` -->", "<!-- /table -->"


def header(path: str) -> dict:
    """The label and the header fields of one file."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    match = LABEL.match(lines[0].strip()) if lines else None
    if not match:
        raise ValueError(f"{path}: the first line must be '# expect: passed=<true|false> code=<code>'")
    fields = {"passed": match.group(1) == "true", "code": match.group(2)}
    for line in lines[1:]:
        found = FIELD.match(line)
        if not found:
            break
        fields[found.group(1)] = found.group(2).strip()
    return fields


def labelled_files(root: str) -> list[tuple[str, str, bool, str]]:
    """(exercise, path, passed, code) for every file under root/<exercise>/."""
    found = []
    for exercise in sorted(os.listdir(root)):
        folder = os.path.join(root, exercise)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                label = header(path)
                found.append((exercise, path, label["passed"], label["code"]))
    return found


def diagnose_here(exercise: str, paths: list[str], timeout: float | None = None, **limits) -> dict[str, dict]:
    """Each file's line as `python -m autograder diagnose` prints it, from the API that command calls
    (``diagnose_files``), in this process: one warm server and one judging pool serve every exercise,
    where each command would start its own.  ``timeout`` is the command's --timeout; ``limits`` are
    other fields of ``Limits`` (``memory_mb``: its --memory-mb)."""
    from dataclasses import replace

    from autograder.diagnose import diagnose_files
    from gradebox.limits import DEFAULTS

    if timeout is not None:
        limits["check_seconds"] = timeout
    limits = replace(DEFAULTS, **limits)
    rows = [json.loads(verdict.to_json(path)) for path, verdict in diagnose_files(exercise, paths, limits=limits)]
    assert [r["file"] for r in rows] == paths, "one verdict per file, in order"
    return {r["file"]: r for r in rows}


def diagnose(exercise: str, paths: list[str], timeout: float, cwd: str) -> dict[str, dict]:
    """Each file's JSON line from `python -m autograder diagnose`, run from ``cwd``."""
    command = [sys.executable, "-m", "autograder", "diagnose", exercise, "--timeout", str(timeout), *paths]
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=1800)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["file"] for r in rows] == paths, "one line per file, in order"
    return {r["file"]: r for r in rows}


def internals(row: dict) -> list[str]:
    """The grader's own words in a verdict's message (none, unless the code tampered)."""
    return [] if row["code"] == "tampered" else INTERNALS.findall(row["message"])


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def realworld_table() -> str:
    """The README's table: every real-world file with its source, what was adapted, and its label,
    which is also the grader's verdict (tests/e2e/test_realworld.py checks that)."""
    rows = [
        "| file | source | adapted | label = verdict |",
        "| --- | --- | --- | --- |",
    ]
    for _, path, _, code in labelled_files(REALWORLD):
        fields = header(path)
        name = os.path.relpath(path, REALWORLD)
        rows.append(
            f"| `{name}` | {_cell(fields.get('source', '?'))} | {_cell(fields.get('adapted', ''))} | `{code}` |"
        )
    return "\n".join([TABLE_START, *rows, TABLE_END])


def write_realworld_readme() -> None:
    path = os.path.join(REALWORLD, "README.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    block = re.compile(re.escape(TABLE_START) + ".*?" + re.escape(TABLE_END), re.S)
    if not block.search(text):
        sys.exit(f"{path} has no table block ({TABLE_START} ... {TABLE_END})")
    with open(path, "w", encoding="utf-8") as f:
        f.write(block.sub(lambda _: realworld_table(), text, count=1))


if __name__ == "__main__":
    write_realworld_readme()
