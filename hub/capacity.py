"""How a class that arrives at once gets in, and what each student's server may use: the hub's
capacity settings, their defaults defined once here.

A single-user server costs one to three CPU-seconds to start, most of it importing Python.  Thirty
students who log in together on a small machine therefore make thirty servers that each take far
longer than JupyterHub's default 30 s ``http_timeout``, and all of them fail together.  The levers are
JupyterHub's own:

* ``concurrent_spawn_limit``: only so many servers start at once (by default two per core: enough
  to keep every core busy, few enough that each start stays short).  A student beyond it gets a 429
  that hub/templates/429.html turns into a "the class is starting" page which tries again by
  itself after ``spawn_throttle_retry_range`` seconds (short here: a start takes seconds, not the
  minute JupyterHub's default assumes);
* ``start_timeout`` / ``http_timeout``: how long a start may take before JupyterHub gives up, sized
  with room for a machine that is also grading;
* a spawner that enforces ``Spawner.mem_limit`` and ``Spawner.cpu_limit`` (JupyterHub's standard
  settings, which the local spawner ignores): hub/cgroup_spawner.py's cgroups for local accounts, or
  jupyterhub-systemdspawner where systemd runs the machine (as The Littlest JupyterHub does);
* jupyterhub-idle-culler, a hub service that stops servers nobody used for a while, so that memory
  goes back to the class in session;
* a role per course that lets its instructors and TAs start their students' servers before the
  lecture (hub/prestart.py), and nothing else of theirs.

Every value is an environment variable of the hub, ``AUTOGRADER_<name>`` (docs/instructor.md); the
Kubernetes values (hub/k8s/values.yaml) repeat the limits, and tests/unit/hub/test_capacity.py fails
when they drift apart.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Mapping

SPAWNERS = ("cgroup", "systemd", "local")
BYTES = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)\s*$", re.IGNORECASE)


def default_spawn_limit() -> int:
    return 2 * (os.cpu_count() or 1)


@dataclasses.dataclass(frozen=True)
class Capacity:
    spawn_limit: int = dataclasses.field(default_factory=default_spawn_limit)
    # Seconds the "class is starting" page waits before it tries again (JupyterHub picks at random in
    # this range, so that a class does not come back all at once).
    retry_seconds: tuple[int, int] = (2, 6)
    start_timeout: int = 120
    http_timeout: int = 120
    spawner: str = "cgroup"
    mem_limit: str = "2G"
    cpu_limit: float = 1.0
    # Processes and threads of one student's server together: stops a fork bomb; a torch kernel uses
    # a few dozen.
    tasks_limit: int = 1024
    cull_idle: int = 3600  # seconds without activity before the culler stops a server; 0: no culler
    cull_every: int = 300

    @classmethod
    def from_environment(cls, environment: Mapping[str, str]) -> Capacity:
        """The capacity the hub's environment asks for, every value checked (a wrong one stops the
        hub at start with its name, not a lecture later)."""
        values = {}
        for field, parse in (("spawn_limit", _count), ("start_timeout", _seconds), ("http_timeout", _seconds),
                             ("cpu_limit", _cores), ("tasks_limit", _count), ("cull_idle", _seconds),
                             ("cull_every", _seconds), ("mem_limit", _bytes), ("spawner", _spawner)):  # fmt: skip
            name = f"AUTOGRADER_{field.upper()}"
            if environment.get(name, "").strip():
                try:
                    values[field] = parse(environment[name].strip())
                except ValueError as error:
                    raise ValueError(f"{name}={environment[name]!r}: {error}") from None
        capacity = cls(**values)
        if capacity.cull_idle and capacity.cull_every > capacity.cull_idle:
            raise ValueError("AUTOGRADER_CULL_EVERY is longer than AUTOGRADER_CULL_IDLE: the culler would come late")
        return capacity

    def mem_limit_bytes(self) -> int:
        return _bytes_value(self.mem_limit)


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError("must be 0 (no limit) or more")
    return value


def _seconds(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError("must be a number of seconds, 0 or more")
    return value


def _cores(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise ValueError("must be a number of cores, e.g. 1 or 0.5 (0: no limit)")
    return value


def _bytes(text: str) -> str:
    _bytes_value(text)
    return text.upper()


def _bytes_value(text: str) -> int:
    found = BYTES.match(text)
    if not found:
        raise ValueError("must be a size such as 2G, 1536M or 0 (no limit)")
    number, unit = found.groups()
    return int(float(number) * 1024 ** "_KMGT".index(unit.upper() or "_"))


def _spawner(text: str) -> str:
    if text not in SPAWNERS:
        raise ValueError(f"must be one of {', '.join(SPAWNERS)}")
    return text


def configure(c, capacity: Capacity, courses, hub_folder: str) -> None:
    """Apply ``capacity`` to the hub's configuration ``c`` for the roster's ``courses``."""
    c.JupyterHub.concurrent_spawn_limit = capacity.spawn_limit
    # Not a setting of JupyterHub 6 (no config tag), but read from the web application's settings,
    # which tornado_settings extends: its default, 30 to 60 s, is longer than a start takes here.
    c.JupyterHub.tornado_settings.update({"spawn_throttle_retry_range": capacity.retry_seconds})
    c.JupyterHub.template_paths = [os.path.join(hub_folder, "templates")]
    c.Spawner.start_timeout = capacity.start_timeout
    c.Spawner.http_timeout = capacity.http_timeout
    if capacity.spawner == "cgroup":
        c.JupyterHub.spawner_class = "cgroup_spawner.CgroupSpawner"  # hub/cgroup_spawner.py, beside this file
        c.CgroupSpawner.tasks_limit = capacity.tasks_limit
    elif capacity.spawner == "systemd":
        c.JupyterHub.spawner_class = "systemdspawner.SystemdSpawner"
        # Local accounts (PAM), as the local spawner runs them; systemd adds the limits.
        c.SystemdSpawner.dynamic_users = False
        c.SystemdSpawner.unit_extra_properties = {"TasksMax": str(capacity.tasks_limit)}
    else:
        c.JupyterHub.spawner_class = "localprocess"
    if capacity.spawner != "local":
        c.Spawner.mem_limit = capacity.mem_limit_bytes() or None
        c.Spawner.cpu_limit = capacity.cpu_limit or None
    c.JupyterHub.load_roles = list(c.JupyterHub.load_roles) + prestart_roles(courses)
    if capacity.cull_idle:
        c.JupyterHub.services = list(c.JupyterHub.services) + [idle_culler(capacity)]
        c.JupyterHub.load_roles = list(c.JupyterHub.load_roles) + [
            # What jupyterhub-idle-culler's documentation gives it, and no more.
            {"name": "idle-culler", "services": ["idle-culler"],
             "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]},
        ]  # fmt: skip


def idle_culler(capacity: Capacity) -> dict:
    return {
        "name": "idle-culler",
        # The hub starts it with its own token; named servers are off, so the defaults on them do.
        "command": [
            sys.executable,
            "-m",
            "jupyterhub_idle_culler",
            f"--timeout={capacity.cull_idle}",
            f"--cull-every={capacity.cull_every}",
        ],  # fmt: skip
    }


def prestart_roles(courses) -> list[dict]:
    """A course's instructors and TAs (its group formgrade-<course>) and its grading server may start
    and stop the servers of its students (nbgrader-<course>) and read who they are: hub/prestart.py,
    with a token of theirs or in the grading server's terminal.  Not open those servers: that is
    ``access:servers``, which nobody of a course gets."""
    return [
        {
            "name": f"prestart-{course.id}",
            "groups": [f"formgrade-{course.id}"],
            "services": [course.service],
            "scopes": [
                f"servers!group=nbgrader-{course.id}",
                f"read:users!group=nbgrader-{course.id}",
                f"read:groups!group=nbgrader-{course.id}",
            ],  # fmt: skip
        }
        for course in courses
    ]
