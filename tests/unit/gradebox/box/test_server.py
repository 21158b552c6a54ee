"""The warm server (gradebox/box/server.py) keeps nothing of a job it hands on: it lives for a whole
class, so a descriptor left open per job would add up."""

from __future__ import annotations

import os
import socket

import pytest

from gradebox.box.server import Server
from gradebox.jobs.profiles import Profile


def _open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


@pytest.fixture
def server(tmp_path):
    here, there = socket.socketpair()
    yield Server(here, Profile(preload=lambda options: None, jobs={}), str(tmp_path))
    here.close()
    there.close()


def test_a_refused_kind_closes_the_files_sent_with_it(server):
    sent = [os.memfd_create(name) for name in ("plan", "log", "records")]
    answer = server.spawn({"op": "spawn", "kind": "no-such-kind", "files": ["plan", "log", "records"]}, sent)
    assert answer == {"error": "this server runs no job of kind 'no-such-kind'"}
    assert not any(_open(fd) for fd in sent)


def test_a_failed_spawn_closes_the_files_too(server, monkeypatch):
    server.profile = Profile(preload=lambda options: None, jobs={"exercise": lambda *a: None})
    monkeypatch.setattr(os, "fork", lambda: (_ for _ in ()).throw(OSError(11, "Resource temporarily unavailable")))
    sent = [os.memfd_create("plan")]
    with pytest.raises(OSError):
        server.spawn({"op": "spawn", "kind": "exercise", "files": ["plan"]}, sent)
    assert not _open(sent[0])
