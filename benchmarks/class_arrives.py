"""A class arrives at once: N students log in together on a real hub, start their servers, fetch
lesson 3, answer (half right, half with the never-clears mistake), some run the notebook's check in
a kernel, submit; then the grader collects and grades.  Issue 34's benchmark.

Everything runs on this machine, on loopback only: a throwaway PostgreSQL server (Debian's
``postgresql``), configurable-http-proxy (npm), fresh accounts ``load01``... (removed afterwards)
and the course's grader account, and the course's hub (hub/jupyterhub_config.py) on a fresh copy of
the course, as tests/hub/conftest.py's ``running_hub`` starts it; tests/hub/load.py drives the
students over HTTP and samples each part's CPU and memory.  Two configurations:

- ``stock``: the hub as docs/instructor.md gave it before issue 34: JupyterHub's own defaults for
  the settings that issue added (no spawn limit to speak of, 30 s to answer, 60 s to start, the
  local spawner, no culler) and every server extension a student's server loaded then (the student
  settings folder of commit a8714ac: only nbgrader's formgrader and course list off);
- ``course``: the hub as the course configures it now (none of those settings given).

For each: p50/p95/max of every step, failures, how many reached JupyterLab, the slowest start,
CPU-seconds and peak memory of each part, and whether every submission was collected and scored
right.  The run fails (exit 1) if a check fails in the ``course`` configuration: issue 34's "done
when" (every student in JupyterLab with no failure page, the slowest start under ``--slowest-start``
seconds, the p95 of pages after the start at most ``--pages-p95``, every submission collected and
scored right) and each self-check saying what its answer deserves.  Memory is resident set size
summed over a part's processes: pages they share (the grader's forked workers) count once each.

    sudo .venv/bin/python benchmarks/class_arrives.py [--students 30] [--self-check 5]
        [--config stock|course|both] [--timeout 900] [--write]

``--write`` appends one row to benchmarks/RESULTS.md (benchmarks/results.py) and the full tables
to benchmarks/class_arrives.md under a heading with the date and commit.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import secrets
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
DETAILS = os.path.join(ROOT, "benchmarks", "class_arrives.md")
MAX_STUDENTS = 120
# JupyterHub's own defaults for what issue 34 made settings (concurrent_spawn_limit 100, http_timeout
# 30 s, start_timeout 60 s), the local spawner, and no idle culler.
STOCK = {"AUTOGRADER_SPAWN_LIMIT": "100", "AUTOGRADER_HTTP_TIMEOUT": "30", "AUTOGRADER_START_TIMEOUT": "60",
         "AUTOGRADER_SPAWNER": "local", "AUTOGRADER_CULL_IDLE": "0"}  # fmt: skip
# The students' settings folder at commit a8714ac: only these of nbgrader's were off.
STOCK_STUDENT_FILES = {
    "labconfig/page_config.json": {"disabledExtensions": {
        "@jupyter/nbgrader:formgrader": True, "@jupyter/nbgrader:create-assignment": True,
        "@jupyter/nbgrader:course-list": True}},
    "jupyter_server_config.d/autograd-course-student.json": {"ServerApp": {"jpserver_extensions": {
        "nbgrader.server_extensions.formgrader": False, "nbgrader.server_extensions.course_list": False}}},
}  # fmt: skip
# After the course's configuration: the students' settings folder (hub/etc/student) swapped for the
# stock one in every student's JUPYTER_CONFIG_PATH, whatever the course's pre-spawn hook does first.
STOCK_OVERLAY = """
import inspect

_course_hook = c.Spawner.pre_spawn_hook
_course_student = os.path.join(os.path.dirname(os.environ["COURSE_HUB_CONFIG"]), "etc", "student")


def _stock_student_settings(spawner):
    path = spawner.environment.get("JUPYTER_CONFIG_PATH", "")
    parts = [test["student_settings"] if p.rstrip("/") == _course_student else p for p in path.split(os.pathsep)]
    spawner.environment["JUPYTER_CONFIG_PATH"] = os.pathsep.join(parts)


def _stock_hook(spawner):
    done = _course_hook(spawner) if _course_hook else None
    if inspect.isawaitable(done):
        async def after():
            result = await done
            _stock_student_settings(spawner)
            return result

        return after()
    _stock_student_settings(spawner)
    return done


c.Spawner.pre_spawn_hook = _stock_hook
"""


def stock_student_settings(folder: str) -> str:
    for name, content in STOCK_STUDENT_FILES.items():
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(content, f, indent=2)
    for here, _, files in os.walk(folder):  # every student's server reads it
        os.chmod(here, 0o755)
        for name in files:
            os.chmod(os.path.join(here, name), 0o644)
    return folder


def run_class(config: str, postgres, password: str, students: list[str], args, work: str) -> dict:
    """One configuration's class, start to gradebook; its figures."""
    from tests.course_copy import CORRECT_TRAIN_STEP, NEVER_CLEARS
    from tests.hub.conftest import running_hub
    from tests.hub.load import (
        ProcessSampler,
        answers_for,
        collect_and_grade,
        drive_class,
        release,
        scores_right,
        step_table,
        student_settings,
    )

    settings = {}
    if config == "stock":
        folder = stock_student_settings(os.path.join(work, "stock-student"))
        settings = {**STOCK, "HUB_TEST": json.dumps({"student_settings": folder})}
    train_steps = {name: (CORRECT_TRAIN_STEP, NEVER_CLEARS)[number % 2] for number, name in enumerate(students)}
    loss = {name: 0 if code is CORRECT_TRAIN_STEP else 4 for name, code in train_steps.items()}
    roster = {"instructors": ["instructor1"], "tas": [], "students": students}
    database = f"class_arrives_{config}_{secrets.token_hex(3)}"
    with running_hub(postgres, password, database, f"class-arrives-{config}-hub.log", roster=roster,
                     overlay=STOCK_OVERLAY if config == "stock" else None, **settings) as hub:  # fmt: skip
        release(hub)
        sampler = ProcessSampler(hub.process.pid, students, postgres.folder)
        sampler.start()
        try:
            checkers = students[: args.self_check]
            run = drive_class(hub, students, answers_for(hub.course, train_steps), self_check=checkers,
                              seed=args.seed, stagger=args.stagger, timeout=args.timeout)  # fmt: skip
            seen = student_settings(students)  # while their servers still run
            running = any(visit.reached_lab for visit in run.visits.values())
            if config == "stock" and not (all(folder in path.split(os.pathsep) for path in seen.values())
                                          and (seen or not running)):  # fmt: skip
                raise SystemExit(f"the stock students' settings did not reach their servers: {seen}")
            try:
                grading, problems = collect_and_grade(hub), []
            except AssertionError as error:  # e.g. nothing to grade when no student got in: say so, go on
                grading, problems = {}, [f"collect or grade failed: {str(error)[-600:]}"]
            right, missing = scores_right(hub, loss)
            problems += missing
        finally:
            sampler.stop()
        visits = run.visits.values()
        starts = {visit.student: visit.times["start"] for visit in visits if "start" in visit.times}
        slowest = max(starts.items(), key=lambda item: item[1]) if starts else ("-", float("nan"))
        return {
            "config": config,
            "students": len(students),
            "steps": step_table(run),
            "reached_lab": sum(visit.reached_lab for visit in visits),
            "failed": {visit.student: visit.errors + visit.failures for visit in visits if visit.errors},
            "failure_pages": sum(len(visit.failures) for visit in visits),
            "waits": sum(visit.waits for visit in visits),
            "slowest_start": slowest,
            "checks": {visit.student: visit.checked for visit in visits if visit.checked is not None},
            "expected_checks": {name: loss[name] == 0 for name in checkers},
            "submitted": sum(visit.submitted for visit in visits),
            "grading": grading,
            "scored_right": right,
            "problems": problems,
            "cpu": sampler.cpu_seconds(),
            "peak_rss": sampler.peak_rss,
            "wall": run.seconds,
            "hub_log": hub.log(3000),
        }


def misses(figures: dict, args) -> list[str]:
    """The issue's "done when" that this run missed (none: it passed)."""
    n, steps = figures["students"], {row[0]: row for row in figures["steps"]}
    found = []
    if figures["reached_lab"] < n or figures["failure_pages"]:
        found.append(f"{figures['reached_lab']}/{n} reached JupyterLab, {figures['failure_pages']} failure pages")
    if figures["failed"]:
        found.append(f"{len(figures['failed'])} students met an error")
    if not figures["slowest_start"][1] < args.slowest_start:
        found.append(f"the slowest start took {figures['slowest_start'][1]:.1f} s (target < {args.slowest_start:g})")
    if not steps["pages"][3] <= args.pages_p95:
        found.append(f"pages p95 {steps['pages'][3]:.2f} s (target <= {args.pages_p95:g})")
    if figures["scored_right"] < n:
        found.append(f"{figures['scored_right']}/{n} submissions collected and scored right")
    if figures["checks"] != figures["expected_checks"]:
        found.append("a self-check in a kernel did not say what the answer deserves")
    return found


def table(figures: dict) -> str:
    """One configuration's figures as Markdown."""
    n, steps = figures["students"], figures["steps"]
    name, seconds = figures["slowest_start"]
    lines = [f"**{figures['config']}**: {n} students, {figures['reached_lab']}/{n} reached JupyterLab, "
             f"{len(figures['failed'])} with an error, {figures['failure_pages']} failure pages or events, "
             f"{figures['waits']} waits on the class-is-starting page; slowest start {seconds:.1f} s ({name}); "
             f"the class took {figures['wall']:.0f} s", "",
             "| step | n | p50 s | p95 s | max s |", "| --- | --- | --- | --- | --- |"]  # fmt: skip
    lines += [f"| {step} | {count} | {p50:.2f} | {p95:.2f} | {top:.2f} |" for step, count, p50, p95, top in steps]
    checks = sum(figures["checks"].get(s) == ok for s, ok in figures["expected_checks"].items())
    lines += ["", "| part | CPU s | peak RSS MB |", "| --- | --- | --- |"]
    peak = {part: rss / 2**20 for part, rss in figures["peak_rss"].items()}
    lines += [f"| {part} | {cpu:.1f} | {peak[part]:.0f} |" for part, cpu in figures["cpu"].items()]
    grading = ", ".join(f"{step} {s:.1f} s" for step, s in figures["grading"].items())
    asked = len(figures["expected_checks"])
    lines += ["", f"Submissions: {figures['submitted']}/{n} submitted, {figures['scored_right']}/{n} collected "
              f"and scored right ({grading}); self-checks as expected: {checks}/{asked}"]  # fmt: skip
    for student, errors in sorted(figures["failed"].items())[:10]:
        lines.append(f"- {student}: {'; '.join(errors)[:300]}")
    lines += [f"- {problem}" for problem in figures["problems"][:10]]
    return "\n".join(lines)


def summary(figures: dict) -> str:
    """One configuration in a RESULTS.md row."""
    n, steps = figures["students"], {row[0]: row for row in figures["steps"]}
    return (f"{figures['config']}: {figures['reached_lab']}/{n} in lab, {figures['failure_pages']} failure pages, "
            f"slowest start {figures['slowest_start'][1]:.1f} s, start p95 {steps['start'][3]:.1f} s, pages p95 "
            f"{steps['pages'][3]:.2f} s, {figures['scored_right']}/{n} scored right, servers "
            f"{figures['cpu']['servers']:.0f} CPU-s {figures['peak_rss']['servers'] / 2**20:.0f} MB, kernels "
            f"{figures['cpu']['kernels']:.0f} CPU-s {figures['peak_rss']['kernels'] / 2**20:.0f} MB")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=30, help=f"class size (1 to {MAX_STUDENTS})")
    parser.add_argument("--self-check", type=int, default=5, help="how many run the notebook's check in a kernel")
    parser.add_argument("--config", choices=("stock", "course", "both"), default="both")
    parser.add_argument("--timeout", type=float, default=900, help="seconds the class may take, per configuration")
    parser.add_argument("--seed", type=int, default=34, help="shuffles the order the students arrive in")
    parser.add_argument("--stagger", type=float, default=0.0, help="seconds between two students' arrivals")
    parser.add_argument("--slowest-start", type=float, default=60, help="seconds the slowest start must stay under")
    parser.add_argument("--pages-p95", type=float, default=1.0, help="seconds the p95 of page loads may take")
    parser.add_argument("--write", action="store_true", help="append the results to benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    if not 1 <= args.students <= MAX_STUDENTS:
        parser.error(f"--students must be between 1 and {MAX_STUDENTS}")
    if not 0 <= args.self_check <= args.students:
        parser.error("--self-check must be between 0 and --students")
    if not 0 < args.timeout <= 3600:
        parser.error("--timeout must be positive and at most 3600 seconds")
    if os.geteuid() != 0:
        parser.error("run as root: it makes the accounts load01... and runs JupyterHub, which spawns servers as them")
    from tests.hub.conftest import GRADER, GROUPS, make_account, make_accounts, remove_accounts, remove_groups
    from tests.postgres import Postgres, postgres_bin

    if postgres_bin() is None or shutil.which("bwrap") is None:
        parser.error("needs Debian's postgresql and bubblewrap (see .ci/run)")
    configs = ("stock", "course") if args.config == "both" else (args.config,)
    password = secrets.token_urlsafe(12)
    work = tempfile.mkdtemp(prefix="class-arrives-", dir="/var/tmp")
    os.chmod(work, 0o755)
    students: list[str] = []
    results = []
    with contextlib.ExitStack() as cleanup:
        cleanup.callback(shutil.rmtree, work, True)
        postgres = Postgres.start(os.path.join(work, "pg"))
        cleanup.callback(postgres.stop)
        make_account(GRADER, password)  # this run's grader (tests/hub/conftest.py's names), gone afterwards
        cleanup.callback(remove_groups, GROUPS)
        cleanup.callback(remove_accounts, [GRADER])
        students = make_accounts("load", args.students, password)
        cleanup.callback(remove_accounts, students)
        for config in configs:
            began = time.monotonic()
            figures = run_class(config, postgres, password, students, args, work)
            print(f"\n{table(figures)}\n({time.monotonic() - began:.0f} s with the hub's start and stop)", flush=True)
            if figures["failed"] and config == "course":
                print(f"the hub's log ends:\n{figures['hub_log']}")
            results.append(figures)
            if config != configs[-1]:  # the next configuration meets fresh homes, as on a new day
                students = make_accounts("load", args.students, password)
    if args.write:
        from benchmarks.results import commit, machine, record

        record("class_arrives", f"{args.students} students, {args.self_check} self-checks: "
               + "; ".join(summary(figures) for figures in results))  # fmt: skip
        with open(DETAILS, "a", encoding="utf-8") as f:
            f.write(f"\n## {datetime.date.today().isoformat()}, {commit()}, {machine()}\n\n")
            f.write("\n\n".join(table(figures) for figures in results) + "\n")
    for figures in results:
        missed = misses(figures, args)
        print(f"{figures['config']}: " + ("; ".join(missed) if missed else "every check passed"))
        if missed and figures["config"] == "course":
            print("a check failed in the course configuration", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
