"""graders/plain_marks.py: a local change on a plain part of the input is a mark; on detail, or faint, it is not."""

from __future__ import annotations

import numpy as np

from pytest_visioneval.graders.local_changes import Change
from pytest_visioneval.graders.plain_marks import MARK_CONTRAST, PLAIN_RANGE, plain_marks

SIDE = 64


def wall(level: float = 200.0) -> np.ndarray:
    return np.full((SIDE, SIDE, 3), level, dtype=np.float32)


def with_l_mark(pixels: np.ndarray, x: int, y: int, ink: float) -> np.ndarray:
    """A 6 px "L" (two 1 px strokes) at (x, y): what a stray letter is at this size."""
    out = pixels.copy()
    out[y : y + 6, x] = ink
    out[y + 5, x : x + 6] = ink
    return out


L_CHANGE = Change(11, (20, 20, 26, 26))


def test_a_dark_letter_on_a_plain_wall_is_a_mark() -> None:
    before = wall()
    marks = plain_marks([L_CHANGE], before, with_l_mark(before, 20, 20, ink=20))
    assert [mark.change for mark in marks] == [L_CHANGE]
    assert marks[0].contrast == 180


def test_a_gentle_gradient_is_still_plain() -> None:
    ramp = np.linspace(150, 150 + PLAIN_RANGE * 0.9, SIDE, dtype=np.float32)
    before = np.repeat(np.repeat(ramp[None, :, None], SIDE, axis=0), 3, axis=2)
    # The ramp climbs 0.9 x PLAIN_RANGE over the whole width: far less over the mark's box.
    assert plain_marks([L_CHANGE], before, with_l_mark(before, 20, 20, ink=20))


def test_the_same_change_on_detail_is_not_a_mark() -> None:
    before = wall()
    before[::2, :, :] = 90  # stripes: the input has detail where the change is
    assert plain_marks([L_CHANGE], before, with_l_mark(before, 20, 20, ink=20)) == []


def test_detail_just_beside_the_change_makes_it_not_plain() -> None:
    before = wall()
    before[20:26, 27] = 60  # an edge one pixel right of the box, inside the margin
    assert plain_marks([L_CHANGE], before, with_l_mark(before, 20, 20, ink=20)) == []


def test_a_faint_change_is_not_a_mark() -> None:
    before = wall()
    faint = with_l_mark(before, 20, 20, ink=200 - (MARK_CONTRAST - 1))
    assert plain_marks([L_CHANGE], before, faint) == []


def test_a_change_of_a_pixel_or_two_is_noise() -> None:
    before = wall()
    speck = before.copy()
    speck[30, 30] = 0
    assert plain_marks([Change(1, (30, 30, 31, 31))], before, speck) == []


def test_marks_come_largest_first() -> None:
    before = wall()
    after = with_l_mark(before, 20, 20, ink=20)
    after[40:45, 40:45] = 0
    square = Change(25, (40, 40, 45, 45))
    assert [mark.change for mark in plain_marks([L_CHANGE, square], before, after)] == [square, L_CHANGE]


def test_a_change_next_to_the_edit_is_not_a_mark() -> None:
    # The edit blends into the pixels just outside it; a mark farther out is still one.
    before = wall()
    edit = np.zeros((SIDE, SIDE), dtype=bool)
    edit[:, :18] = True  # 2 px left of the "L"
    after = with_l_mark(before, 20, 20, ink=20)
    assert plain_marks([L_CHANGE], before, after, edit) == []
    edit[:, :18] = False
    edit[:, :14] = True  # 6 px away
    assert plain_marks([L_CHANGE], before, after, edit)
