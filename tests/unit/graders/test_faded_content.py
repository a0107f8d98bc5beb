"""graders/faded_content.py: content shown with a fraction of its contrast, as under a veil, is faded; copies are not."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_visioneval.graders.faded_content import FADED_RATIO, TILE, fading


def page() -> np.ndarray:
    """A 128x192 light page with rows of dark text-like strokes."""
    pixels = np.full((192, 128, 3), 246.0)
    for top in range(16, 180, 20):
        for left in range(10, 118, 9):
            pixels[top : top + 8, left : left + 4] = 40
    return pixels


def veiled(pixels: np.ndarray, box: tuple[int, int, int, int], opacity: float, shade: float) -> np.ndarray:
    left, top, right, bottom = box
    out = pixels.copy()
    out[top:bottom, left:right] = out[top:bottom, left:right] * (1 - opacity) + shade * opacity
    return out


@pytest.mark.parametrize("shade", [0.0, 255.0])
def test_a_veil_over_content_fades_the_tiles_it_covers(shade: float) -> None:
    target = page()
    found = fading(veiled(target, (40, 60, 120, 150), 0.6, shade), target)
    assert found.faded >= 8
    assert found.box is not None
    x0, y0, x1, y1 = found.box
    assert 40 / 128 - 0.07 <= x0 and x1 <= 120 / 128 + 0.07
    assert 60 / 192 - 0.05 <= y0 and y1 <= 150 / 192 + 0.05


def test_the_same_page_moved_brightened_or_softened_fades_nothing() -> None:
    from scipy import ndimage

    target = page()
    moved = np.roll(target, (2, -2), axis=(0, 1))
    brighter = np.clip(target + 5, 0, 255)
    softer = ndimage.gaussian_filter(target, (0.7, 0.7, 0))
    for copy in (target, moved, brighter, softer):
        assert fading(copy, target).faded == 0


def test_a_light_veil_too_weak_to_fade_is_not_counted() -> None:
    target = page()
    assert fading(veiled(target, (40, 60, 120, 150), 1 - FADED_RATIO - 0.15, 255.0), target).faded == 0


def test_a_plain_area_has_no_content_to_fade() -> None:
    target = np.full((96, 96, 3), 200.0)
    found = fading(veiled(target, (0, 0, 96, 96), 0.8, 0.0), target)
    assert (found.faded, found.content) == (0, 0)
    assert TILE < 96


def test_content_set_elsewhere_is_layout_not_fading() -> None:
    # A row of strokes moved 10 px down leaves its old place plain: unlike the reference there, not a weaker copy.
    target = page()
    moved = target.copy()
    moved[70:100] = 246.0
    moved[80:110] = target[70:100]
    assert fading(moved, target).faded == 0


def test_an_image_thinner_than_a_tile_is_compared_in_one_short_row() -> None:
    # A 2000x50 banner is 256x6 at the working size: the tiles are cut to the image, not read past it.
    banner = page()[:6]
    assert fading(banner, banner).faded == 0
    tiny = np.full((3, 3, 3), 255.0)
    assert fading(tiny, tiny) == fading(tiny, tiny.copy())
