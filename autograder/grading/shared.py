"""The cells every submission of a notebook shares: the handed-out cells before the first graded
or answer cell (the lesson's setup and demos).  They run once, in a warm server of their own
(``template_server``), and each student's kernel starts right after them (see execute.py).

Kept apart from execute.py, which imports nbgrader: ``grade`` starts these servers before nbgrader
has finished importing."""

from __future__ import annotations

from ..sandbox.client import template_server


def shared_cells(released) -> list:
    """The handed-out cells before the first graded or answer cell: the same in every submission."""
    shared = []
    for cell in released.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") or meta.get("solution") or meta.get("task"):
            break
        shared.append(cell)
    return shared


def warm_up(released) -> None:
    """Start the server for a released notebook's shared cells ahead of the first submission."""
    shared = shared_cells(released)
    if any(c.cell_type == "code" for c in shared):
        template_server([c.source for c in shared if c.cell_type == "code"])
