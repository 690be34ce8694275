"""The pure part of a report: a topic's spread over the submitted runs and the plot's bars."""

from __future__ import annotations

from evaluation.reports.core import PLOT_HEIGHT, bar_shapes, median_bars, spread


def test_the_median_of_an_even_count_is_the_mean_of_the_two_middle_values_and_undefined_ones_are_left_out():
    assert spread([0.1, 0.4, None, 0.2, 0.9]) == (0.9, 0.30000000000000004, 0.1)
    assert spread([0.5, 0.1, 0.3]) == (0.5, 0.3, 0.1)
    assert spread([None]) is None


def test_bars_are_the_difference_from_the_median_in_topic_order_the_widest_reaching_the_edge():
    rows = {"10": {"AP": {"value": 0.2, "median": 0.4}}, "2": {"AP": {"value": 0.5, "median": 0.3}},
            "3": {"AP": {"value": None, "median": 0.3}}}  # fmt: skip
    bars = median_bars(rows, "AP")
    assert [topic for topic, _ in bars] == ["2", "3", "10"]
    shapes = {shape["topic"]: shape for shape in bar_shapes(bars)}
    assert shapes["2"]["above"] and shapes["2"]["height"] == PLOT_HEIGHT / 2  # +0.2, as wide as -0.2
    assert not shapes["10"]["above"] and shapes["10"]["y"] == PLOT_HEIGHT / 2
    assert shapes["3"]["height"] == 0.0  # undefined: no bar
