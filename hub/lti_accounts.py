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
* a group of its own (``--user-group``: nobody else's files open to it by a shared group), and the
  system group ``lti-users`` (``LMS_GROUP``), which says the account was made for an LMS user: an
  existing account outside it is refused at launch (hub/lti.py), so a claim naming ``student1`` of
  the machine's own accounts does not log in as them; an admin who means it adds it to the group;
* instructors and TAs are in the course's instructors' group (hub/install.py's
  ``instructors-<course id>``) when it exists, as install.py adds the roster's staff: they may read the
  course folder from their own accounts too; a launch as a learner takes them out of it again (a
  server started for a learner must not read the solutions);
* an account that already exists is used as it is (made by an earlier launch, or by an admin):
  nothing about it changes but the groups above.

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
LMS_GROUP = "lti-users"
LOGIN_DEFS = "/etc/login.defs"


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


def uid_min(path: str = LOGIN_DEFS) -> int:
    """The first uid of a person's account here (login.defs' UID_MIN; 1000 if it says none)."""
    try:
        with open(path) as f:
            for line in f:
                words = line.split()
                if len(words) >= 2 and words[0] == "UID_MIN" and words[1].isdigit():
                    return int(words[1])
    except OSError:
        pass
    return 1000


def make_lms_group() -> None:
    """The system group that marks accounts made for LMS users (made once, when the hub starts)."""
    if not group_exists(LMS_GROUP):
        import subprocess

        done = subprocess.run(["groupadd", "--system", LMS_GROUP], capture_output=True, text=True)
        if done.returncode not in (0, 9) or not group_exists(LMS_GROUP):  # 9: made meanwhile
            raise AccountError(f"groupadd {LMS_GROUP} failed ({done.returncode}): {done.stdout}{done.stderr}")


async def ensure_account(name: str, full_name: str | None) -> bool:
    """Make the system account ``name`` if there is none (True if made), in a group of its own and
    in LMS_GROUP.  AccountError says what went wrong."""
    if exists(name):
        return False
    status, said = await _run("useradd", "--create-home", "--shell", "/bin/bash", "--user-group", "--groups",
                              LMS_GROUP, "--comment", comment(full_name, f"LMS user {name}"), "--", name)  # fmt: skip
    if status not in (0, USERADD_NAME_IN_USE) or not exists(name):
        raise AccountError(f"useradd {name} failed ({status}): {said}")
    return status == 0


async def set_group(name: str, group: str, member: bool) -> None:
    """Put ``name`` in ``group`` or take it out, when the group exists and that changes something."""
    if not group_exists(group) or in_group(name, group) == member:
        return
    command = ("gpasswd", "--add" if member else "--delete", name, group)
    status, said = await _run(*command)
    if status != 0:
        raise AccountError(f"{' '.join(command)} failed ({status}): {said}")
