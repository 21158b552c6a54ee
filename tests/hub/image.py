"""The course image (hub/image/Containerfile), built here with podman from a local Debian base.

No image registry is reachable from the test machines, so the base that a real build takes from
a registry (python:3.11-slim-bookworm) is made with mmdebstrap from Debian's mirror instead, and
pip inside the build uses the machine's own package sources (its wheel folder, its index mirrors
and their CA certificate), mounted read-only.  Both the base and podman's layer of pinned
packages stay in podman's storage: a machine pays for them once, and later builds redo only the
layer of the course's own code.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from urllib.parse import urlparse

import pytest

from tests.conftest import ROOT

BASE = "localhost/autograd-base:bookworm"
IMAGE = "localhost/autograd-course:test"
MIRROR = "http://deb.debian.org/debian"
# podman's global options on these machines: crun refuses their hybrid cgroups, runc does not.
PODMAN = ["podman", "--runtime", "runc", "--cgroup-manager", "cgroupfs"]
# podman's default open-files limit is above these machines' hard limit.
LIMITS = ["--ulimit", "nofile=20000:20000", "--ulimit", "nproc=4096:4096"]
HOST_CA = "/etc/ssl/host-ca.crt"  # where the machine's CA bundle is mounted during the build


def podman(*args: str, timeout: float = 600, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([*PODMAN, *args], capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and done.returncode != 0:
        raise AssertionError(f"podman {' '.join(args[:3])}... failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def missing_tools() -> list[str]:
    return [tool for tool in ("podman", "runc", "mmdebstrap") if shutil.which(tool) is None]


def make_base() -> None:
    """The Debian base, once per machine: mmdebstrap writes it as a tarball, which `podman import`
    takes only once mmdebstrap has said it succeeded (a base cut short must not be imported).  Its
    chroot is made in the same folder under /var/tmp, not in /tmp, which may be a small tmpfs."""
    if podman("image", "exists", BASE, check=False).returncode == 0:
        return
    folder = tempfile.mkdtemp(prefix="autograd-base-", dir="/var/tmp")
    try:
        archive = os.path.join(folder, "base.tar")
        subprocess.run(["mmdebstrap", "--quiet", "--variant=minbase", "--include=python3,python3-venv,ca-certificates",
                        "bookworm", archive, MIRROR], check=True, capture_output=True, timeout=1200,
                       env={**os.environ, "TMPDIR": folder})  # fmt: skip
        podman("import", archive, BASE)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _pip_setting(name: str) -> str:
    """A pip setting as this machine's pip sees it (environment first, then its config files)."""
    value = os.environ.get("PIP_" + name.upper().replace("-", "_"))
    if value:
        return value
    done = subprocess.run(["python3", "-m", "pip", "config", "get", f"global.{name}"], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def local_package_sources() -> list[str]:
    """podman build options that give pip inside the build this machine's package sources: the
    wheel folders and file:// indexes (mounted read-only where they are) and the CA bundle."""
    options, folders = [], set()
    find_links = _pip_setting("find-links").split()
    indexes = _pip_setting("extra-index-url").split()
    for link in find_links:
        folders.add(urlparse(link).path if link.startswith("file:") else link)
    for index in indexes:
        if index.startswith("file:"):
            # an index's pages link to the files beside it (…/simple/x/ → ../../files/)
            folders.add(os.path.dirname(urlparse(index).path.rstrip("/")))
    for folder in sorted(f for f in folders if os.path.isdir(f)):
        options += ["-v", f"{folder}:{folder}:ro"]
    if find_links:
        options += ["--build-arg", "PIP_FIND_LINKS=" + " ".join(find_links)]
    if indexes:  # in place of the image's default (PyTorch's CPU index, unreachable here)
        options += ["--build-arg", "PIP_EXTRA_INDEX_URL=" + " ".join(indexes)]
    cert = _pip_setting("cert")
    if cert and os.path.exists(cert):
        options += ["-v", f"{cert}:{HOST_CA}:ro", "--build-arg", f"PIP_CERT={HOST_CA}"]
    return options


def build_image() -> str:
    """The course image from this working tree (its .containerignore leaves caches and class data out)."""
    make_base()
    podman("build", "--network", "host", "--build-arg", f"BASE={BASE}", *local_package_sources(),
           "-f", os.path.join(ROOT, "hub", "image", "Containerfile"), "-t", IMAGE, ROOT, timeout=2400)  # fmt: skip
    return IMAGE


@pytest.fixture(scope="session")
def course_image(session_folder) -> str:
    """The course image of this working tree, built once per test session: the xdist workers share a
    file lock and a mark that it is built (in the temp folder they all share), so two files that need
    it in two workers neither build it at once nor build its last layer twice."""
    from filelock import FileLock

    if os.geteuid() != 0:
        pytest.skip("the image tests run podman as root")
    missing = missing_tools()
    if missing:
        pytest.fail(f"the image tests need {', '.join(missing)} (apt-get install podman runc mmdebstrap; "
                    "see .ci/run)", pytrace=False)  # fmt: skip
    built = os.path.join(session_folder, "course-image.built")
    with FileLock(built + ".lock"):
        if not (os.path.exists(built) and podman("image", "exists", IMAGE, check=False).returncode == 0):
            build_image()
            with open(built, "w") as f:
                f.write(IMAGE + "\n")
    return IMAGE
