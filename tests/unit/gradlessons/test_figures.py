"""Axis limits that show their extreme points whole (issue 35: lesson 4's 0 MB markers were cut in half)."""

from __future__ import annotations

import pytest

from gradlessons.figures import MARGIN, padded_range


def test_the_range_reaches_past_both_extreme_points():
    low, high = padded_range([2.0, 5.0, 3.0])
    assert (low, high) == pytest.approx((2.0 - 3 * MARGIN, 5.0 + 3 * MARGIN))


def test_a_point_to_include_counts_as_an_extreme_point():
    low, high = padded_range([1.44, 0.0], include=(0.0,), above=0.2)
    assert low < 0.0 < 1.44 < high
    assert low == pytest.approx(-MARGIN * 1.44) and high == pytest.approx(1.44 * 1.2)


def test_equal_values_get_a_range_around_them():
    assert padded_range([0.0, 0.0]) == pytest.approx((-MARGIN, MARGIN))
    low, high = padded_range([4.0])
    assert low < 4.0 < high


def test_no_values_give_a_unit_range():
    assert padded_range([]) == (0.0, 1.0)
