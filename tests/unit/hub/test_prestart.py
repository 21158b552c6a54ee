"""hub/prestart.py against a hub made up in memory: who it starts, how it waits out the spawn limit,
and what it says about failures (against a real hub: tests/hub/test_prestart.py)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from tests.conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "hub"))
import prestart  # noqa: E402


class MadeUpHub(prestart.Hub):
    """Students' servers that become ready three requests (of anyone) after the hub accepts them;
    ``limit`` servers may be pending at once (a 429 with Retry-After beyond); ``broken`` users' starts
    fail.  Requests may come from several threads, as prestart sends them."""

    def __init__(self, students, running=(), limit=2, broken=()):
        super().__init__("http://hub/hub/api", "token")
        self.students_ = list(students)
        self.servers = {user: {"ready": True} for user in running}
        self.limit, self.broken, self.posts, self.refused = limit, set(broken), [], 0
        self.lock, self.ticks = threading.Lock(), 0

    def call(self, method, path):
        with self.lock:
            self.ticks += 1
            for user, server in list(self.servers.items()):
                if not server["ready"] and self.ticks >= server["since"] + 3:
                    if user in self.broken:  # a failed start: the hub drops the server
                        del self.servers[user]
                    else:
                        server["ready"] = True
            return self.answer(method, path)

    def answer(self, method, path):
        parts = path.strip("/").split("/")
        if parts[0] == "groups":
            if parts[1] != "nbgrader-course":
                return 404, {"message": "no such group"}, {}
            return 200, {"users": self.students_}, {}
        user = parts[1]
        if method == "GET":
            server = self.servers.get(user)
            return 200, {"name": user, "servers": {"": dict(server)} if server else {}}, {}
        if method == "POST":
            if sum(not s["ready"] for s in self.servers.values()) >= self.limit:
                self.refused += 1
                return 429, {"message": "Too many users trying to log in right now"}, {"Retry-After": "3"}
            self.posts.append(user)
            self.servers[user] = {"ready": False, "since": self.ticks}
            return 202, {}, {}
        if method == "DELETE":
            self.servers.pop(user, None)
            return 204, {}, {}
        raise AssertionError(path)


def run(hub, **kwargs):
    said, slept, now = [], [], [0.0]

    def sleep(seconds):  # a clock of its own: the test waits for nothing
        slept.append(seconds)
        now[0] += seconds / 8  # several threads sleep at once

    outcome = prestart.prestart(hub, "course", say=said.append, clock=lambda: now[0], sleep=sleep, **kwargs)
    return outcome, said, slept


def test_every_student_without_a_server_gets_one_and_running_ones_are_left_alone():
    hub = MadeUpHub(["s1", "s2", "s3", "s4", "s5"], running=["s2"], limit=10)
    outcome, said, _ = run(hub)
    assert sorted(outcome.ready) == ["s1", "s3", "s4", "s5"] and outcome.already == ["s2"]
    assert sorted(hub.posts) == ["s1", "s3", "s4", "s5"]
    assert said[0] == "course: 1 servers already running, 4 to start"


def test_the_spawn_limit_is_waited_out_as_the_hub_suggests_and_nobody_is_asked_twice():
    hub = MadeUpHub([f"s{n}" for n in range(7)], limit=2)
    outcome, _, slept = run(hub)
    assert len(outcome.ready) == 7 and not outcome.failed
    assert hub.refused > 0 and 3.0 in slept  # the hub's Retry-After
    assert sorted(hub.posts) == sorted(set(hub.posts))


def test_a_start_that_fails_is_reported_with_the_others_still_started():
    hub = MadeUpHub(["s1", "s2", "s3"], broken=["s2"])
    outcome, said, _ = run(hub)
    assert sorted(outcome.ready) == ["s1", "s3"]
    assert list(outcome.failed) == ["s2"] and "failed to start" in outcome.failed["s2"]
    assert any(line.startswith("  FAILED: s2") for line in said)


def test_servers_not_ready_in_time_are_failures_naming_the_wait():
    class Slow(MadeUpHub):
        def answer(self, method, path):
            status, body, headers = super().answer(method, path)
            if method == "GET" and body.get("servers"):
                body["servers"][""]["ready"] = False
            return status, body, headers

    hub = Slow(["s1"], running=[])
    outcome, _, _ = run(hub, seconds=30)
    assert outcome.failed == {"s1": "not ready after 30 s"}


def test_an_unknown_course_is_named():
    hub = MadeUpHub(["s1"])
    with pytest.raises(prestart.HubError, match="no group nbgrader-other"):
        prestart.prestart(hub, "other", say=lambda line: None)


def test_stop_stops_only_running_servers():
    hub = MadeUpHub(["s1", "s2", "s3"], running=["s1", "s3"])
    outcome = prestart.stop(hub, "course", say=lambda line: None)
    assert sorted(outcome.stopped) == ["s1", "s3"] and outcome.ready == [] and hub.servers == {}


def test_the_command_says_what_is_missing(capsys):
    with pytest.raises(SystemExit):
        prestart.main(["--hub", "", "--course", ""])
    assert "only the grading server's terminal knows them" in capsys.readouterr().err
