"""graders/colour_palette.py: an area's colours and their proportions, compared in CIEDE2000."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_visioneval.graders.colour_palette import (
    area_samples,
    colour_families,
    compare_palettes,
    flat_pixels,
    named_palette,
    palette_match,
    palette_of,
)

TEAL, RED, WHITE = (13, 148, 136), (220, 38, 38), (255, 255, 255)


def blocks(*parts: tuple[tuple[int, int, int], int]) -> np.ndarray:
    """Columns of flat colour side by side: (colour, width) each, 40 px high."""
    return np.concatenate([np.tile(np.array(colour, np.float32), (40, width, 1)) for colour, width in parts], axis=1)


def test_palette_weights_and_colours() -> None:
    palette = palette_of(area_samples(blocks((TEAL, 30), (WHITE, 10)), np.ones((40, 40), bool)))
    assert palette.weight.sum() == pytest.approx(1.0)
    assert (palette.weight > 0.05).sum() == 2  # teal and white; softening leaves a thin blend along their border
    heaviest = palette.rgb[int(np.argmax(palette.weight))]
    assert np.allclose(heaviest, TEAL, atol=0.5)


def test_edges_are_not_colours() -> None:
    pixels = blocks((TEAL, 20), (WHITE, 20))
    flat = flat_pixels(pixels)
    assert not flat[:, 19:21].any() and flat[:, :18].all() and flat[:, 22:].all()


def test_shades_of_one_colour_are_one_family() -> None:
    ramp = np.stack([np.linspace(60, 120, 200)] * 3, axis=1)  # greys in small steps
    two = np.concatenate([ramp, np.tile(np.array(RED, np.float64), (200, 1))])
    families = colour_families(palette_of(two), 6.0)
    grey = palette_of(ramp)
    assert len(set(colour_families(grey, 6.0))) == 1
    assert len(set(families)) == 2


def test_identical_areas_cover_fully() -> None:
    pixels = blocks((TEAL, 30), (WHITE, 10))
    area = np.ones((40, 40), bool)
    assert palette_match(pixels, area, pixels, area).coverage == pytest.approx(1.0)


def test_proportions_count() -> None:
    target = palette_of(area_samples(blocks((TEAL, 30), (RED, 30)), np.ones((40, 60), bool)))
    half = palette_of(area_samples(blocks((TEAL, 15), (RED, 45)), np.ones((40, 60), bool)))
    match = compare_palettes(half, target, 6.0)
    assert match.output_share == pytest.approx(1.0)  # every colour is one the target has ...
    assert match.coverage == pytest.approx(0.75, abs=0.03)  # ... but teal covers a quarter, not half
    assert match.short_colour == "#0d9488"
    assert match.short_output == pytest.approx(0.25, abs=0.03) and match.short_target == pytest.approx(0.5, abs=0.03)


def test_background_is_left_out_of_the_proportions() -> None:
    target = blocks((WHITE, 50), (TEAL, 10))
    other = blocks((WHITE, 50), (RED, 10))
    area = np.ones((40, 60), bool)
    plain = compare_palettes(palette_of(area_samples(other, area)), palette_of(area_samples(target, area)), 6.0)
    assert plain.coverage > 0.8  # white dominates both
    judged = palette_match(other, area, target, area)
    assert judged.coverage == pytest.approx(0.0, abs=0.02)
    assert judged.stray_colour == "#dc2626" and judged.stray_delta_e > 30


def test_listed_colours_without_proportions() -> None:
    output = palette_of(area_samples(blocks((TEAL, 30), (RED, 10)), np.ones((40, 40), bool)))
    match = compare_palettes(output, named_palette(["#0d9488", "#ffffff"]), 6.0, proportions=False)
    assert match.coverage == pytest.approx(0.75, abs=0.03)
    assert match.stray_colour == "#dc2626" and match.stray_nearest in ("#0d9488", "#ffffff")
