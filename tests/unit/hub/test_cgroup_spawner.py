"""hub/cgroup_spawner.py on a made-up cgroup tree: which folders a student's group takes and what is
written there, under cgroups version 1 and 2 (the real kernel enforces them in
tests/hub/test_student_limits.py)."""

from __future__ import annotations

import os
import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "hub"))
import cgroup_spawner  # noqa: E402
from cgroup_spawner import CgroupError, Cgroups  # noqa: E402


def v1_tree(tmp_path):
    mounts = "\n".join(
        f"cgroup {tmp_path}/{name} cgroup rw,nosuid,{options} 0 0"
        for name, options in (("memory", "memory"), ("cpu,cpuacct", "cpu,cpuacct"), ("pids", "pids"))
    )
    own = "9:name=systemd:/\n8:pids:/\n4:memory:/box/7f\n1:cpu,cpuacct:/\n0::/\n"
    return Cgroups(mounts=mounts + f"\ncgroup2 {tmp_path}/unified cgroup2 rw 0 0\n", own=own)


def v2_tree(tmp_path, subtree=""):
    own = tmp_path / "system.slice" / "jupyterhub.service"
    own.mkdir(parents=True)
    (own / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (own / "cgroup.subtree_control").write_text(subtree)
    (own / "cgroup.procs").write_text("4242\n")
    mounts, hub = f"cgroup2 {tmp_path} cgroup2 rw,nosuid 0 0\n", "0::/system.slice/jupyterhub.service\n"
    return Cgroups(mounts=mounts, own=hub), own


def read(path) -> str:
    return open(path).read()


def test_version_1_puts_each_controller_below_the_hubs_own_group(tmp_path):
    cgroups = v1_tree(tmp_path)
    assert cgroups.version == 1
    group = cgroups.group("student1")
    assert group.folders == {
        "memory": f"{tmp_path}/memory/box/7f/jupyterhub-students/student1",
        "cpu": f"{tmp_path}/cpu,cpuacct/jupyterhub-students/student1",
        "pids": f"{tmp_path}/pids/jupyterhub-students/student1",
    }


def test_version_1_writes_memory_cpu_quota_and_tasks(tmp_path):
    group = v1_tree(tmp_path).group("student1")
    group.make(2 * 2**30, 0.5, 1024)
    memory, cpu, pids = group.folders["memory"], group.folders["cpu"], group.folders["pids"]
    assert read(f"{memory}/memory.limit_in_bytes") == str(2 * 2**30)
    assert (read(f"{cpu}/cpu.cfs_period_us"), read(f"{cpu}/cpu.cfs_quota_us")) == ("100000", "50000")
    assert read(f"{pids}/pids.max") == "1024"


def test_no_limit_is_written_as_the_kernels_no_limit(tmp_path):
    group = v1_tree(tmp_path).group("student1")
    group.make(None, None, 0)
    assert read(f"{group.folders['memory']}/memory.limit_in_bytes") == "-1"
    assert read(f"{group.folders['cpu']}/cpu.cfs_quota_us") == "-1"
    assert read(f"{group.folders['pids']}/pids.max") == "max"


def test_version_2_moves_the_hub_into_a_leaf_and_hands_the_controllers_down(tmp_path):
    cgroups, own = v2_tree(tmp_path)
    assert cgroups.version == 2
    group = cgroups.group("student1")
    assert read(own / "hub" / "cgroup.procs") == "4242"  # the hub's processes, out of the way
    assert read(own / "cgroup.subtree_control") == "+memory +cpu +pids"
    assert read(own / "jupyterhub-students" / "cgroup.subtree_control") == "+memory +cpu +pids"
    group.make(2**30, 1.0, 512)
    folder = own / "jupyterhub-students" / "student1"
    assert (read(folder / "memory.max"), read(folder / "cpu.max"), read(folder / "pids.max")) == (
        str(2**30), "100000 100000", "512")  # fmt: skip


def test_version_2_already_delegated_is_left_as_it_is(tmp_path):
    cgroups, own = v2_tree(tmp_path, subtree="cpu memory pids\n")
    cgroups.group("student1")
    assert not (own / "hub").exists()
    assert read(own / "cgroup.subtree_control") == "cpu memory pids\n"


def test_a_machine_without_the_controllers_says_what_to_do(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpu io\n")  # no memory, no pids for the hub
    with pytest.raises(CgroupError, match="AUTOGRADER_SPAWNER=systemd"):
        Cgroups(mounts=f"cgroup2 {tmp_path} cgroup2 rw 0 0\n", own="0::/\n")


def test_a_name_that_is_no_folder_name_is_escaped(tmp_path):
    group = v1_tree(tmp_path).group("../u-8a3c/evil")
    names = {os.path.basename(folder) for folder in group.folders.values()}
    assert names == {".._2fu-8a3c_2fevil"}
    assert all(os.path.dirname(folder).endswith("jupyterhub-students") for folder in group.folders.values())


def test_emptying_a_group_kills_what_is_left_and_removes_it(tmp_path, monkeypatch):
    group = v1_tree(tmp_path).group("student1")
    group.make(2**30, 1.0, 100)
    killed = []
    monkeypatch.setattr(cgroup_spawner.os, "kill", lambda pid, sig: killed.append(pid))
    monkeypatch.setattr(cgroup_spawner.StudentGroup, "pids", lambda self: set() if killed else {101, 102})
    for folder in group.folders.values():  # the kernel's own files vanish with a group; a made-up tree's do not
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
    group.empty_and_remove()
    assert sorted(killed) == [101, 102]
    assert not any(os.path.exists(folder) for folder in group.folders.values())
