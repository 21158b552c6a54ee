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

Every value is an environment variable of the hub, ``AUTOGRADER_<name>``, declared with its default
and help in the course's registry (autograder/settings.py; docs/instructor.md's table is made from it,
``python -m autograder settings`` prints it); the Kubernetes values (hub/k8s/values.yaml) repeat
the limits, and tests/unit/hub/test_capacity.py fails when they drift apart.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping

from autograder.settings import CAPACITY, SETTINGS, size_bytes

#: The settings below, by name: each declared once, with its default, help and bounds, in the
#: course's registry (autograder/settings.py, group "capacity").
NAMES = [setting.name for setting in CAPACITY]


def _default(name: str):
    return dataclasses.field(default_factory=lambda: SETTINGS.default(name))


@dataclasses.dataclass(frozen=True)
class Capacity:
    spawn_limit: int = _default("spawn_limit")
    # Seconds the "class is starting" page waits before it tries again (JupyterHub picks at random in
    # this range, so that a class does not come back all at once).  Not a setting.
    retry_seconds: tuple[int, int] = (2, 6)
    start_timeout: int = _default("start_timeout")
    http_timeout: int = _default("http_timeout")
    spawner: str = _default("spawner")
    mem_limit: str = _default("mem_limit")
    cpu_limit: float = _default("cpu_limit")
    tasks_limit: int = _default("tasks_limit")
    cull_idle: int = _default("cull_idle")
    cull_every: int = _default("cull_every")

    @classmethod
    def from_environment(cls, environment: Mapping[str, str]) -> Capacity:
        """The capacity the hub's environment asks for, every value checked (a wrong one stops the
        hub at start with its name, not a lecture later)."""
        values = SETTINGS.read(environment, only=NAMES)
        capacity = cls(**{name: values[name].value for name in NAMES})
        if capacity.cull_idle and capacity.cull_every > capacity.cull_idle:
            raise ValueError("AUTOGRADER_CULL_EVERY is longer than AUTOGRADER_CULL_IDLE: the culler would come late")
        return capacity

    def mem_limit_bytes(self) -> int:
        return size_bytes(self.mem_limit)


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
