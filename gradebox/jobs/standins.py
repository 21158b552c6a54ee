"""What a grading kernel finds when a notebook says ``import autograder...``: the job side's stand-ins.

The released notebooks import ``autograder.checks`` (their test cells) and ``autograder.i18n`` (a
Portuguese lesson's ``install`` cell), and so does a file copied out of one for ``diagnose``.  The
grader's package is not on a job's file system, and must not be: it holds the judge.  So before the
lesson's shared cells or any notebook cell runs, the kernel job (``kernel_job.preload``, in the warm
server, before the tamper watch is sealed), and likewise the exercise job (``exercise_job.preload``),
put into ``sys.modules``:

* ``autograder``: an empty package with no folder (``__path__ = []``), so that any other
  ``autograder.<name>`` (the judge, grading) is not found, never half-found;
* ``autograder.checks``: ``gradebox.outside_checks`` (checks that say they are scored outside; the
  quick checks as everywhere);
* ``autograder.i18n``: ``gradebox.i18n`` (``use_language`` sets the one language setting).

The tamper watch counts these names among the grader's modules (``tamper.surfaces.GRADER_PACKAGES``):
one replaced by student code is a change it reports.
"""

from __future__ import annotations

import importlib.machinery
import sys
import types

from .. import i18n, outside_checks

#: ``autograder``'s submodules a notebook imports, and what each is in a grading kernel.
STANDINS = {"checks": outside_checks, "i18n": i18n}


def install() -> None:
    """Make ``import autograder.checks`` and ``import autograder.i18n`` find the stand-ins here."""
    package = types.ModuleType("autograder", "The grader, as a grading kernel sees it: only what notebooks import.")
    # A package with no folder: nothing else can be imported from it.  Its spec says so too, and is
    # there at all because a lesson's install cell asks importlib.util.find_spec("autograder"),
    # which refuses a module without one.
    package.__spec__ = importlib.machinery.ModuleSpec("autograder", None, is_package=True)
    package.__spec__.submodule_search_locations = package.__path__ = []
    sys.modules["autograder"] = package
    for name, module in STANDINS.items():
        sys.modules[f"autograder.{name}"] = module
        setattr(package, name, module)
