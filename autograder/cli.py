"""``python -m autograder``: a thin command layer over ``autograder.diagnose``."""

from __future__ import annotations

import argparse
import sys

from . import exercises
from .diagnose import diagnose_files
from .sandbox import Limits, weaker_isolation_notice


def _parser() -> argparse.ArgumentParser:
    defaults = Limits()
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    diagnose = commands.add_parser(
        "diagnose",
        help="judge student files that define an exercise's function",
        description="Print one JSON line per FILE: file, exercise, passed, code, message.",
    )
    diagnose.add_argument("exercise", metavar="EXERCISE", help=f"one of: {', '.join(sorted(exercises.EXERCISES))}")
    diagnose.add_argument("files", metavar="FILE", nargs="+", help="Python source files")
    diagnose.add_argument("--jobs", type=int, default=0, help="files judged at once (default: one per CPU)")
    diagnose.add_argument(
        "--timeout", type=float, default=defaults.timeout, help="seconds per file (default: %(default)s)"
    )
    diagnose.add_argument(
        "--memory-mb",
        type=int,
        default=defaults.memory // 2**20,
        help="memory limit per file in MiB (default: %(default)s)",
    )
    diagnose.add_argument(
        "--start", choices=("all", "fresh", "dirty"), default="all", help="which starting states to test (default: all)"
    )
    diagnose.add_argument("--seed", type=int, default=0, help="varies models and data (default: 0)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.exercise not in exercises.EXERCISES:
        known = ", ".join(sorted(exercises.EXERCISES))
        print(f"autograder: unknown exercise {args.exercise!r}; choose one of: {known}", file=sys.stderr)
        return 2
    if args.timeout <= 0 or args.memory_mb <= 0 or args.jobs < 0:
        print("autograder: --timeout and --memory-mb must be positive, --jobs not negative", file=sys.stderr)
        return 2
    notice = weaker_isolation_notice()
    if notice:
        print(notice, file=sys.stderr)
    limits = Limits(timeout=args.timeout, memory=args.memory_mb * 2**20)
    for path, verdict in diagnose_files(args.exercise, args.files, args.jobs, args.start, args.seed, limits):
        print(verdict.to_json(path), flush=True)
    return 0
