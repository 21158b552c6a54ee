"""Binder (repo2docker): environment.yml, then postBuild, then JupyterLab on lesson 1.

tests/unit/course/test_environment.py checks that environment.yml parses, pins what requirements.txt pins and
covers every import.  Here: what repo2docker does with the repository after that.
"""

import json
import os
import re
import shutil
import subprocess
import venv

import pytest
import yaml
from traitlets.config.loader import PyFileConfigLoader

from tests.conftest import ROOT
from tests.course_copy import copy_working_tree

FIRST_LESSON = "release/lesson1_requires_grad/lesson1_requires_grad.ipynb"


def test_environment_yml_conda_forge():
    with open(os.path.join(ROOT, "environment.yml")) as f:
        env = yaml.safe_load(f)
    assert env["channels"] == ["conda-forge", "nodefaults"]
    assert "python=3.11" in env["dependencies"] and "pip" in env["dependencies"]
    # postBuild installs the course; a pip section holds only pinned PyPI packages conda-forge lacks
    for section in [d for d in env["dependencies"] if isinstance(d, dict)]:
        assert list(section) == ["pip"] and all(re.fullmatch(r"[\w.-]+==[\w.]+", p) for p in section["pip"]), section


def test_post_build_is_executable():
    path = os.path.join(ROOT, "postBuild")
    assert os.access(path, os.X_OK), "repo2docker runs postBuild only when it is executable"
    assert open(path).readline().startswith("#!/bin/bash")


@pytest.mark.slow
def test_post_build_installs_and_lands(tmp_path):
    repo = tmp_path / "repo"  # what repo2docker builds from: the committed files
    copy_working_tree(str(repo))
    env_dir = tmp_path / "env"  # stands in for the conda environment
    venv.EnvBuilder(with_pip=True).create(env_dir)
    home = tmp_path / "home"
    home.mkdir()
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environ.update(HOME=str(home), PATH=f"{env_dir / 'bin'}{os.pathsep}{environ['PATH']}")
    done = subprocess.run(["./postBuild"], cwd=repo, env=environ, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    shutil.rmtree(repo)  # installed for real, not pointing back at the build folder
    found = subprocess.run(
        [env_dir / "bin" / "python", "-c", "import importlib.util as u; print(u.find_spec('autograder').origin, "
         "u.find_spec('gradlessons').origin)"],
        cwd=tmp_path, env=environ, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert len(found) == 2 and all(path.startswith(str(env_dir)) for path in found), found
    quizzes = list((env_dir / "lib").glob("python*/site-packages/gradebox/quizzes/*.json"))
    assert len(quizzes) == 4, "the quiz keys are package data"

    settings = env_dir / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    assert json.loads(settings.read_text()) == json.load(open(os.path.join(ROOT, "lab", "overrides.json")))

    config = PyFileConfigLoader("jupyter_server_config.py", str(home / ".jupyter")).load_config()
    landing = config.ServerApp.default_url
    assert landing == f"/lab/tree/{FIRST_LESSON}" and os.path.isfile(os.path.join(ROOT, FIRST_LESSON))
