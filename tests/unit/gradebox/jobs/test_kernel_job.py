"""The kernel server's template: after the shared cells, the lesson helpers they imported draw
their fixed outputs once (``precompute``), for every kernel forked afterwards."""

from __future__ import annotations

import sys
import types

from gradebox.jobs import kernel_job as kernel


def test_precompute_once_or_skip(monkeypatch):
    calls = []
    drawn = types.ModuleType("gradlessons.drawn")
    drawn.precompute = lambda: calls.append("drawn")
    broken = types.ModuleType("gradlessons.broken")
    broken.precompute = lambda: 1 / 0
    elsewhere = types.ModuleType("not_a_lesson")
    elsewhere.precompute = lambda: calls.append("elsewhere")
    for module in (broken, drawn, elsewhere):
        monkeypatch.setitem(sys.modules, module.__name__, module)
    kernel._precompute_lessons()
    assert calls == ["drawn"]
