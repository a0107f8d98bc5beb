"""graders/softened_content.py: content shown blurred is softened, tile by tile; re-encodes and round trips are not."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image, ImageFilter

from pytest_visioneval.graders.softened_content import TILE, edge_energy, softening


def page(seed: int = 0, first_row: int = 12) -> np.ndarray:
    """A 192x256 light page with rows of dark text-like strokes of random widths, and a photo-like gradient band."""
    rng = np.random.default_rng(seed)
    pixels = np.full((256, 192, 3), 246.0)
    for top in range(first_row, 160, 18):
        left = 8
        while left < 180:
            width = int(rng.integers(2, 6))
            pixels[top : top + 9, left : left + width] = rng.integers(20, 90)
            left += width + int(rng.integers(2, 5))
    band = np.linspace(60, 200, 192)[None, :, None] + rng.normal(0, 18, (80, 192, 1))
    pixels[170:250] = np.clip(band, 0, 255)
    return pixels


def as_image(pixels: np.ndarray) -> Image.Image:
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))


def jpeg(pixels: np.ndarray, quality: int) -> np.ndarray:
    buffer = io.BytesIO()
    as_image(pixels).save(buffer, "JPEG", quality=quality)
    return np.asarray(Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"), dtype=np.float64)


def round_trip(pixels: np.ndarray, scale: float, method: Image.Resampling) -> np.ndarray:
    image = as_image(pixels)
    small = image.resize((round(image.width * scale), round(image.height * scale)), method)
    return np.asarray(small.resize(image.size, method), dtype=np.float64)


def blurred(pixels: np.ndarray, radius: float, box: tuple[int, int, int, int] | None = None) -> np.ndarray:
    image = as_image(pixels)
    if box is None:
        return np.asarray(image.filter(ImageFilter.GaussianBlur(radius)), dtype=np.float64)
    image.paste(image.crop(box).filter(ImageFilter.GaussianBlur(radius)), box)
    return np.asarray(image, dtype=np.float64)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("radius", [1.5, 2.5, 4.0])
def test_a_blurred_page_is_softened_almost_everywhere(seed: int, radius: float) -> None:
    target = page(seed)
    found = softening(blurred(target, radius), target)
    assert found.content >= 10
    assert found.share >= 0.9
    assert found.box is not None


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_re_encodes_round_trips_and_a_slight_blur_soften_almost_nothing(seed: int) -> None:
    target = page(seed)
    copies = [
        target,
        jpeg(target, 70),
        jpeg(target, 95),
        np.clip(target + 5, 0, 255),
        round_trip(target, 0.6, Image.Resampling.LANCZOS),
        round_trip(target, 0.7, Image.Resampling.BILINEAR),
        blurred(target, 0.5),
    ]
    for copy in copies:
        assert softening(copy, target).share <= 0.1


def test_a_blur_over_part_of_the_page_is_found_there() -> None:
    target = page()
    found = softening(blurred(target, 2.5, (0, 0, 192, 90)), target)
    assert 0.2 <= found.share <= 0.8
    assert found.box is not None
    _, y0, _, y1 = found.box
    assert y0 == 0 and y1 <= (90 + TILE) / 256


def test_other_content_is_not_compared() -> None:
    # Lines set between the reference's lines are not its content: those tiles do not count, blurred or not.
    target, other = page(0), page(5, first_row=21)
    other[170:250] = 246.0
    found = softening(blurred(other, 3.0), target)
    assert found.softened <= 0.2 * max(found.content, 1)


def test_a_plain_page_has_no_content_to_soften() -> None:
    target = np.full((96, 96, 3), 200.0)
    assert softening(target, target) == softening(blurred(target, 3), target)
    assert softening(target, target).content == 0
    assert softening(target, target).share == 0.0


def test_a_thin_image_is_compared_without_error() -> None:
    target = page()[:6]
    found = softening(blurred(target, 2), target)
    assert found.content >= 0


def test_edge_energy_counts_the_steps_to_both_neighbours() -> None:
    luma = np.array([[0.0, 10.0], [0.0, 0.0]])
    assert edge_energy(luma).tolist() == [[100.0, 100.0], [0.0, 0.0]]
