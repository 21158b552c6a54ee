"""Start a course's students' servers before the lecture, so that nobody waits when the class logs in
at once (docs/instructor.md, "Before a lecture").

    python3 hub/prestart.py                      # in the course's grading server's terminal
    python3 hub/prestart.py --stop               # after it, if the idle culler should not wait

It asks the hub for the course's students (its group ``nbgrader-<course>``) and starts the server of
each who has none, several at a time and as fast as the hub's spawn limit lets it: a 429 means "not
yet", and the script waits the hub's Retry-After and asks again, as the students' "class is
starting" page does.  Then it
waits until every server answers and says who is ready and who failed (and why), with exit status 1
if anyone did.

Whose rights: the role ``prestart-<course>`` (hub/capacity.py), held by the course's instructors and
TAs and by its grading server.  In the grading server's terminal, the hub's address, the server's
token and the course are already in the environment (JUPYTERHUB_API_URL, JUPYTERHUB_API_TOKEN,
AUTOGRADER_COURSE_ID); elsewhere, give ``--hub`` and a token made at <hub>/hub/token in
``--token-file`` or JUPYTERHUB_API_TOKEN.  The servers started count as idle for the culler from the
start: start them less than AUTOGRADER_CULL_IDLE before the lecture.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

# The course folder's own settings (the standard library's only): this may run on any python3.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from autograder.settings import DEFAULT, SETTINGS  # noqa: E402


class HubError(RuntimeError):
    """The hub refused a request, or answered something this script does not understand."""


@dataclass
class Hub:
    api: str  # e.g. http://127.0.0.1:8081/hub/api
    token: str

    def call(self, method: str, path: str) -> tuple[int, dict, dict]:
        """(status, JSON body, headers) of one request; 4xx/5xx come back too, not raised."""
        request = urllib.request.Request(self.api.rstrip("/") + path, method=method,
                                         headers={"Authorization": f"token {self.token}"})  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, _json(answer.read()), dict(answer.headers)
        except urllib.error.HTTPError as error:
            return error.code, _json(error.read()), dict(error.headers)
        except urllib.error.URLError as error:
            raise HubError(f"the hub at {self.api} does not answer: {error.reason}") from None

    def students(self, course: str) -> list[str]:
        status, body, _ = self.call("GET", f"/groups/nbgrader-{urllib.parse.quote(course)}")
        if status == 404:
            raise HubError(f"the hub has no group nbgrader-{course}: is {course!r} the course's id?")
        if status == 403:
            raise HubError(f"this token may not read the students of {course} (it needs the role prestart-{course})")
        if status != 200:
            raise HubError(f"the hub answered {status} to the list of {course}'s students: {body.get('message', '')}")
        return sorted(body.get("users", []))

    def server(self, user: str) -> dict | None:
        """The user's default server as the hub describes it, or None when it has none."""
        status, body, _ = self.call("GET", f"/users/{urllib.parse.quote(user)}")
        if status != 200:
            raise HubError(f"the hub answered {status} about {user}: {body.get('message', '')}")
        return (body.get("servers") or {}).get("")


@dataclass
class Outcome:
    ready: list[str] = field(default_factory=list)  # started by this run and answering
    already: list[str] = field(default_factory=list)  # running before it
    stopped: list[str] = field(default_factory=list)  # (--stop) the hub is stopping them
    failed: dict[str, str] = field(default_factory=dict)  # user -> why


def prestart(hub: Hub, course: str, seconds: float = 600, parallel: int = 8, say=print, clock=time.monotonic,
             sleep=time.sleep) -> Outcome:  # fmt: skip
    """Start every student's server of ``course`` that is not running; wait until each is ready.

    The hub answers a start only when the server is up or after a few seconds, so ``parallel``
    requests go at once (the hub's spawn limit, not this number, decides how many start together)."""
    outcome = Outcome()
    waiting: list[str] = []
    for user in hub.students(course):
        server = hub.server(user)
        if server and server.get("ready"):
            outcome.already.append(user)
        else:
            waiting.append(user)
    say(f"{course}: {len(outcome.already)} servers already running, {len(waiting)} to start")
    deadline = clock() + seconds

    def ask(user: str) -> str | None:
        """None once the hub has taken the start; else why it did not."""
        while clock() < deadline:
            status, body, headers = hub.call("POST", f"/users/{urllib.parse.quote(user)}/server")
            if status in (201, 202) or (status == 400 and "already" in body.get("message", "")):
                return None
            if status != 429:
                return f"the hub answered {status}: {body.get('message', '')}"
            sleep(float(headers.get("Retry-After", 5)))  # the spawn limit: as the hub suggests
        return f"not started after {seconds:.0f} s"

    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        for user, refused in zip(waiting, pool.map(ask, waiting)):
            if refused:
                outcome.failed[user] = refused
                say(f"  FAILED: {user}: {refused}")
    waiting = [user for user in waiting if user not in outcome.failed]
    while waiting and clock() < deadline:
        for user in list(waiting):
            server = hub.server(user)
            if server and server.get("ready"):
                waiting.remove(user)
                outcome.ready.append(user)
                say(f"  ready: {user} ({len(outcome.ready)}/{len(outcome.ready) + len(waiting)})")
            elif server is None:  # the hub drops a server whose start failed
                waiting.remove(user)
                outcome.failed[user] = "the server stopped or failed to start (the hub's log says why)"
                say(f"  FAILED: {user}: {outcome.failed[user]}")
        if waiting:
            sleep(1.0)
    for user in waiting:
        outcome.failed[user] = f"not ready after {seconds:.0f} s"
    return outcome


def stop(hub: Hub, course: str, say=print) -> Outcome:
    outcome = Outcome()
    for user in hub.students(course):
        if hub.server(user) is None:
            continue
        status, body, _ = hub.call("DELETE", f"/users/{urllib.parse.quote(user)}/server")
        if status in (202, 204):
            outcome.stopped.append(user)
        else:
            outcome.failed[user] = f"the hub answered {status}: {body.get('message', '')}"
    say(f"{course}: {len(outcome.stopped)} servers stopping, {len(outcome.failed)} refused")
    return outcome


def _json(data: bytes) -> dict:
    try:
        value = json.loads(data or b"{}")
    except ValueError:
        return {"message": data[:200].decode(errors="replace")}
    return value if isinstance(value, dict) else {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hub", default=os.environ.get("JUPYTERHUB_API_URL", ""),
                        help="the hub's address or API URL (default JUPYTERHUB_API_URL)")  # fmt: skip
    course = SETTINGS.read(only=["course_id"])["course_id"]  # only as the grading server was told: not its default
    parser.add_argument("--course", default="" if course.source == DEFAULT else course.value,
                        help="the course id (default AUTOGRADER_COURSE_ID)")  # fmt: skip
    parser.add_argument("--token-file", help="a file holding an API token (default: JUPYTERHUB_API_TOKEN)")
    parser.add_argument("--seconds", type=float, default=600, help="how long to wait for every server (default 600)")
    parser.add_argument("--stop", action="store_true", help="stop the students' servers instead")
    args = parser.parse_args(argv)
    if not args.hub or not args.course:
        parser.error("say which hub (--hub) and course (--course): only the grading server's terminal knows them")
    token = os.environ.get("JUPYTERHUB_API_TOKEN", "")
    if args.token_file:
        with open(args.token_file) as f:
            token = f.read().strip()
    if not token:
        parser.error("no API token: make one at <hub>/hub/token and give it with --token-file")
    api = args.hub.rstrip("/")
    api = api if api.endswith("/hub/api") else api + "/hub/api"
    hub = Hub(api, token)
    try:
        outcome = stop(hub, args.course) if args.stop else prestart(hub, args.course, args.seconds)
    except HubError as error:
        print(f"prestart: {error}", file=sys.stderr)
        return 2
    if not args.stop:
        print(f"{args.course}: {len(outcome.ready) + len(outcome.already)} ready, {len(outcome.failed)} failed")
    return 1 if outcome.failed else 0


if __name__ == "__main__":
    sys.exit(main())
