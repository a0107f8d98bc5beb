"""graders/colour_shown.py: the share of an area in each named colour, and the nearest colour it shows."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_visioneval.graders.colour_palette import palette_of
from pytest_visioneval.graders.colour_shown import shown


def samples(parts: list[tuple[tuple[int, int, int], int]]) -> np.ndarray:
    return np.concatenate([np.tile(np.asarray(colour, dtype=np.float64), (count, 1)) for colour, count in parts])


def test_each_named_colour_gets_its_share() -> None:
    palette = palette_of(samples([((252, 250, 245), 800), ((180, 83, 9), 150), ((21, 128, 61), 50)]))
    amber, green, blue = shown(palette, ["#b45309", "#15803d", "#2563eb"], 6.0)
    assert amber.share == pytest.approx(0.15) and amber.nearest == "#b45309" and amber.nearest_delta_e < 0.5
    assert green.share == pytest.approx(0.05)
    assert blue.share == 0.0 and blue.nearest_delta_e > 6.0


def test_a_near_shade_counts_and_a_far_one_does_not() -> None:
    palette = palette_of(samples([((255, 255, 255), 900), ((186, 88, 14), 100)]))  # a few levels off amber
    (near,) = shown(palette, ["#b45309"], 6.0)
    assert near.share == pytest.approx(0.1)
    (far,) = shown(palette, ["#b45309"], 1.0)
    assert far.share == 0.0 and far.nearest == "#ba580e"
