"""What the grader prints on an instructor's terminal: a student's control characters shown, not obeyed.

Beside autograder/grading/terminal.py; also tries grade.py's progress and summary and report.py's
class table, which print through it."""

import io
import logging
import os
import subprocess
import sys

from autograder.grading.grade import SubmissionResult, Summary, _Progress
from autograder.grading.report import ClassReport, StudentRow, class_table
from autograder.grading.terminal import TerminalSafeLogFormatter, terminal_safe
from tests.course_copy import ROOT

CLEAR = "\x1b[2J\x1b[H"  # clear the screen, cursor home


def _raw_controls(text: str) -> list[str]:
    """Every control character or bidi mark left in ``text``, newlines apart."""
    return [ch for ch in text if ch != "\n" and terminal_safe(ch) != ch]


def test_an_escape_sequence_is_shown_as_text():
    assert terminal_safe(f"mallory{CLEAR}ok") == "mallory\\x1b[2J\\x1b[Hok"


def test_c0_c1_del_and_bidi_marks_are_all_shown_as_escapes():
    text = "a\x00\x07\x08\r\t\x7f\x85\x9b\u202e\u2066\u200f\u2028z"
    assert terminal_safe(text) == "a\\x00\\x07\\x08\\x0d\\x09\\x7f\\x85\\x9b\\u202e\\u2066\\u200f\\u2028z"


def test_a_newline_is_escaped_in_a_field_and_kept_in_a_message():
    assert terminal_safe("bob\n  failed: alice") == "bob\\x0a  failed: alice"
    assert terminal_safe("line one\nline\x1b two", keep_newlines=True) == "line one\nline\\x1b two"


def test_accents_cjk_and_emoji_are_left_as_they_are():
    assert terminal_safe("José 李 ✅ ❌ …") == "José 李 ✅ ❌ …"


def test_grades_summary_shows_a_students_escapes_and_nothing_obeys_them():
    summary = Summary("lesson3_zeroing_grad", [
        SubmissionResult(f"ev{CLEAR}il", "failed", reason=f"Notebook {CLEAR}x.ipynb is not JSON"),
        SubmissionResult("alice", "graded", review=[f"train_step{CLEAR}\u202e: stopped"]),
    ], 2.0)  # fmt: skip
    text = "\n".join(summary.lines())
    assert not _raw_controls(text)
    assert "failed: ev\\x1b[2J\\x1b[Hil: Notebook \\x1b[2J\\x1b[Hx.ipynb is not JSON" in text
    assert "needs review: alice: train_step\\x1b[2J\\x1b[H\\u202e: stopped" in text


def test_a_students_name_with_a_newline_cannot_print_a_summary_line_of_its_own():
    summary = Summary("a", [SubmissionResult("bob\n  needs review: alice: forged", "failed", reason="r")], 1.0)
    assert [line for line in summary.lines() if "needs review" in line] == [
        "  failed: bob\\x0a  needs review: alice: forged: r"
    ]


def test_the_progress_line_escapes_the_student():
    stream = io.StringIO()
    progress = _Progress(1, stream)
    progress.update(SubmissionResult(f"ev{CLEAR}il", "graded"))
    progress.finish()
    assert "(ev\\x1b[2J\\x1b[Hil: graded)" in stream.getvalue() and not _raw_controls(stream.getvalue())


def test_the_class_table_escapes_ids_codes_and_notes():
    row = StudentRow(f"ev{CLEAR}il", "graded", 6.0, 6.0, codes={"train_step": f"ok{CLEAR}"},
                     notes=[f"'{CLEAR}.txt' was not graded: it was a link"], review=["\u202efoo"])  # fmt: skip
    lines = class_table(ClassReport("lesson3_zeroing_grad", ["train_step"], [row]))
    text = "\n".join(lines)
    assert len(lines) == 2 and not _raw_controls(text)
    assert "ev\\x1b[2J\\x1b[Hil" in text and "'\\x1b[2J\\x1b[H.txt' was not graded" in text and "\\u202efoo" in text


def _record(message: str, *args, exc_info=None) -> logging.LogRecord:
    return logging.LogRecord("AutogradeApp", logging.ERROR, __file__, 1, message, args, exc_info)


def test_nbgraders_console_log_escapes_a_message_and_keeps_its_colours():
    formatter = TerminalSafeLogFormatter(fmt="%(color)s[%(name)s | %(levelname)s]%(end_color)s %(message)s")
    formatter._colors, formatter._normal = {logging.ERROR: "\x1b[31m"}, "\x1b[0m"  # as on a colour terminal
    line = formatter.format(_record("Skipping %s", f"submitted/ev{CLEAR}il/a1\nnext line"))
    assert line == "\x1b[31m[AutogradeApp | ERROR]\x1b[0m Skipping submitted/ev\\x1b[2J\\x1b[Hil/a1\n    next line"


def test_a_logged_traceback_is_escaped_too():
    try:
        raise ValueError(f"bad {CLEAR} file")
    except ValueError:
        record = _record("failed", exc_info=sys.exc_info())
    line = TerminalSafeLogFormatter(fmt="%(message)s", color=False).format(record)
    assert "ValueError: bad \\x1b[2J\\x1b[H file" in line and not _raw_controls(line)


def test_nbgrader_commands_run_with_the_course_config_print_a_students_folder_escaped(tmp_path):
    """nbgrader's own command, with the course's nbgrader_config.py: its log names a student's folder."""
    course = tmp_path / "course"
    os.makedirs(course / "submitted" / f"ev{CLEAR}il" / "a1")
    (course / "nbgrader_config.py").write_text(open(os.path.join(ROOT, "nbgrader_config.py")).read())
    done = subprocess.run(["nbgrader", "autograde", "a1"], cwd=course, capture_output=True, text=True, timeout=120)
    assert "ev\\x1b[2J\\x1b[Hil" in done.stderr and not _raw_controls(done.stderr), done.stderr[-2000:]
