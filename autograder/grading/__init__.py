"""Grading whole notebooks safely and fast, on nbgrader's own pipeline."""
