"""graders/canvas_extent.py: the share of the canvas an image's content spans."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from pytest_visioneval.graders.canvas_extent import EMPTY, background, border_colour, content_extent, extent_of, flat_background


def drawing(box: tuple[int, int, int, int], canvas: tuple[int, int, int] = (255, 255, 255)) -> Image.Image:
    image = Image.new("RGB", (512, 256), canvas)
    ImageDraw.Draw(image).rectangle(box, fill=(30, 30, 30))
    return image


def test_the_box_around_the_content_as_shares_of_the_canvas() -> None:
    extent = content_extent(drawing((128, 64, 383, 191)))  # half the width, half the height
    assert extent.width == pytest.approx(0.5, abs=0.01) and extent.height == pytest.approx(0.5, abs=0.01)
    assert extent.box == pytest.approx((0.25, 0.25, 0.75, 0.75), abs=0.01)
    assert extent.describe() == "50% x 50%"


def test_an_empty_canvas_has_no_extent() -> None:
    assert content_extent(Image.new("RGB", (64, 64), (10, 200, 30))) == EMPTY


def test_the_background_is_the_colour_of_the_edges_not_of_most_pixels() -> None:
    # the dark block covers 80% of the picture, yet the white edges are the background
    image = drawing((26, 13, 485, 242))
    assert background(image) == pytest.approx([255, 255, 255], abs=1)
    assert content_extent(image).width == pytest.approx(0.9, abs=0.01)


def test_border_colour_survives_a_stripe_along_one_edge() -> None:
    pixels = np.full((256, 256, 3), 240.0, dtype=np.float32)
    pixels[:, :1] = 0  # a 1-px stripe left by a shift
    assert border_colour(pixels) == pytest.approx([240, 240, 240])


def test_blends_of_two_backgrounds_are_not_content() -> None:
    # a cream panel on white: its resampled edge is a mix of the two, not content
    pixels = np.full((100, 100, 3), 255.0, dtype=np.float32)
    pixels[20:80, 20:80] = (245, 236, 200)
    pixels[19, 20:80] = (250, 245, 228)  # the blended edge
    pixels[45:55, 40:60] = (30, 30, 30)  # what is on the panel
    white, cream = np.array([255.0, 255, 255]), np.array([245.0, 236, 200])
    assert extent_of(pixels, [white]).box == pytest.approx((0.2, 0.19, 0.8, 0.8))
    assert extent_of(pixels, [white, cream]).box == pytest.approx((0.4, 0.45, 0.6, 0.55))


def test_the_largest_channel_is_numpys_maximum_over_the_last_axis() -> None:
    from pytest_visioneval.graders.imaging import largest_channel

    pixels = np.random.default_rng(3).uniform(-255, 255, size=(37, 53, 3)).astype(np.float32)
    assert np.array_equal(largest_channel(pixels), pixels.max(axis=2))


def test_an_extent_of_the_reduced_pixels_is_the_extent_of_the_image() -> None:
    from pytest_visioneval.graders.canvas_extent import content_extent_of, flat_background_of
    from pytest_visioneval.graders.imaging import downscaled

    canvas = Image.new("RGB", (400, 300), "white")
    canvas.paste(Image.new("RGB", (120, 90), (20, 90, 200)), (50, 40))
    reduced = downscaled(canvas)
    assert content_extent_of(reduced) == content_extent(canvas)
    assert np.array_equal(flat_background_of(reduced), flat_background(canvas))
