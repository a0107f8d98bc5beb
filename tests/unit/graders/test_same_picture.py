"""graders/same_picture.py: transformed copies are explained; another picture of the same thing is not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageOps

from pytest_visioneval.graders.same_picture import SIDE, _sample, _Window, best_match, explained_share, thumbnail

REFS = Path(__file__).resolve().parents[3] / "cases" / "productwebgen" / "refs"
MUG = Image.open(REFS / "harbor-mug" / "mug.png").convert("RGB")


def _textured(seed: int) -> Image.Image:
    """A busy seeded picture: soft random colour blobs, where a crop window a few pixels off no longer fits."""
    from scipy import ndimage

    noise = np.random.default_rng(seed).uniform(0, 255, (96, 96, 3))
    blobs = ndimage.gaussian_filter(noise, (3, 3, 0))
    stretched = (blobs - blobs.min()) / np.ptp(blobs) * 255
    return Image.fromarray(stretched.astype(np.uint8)).resize((384, 384), Image.Resampling.BICUBIC)


def _cropped(image: Image.Image, side_x: float, side_y: float, at_x: float, at_y: float) -> Image.Image:
    width, height = round(image.width * side_x), round(image.height * side_y)
    left, top = round((image.width - width) * at_x), round((image.height - height) * at_y)
    return image.crop((left, top, left + width, top + height)).resize(image.size)


def _hue_turned(image: Image.Image, degrees: int) -> Image.Image:
    hue, saturation, value = image.convert("HSV").split()
    return Image.merge("HSV", (hue.point(lambda h: (h + degrees * 256 // 360) % 256), saturation, value)).convert("RGB")


def test_a_mirrored_copy_is_explained_mirrored() -> None:
    match = best_match(thumbnail(MUG), thumbnail(ImageOps.mirror(MUG)))
    assert match.how == "mirrored" and match.share > 0.99


def test_a_grey_copy_is_explained_by_a_colour_shift() -> None:
    match = best_match(thumbnail(MUG), thumbnail(ImageOps.grayscale(MUG).convert("RGB")))
    assert match.how == "as it is" and match.share > 0.95


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    ("side_x", "side_y", "at_x", "at_y"), [(0.7, 0.55, 0.2, 0.9), (0.9, 0.68, 1.0, 0.0), (0.55, 0.7, 0.5, 0.5)]
)
def test_a_crop_of_a_busy_picture_is_located(seed: int, side_x: float, side_y: float, at_x: float, at_y: float) -> None:
    picture = _textured(seed)
    match = best_match(thumbnail(picture), thumbnail(_cropped(picture, side_x, side_y, at_x, at_y)))
    assert match.share > 0.98 and match.cropped
    assert match.how.startswith("as it is, cropped to ")
    found_x, found_y = (float(side.rstrip("%")) / 100 for side in match.how.split("cropped to ")[1].split(" x "))
    assert abs(found_x - side_x) <= 0.03 and abs(found_y - side_y) <= 0.03


@pytest.mark.parametrize("degrees", [30, 90, 180, 300])
def test_a_hue_turn_keeps_the_picture(degrees: int) -> None:
    for picture in (MUG, _textured(3)):
        match = best_match(thumbnail(picture), thumbnail(_hue_turned(picture, degrees)))
        assert match.how == "as it is" and match.share > 0.97


def test_a_turned_hue_turned_crop_is_found() -> None:
    picture = _textured(4)
    copy = ImageOps.flip(_cropped(_hue_turned(picture, 150), 0.75, 0.65, 0.9, 0.2))
    match = best_match(thumbnail(picture), thumbnail(copy))
    assert match.share > 0.95
    assert match.how.startswith("flipped, cropped to 7")


def test_a_crop_stretched_beyond_max_stretch_is_no_crop() -> None:
    """A window 1.6 times wider than high, scaled back to a square: shapes distorted past what counts as a crop."""
    picture = _textured(7)
    match = best_match(thumbnail(picture), thumbnail(_cropped(picture, 0.9, 0.55, 0.5, 0.5)))
    assert match.share < 0.9


def test_a_new_shot_of_the_product_is_not_explained() -> None:
    shot = Image.open(REFS / "harbor-mug" / "showcase-1.png").convert("RGB")
    assert best_match(thumbnail(MUG), thumbnail(shot)).share < 0.9


def test_another_busy_picture_is_not_explained() -> None:
    assert best_match(thumbnail(_textured(5)), thumbnail(_textured(6))).share < 0.5


def test_explained_share_of_a_flat_copy() -> None:
    flat = np.zeros((8, 8, 7))
    assert explained_share(flat, flat) == 1.0
    assert explained_share(flat, flat + np.eye(8)[..., None]) == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_a_strided_sample_is_the_whole_sample_strided(seed: int) -> None:
    # The refinement samples every second point only; it must see exactly the values the whole sample has there.
    rng = np.random.default_rng(seed)
    picture = rng.random((2 * SIDE, 2 * SIDE, 3)).astype(np.float32)
    top, left = rng.uniform(0, SIDE / 2, 2)
    window = _Window((top, left, top + rng.uniform(SIDE / 3, SIDE / 2), left + rng.uniform(SIDE / 3, SIDE / 2)))
    for scale in (1, 2):
        whole = _sample(picture, window, scale=scale)
        assert whole.shape == (SIDE, SIDE, 3)
        assert np.array_equal(_sample(picture, window, scale=scale, step=2), whole[::2, ::2])
