"""A pseudo-language for tests: every marked string of the packages comes out as ``⟦English⟧``.

A string the code shows without passing it through the catalogue comes out bare, so a test that
looks for ``⟦`` … ``⟧`` around every learner-facing sentence finds each unmarked one.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager

import autograder.i18n as grader_i18n
import course_i18n
import gradebox.i18n as i18n

PSEUDO = "xx"


@contextmanager
def pseudo_language(folder: str, packages: tuple[str, ...] = course_i18n.PACKAGES) -> Iterator[str]:
    """Inside the block, the packages speak the pseudo-language (catalogues compiled under ``folder``)."""
    made = course_i18n.compile_pseudo(packages, folder, PSEUDO)
    catalogues = [importlib.import_module(f"{package}.i18n").MESSAGES for package in packages]
    before = (i18n.LANGUAGES, [c.localedir for c in catalogues])
    # The language is gradebox.i18n's (checked there); the grader re-exports the list (its CLI's choices).
    i18n.LANGUAGES = grader_i18n.LANGUAGES = (*i18n.LANGUAGES, PSEUDO)
    for package, catalogue in zip(packages, catalogues):
        catalogue.localedir = made[package]
    i18n.translation.cache_clear()
    try:
        with i18n.speaking(PSEUDO):
            yield PSEUDO
    finally:
        i18n.LANGUAGES = grader_i18n.LANGUAGES = before[0]
        for catalogue, localedir in zip(catalogues, before[1]):
            catalogue.localedir = localedir
        i18n.translation.cache_clear()


def wrapped(text: str) -> bool:
    """``text`` holds at least one pseudo-translated piece."""
    return "⟦" in text and "⟧" in text
