"""hub/etc/jupyter: a terminal of any server the hub starts runs the server's Python.  The terminal is
started here as jupyter_server starts it (jupyter_server_terminals' extension, reading the hub's Jupyter
settings), with the server's PATH as the hub gives it, and a ~/.profile that sets PATH afresh as
Debian's /etc/profile does (so the test holds on a machine whose /etc/profile does not)."""

from __future__ import annotations

import io
import os
import select
import sys
import time

import pytest
from jupyter_server.serverapp import ServerApp
from jupyter_server_terminals.app import TerminalsExtensionApp
from traitlets.config import Config, PyFileConfigLoader

from tests.conftest import ROOT

HUB_JUPYTER = os.path.join(ROOT, "hub", "etc", "jupyter")
BIN = os.path.dirname(sys.executable)  # the course's environment, as the hub's BIN
SERVER_PATH = f"{BIN}:/usr/bin:/bin"  # hub/jupyterhub_config.py's COMMON_ENVIRONMENT["PATH"]
DEBIAN_PROFILE = 'PATH="/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games"\nexport PATH\n'
# What the shell answers, after a marker its echoed input cannot contain (the shell computes it).
ASK = 'echo "@@$((6 * 7))@@|$(command -v python)|$-|$PATH|"\n'


def hub_config() -> Config:
    return PyFileConfigLoader("jupyter_server_config.py", path=HUB_JUPYTER).load_config()


def answer(config: Config, home, monkeypatch) -> dict[str, str]:
    """What a new terminal of a server started with ``config`` says about its Python, mode and PATH."""
    monkeypatch.setenv("PATH", SERVER_PATH)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SHELL", "/bin/bash")
    monkeypatch.setattr(sys, "stdout", io.StringIO())  # no terminal of its own, as under the hub
    terminals = TerminalsExtensionApp()
    terminals.serverapp = ServerApp(config=config, root_dir=str(home))
    terminals.initialize_configurables()
    terminal = terminals.terminal_manager.new_terminal()
    process = terminal.ptyproc
    try:
        process.write(ASK)
        said, deadline = "", time.monotonic() + 30
        while "@@42@@" not in said or not said.split("@@42@@", 1)[1].count("|") >= 4:
            assert time.monotonic() < deadline, f"the terminal did not answer: {said!r}"
            if select.select([process.fd], [], [], 1)[0]:
                said += process.read(4096)
        _, python, mode, path, _ = said.split("@@42@@", 1)[1].split("|", 4)
        return {"python": python, "mode": mode, "path": path}
    finally:
        process.terminate(force=True)


@pytest.fixture
def home(tmp_path):
    (tmp_path / ".profile").write_text(DEBIAN_PROFILE + 'PATH="$HOME/.local/bin:$PATH:"\n')  # ":" = here
    return tmp_path


def test_a_terminal_of_the_hubs_servers_runs_the_servers_python(home, monkeypatch):
    said = answer(hub_config(), home, monkeypatch)
    assert said["python"] == os.path.join(BIN, "python")
    assert "i" in said["mode"]  # interactive: a prompt, history, the user's aliases


def test_the_servers_path_comes_first_and_the_profiles_additions_are_kept(home, monkeypatch):
    path = answer(hub_config(), home, monkeypatch)["path"].split(":")
    assert path[:3] == SERVER_PATH.split(":")
    assert f"{home}/.local/bin" in path[3:] and "/usr/local/bin" in path[3:]
    assert "" not in path and len(path) == len(set(path))  # no current folder slipped in, nothing twice


def test_without_the_hubs_settings_a_login_shell_loses_the_servers_python(home, monkeypatch):
    said = answer(Config(), home, monkeypatch)  # jupyter_server's own choice: $SHELL -l
    assert said["python"] != os.path.join(BIN, "python")
    assert not said["path"].startswith(BIN)
