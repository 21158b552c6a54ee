"""The containers that hub/k8s/*.yaml declares, and podman options that give a container the same
security context, so that the course image can be started here the way a Kubernetes node would
start it (no cluster here; podman with runc plays the node's runtime).

What a pod gets from Kubernetes that podman gives too: a masked /proc (the paths a container
runtime hides unless ``procMount: Unmasked``), the runtime's default capabilities, and a user
namespace of its own when ``hostUsers: false``.  Every security field a manifest sets must have a
translation here: an unknown one stops the test rather than being dropped, since a dropped
setting would make the container here stronger or weaker than the pod it stands for.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass

import yaml

from tests.conftest import ROOT

K8S = os.path.join(ROOT, "hub", "k8s")
# Where a pod with hostUsers: false lands in the host's uids: Kubernetes gives each such pod a
# range of 65536 of its own; one fixed range is enough for one container at a time.
USERNS_BASE = 300_000
USERNS_SIZE = 65_536


@dataclass(frozen=True)
class Container:
    manifest: str  # file name in hub/k8s/
    workload: str  # kind/name, e.g. Job/autograd-grade-lesson3
    name: str
    pod: dict  # the pod spec (without its containers)
    spec: dict  # the container

    @property
    def label(self) -> str:
        return f"{self.manifest}:{self.workload}:{self.name}"


def declared_containers() -> list[Container]:
    """Every container of every workload (Deployment, Job, StatefulSet, DaemonSet, Pod) in hub/k8s/."""
    found = []
    for path in sorted(glob.glob(os.path.join(K8S, "*.yaml"))):
        if os.path.basename(path) == "values.yaml":  # Helm values, not manifests
            continue
        with open(path) as f:
            for document in yaml.safe_load_all(f):
                if not document:
                    continue
                kind, name = document["kind"], document["metadata"]["name"]
                if kind == "Pod":
                    pod = document["spec"]
                elif kind in ("Deployment", "Job", "StatefulSet", "DaemonSet", "ReplicaSet"):
                    pod = document["spec"]["template"]["spec"]
                else:
                    continue
                for container in pod.get("containers", []) + pod.get("initContainers", []):
                    rest = {key: value for key, value in pod.items() if key not in ("containers", "initContainers")}
                    workload = f"{kind}/{name}"
                    found.append(Container(os.path.basename(path), workload, container["name"], rest, container))
    return found


class Untranslated(ValueError):
    """A security setting this module cannot give a podman container."""


def _profile(kind: str, profile: dict) -> list[str]:
    value = profile.get("type")
    if value == "Unconfined":
        return ["--security-opt", f"{kind}=unconfined"]
    if value == "RuntimeDefault":
        return []  # podman's own default profile
    raise Untranslated(f"{kind}Profile type {value!r}")


def _context(context: dict) -> tuple[list[str], dict]:
    """podman options for one securityContext (pod or container), and the user it asks for."""
    options: list[str] = []
    user: dict = {}
    for key, value in context.items():
        if key == "seccompProfile":
            options += _profile("seccomp", value)
        elif key == "appArmorProfile":
            options += _profile("apparmor", value)
        elif key == "procMount":
            if value == "Unmasked":
                options += ["--security-opt", "unmask=ALL"]
            elif value != "Default":
                raise Untranslated(f"procMount {value!r}")
        elif key == "privileged":
            options += ["--privileged"] if value else []
        elif key == "allowPrivilegeEscalation":
            options += [] if value else ["--security-opt", "no-new-privileges"]
        elif key == "readOnlyRootFilesystem":
            options += ["--read-only"] if value else []
        elif key == "capabilities":
            options += [f"--cap-add={cap}" for cap in value.get("add", [])]
            options += [f"--cap-drop={cap}" for cap in value.get("drop", [])]
        elif key in ("runAsUser", "runAsGroup", "runAsNonRoot"):
            user[key] = value
        elif key == "fsGroup":
            options += [f"--group-add={value}"]
        elif key == "supplementalGroups":
            options += [f"--group-add={group}" for group in value]
        else:
            raise Untranslated(f"securityContext.{key}")
    return options, user


def podman_options(container: Container) -> list[str]:
    """The options of ``podman run`` that give a container the security context its manifest declares."""
    options: list[str] = []
    for key, value in container.pod.items():
        if key == "hostUsers":
            if value is False:
                options += [f"--uidmap=0:{USERNS_BASE}:{USERNS_SIZE}", f"--gidmap=0:{USERNS_BASE}:{USERNS_SIZE}"]
        elif key in ("hostPID", "hostIPC", "hostNetwork") and value:
            raise Untranslated(f"spec.{key}")
    pod_options, user = _context(container.pod.get("securityContext", {}))
    own_options, own_user = _context(container.spec.get("securityContext", {}))
    user.update(own_user)  # a container's own setting wins over its pod's
    options += pod_options + own_options
    if "runAsUser" in user:
        options += ["--user", f"{user['runAsUser']}:{user.get('runAsGroup', user['runAsUser'])}"]
    elif user.get("runAsNonRoot"):
        raise Untranslated("runAsNonRoot without runAsUser (the image's USER would decide)")
    return options


def in_userns(container: Container) -> bool:
    return container.pod.get("hostUsers") is False


def host_uid(container: Container, uid: int) -> int:
    """The host's uid of a uid inside the container (what a volume's files must be owned by)."""
    return USERNS_BASE + uid if in_userns(container) else uid


def run_as(container: Container) -> tuple[int, int] | None:
    """(uid, gid) the container runs as, when its manifest says."""
    merged = {**container.pod.get("securityContext", {}), **container.spec.get("securityContext", {})}
    if "runAsUser" not in merged:
        return None
    return merged["runAsUser"], merged.get("runAsGroup", merged["runAsUser"])


def give_volume(folder: str, container: Container) -> None:
    """Everything in ``folder`` owned by the user the container runs as, seen from the host (inside a
    user namespace, its mapped uid): a volume its pod's user owns."""
    uid, gid = run_as(container) or (0, 0)
    owner, group = host_uid(container, uid), host_uid(container, gid)
    for where, dirs, files in os.walk(folder):
        for name in [where, *(os.path.join(where, n) for n in dirs + files)]:
            os.lchown(name, owner, group)


def without(container: Container, setting: str) -> Container:
    """The same container without one setting (``procMount``, ``hostUsers``...), wherever it is declared."""
    pod = {key: value for key, value in container.pod.items() if key != setting}
    if "securityContext" in pod:
        pod["securityContext"] = {k: v for k, v in pod["securityContext"].items() if k != setting}
    spec = dict(container.spec)
    if "securityContext" in spec:
        spec["securityContext"] = {k: v for k, v in spec["securityContext"].items() if k != setting}
    return Container(container.manifest, container.workload, container.name, pod, spec)
