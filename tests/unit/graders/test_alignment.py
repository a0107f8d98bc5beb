"""graders/alignment.py: a whole-image shift, tone drift and softening measured over the kept pixels."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage
from skimage import data

from pytest_visioneval.graders.alignment import (
    NO_SHIFT,
    Shift,
    Tone,
    estimate_shift,
    fit_tone,
    inner,
    match_sharpness,
    undo_shift,
)


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    """scikit-image's astronaut, 256x256: a photo with edges, texture and flat areas."""
    return np.asarray(data.astronaut()[::2, ::2], dtype=np.float32)


@pytest.fixture(scope="module")
def keep() -> np.ndarray:
    """Everything but a 90x70 edit."""
    kept = np.ones((256, 256), dtype=bool)
    kept[60:130, 100:190] = False
    return kept


def edited(pixels: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The edit: the area's channels rotated (as unlike the input as a recolour)."""
    return np.where(keep[..., None], pixels, pixels[..., [2, 0, 1]])


@pytest.mark.parametrize(("dx", "dy"), [(2.0, 0.0), (0.0, -3.0), (1.5, 2.5)])
def test_estimate_shift_finds_the_shift_of_the_kept_pixels(photo: np.ndarray, keep: np.ndarray, dx: float, dy: float) -> None:
    moved = ndimage.shift(edited(photo, keep), (dy, dx, 0), order=1, mode="nearest")
    found = estimate_shift(photo, moved, keep)
    assert found.dx == pytest.approx(dx, abs=0.25) and found.dy == pytest.approx(dy, abs=0.25)


def test_estimate_shift_is_none_for_an_unmoved_output(photo: np.ndarray, keep: np.ndarray) -> None:
    assert estimate_shift(photo, edited(photo, keep), keep) == NO_SHIFT


def test_estimate_shift_does_not_trust_an_unrelated_image(photo: np.ndarray, keep: np.ndarray) -> None:
    other = np.asarray(data.coffee()[:256, :256], dtype=np.float32)
    # whatever the correlation's peak, it must make the kept pixels agree better than no shift
    found = estimate_shift(photo, other, keep)
    assert found == NO_SHIFT or found.length < 64


def test_undo_shift_puts_the_output_back_on_the_input_grid(photo: np.ndarray) -> None:
    moved = np.roll(photo, (3, -2), axis=(0, 1))
    back = undo_shift(moved, Shift(-2.0, 3.0))
    core = inner(photo.shape, Shift(-2.0, 3.0).border)
    assert np.abs(back - photo)[core].max() == 0
    assert undo_shift(photo, NO_SHIFT) is photo


def test_shift_border() -> None:
    assert NO_SHIFT.border == 0
    assert Shift(2.0, 0.0).border == 3
    assert Shift(0.3, -1.4).border == 3


def test_fit_tone_recovers_gain_and_offset_despite_a_local_change(photo: np.ndarray, keep: np.ndarray) -> None:
    brighter = np.clip(photo * np.asarray([1.03, 1.0, 0.98], dtype=np.float32) + 5, 0, 255)
    brighter[200:230, 20:60] = (255, 0, 255)  # a local change the fit must ignore
    tone = fit_tone(photo, edited(brighter, keep), keep)
    assert tone.gain == pytest.approx((1.03, 1.0, 0.98), abs=0.01)
    assert tone.offset == pytest.approx((5, 5, 5), abs=1.0)


def test_fit_tone_of_an_untouched_output_is_the_identity(photo: np.ndarray, keep: np.ndarray) -> None:
    tone = fit_tone(photo, edited(photo, keep), keep)
    assert tone.gain == pytest.approx((1, 1, 1), abs=1e-3) and tone.offset == pytest.approx((0, 0, 0), abs=0.1)


def test_fit_tone_gives_an_offset_only_for_a_flat_area() -> None:
    flat = np.full((64, 64, 3), 120, dtype=np.float32)
    tone = fit_tone(flat, flat - 20, np.ones((64, 64), dtype=bool))
    assert tone.gain == (1.0, 1.0, 1.0) and tone.offset == pytest.approx((-20, -20, -20))


def test_tone_apply_clips() -> None:
    tone = Tone((1.0, 1.0, 1.0), (20.0, 20.0, 20.0))
    assert tone.apply(np.asarray([[[250, 10, 0]]], dtype=np.float32)).tolist() == [[[255, 30, 20]]]


def test_match_sharpness(photo: np.ndarray, keep: np.ndarray) -> None:
    assert match_sharpness(photo, edited(photo, keep), keep) == 0.0
    softer = ndimage.gaussian_filter(photo, (0.8, 0.8, 0))
    assert match_sharpness(photo, edited(softer, keep), keep) == pytest.approx(0.8, abs=0.25)
