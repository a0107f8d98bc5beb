"""graders/local_changes.py: local changes found past re-encoding noise and counted at their full area."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from skimage import data

from pytest_visioneval.graders.local_changes import change_map, local_changes


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    return np.asarray(data.chelsea()[:200, :200], dtype=np.float32)


def jpeg(pixels: np.ndarray, quality: int) -> np.ndarray:
    out = io.BytesIO()
    Image.fromarray(pixels.astype(np.uint8)).save(out, "JPEG", quality=quality)
    return np.asarray(Image.open(out).convert("RGB"), dtype=np.float32)


@pytest.mark.parametrize("quality", [60, 75, 95])
def test_jpeg_changes_nothing(photo: np.ndarray, quality: int) -> None:
    assert not change_map(photo, jpeg(photo, quality), 24).changed.any()


def test_specks_count_at_their_full_area(photo: np.ndarray) -> None:
    specked = photo.copy()
    corners = [(20 + 30 * i, 15 + 40 * j) for i in range(5) for j in range(4)]
    for y, x in corners:
        specked[y : y + 3, x : x + 3] = (0, 255, 0)
    found = change_map(photo, specked, 24)
    assert int(found.changed.sum()) == 9 * len(corners)  # not the single centre pixel a 1-px match leaves
    changes = local_changes(found.changed)
    assert len(changes) == len(corners) and {c.area for c in changes} == {9}


def test_nearby_strokes_are_one_change() -> None:
    changed = np.zeros((40, 40), dtype=bool)
    changed[10:20, 10] = True  # two strokes of a letter, 2 px apart
    changed[10:20, 13] = True
    changed[30, 30] = True  # a speck far away
    changes = local_changes(changed)
    assert [c.area for c in changes] == [20, 1]
    assert changes[0].box == (10, 10, 14, 20)
    assert local_changes(np.zeros((5, 5), dtype=bool)) == []


def test_a_colour_change_of_the_same_brightness_is_found(photo: np.ndarray) -> None:
    recoloured = photo.copy()
    patch = recoloured[50:70, 50:70]
    recoloured[50:70, 50:70] = patch[..., [2, 1, 0]]  # red and blue swapped: brightness about the same
    found = change_map(photo, recoloured, 24)
    assert found.changed[52:68, 52:68].mean() > 0.5
