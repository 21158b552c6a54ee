"""Each student's server in a control group of its own, so that JupyterHub's ``Spawner.mem_limit``
and ``Spawner.cpu_limit`` hold for local accounts too.

JupyterHub's local spawner starts a server as the student's account and leaves everything else to
the machine: one student's kernel that fills memory or spins in a loop takes it from the whole class.
Linux control groups (cgroups) are the kernel's own answer, and what systemd (The Littlest
JupyterHub's jupyterhub-systemdspawner) and Kubernetes use underneath.  Where systemd runs the machine,
AUTOGRADER_SPAWNER=systemd uses that spawner instead; this one needs no systemd, so it also works in a
container or on a machine whose init is something else.

How: the hub makes ``jupyterhub-students/<user>`` below its own cgroup, writes the limits there, and
the server's process joins it between fork and exec, before it becomes the student (so nothing the
student runs can start outside it).  Every kernel and child process the server starts is in it too:
the limit is the student's, whatever they start.  The kernel's out-of-memory killer then ends the
biggest process of that student only (in practice, the kernel that allocated: JupyterLab says the
kernel died and restarts it), and the CPU quota slows that student only.  When the server stops,
whatever is still in the group is killed and the group removed: a stopped or culled server leaves
nothing running.

Both cgroup layouts are handled: version 1 (a hierarchy per controller: memory, cpu, pids) and the
unified version 2.  Under version 2 a group with processes cannot hand controllers to its children,
so the hub first moves its own processes into a leaf ``hub`` below its group (what systemd expects of
a service with ``Delegate=yes``, which docs/instructor.md asks for).
"""

from __future__ import annotations

import os
import re
import signal
import time

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Integer, Unicode

from autograder.settings import SETTINGS

CONTROLLERS = ("memory", "cpu", "pids")
CPU_PERIOD_US = 100_000
SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")


class CgroupError(RuntimeError):
    """The hub cannot make or fill a student's cgroup: the message says what to change."""


class Cgroups:
    """The machine's cgroup layout as the hub sees it: where each controller's hierarchy is mounted
    and the hub's own group in it.  ``mounts`` and ``own`` (the texts of /proc/self/mounts and
    /proc/self/cgroup) are given by the tests, for a made-up tree."""

    def __init__(self, mounts: str | None = None, own: str | None = None, parent: str = "jupyterhub-students"):
        mounts = mounts if mounts is not None else _read("/proc/self/mounts")
        own = own if own is not None else _read("/proc/self/cgroup")
        self.parent = parent
        self.version, self.roots = self._layout(mounts, own)

    @staticmethod
    def _layout(mounts: str, own: str) -> tuple[int, dict[str, str]]:
        """(version, {controller: the hub's group folder}).  Version 1 wins where its controllers are
        mounted (a "hybrid" machine has both, with no controller under version 2)."""
        paths_v1, path_v2 = {}, None
        for line in own.splitlines():
            number, controllers, path = line.split(":", 2)
            if number == "0" and controllers == "":
                path_v2 = path
            for controller in controllers.split(","):
                paths_v1[controller] = path
        roots, unified = {}, None
        for line in mounts.splitlines():
            fields = line.split()
            if len(fields) < 4:
                continue
            mountpoint, kind, options = fields[1], fields[2], fields[3].split(",")
            if kind == "cgroup":
                for controller in CONTROLLERS:
                    if controller in options and controller in paths_v1:
                        roots[controller] = mountpoint.rstrip("/") + paths_v1[controller].rstrip("/")
            elif kind == "cgroup2" and path_v2 is not None:
                unified = mountpoint.rstrip("/") + path_v2.rstrip("/")
        if set(roots) == set(CONTROLLERS):
            return 1, roots
        if unified is not None and _available(unified) >= set(CONTROLLERS):
            return 2, {"unified": unified}
        missing = sorted(set(CONTROLLERS) - set(roots))
        raise CgroupError(
            f"this machine's cgroups do not offer {', '.join(missing)} to the hub (see /proc/self/cgroup): "
            "run the hub where they do (as root, with systemd's Delegate=yes under cgroups v2), or set "
            "AUTOGRADER_SPAWNER=systemd (jupyterhub-systemdspawner) or AUTOGRADER_SPAWNER=local (no limits)"
        )

    def group(self, name: str) -> StudentGroup:
        safe = SAFE_NAME.sub(lambda found: f"_{ord(found.group()):02x}", name)
        if self.version == 1:
            return StudentGroup(1, {c: os.path.join(self.roots[c], self.parent, safe) for c in CONTROLLERS})
        self._delegate(self.roots["unified"])
        return StudentGroup(2, {"unified": os.path.join(self.roots["unified"], self.parent, safe)})

    def _delegate(self, own: str) -> None:
        """Under version 2: the hub's processes into ``own/hub``, and the controllers handed down to
        ``own/<parent>`` and its children.  Done once; done again harmlessly."""
        wanted = " ".join(f"+{controller}" for controller in CONTROLLERS)
        if not set(CONTROLLERS) <= set(_read(os.path.join(own, "cgroup.subtree_control")).split()):
            leaf = os.path.join(own, "hub")
            os.makedirs(leaf, exist_ok=True)
            for pid in _read(os.path.join(own, "cgroup.procs")).split():
                _write(os.path.join(leaf, "cgroup.procs"), pid, missing_ok=True)
            _write(os.path.join(own, "cgroup.subtree_control"), wanted)
        parent = os.path.join(own, self.parent)
        os.makedirs(parent, exist_ok=True)
        if not set(CONTROLLERS) <= set(_read(os.path.join(parent, "cgroup.subtree_control"), missing_ok=True).split()):
            _write(os.path.join(parent, "cgroup.subtree_control"), wanted)


class StudentGroup:
    """One student's cgroup: made with its limits, joined by the server, emptied and removed."""

    def __init__(self, version: int, folders: dict[str, str]):
        self.version, self.folders = version, folders

    def make(self, memory_bytes: int | None, cores: float | None, tasks: int | None) -> None:
        for folder in self.folders.values():
            os.makedirs(folder, exist_ok=True)
        if self.version == 1:
            memory, cpu, pids = self.folders["memory"], self.folders["cpu"], self.folders["pids"]
            _write(os.path.join(memory, "memory.limit_in_bytes"), str(memory_bytes or -1))
            swap = os.path.join(memory, "memory.memsw.limit_in_bytes")
            if os.path.exists(swap):  # no swap beyond the limit either, where the kernel counts it
                _write(swap, str(memory_bytes or -1))
            _write(os.path.join(cpu, "cpu.cfs_period_us"), str(CPU_PERIOD_US))
            _write(os.path.join(cpu, "cpu.cfs_quota_us"), str(int(cores * CPU_PERIOD_US) if cores else -1))
            _write(os.path.join(pids, "pids.max"), str(tasks or "max"))
        else:
            folder = self.folders["unified"]
            _write(os.path.join(folder, "memory.max"), str(memory_bytes or "max"))
            swap = os.path.join(folder, "memory.swap.max")
            if os.path.exists(swap):
                _write(swap, "0" if memory_bytes else "max")
            quota = str(int(cores * CPU_PERIOD_US)) if cores else "max"
            _write(os.path.join(folder, "cpu.max"), f"{quota} {CPU_PERIOD_US}")
            _write(os.path.join(folder, "pids.max"), str(tasks or "max"))

    def procs_files(self) -> list[str]:
        return [os.path.join(folder, "cgroup.procs") for folder in self.folders.values()]

    def pids(self) -> set[int]:
        found = set()
        for path in self.procs_files():
            found.update(int(pid) for pid in _read(path, missing_ok=True).split())
        return found

    def empty_and_remove(self, seconds: float = 10) -> None:
        """Kill what is left of the student's processes (a kernel the server did not stop, something
        started with nohup) and remove the group."""
        deadline = time.monotonic() + seconds
        while (pids := self.pids()) and time.monotonic() < deadline:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
        for folder in self.folders.values():
            try:
                os.rmdir(folder)
            except FileNotFoundError:
                pass


def join(procs_files: list[str]) -> None:
    """Between fork and exec: this process into the student's group (``0`` is "the writer")."""
    for path in procs_files:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)


class CgroupSpawner(LocalProcessSpawner):
    """The local spawner, each server in a cgroup that enforces ``mem_limit``, ``cpu_limit`` and
    ``tasks_limit``."""

    tasks_limit = Integer(
        SETTINGS.default("tasks_limit"),
        config=True,
        help=f"{SETTINGS['tasks_limit'].help}; 0: no limit (the registry: autograder/settings.py).",
    )
    cgroup_parent = Unicode(
        "jupyterhub-students",
        config=True,
        help="The folder below the hub's own cgroup that holds one group per student.",
    )

    def _group(self) -> StudentGroup:
        name = self.user.name if not self.name else f"{self.user.name}.{self.name}"
        return Cgroups(parent=self.cgroup_parent).group(name)

    async def start(self):
        group = self._group()
        try:
            group.empty_and_remove()  # what a crashed hub left behind for this student
            group.make(self.mem_limit, self.cpu_limit, self.tasks_limit)
        except OSError as error:
            message = f"could not make {self.user.name}'s cgroup ({error}); the hub must run as root"
            raise CgroupError(message) from error
        self._procs_files = group.procs_files()
        self.log.info("%s's server: memory %s, %s cores, %s tasks", self.user.name, self.mem_limit or "no limit",
                      self.cpu_limit or "no limit", self.tasks_limit or "no limit")  # fmt: skip
        return await super().start()

    def make_preexec_fn(self, name):
        become_the_student = super().make_preexec_fn(name)
        procs_files = self._procs_files

        def preexec():
            join(procs_files)  # still root here: a student cannot leave a group they never chose
            become_the_student()

        return preexec

    async def stop(self, now=False):
        await super().stop(now=now)
        try:
            self._group().empty_and_remove()
        except (OSError, CgroupError) as error:
            self.log.warning("could not empty %s's cgroup: %s", self.user.name, error)


def _read(path: str, missing_ok: bool = False) -> str:
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        if missing_ok:
            return ""
        raise


def _available(folder: str) -> set[str]:
    try:
        return set(_read(os.path.join(folder, "cgroup.controllers")).split())
    except OSError:
        return set()


def _write(path: str, value: str, missing_ok: bool = False) -> None:
    try:
        with open(path, "w") as f:
            f.write(value)
    except (FileNotFoundError, ProcessLookupError):
        if not missing_ok:
            raise
