"""Every setting of the course in one table: ``SETTINGS``, each declared once with its default and help.

Who reads what:

* the grader (``python -m autograder``, nbgrader's plug-ins) reads ``SETTINGS`` from its
  environment and from nbgrader's config (``SETTINGS.read(config=...)``): the limits of its jobs
  (``c.SandboxLimits.<name>``), ``--jobs``'s default, the language of its reports, the secret's
  file, the sandbox's scratch folder and binary;
* a sandboxed job reads nothing: the grader hands it what it needs as data (its limits in each
  request), since a job may not trust its environment (bubblewrap clears it anyway), and the
  job-side package may not import this one;
* the hub (``hub/jupyterhub_config.py``, ``capacity.py``, ``lti.py``, ``install.py``, ``prestart.py``
  and ``hub/etc/jupyter/nbgrader_config.py``) reads the groups ``hub``, ``capacity`` and ``lti``: it
  runs in the course's environment, where this package is installed (the course image installs it
  too), and install.py and prestart.py, started by any python3 from the course folder, import it
  from there.

Precedence: nbgrader's config, else the environment, else the default (``gradebox.settings`` says
why); a bad value is an error naming the variable or trait, the value and what is expected.

The limits are declared on the job side (``gradebox.limits.LIMITS``, with the mechanism,
``gradebox.settings``), because ``Limits`` is built from them there; this table re-exports them, so
that the registry is still one table.  ``SandboxLimits`` (nbgrader's ``c.SandboxLimits.<name>``) is
made from it.  ``python -m autograder settings`` prints every setting, its value and where the value
came from; docs/instructor.md's tables are written from it by ``python3 course.py sync``.

This module imports only the standard library and ``gradebox``'s settings and limits (no traitlets,
no torch), so ``course.py`` can import it without the course's environment.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from gradebox.i18n import LANGUAGES
from gradebox.limits import LIMITS
from gradebox.settings import CONFIG, DEFAULT, ENVIRONMENT, OLD_PREFIX, PREFIX, Setting, SettingError, Settings
from gradebox.settings import renamed as renamed

__all__ = ["CONFIG", "DEFAULT", "ENVIRONMENT", "GROUPS", "OLD_PREFIX", "PREFIX", "SETTINGS", "SettingError",
           "described", "described_text", "renamed", "table"]  # fmt: skip

#: The groups, in the order the command and the docs show them.
GROUPS = {
    "limits": "What one sandboxed job may use (nbgrader_config.py: c.SandboxLimits.<name>)",
    "grading": "The grader",
    "hub": "The hub (hub/jupyterhub_config.py and the servers it starts)",
    "capacity": "A class that logs in at once, and what each student's server may use (hub/capacity.py)",
    "lti": "Logins from the LMS, with AUTOGRADER_AUTH=lti13 (hub/lti.py)",
}
PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")  # the password of a URL: user:password@host
QUERY_PASSWORD = re.compile(r"([?&]password=)[^&]*", re.I)  # or in its query: ...?password=...
SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)\s*$", re.IGNORECASE)


def default_jobs() -> int:
    """One more than the CPUs: each submission's thread waits on its kernel's replies and on its score
    job, so with one per CPU part of the CPU stayed idle (benchmarks/grade_throughput.py shows it)."""
    return (os.cpu_count() or 1) + 1


def default_spawn_limit() -> int:
    """Two per core: enough to keep every core busy, few enough that each start stays short."""
    return 2 * (os.cpu_count() or 1)


def size_bytes(text: str) -> int:
    """A size such as ``2G``, ``1536M`` or ``0`` in bytes (powers of 1024); ValueError otherwise."""
    found = SIZE.match(text)
    if not found:
        raise ValueError(f"{text!r} is not a size such as 2G, 1536M or 0")
    number, unit = found.groups()
    return int(float(number) * 1024 ** "_KMGT".index(unit.upper() or "_"))


def size(text: str) -> str:
    """A size as the spawners take it (``2G``), checked."""
    size_bytes(text)
    return text.strip().upper()


def _declared(group: str):
    """How the settings of ``group`` are declared: each read from ``AUTOGRADER_<NAME>``."""

    def setting(name: str, kind: type, default: object, help: str, **more) -> Setting:
        return Setting(name, kind, default, help, group, env=PREFIX + name.upper(), **more)

    return setting


_grading, _hub, _capacity, _lti = (_declared(group) for group in ("grading", "hub", "capacity", "lti"))


GRADING = [
    _grading(
        "jobs",
        int,
        default_jobs,
        "Submissions graded, or files diagnosed, at once (--jobs)",
        low=1,
        default_text="one more than the CPUs",
    ),
    _grading("language", str, "en", "The language of grade's table and the class report (--lang)", choices=LANGUAGES),
    _grading(
        "secret_file",
        str,
        "",
        "The course secret's file; empty: .autograder/course-secret",
        trait="ScoreChecks.secret_file",
    ),
    _grading(
        "lms_record",
        str,
        "",
        "The course's LMS record folder (kept by the hub); empty: none",
        trait="NameUnnamedStudent.lms_record",
    ),
    _grading("scratch", str, "", "Where the sandbox's servers keep their folders; empty: /var/tmp"),
    _grading("bwrap", str, "bwrap", "The bubblewrap binary the sandbox runs"),
]

HUB = [
    _hub("roster", str, "", "The roster; empty: hub/roster.toml beside hub/jupyterhub_config.py"),
    _hub("auth", str, "pam", "Who logs in: pam (the machine's accounts) or lti13 (the LMS)", choices=("pam", "lti13")),
    _hub("course_id", str, "autograd-course", "nbgrader's course id; the hub sets it for every server"),
    _hub("course_root", str, "", "With one course: its folder (default: the roster's)"),
    _hub("grader_user", str, "", "With one course: its grader account (default: the roster's)"),
    _hub("grader_home", str, "", "With one course: the grading server's HOME (default: the account's)"),
    _hub(
        "db_url",
        str,
        "",
        "The gradebook's database URL; {course} is each course's id, - as _; empty: gradebook.db in the course folder",
        secret=True,
    ),
    _hub("hub_state", str, "", "The hub's state folder (database, cookie secret); empty: hub/"),
    _hub("hub_ip", str, "0.0.0.0", "Where the hub listens"),
    _hub("hub_port", int, 8000, "The hub's port", low=1, high=65535),
    _hub("hub_api_port", int, 0, "The hub's own API port on 127.0.0.1; 0: JupyterHub's", low=0, high=65535),
    _hub("proxy_api_port", int, 0, "The proxy's API port on 127.0.0.1; 0: JupyterHub's", low=0, high=65535),
    _hub("proxy", str, "", "The configurable-http-proxy command; empty: found on PATH"),
    _hub("service_port", int, 9999, "The first course's grading server's port on 127.0.0.1", low=1, high=65535),
    _hub(
        "exchange_kind",
        str,
        "file",
        "How assignments travel: file (a shared folder) or ngshare",
        choices=("file", "ngshare"),
    ),
    _hub("exchange", str, "/srv/nbgrader/exchange", "nbgrader's exchange folder, for the file exchange"),
    _hub("ngshare_port", int, 10101, "ngshare's port, for the ngshare exchange", low=1, high=65535),
    _hub("ngshare_db_url", str, "", "ngshare's database; empty: ngshare.sqlite in the hub's state folder", secret=True),
    _hub("ngshare_url", str, "", "ngshare's URL, set by the hub for every server with the ngshare exchange"),
    _hub("frame_ancestors", str, "", "LMS origins that may show the servers in a frame; the hub sets it under LTI"),
]

COUNT, SECONDS = "0 (no limit) or more", "a number of seconds, 0 or more"


CAPACITY = [
    _capacity(
        "spawn_limit",
        int,
        default_spawn_limit,
        "Servers that start at once; the others see 'the class is starting' and get in seconds later",
        low=0,
        expect=COUNT,
        default_text="two per core",
    ),
    _capacity("start_timeout", int, 120, "Seconds one server's start may take", low=0, expect=SECONDS),
    _capacity("http_timeout", int, 120, "Seconds a started server may take to answer", low=0, expect=SECONDS),
    _capacity(
        "spawner",
        str,
        "cgroup",
        "Who holds each student to the limits: cgroup (no systemd needed), systemd, or local (no limits)",
        choices=("cgroup", "systemd", "local"),
    ),
    _capacity(
        "mem_limit",
        str,
        "2G",
        "Memory of a student's server and all it runs; 0: none",
        parse=size,
        expect="a size such as 2G, 1536M or 0 (no limit)",
    ),
    _capacity(
        "cpu_limit",
        float,
        1.0,
        "Cores a student may use together; 0: none",
        low=0,
        expect="a number of cores, e.g. 1 or 0.5 (0: no limit)",
    ),
    _capacity(
        "tasks_limit",
        int,
        1024,
        "Processes and threads of one student's server (stops a fork bomb)",
        low=0,
        expect=COUNT,
    ),
    _capacity(
        "cull_idle",
        int,
        3600,
        "Seconds without activity before the culler stops a server; 0: no culler",
        low=0,
        expect=SECONDS,
    ),
    _capacity("cull_every", int, 300, "Seconds between the culler's looks", low=0, expect=SECONDS),
]


LTI = [
    _lti("lti_issuer", str, "", "The platform's issuer, e.g. https://canvas.instructure.com (required)"),
    _lti("lti_client_id", str, "", "The client id(s) the platform gave the tool, comma-separated (required)"),
    _lti("lti_deployment_id", str, "", "The deployment id(s) of the tool's installs, comma-separated (required)"),
    _lti("lti_authorize_url", str, "", "The platform's OIDC authorization endpoint (required)"),
    _lti("lti_jwks_url", str, "", "The platform's public keys, JWKS (required)"),
    _lti("lti_token_url", str, "", "The platform's OAuth 2 token endpoint (for publish; kept in the record)"),
    _lti("lti_username_claim", str, "sub", "The claim that names the user: sub, email, or claim#key"),
    _lti(
        "lti_uri_scheme",
        str,
        "",
        "https or http for the hub's own URLs; empty: as the request came",
        choices=("", "https", "http"),
    ),
    _lti(
        "lti_create_accounts",
        bool,
        None,
        "1: make each user's system account at their first launch",
        default_text="1 as root with a local spawner, else 0",
    ),
    _lti(
        "lti_in_frame",
        bool,
        None,
        "1: the hub and its servers may be shown inside the LMS's page",
        default_text="1 with AUTOGRADER_LTI_URI_SCHEME=https, else 0",
    ),
    _lti(
        "lti_frame_ancestors",
        str,
        "",
        "The LMS origins that may frame it (Canvas: add your Canvas's own)",
        default_text="the issuer's and the authorization URL's origins",
    ),
    _lti(
        "lms_records",
        str,
        "",
        "The folder of each course's LMS record and tool key",
        default_text="lms/ in the hub's state folder",
    ),
]
#: What AUTOGRADER_AUTH=lti13 cannot start without.
LTI_REQUIRED = ("lti_issuer", "lti_client_id", "lti_deployment_id", "lti_authorize_url", "lti_jwks_url")

#: Every setting of the course: the limits (declared in gradebox.limits), the grader's, the hub's.
SETTINGS = Settings([*LIMITS, *GRADING, *HUB, *CAPACITY, *LTI])


def described(environ: Mapping[str, str] | None = None, config: Mapping | None = None) -> list[dict]:
    """Every setting with its current value and where the value came from, for ``python -m autograder
    settings`` (``--json`` prints this list)."""
    values = SETTINGS.read(environ, config)
    return [
        {"name": s.name, "group": s.group, "value": _shown_value(s, values[s.name].value),
         "source": values[s.name].source, "origin": values[s.name].origin,
         "default": s.default_text or s.default_value(), "env": s.env, "trait": s.trait and f"c.{s.trait}",
         "expected": s.expected(), "help": s.help}
        for s in SETTINGS
    ]  # fmt: skip


def _shown_value(setting: Setting, value: object) -> object:
    """``value``, but for a secret setting's password, which is replaced by ***."""
    if not (setting.secret and isinstance(value, str)):
        return value
    return QUERY_PASSWORD.sub(r"\1***", PASSWORD.sub(r"\1***@", value))


def described_text(rows: list[dict]) -> str:
    """``described``'s rows as text, one block per group: name, value, where from, and the help."""
    lines = []
    for group, title in GROUPS.items():
        lines += ["", f"{title}:"] if lines else [f"{title}:"]
        for row in (r for r in rows if r["group"] == group):
            where = row["source"] + (f" ({row['origin']})" if row["origin"] else "")
            lines.append(f"  {row['name']} = {row['value']!r}  [{where}]")
            names = " or ".join(n for n in (row["env"], row["trait"]) if n)
            lines.append(f"      {row['help']}" + (f"; set by {names}" if names else ""))
    return "\n".join(lines)


def _shown(setting: Setting) -> str:
    """A setting's default as the docs write it."""
    if setting.default_text:
        return setting.default_text
    value = setting.default_value()
    return "empty" if value == "" else f"`{value}`"


def table(groups: list[str]) -> str:
    """The Markdown table of the settings of ``groups``: what docs/instructor.md shows, written there
    by ``python3 course.py sync`` (and checked by tests/unit/course/test_docs.py)."""
    rows = ["| setting | default | what it is |", "| --- | --- | --- |"]
    for setting in (s for group in groups for s in SETTINGS.group(group)):
        names = " or ".join(f"`{name}`" for name in (setting.env, setting.trait and f"c.{setting.trait}") if name)
        rows.append(f"| {names} | {_shown(setting)} | {setting.help} |")
    return "\n".join(rows)
