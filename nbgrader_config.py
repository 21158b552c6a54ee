"""nbgrader settings: the repository root is the course root.

Run nbgrader commands from this folder, e.g. `nbgrader generate_assignment lesson3_zeroing_grad`.
"""

import functools
import os

from autograder.grading.course_folder import keep_closed
from autograder.quiet import encrypt_kernels, server_debugging
from autograder.settings import SETTINGS, SettingError

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file
# The course's settings from the environment (`python -m autograder settings` lists them): read once,
# every value checked.  A bad one stops the command (SystemExit): traitlets logs any other exception
# and goes on without this file, which would grade with stock nbgrader, outside the sandbox.
try:
    settings = SETTINGS.read(only=["db_url", "course_id", "exchange", "exchange_kind"])
except SettingError as error:
    raise SystemExit(f"nbgrader_config.py: {error}") from None

# The course root is this folder, wherever nbgrader is started from below it.
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
# Instructor versions (solutions, hidden tests) live in notebooks/<assignment>/<assignment>.ipynb.
c.CourseDirectory.source_directory = "notebooks"
# Student versions are written to release/<assignment>/ (committed, so Binder and Colab see them).
c.CourseDirectory.release_directory = "release"
# Students' work, autograded copies and feedback: nbgrader's defaults, all kept out of git.
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
# The gradebook: a SQLite file next to this file, or a database server named by AUTOGRADER_DB_URL
# (a hub sets it to PostgreSQL, which several graders may write at once; see hub/).
c.CourseDirectory.db_url = settings.db_url or "sqlite:///" + os.path.join(c.CourseDirectory.root, "gradebook.db")
# A course id, used by the exchange and the formgrader (a hub serving several courses from clones of
# this folder gives each grading server its own).
c.CourseDirectory.course_id = settings.course_id or SETTINGS.default("course_id")
# The exchange folder assignments, submissions and feedback travel through: the one docs/instructor.md
# makes (`install -d -m 1777 /srv/nbgrader/exchange`) and the hub's servers use
# (hub/etc/jupyter/nbgrader_config.py), not nbgrader's /usr/local/share/nbgrader/exchange, which a
# release would make under a loose mode and the formgrader, reading this file, would not find.
# AUTOGRADER_EXCHANGE names another.
c.Exchange.root = settings.exchange
# The instructor's language: the class report and `grade`'s class table (not the students'
# feedback, which follows their edition): AUTOGRADER_LANGUAGE=en (the default) or pt_BR, read by
# autograder.grading.language.instructor_language; `--lang` overrides it.

# What replaces a solution in the student version.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Kernels nbgrader starts (`nbgrader validate`, the Validate button) talk over encrypted sockets, so
# ipykernel does not warn "running over TCP without encryption" at each (autograder/quiet.py).
encrypt_kernels(c)
# The formgrader's debug panel prints this configuration as JSON, which the post-convert hook below
# (a function bound to the course root) is not, so each visit of Manage Assignments warned "Formgrader
# config is not serializable".  The panel (and that warning) shows when the server runs with --debug.
c.FormgradeExtension.debug = server_debugging()

# Student notebooks in the formgrader and in feedback: show the diagnosis, keep outputs small.
c.ExecutePreprocessor.iopub_timeout = 10

# --- Autograding: sandboxed, limited, and never stopped by one submission ---------------------
# Every notebook runs in a kernel forked from a warm server inside bubblewrap (see
# autograder/host/; the nbgrader plug-ins are in autograder/grading/): no network, only its
# own copy of the submission and the Python environment visible, its own user id, processes,
# /tmp and limits.  Each limit stops that notebook only; its cells get a clear error and grading
# goes on.  Without bubblewrap, grading refuses to start.
c.Autograde.exporter_class = "autograder.grading.structure.SubmissionExporter"  # unreadable file: graded, noted
# Before nbgrader copies a submission (following links, as the instructor): links, devices, FIFOs
# and oversized files are moved out of it, into submitted/<student>/.refused/<assignment>/.
c.Autograde.pre_convert_hook = "autograder.grading.intake.refuse_irregular"
# Graded copies are readable by the instructor (and a shared group), not by every user.
c.Autograde.permissions = 440
# After each graded submission, the top of the course folder is closed again to other accounts (a
# gradebook.db made under a loose umask, by a root shell or a cron job, is closed and said):
# autograder/grading/course_folder.py.  `python -m autograder grade` also checks before it starts.
c.Autograde.post_convert_hook = functools.partial(keep_closed, c.CourseDirectory.root)
c.Autograde.sanitize_preprocessors = [
    "autograder.grading.grader_owned.DropGraderMetadata",  # the grader's notes and verdicts are this run's
    "autograder.grading.intake.RecordRefusals",  # notes on what the hook above refused
    "autograder.grading.student_names.NameUnnamedStudent",  # "—", not "None, None", in the formgrader
    "autograder.grading.structure.RestoreStructure",  # rebuild on the released notebook
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "autograder.grading.structure.OverwriteCells",  # nbgrader's; no checksum warning for hidden tests
    "autograder.grading.metadata.CheckCellMetadata",  # nbgrader's, its schema checked once
    "autograder.grading.notes.RecordNotes",
]
c.Autograde.autograde_preprocessors = [
    "autograder.grading.execute.SandboxedExecute",  # nbgrader's Execute, in the sandbox
    "autograder.grading.score.ScoreChecks",  # the test cells' checks, scored outside the kernel
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "autograder.grading.metadata.CheckCellMetadata",  # nbgrader's, its schema checked once
    "autograder.grading.sanitize.SanitizeStudentHTML",  # no script from a student in the formgrader
    "autograder.grading.notes.RecordGradingNotes",  # notes on top; marks the notebook graded
]
# The hidden checks' seeds come from the course secret (autograder/grading/secret.py), not from the
# seeds written in the hidden tests, which the public sources show: by default the file
# .autograder/course-secret, made 0600 by the first grading; on graders that do not share the course
# folder, name a copy of it here or in AUTOGRADER_SECRET_FILE (docs/instructor.md), e.g.
#   c.ScoreChecks.secret_file = "/etc/autograd-course/course-secret"
# nbconvert checks the notebook against the format's schema after every preprocessor; once, after
# the last one, finds the same errors for the cost of one check instead of one per preprocessor.
c.Exporter.optimistic_validation = True
# Limits (memory, processes, file size, output, time per check, per cell and per notebook): each is
# declared once, with its default and help, in gradebox/limits.py; override them here, e.g.
#   c.SandboxLimits.memory_mb = 4096
#   c.SandboxLimits.cell_seconds = 120      (or nbgrader's own c.ExecutePreprocessor.timeout)
# `python -m autograder settings` prints every setting, its value here and where it came from.

# Student outputs and Markdown are sanitized wherever they are shown as HTML: the formgrader's view
# of a submission and the feedback (autograder/grading/sanitize.py, on bleach): no script, no on*
# handler, no link that runs code.  These HTMLExporter settings reach both: nbgrader's formgrader
# builds its exporter from this file, and the feedback exporter below is an HTMLExporter too.
# sanitize_html: HTML outputs, Markdown outputs and raw cells go through the clean_html filter, and
# outputs that carry script (JavaScript, widget views) are left out.
c.HTMLExporter.sanitize_html = True
# Markdown is cleaned after it is rendered (as HTML it can be judged; as Markdown, [x](javascript:..)
# is only text), every Markdown cell, since the grader's own notes quote student file names; and
# clean_html keeps links only to http(s):, mailto: and #..., images only as embedded data.
c.HTMLExporter.filters = {
    "markdown2html": "autograder.grading.sanitize.SafeMarkdown",
    "clean_html": "autograder.grading.sanitize.CleanHTML",
}
# nbgrader's commands (collect, autograde, export, ...) log student ids and file names: their console
# shows every control character in a message as a visible escape (\x1b), never obeys it.
c.Application.logging_config = {
    "formatters": {"console": {"class": "autograder.grading.terminal.TerminalSafeLogFormatter"}}
}
# Grades as CSV that a spreadsheet cannot read as formulas (nbgrader export --to grades.csv).
c.ExportApp.plugin_class = "autograder.grading.csv_export.SafeCsvExport"

# The feedback and the formgrader's view of a submission open with a summary (each exercise, ✅ or ❌,
# its code, the one-line fix) and show each test cell's distinct verdicts once, fix first: both are
# HTMLExporters built from this file, so the preprocessor listed here runs in both.
c.HTMLExporter.preprocessors = ["autograder.grading.feedback.CheckSummary"]

# Feedback shows the diagnosis of each check, never the code of hidden tests, and every traceback
# cut to its last line.
c.GenerateFeedback.preprocessors = [
    "autograder.grading.feedback.HideHiddenTests",
    "autograder.grading.sanitize.SanitizeStudentHTML",  # again: a graded copy may predate the guard
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
# The feedback page carries its own Content-Security-Policy (nothing runs, nothing loads from
# elsewhere), wherever it is opened: nbgrader's HTML feedback, with a <meta> policy in its head.
c.GenerateFeedback.exporter_class = "autograder.grading.feedback.FeedbackPage"

# `nbgrader zip_collect ASSIGNMENT`: submissions downloaded from a learning-management system, put
# (the download's zip, or its files) in downloaded/<assignment>/archive/, go to
# submitted/<student>/<assignment>/.  Whose a file is comes from the name the LMS wrote at the
# download's top level only; an archive inside the download is refused unread, and every file left
# out is listed at the end (autograder/grading/lms_download.py).
c.ZipCollectApp.extractor_plugin = "autograder.grading.lms_download.TopLevelExtractor"
c.ZipCollectApp.collector_plugin = "autograder.grading.lms_download.TopLevelCollector"
# Matched against a file's path inside the download: Canvas's <name>_[LATE_]<user id>_<submission
# id>_<file>, e.g. ada_12345_67890_lesson3_zeroing_grad.ipynb -> student "ada", and a re-upload of
# the same file name, ..._lesson3_zeroing_grad-2.ipynb, is its version 2 (the highest is collected).
c.FileNameCollectorPlugin.named_regexp = (
    r"^(?P<student_id>[^/_]+)_(?:LATE_)?\d+_(?:\d+_)?(?P<file_id>lesson\d_[a-z_]*[a-z])(?:-(?P<version>\d+))?\.ipynb$"
)

# --- Collecting from an exchange shared by many accounts --------------------------------------
# nbgrader's collect believes the student id and the time a submitter writes.  The course's collect
# (autograder/grading/exchange.py) takes a submission only if the account it names owns all of it
# (a refusal is logged and kept in .autograder/refused-submissions/), times it by the server
# (the latest ctime of its files, written as timestamp.txt), never follows a link in it, and gives
# what it copies private modes (OwnerCheckedCollect.folder_mode, .file_mode) under umask 077.
# On a hub with AUTOGRADER_EXCHANGE_KIND=ngshare, hub/etc/jupyter/nbgrader_config.py selects ngshare's
# collect instead (ngshare files each submission under the hub login that sent it).
if settings.exchange_kind == "file":
    c.ExchangeFactory.collect = "autograder.grading.exchange.OwnerCheckedCollect"
