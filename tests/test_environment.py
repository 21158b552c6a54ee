"""requirements.txt (pip) and environment.yml (Binder, conda-forge) name the same versions."""

import os
import re

import yaml

from tests.conftest import ROOT

# conda-forge spells a few packages differently from PyPI.
CONDA_NAME = {"torch": "pytorch"}


def pip_pins(name="requirements.txt") -> dict[str, str]:
    pins = {}
    for line in open(os.path.join(ROOT, name)):
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-r"):
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([\w.]+)", line)
        assert match, f"{name}: {line!r} is not pinned with =="
        pins[match.group(1).lower()] = match.group(2)
    return pins


def conda_pins() -> dict[str, str]:
    with open(os.path.join(ROOT, "environment.yml")) as f:
        env = yaml.safe_load(f)
    pins = {}
    for dep in env["dependencies"]:
        if isinstance(dep, str) and dep not in ("pip",):
            name, _, rest = dep.partition("=")
            pins[name.lower()] = rest.split("=")[0]
    return pins


def test_torch_is_pinned_to_the_version_with_a_local_cpu_wheel():
    assert pip_pins()["torch"] == "2.13.0"


def test_every_pip_pin_appears_in_environment_yml_with_the_same_version():
    conda = conda_pins()
    for name, version in pip_pins().items():
        assert conda.get(CONDA_NAME.get(name, name)) == version, name


def test_environment_yml_pins_nothing_that_pip_does_not():
    pip = {CONDA_NAME.get(n, n) for n in pip_pins()}
    assert set(conda_pins()) - {"python"} == pip


def test_binder_gets_the_cpu_build_of_pytorch_from_conda_forge():
    with open(os.path.join(ROOT, "environment.yml")) as f:
        env = yaml.safe_load(f)
    assert env["channels"][0] == "conda-forge"
    assert "pytorch=2.13.0=cpu*" in env["dependencies"]
