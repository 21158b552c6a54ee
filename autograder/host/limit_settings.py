"""The limits as the grader's settings: what only the grader reads, over ``gradebox.limits``.

``gradebox.limits.Limits`` is what one job may use, with every default once; a job reads it from its
request.  What a job never needs lives here, in the grader:

* ``SandboxLimits``: the same limits as nbgrader settings, ``c.SandboxLimits.<name>`` in
  nbgrader_config.py (a traitlets class made from the registry, ``autograder/settings.py``: the job
  side does not import traitlets for it);
* ``DEFAULT_JOBS``: how many submissions or files are graded at once unless told (the registry's
  ``jobs`` default);
* ``FIRST_UID``, ``UIDS``: the user ids the grader hands to jobs when it is root.
"""

from __future__ import annotations

from traitlets import Bool, Float, Integer, Unicode
from traitlets.config import Configurable

from gradebox.limits import Limits

from ..settings import SETTINGS, Setting

#: User ids for jobs when the grader is root: one per running job, locked machine-wide.
FIRST_UID, UIDS = 61000, 2000

#: Submissions graded, or files diagnosed, at once unless told (the ``jobs`` setting's default, for
#: ``Grader(jobs=)``, ``diagnose_files(jobs=)`` and the benchmarks; 0 means this default too).
DEFAULT_JOBS = SETTINGS.default("jobs")
#: ``DEFAULT_JOBS`` in words, for the help of every ``--jobs`` option.
DEFAULT_JOBS_RULE = SETTINGS["jobs"].default_text

TRAITS = {int: Integer, float: Float, bool: Bool, str: Unicode}


def trait(setting: Setting):
    """``setting`` as a configurable trait: its default, its help, its bounds (a value out of them is
    refused by traitlets, naming the trait)."""
    bounds = {"min": setting.low, "max": setting.high} if setting.kind in (int, float) else {}
    bounds = {key: value for key, value in bounds.items() if value is not None}
    help = f"{setting.help} (the registry: autograder/settings.py)."
    return TRAITS[setting.kind](setting.default_value(), help=help, **bounds).tag(config=True)


def _limits(self) -> Limits:
    return Limits(**{s.name: getattr(self, s.name) for s in SETTINGS.group("limits")})


#: The limits as nbgrader settings, ``c.SandboxLimits.<name>`` in nbgrader_config.py: a traitlets
#: class made from the registry's ``limits`` group, so that no default or help is written twice.
SandboxLimits = type(
    "SandboxLimits",
    (Configurable,),
    {
        "__doc__": "The limits as nbgrader settings: ``c.SandboxLimits.<name>`` in nbgrader_config.py.",
        "__module__": __name__,
        **{s.name: trait(s) for s in SETTINGS.group("limits")},
        "limits": _limits,
    },
)
