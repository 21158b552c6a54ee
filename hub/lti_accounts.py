"""System accounts made at a learner's first LMS launch, for the hub's local spawners.

With PAM every user already has an account.  With LTI 1.3 (hub/lti.py) the LMS says who takes part,
and the hub names each user from a claim (``u-7d0b1d5e-…`` from Canvas's ``sub``, ``student3`` from
Moodle's login name); the local spawners (hub/cgroup_spawner.py, JupyterHub's LocalProcessSpawner,
jupyterhub-systemdspawner) start that user's server as the system account of that name, so the
account must exist before the first spawn.  JupyterHub's own ``LocalAuthenticator.create_system_users``
does this for local authenticators only; this module does it for the LTI login, at the login, with:

* ``useradd --create-home --shell /bin/bash --comment <the LMS's name for them>``: the comment is
  what ``getent passwd`` and ``finger`` show, so an admin can tell who ``u-7d0b…`` is (the LMS record,
  autograder/grading/lms_record.py, keeps the full mapping for the grader);
* instructors and TAs are added to the course's instructors' group (hub/install.py's
  ``instructors-<course id>``) when it exists, as install.py adds the roster's staff: they may read the
  course folder from their own accounts.  Nobody is ever removed from it here;
* an account that already exists is used as it is (an account made by hand, or by an earlier launch):
  nothing about it changes but the group above.

The commands run without a shell, with the name already checked against the account-name rule
(hub/lti.py's ``account_name``), and without blocking the hub (asyncio subprocesses).
"""

from __future__ import annotations

import asyncio
import grp
import pwd
import re
import unicodedata

COMMENT_CHARACTERS = 60
USERADD_NAME_IN_USE = 9  # useradd's exit status when another launch made the account first


class AccountError(RuntimeError):
    """The account could not be made; the message says what the system answered."""


def comment(name: str | None, fallback: str) -> str:
    """A passwd comment (GECOS) for the LMS's name: no field or list separators (``:`` ``,`` ``=``),
    no control characters, at most COMMENT_CHARACTERS; ``fallback`` when nothing is left."""
    text = unicodedata.normalize("NFC", name or "")
    text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")
    text = re.sub(r"[:,=\\]+", " ", text)
    text = " ".join(text.split())[:COMMENT_CHARACTERS].strip()
    return text or fallback


def exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def in_group(name: str, group: str) -> bool:
    try:
        entry = grp.getgrnam(group)
        return name in entry.gr_mem or pwd.getpwnam(name).pw_gid == entry.gr_gid
    except KeyError:
        return False


async def _run(*command: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    output, _ = await process.communicate()
    return process.returncode, output.decode(errors="replace").strip()


async def ensure_account(name: str, full_name: str | None, staff_group: str | None = None) -> bool:
    """Make the system account ``name`` if there is none (True if made), and put it in
    ``staff_group`` when that group exists.  AccountError says what went wrong."""
    made = False
    if not exists(name):
        status, said = await _run("useradd", "--create-home", "--shell", "/bin/bash", "--comment",
                                  comment(full_name, f"LMS user {name}"), "--", name)  # fmt: skip
        if status not in (0, USERADD_NAME_IN_USE) or not exists(name):
            raise AccountError(f"useradd {name} failed ({status}): {said}")
        made = status == 0
    if staff_group and group_exists(staff_group) and not in_group(name, staff_group):
        status, said = await _run("gpasswd", "--add", name, staff_group)
        if status != 0:
            raise AccountError(f"gpasswd --add {name} {staff_group} failed ({status}): {said}")
    return made
