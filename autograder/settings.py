"""The course's settings from the environment, under one prefix: ``AUTOGRADER_``.

The hub's settings were named ``AUTOGRAD_...`` until now.  Those names still work where the new one
is unset, and each use warns once (a ``FutureWarning``, which Python shows by default: it lands in
the hub's log), so a running deployment keeps working while its operator renames them.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping

PREFIX = "AUTOGRADER_"
OLD_PREFIX = "AUTOGRAD_"


def setting(name: str, default: str | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """``AUTOGRADER_<name>``, else the deprecated ``AUTOGRAD_<name>`` (with a warning), else ``default``."""
    environ = os.environ if environ is None else environ
    if PREFIX + name in environ:
        return environ[PREFIX + name]
    if OLD_PREFIX + name in environ:
        warnings.warn(f"{OLD_PREFIX}{name} is deprecated: set {PREFIX}{name} instead (the old name will stop working)",
                      FutureWarning, stacklevel=2)  # fmt: skip
        return environ[OLD_PREFIX + name]
    return default


def renamed(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` with every deprecated ``AUTOGRAD_<name>`` also under ``AUTOGRADER_<name>`` (unless
    that is set): what a program that passes its settings on gives its children."""
    found = dict(environ)
    for old in [key for key in environ if key.startswith(OLD_PREFIX)]:
        found.setdefault(PREFIX + old[len(OLD_PREFIX) :], setting(old[len(OLD_PREFIX) :], environ=environ))
    return found
