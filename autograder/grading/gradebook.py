"""One database engine per gradebook for a whole ``grade`` run, instead of one per use.

nbgrader opens its ``Gradebook`` wherever it needs it and closes it right after: seven times per
submission (the converter's set-up, OverwriteKernelspec, OverwriteCells, SaveAutoGrades,
AssignLatePenalties...).  Each opening creates a SQLAlchemy engine, inspects the tables, runs
``create_all`` and checks the course, and each closing disposes of the engine, taking with it
its pool of connections and its cache of compiled queries, so every query of every submission
is compiled again.  A profile of a class's run (py-spy) showed query compilation and engine
set-up among the largest costs of the grader, the busiest process of a run.

``shared_engines()`` keeps one engine per database URL for as long as it is active: nbgrader's
``Gradebook`` still opens, queries, commits and closes exactly as it does (same sessions, same
transactions); only its ``create_engine`` returns the run's engine, whose ``dispose`` waits for
the end of the run.  SQLAlchemy engines are made to be shared by threads: each session checks a
connection out of the pool and returns it on close.

nbgrader has no setting for this, so it is done by replacing the ``create_engine`` name that
``nbgrader.api`` looks up (the only one of its calls), and only inside ``grade``, which owns its
process; plain ``nbgrader autograde`` is untouched.  ``tests/unit/autograder/grading/test_gradebook.py``
fails if nbgrader stops creating its engine that way.
"""

from __future__ import annotations

import contextlib
import threading


@contextlib.contextmanager
def shared_engines():
    """Within the block, every nbgrader ``Gradebook`` of one database URL uses one engine."""
    import nbgrader.api  # here: nbgrader and SQLAlchemy take a while to import

    create = nbgrader.api.create_engine
    engines: dict[tuple, object] = {}
    lock = threading.Lock()

    def create_engine(url, *args, **kwargs):
        key = (str(url), repr(args), repr(sorted(kwargs.items())))
        with lock:
            if key not in engines:
                engine = create(url, *args, **kwargs)
                engine.dispose = lambda *_, **__: None  # nbgrader's close(); disposed at the end
                engines[key] = engine
            return engines[key]

    nbgrader.api.create_engine = create_engine
    try:
        yield engines
    finally:
        nbgrader.api.create_engine = create
        for engine in engines.values():
            del engine.dispose  # the class's own again
            engine.dispose()
