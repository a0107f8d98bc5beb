"""graders/screen_drawn.py: what an output draws where the input and the expected next screen are both empty."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_visioneval.graders.screen_drawn import drawn_on_empty


def screen() -> np.ndarray:
    """A 128x256 list screen: a header band, three rows with a text-like bar each, an empty area below."""
    pixels = np.full((256, 128, 3), 246.0, dtype=np.float32)
    pixels[:24] = (37, 99, 235)
    for top in (40, 72, 104):
        pixels[top : top + 6, 30:100] = 40
        pixels[top + 24, :] = 220  # a divider
    return pixels


def test_a_block_on_the_empty_area_is_drawn() -> None:
    before = screen()
    after = before.copy()
    after[150:210, 10:60] = (13, 52, 156)
    drawn = drawn_on_empty(before, before.copy(), after)
    assert drawn is not None
    assert drawn.share == pytest.approx(60 * 50 / (256 * 128), rel=0.05)
    assert drawn.box == pytest.approx((10 / 128, 150 / 256, 60 / 128, 210 / 256), abs=0.02)


def test_what_the_reference_shows_there_is_not_drawn_on_empty() -> None:
    # The expected next screen has a toast there: an output drawing it, 2 px off, is not drawing on an empty area.
    before = screen()
    expected = before.copy()
    expected[200:230, 20:108] = 30
    after = before.copy()
    after[202:232, 22:110] = 30
    assert drawn_on_empty(before, expected, after) is None


@pytest.mark.parametrize(("dx", "dy"), [(2, 0), (0, 2), (-2, 1)])
def test_the_screen_moved_by_a_re_render_draws_nothing(dx: int, dy: int) -> None:
    before = screen()
    moved = np.roll(np.roll(before, dy, axis=0), dx, axis=1)
    assert drawn_on_empty(before, before.copy(), moved) is None


def test_a_faint_tint_is_not_drawn() -> None:
    before = screen()
    after = before.copy()
    after[150:210, 10:60] -= 30  # under the 48 of a drawn pixel
    assert drawn_on_empty(before, before.copy(), after) is None
