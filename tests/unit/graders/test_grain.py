"""graders/grain.py: grain an output adds where its input is smooth; copies and new content add none."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from pytest_visioneval.graders.grain import grain_added


def wall() -> np.ndarray:
    """A 96x128 smooth gradient (a wall, a sky) with one dark sharp-edged block."""
    x = np.linspace(0, 1, 96)[None, :, None]
    pixels = np.broadcast_to(150 + 60 * x, (128, 96, 3)).copy()
    pixels[40:70, 30:60] = 40.0
    return pixels


def noisy(pixels: np.ndarray, sigma: float, seed: int = 0) -> np.ndarray:
    return np.clip(pixels + np.random.default_rng(seed).normal(0, sigma, pixels.shape), 0, 255)


def jpeg(pixels: np.ndarray, quality: int) -> np.ndarray:
    out = io.BytesIO()
    Image.fromarray(pixels.astype(np.uint8)).save(out, "JPEG", quality=quality)
    return np.asarray(Image.open(io.BytesIO(out.getvalue())).convert("RGB"), dtype=np.float64)


EVERYWHERE = np.ones((128, 96), dtype=bool)


@pytest.mark.parametrize("sigma", [10, 25, 50])
def test_noise_over_the_picture_adds_grain_that_grows_with_it(sigma: float) -> None:
    base = wall()
    added = grain_added(base, noisy(base, sigma), EVERYWHERE)
    assert added is not None and added >= 0.35 * sigma


def test_copies_and_new_content_add_no_grain() -> None:
    base = wall()
    with_text = base.copy()
    with_text[10:18, 10:80:4] = 20.0  # a line of strokes on a smooth part
    for copy in (base, jpeg(base, 60), jpeg(base, 90), np.clip(base + 5, 0, 255), with_text):
        added = grain_added(base, copy, EVERYWHERE)
        assert added is not None and added < 1.0


def test_an_input_already_grainy_is_the_baseline() -> None:
    grainy = noisy(wall(), 3)
    same_grain = noisy(wall(), 3, seed=1)
    assert grain_added(grainy, grainy, EVERYWHERE) == 0.0
    assert (grain_added(grainy, same_grain, EVERYWHERE) or 0.0) < 1.0


def test_too_little_smooth_area_says_nothing() -> None:
    base = wall()
    small = np.zeros((128, 96), dtype=bool)
    small[:10, :10] = True
    assert grain_added(base, noisy(base, 30), small) is None
