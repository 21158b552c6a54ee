"""The warm server's entry point: the sandbox's server, handed the profiles of the job-side package.

The grader starts every server as ``python -I -c "from gradebox.serve import main; main(...)"``
inside bubblewrap (``autograder/host/client.py``).  This module joins the two halves that know
nothing of each other: ``box.server`` (fork, confine, watch) and ``jobs.profiles`` (what a job
runs).  The server gets the table itself, an object, and finds a profile and a job in it by
name; it imports nothing by name.
"""

from __future__ import annotations

from .box import server
from .jobs.profiles import PROFILES


def main(argv: list[str] | None = None) -> None:
    server.main(argv, PROFILES)


if __name__ == "__main__":
    main()
