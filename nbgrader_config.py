"""nbgrader settings: the repository root is the course root.

Run nbgrader commands from this folder, e.g. `nbgrader generate_assignment lesson3_zeroing_grad`.
"""

import os

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

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
# The gradebook, next to this file.
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(c.CourseDirectory.root, "gradebook.db")
# A course id, used by the exchange and the formgrader.
c.CourseDirectory.course_id = "autograd-course"

# What replaces a solution in the student version.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# The checks run each student function in a child process with its own time limit (20 s by
# default), so a cell only hits this limit if the notebook itself hangs outside a check.
c.ExecutePreprocessor.timeout = 60
# Student notebooks in the formgrader and in feedback: show the diagnosis, keep outputs small.
c.ExecutePreprocessor.iopub_timeout = 10
