"""A notebook's kernel, as a job: what the ``kernel`` profile's server preloads, and its kernel job.

``preload`` imports what a notebook's kernel needs (ipykernel, IPython, ipywidgets, matplotlib,
torch, the course's helpers, and the checks test cells call: ``standins`` puts the job side's
``autograder.checks`` and ``autograder.i18n`` in place, since the grader's package is not here), and
with a template spec runs the cells of the lesson that every submission shares (the handed-out
cells before the first answer, trusted instructor code) in a plain IPython shell: each kernel forked
afterwards starts with their results in its namespace.  Then it seals the tamper watch
(``tamper.watch.seal``), before any job exists.

``main`` runs ipykernel for one notebook, on the connection file the grader wrote in the job's
folder.  The score job (``score_job.py``) runs from the same server, so it starts from the same
namespace.  What the kernel's environment holds (``NBGRADER_EXECUTION`` and the like) is the
grader's to say, in the request (``autograder/grading/kernel.py``); confine only applies it.
"""

from __future__ import annotations

import json
import os
import sys

from ..protocol import OUTPUT_LIMIT_EXIT

TEMPLATE: dict = {}  # {"shell": the shell that ran the shared cells, "work_dir": its folder, "cells": how many}


def preload(options: dict) -> None:
    """Import what every kernel imports, run the shared cells if asked, and seal the watch."""
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"  # what ipykernel sets
    import ipykernel.ipkernel  # noqa: F401
    import ipykernel.kernelapp  # noqa: F401
    import IPython  # noqa: F401
    import ipywidgets  # noqa: F401
    import matplotlib.font_manager  # noqa: F401  (builds the font list once)
    import matplotlib.pyplot  # noqa: F401  (picks its backend lazily, at the first figure)

    _warm_matplotlib()

    from . import standins

    standins.install()  # before any cell: a notebook's `import autograder.checks` finds the job side's
    import gradlessons  # noqa: F401

    from . import exercise_job, score_job  # noqa: F401  (the score job's own imports: the exercises, the records)

    exercise_job.warm_torch()
    if options.get("template"):
        run_template(options["template"])
    from ..tamper.watch import seal

    seal()  # every job compares with torch as it is now, before any student code


def _warm_matplotlib() -> None:
    """Draw one small figure to PNG, with a log axis (its tick labels are math text): the fonts,
    glyph caches and the math-text parser it builds are then inherited by every kernel, which
    would otherwise build them again for the lesson's first figure."""
    import io

    from matplotlib.figure import Figure

    figure = Figure(figsize=(2, 1.5))
    axes = figure.add_subplot()
    axes.semilogy([1, 2, 3], [1e-3, 1e-1, 10], label="warm")
    axes.set_title(r"$\|\nabla w\|$")
    axes.legend()
    figure.savefig(io.BytesIO(), format="png")


def template_dir(kind: str) -> str | None:
    """What the shared cells wrote, copied into each job's own folder before it is confined."""
    return TEMPLATE.get("work_dir")


def run_template(spec_path: str) -> None:
    """Run the shared cells once, here; every kernel forked afterwards inherits their results."""
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    os.makedirs(spec["work_dir"], exist_ok=True)
    here = os.getcwd()
    os.chdir(spec["work_dir"])
    quiet = open(os.devnull, "w")  # noqa: SIM115 - the outputs come from the first full run
    real = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = quiet
    try:
        shell = run_cells(spec["cells"])
        _precompute_lessons()
    finally:
        sys.stdout, sys.stderr = real
        os.chdir(here)
    TEMPLATE.update(shell=shell, work_dir=spec["work_dir"], cells=len(spec["cells"]))


def _precompute_lessons() -> None:
    """Let the lesson helpers the shared cells imported draw their fixed outputs now (a module's
    ``precompute()``), once for every kernel forked from here.  A failure costs only that time."""
    for name, module in list(sys.modules.items()):
        work = getattr(module, "precompute", None) if name.startswith("gradlessons.") else None
        if callable(work):
            try:
                work()
            except Exception:  # noqa: BLE001 - the notebook's own cell draws it again, and says why
                pass


def run_cells(cells: list[str]):
    """A plain IPython shell (no history, no GUI) that has run these trusted cells."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    class TemplateShell(InteractiveShell):
        def enable_gui(self, gui=None):
            pass  # `%matplotlib inline` asks for no event loop; a kernel's shell does the same

    config = Config()
    config.HistoryManager.enabled = False  # no history thread: this process forks
    shell = TemplateShell.instance(config=config)
    for number, source in enumerate(cells, start=1):
        result = shell.run_cell(source, store_history=False)
        if not result.success:
            error = result.error_in_exec or result.error_before_exec
            raise RuntimeError(f"shared cell {number} failed: {type(error).__name__}: {error}")
    return shell


def main(request: dict, limits, work: str) -> None:
    """Run ipykernel for one notebook.  Never returns."""
    from ipykernel.kernelapp import IPKernelApp

    if TEMPLATE:
        from IPython.core.interactiveshell import InteractiveShell

        namespace = TEMPLATE["shell"].user_ns
        type(TEMPLATE["shell"]).clear_instance()  # the kernel's shell takes over the shared namespace
        InteractiveShell.clear_instance()
        app = IPKernelApp.instance(user_ns=namespace)
    else:
        app = IPKernelApp.instance()
    # No history database: nothing reads it back, and it costs a write per cell.
    app.initialize(["-f", request["connection_file"], "--HistoryManager.enabled=False"])
    # A torch.py or sitecustomize.py handed in beside the notebook must not shadow real modules:
    # the working folder goes to the end of the search path instead of the front.
    sys.path[:] = [p for p in sys.path if p not in ("", work)] + [work]
    _limit_output(limits.output_bytes)
    if TEMPLATE:
        app.shell.execution_count = TEMPLATE["cells"] + 1  # numbering goes on after the shared cells
    if TEMPLATE and "matplotlib_inline.backend_inline" in sys.modules:
        # The shared cells switched inline figures on for the template's shell; now for this one.
        from matplotlib_inline.backend_inline import configure_inline_support

        configure_inline_support(app.shell, "module://matplotlib_inline.backend_inline")
    app.start()
    os._exit(0)


def _limit_output(limit: int) -> None:
    """End the kernel once it has printed more than ``limit`` bytes.  The grader also counts what
    arrives, every field of every message, but a print loop fills the kernel's buffer (and its
    memory) faster than the buffer is sent, so the kernel must stop itself, where the bytes are
    written."""
    from ipykernel.iostream import OutStream

    write = OutStream.write
    written = [0]

    def limited(self, string):
        written[0] += len(string) if isinstance(string, str) else 0
        if written[0] > limit:
            os._exit(OUTPUT_LIMIT_EXIT)
        return write(self, string)

    OutStream.write = limited
