"""A learner's first `python3 course.py lab` on a fresh clone: how long until JupyterLab answers, and how big
the .venv it made is, for the course as committed and for a baseline revision, all in one run.

    python benchmarks/student_install.py [--before REF] [--warm] [--no-record]

Three runs: the baseline; the course as committed installing with pip (COURSE_INSTALLER=pip); and the
same with uv, the installer course.py uses by default.  Each: `git clone` of this repository into a
temporary folder, `git checkout` of the revision, then
`python3 course.py lab --no-browser` there with its own port and token, as a learner types it after a
clone.  The clock runs from that command's start until JupyterLab's page (`/lab`) answers 200 over HTTP.
Then the page is asked whether it shows the instructor's tools (the formgrader's page, and nbgrader's
JupyterLab plugins left out of the page's disabled list), JupyterLab is stopped (its process group, which
this script started), and .venv is measured on disk (`du`).

The baseline, ``--before`` (default 16ac862^, the course before installs by role), installed every
requirements*.txt.  Caches: each install gets new empty ones (PIP_CACHE_DIR, UV_CACHE_DIR), as on a
learner's first day, unless ``--warm`` (the user's own, reused).  The packages themselves come from wherever
pip is configured to take them on this machine (here a local wheel for torch and local package indexes
before PyPI), the same for every run.  The goal (issue 35): under a minute, and a .venv well under
1 GB.  Each run appends its figures to benchmarks/RESULTS.md (not with ``--no-record``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
BEFORE = "16ac862^"  # the parent of the commit that made installs by role: `lab` installed everything
# The Python a learner has before the course: this one's base interpreter, not the .venv it may run in.
PYTHON = getattr(sys, "_base_executable", sys.executable)
START_SECONDS = 1800
# (name, revision (None: --before), COURSE_INSTALLER): the baseline installed with pip whatever it is told
RUNS = (
    ("before", None, "pip"),
    ("student set, pip", "HEAD", "pip"),
    ("student set, uv", "HEAD", "uv"),
)  # a start slower than this is a failure, not a figure
INSTRUCTOR_PLUGINS = ("@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port: int, path: str, token: str) -> tuple[int, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, ""


def disabled_plugins(page: str) -> list[str]:
    """The JupyterLab plugins the page's configuration (``jupyter-config-data``) turns off."""
    found = re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(found.group(1)).get("disabledExtensions", []) if found else []


def clone(ref: str, folder: str) -> str:
    """A fresh clone of this repository at ``ref``: what a learner has before their first command."""
    subprocess.run(["git", "clone", "-q", ROOT, folder], check=True)
    subprocess.run(["git", "-c", "advice.detachedHead=false", "checkout", "-q", ref], cwd=folder, check=True)
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=folder, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


def megabytes(*folders: str) -> float:
    """The folders' size on disk together: a file linked into two of them (uv links what it unpacked into
    its cache into .venv) counts once."""
    done = subprocess.run(["du", "-s", "-c", "--block-size=1", *folders], capture_output=True, text=True, check=True)
    return int(done.stdout.splitlines()[-1].split()[0]) / 1e6


def first_lab(folder: str, cache: str | None, installer: str) -> dict:
    """`python3 course.py lab` in ``folder`` until JupyterLab answers; then stopped.  Its figures."""
    port, token = free_port(), secrets.token_hex(16)
    scratch = os.path.join(folder, ".bench")
    os.makedirs(scratch)
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "VIRTUAL_ENV"))}
    environment.update(JUPYTER_CONFIG_DIR=os.path.join(scratch, "config"), JUPYTER_RUNTIME_DIR=scratch,
                       BROWSER="true")  # fmt: skip
    if cache is not None:
        environment.update(PIP_CACHE_DIR=cache, UV_CACHE_DIR=os.path.join(cache, "uv"))
    environment["COURSE_INSTALLER"] = installer
    command = [PYTHON, "course.py", "lab", "--no-browser",
               f"--port={port}", f"--IdentityProvider.token={token}"]  # fmt: skip
    log = open(os.path.join(scratch, "lab.log"), "w+")
    began = time.perf_counter()
    process = subprocess.Popen(command, cwd=folder, env=environment, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)  # fmt: skip
    try:
        while True:
            try:
                status, page = get(port, "/lab", token)
                if status == 200:
                    break
            except OSError:
                pass
            if process.poll() is not None or time.perf_counter() - began > START_SECONDS:
                log.seek(0)
                raise SystemExit(f"`course.py lab` in {folder} never served JupyterLab:\n{log.read()[-3000:]}")
            time.sleep(0.25)
        seconds = time.perf_counter() - began
        formgrader, _ = get(port, "/formgrader", token)
        shown = [p for p in INSTRUCTOR_PLUGINS if p not in disabled_plugins(page)]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)  # JupyterLab and course.py: the group this script started
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        log.close()
    return {
        "seconds": seconds,
        "venv_mb": megabytes(os.path.join(folder, ".venv")),
        "formgrader": formgrader,
        "instructor_plugins": shown,
        # the empty cache it was given, after: pip makes it only when it has something to keep
        "cache_mb": None if cache is None else megabytes(cache) if os.path.isdir(cache) else 0.0,
        "with_cache_mb": megabytes(os.path.join(folder, ".venv"), *([cache] if cache and os.path.isdir(cache) else [])),
    }


def describe(name: str, commit: str, figures: dict) -> str:
    shown = figures["formgrader"] == 200 or figures["instructor_plugins"]
    cache = (
        ""
        if figures["cache_mb"] is None
        else (
            f", the caches it was given {figures['cache_mb'] / 1000:.2f} GB after it, "
            f"{figures['with_cache_mb'] / 1000:.2f} GB with .venv (files linked into both count once)"
        )
    )
    return (f"{name} ({commit}): {figures['seconds']:.1f} s to a serving JupyterLab, .venv "
            f"{figures['venv_mb'] / 1000:.2f} GB, {'instructor tools shown' if shown else 'no instructor tools'} "
            f"(/formgrader: {figures['formgrader']}){cache}")  # fmt: skip


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="REF", default=BEFORE, help="the baseline revision (default: %(default)s)")
    parser.add_argument("--warm", action="store_true", help="reuse the user's pip cache instead of an empty one")
    parser.add_argument("--no-record", action="store_true", help="do not append the figures to RESULTS.md")
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix="student-install-")
    try:
        runs = {}
        for name, ref, installer in RUNS:
            folder = os.path.join(work, name.replace(" ", "-"))
            commit = clone(args.before if ref is None else ref, folder)
            cache = None if args.warm else os.path.join(work, f"pip-cache-{len(runs)}")
            runs[name] = (commit, first_lab(folder, cache, installer))
            print(describe(name, *runs[name]), flush=True)
            shutil.rmtree(folder, ignore_errors=True)  # a 2 GB .venv less before the next install
        old = runs["before"][1]
        ratios = ", ".join(
            f"{name} {new['seconds'] / old['seconds']:.2f}x the time, {new['venv_mb'] / old['venv_mb']:.2f}x the size"
            for name, (_, new) in runs.items()
            if name != "before"
        )
        caches = "warm (the user's own)" if args.warm else "cold (an empty pip and uv cache each)"
        print(f"against before: {ratios}; caches {caches}")
        if not args.no_record:
            from benchmarks.results import record

            each = "; ".join(describe(name, *runs[name]) for name in runs)
            record("student_install", f"first `course.py lab` on a fresh clone, pip caches {caches}: {each}; "
                   f"against before: {ratios}")  # fmt: skip
        return {name: figures for name, (_, figures) in runs.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
