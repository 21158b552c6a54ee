"""How the explorers show a number to people (one format, shared by every lesson's explorer)."""

from __future__ import annotations


def format_value(value: float | None) -> str:
    """Format a gradient or weight for people: ``None``, ``-8.0``, ``0.8``.

    Six significant digits hide float noise such as ``0.8000000000000002``, an
    integral value keeps a ``.0`` so it still reads as a float, and ``-0.0`` is
    shown as ``0.0`` because the sign of zero is not part of this lesson.
    """
    if value is None:
        return "None"
    text = f"{value + 0.0:.6g}"
    if text.lstrip("-").isdigit():
        text += ".0"
    return text
