"""graders/colour_difference.py: the content of two images compared in colour (CIEDE2000)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from pytest_visioneval.graders.colour_difference import (
    content_difference,
    delta_e,
    hex_colour,
    shifted,
    to_lab,
    whole_image_shift,
)


def badge(colour: tuple[int, int, int] = (37, 99, 235), size: tuple[int, int] = (300, 300)) -> Image.Image:
    """A small coloured badge with dark text-like bars on a large white canvas."""
    image = Image.new("RGB", size, (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((20, 20, 90, 60), radius=6, fill=colour)
    draw.rectangle((20, 80, 120, 86), fill=(40, 40, 40))
    return image


def test_hex_and_lab_helpers() -> None:
    assert hex_colour((13, 148, 136)) == "#0d9488"
    assert hex_colour(np.array([300.0, -4.0, 127.6])) == "#ff0080"
    white, black = to_lab(np.array([[[255.0, 255.0, 255.0]]])), to_lab(np.zeros((1, 1, 3)))
    assert white[0, 0, 0] == pytest.approx(100, abs=0.01) and black[0, 0, 0] == pytest.approx(0, abs=0.01)
    assert delta_e(white, black)[0, 0] == pytest.approx(100, abs=0.01)


def test_shifted_moves_and_fills_from_the_edge() -> None:
    pixels = np.arange(16, dtype=np.float32).reshape(4, 4, 1).repeat(3, axis=2)
    moved = shifted(pixels, 1, -1)
    assert moved[1, 0, 0] == pixels[0, 1, 0]  # content moved down by 1 and left by 1
    assert moved[0, 0, 0] == pixels[0, 1, 0]  # the uncovered top row repeats the edge
    assert shifted(pixels, 0, 0) is pixels


def test_whole_image_shift_is_found_and_bounded() -> None:
    target = np.asarray(badge(), np.float32)
    moved = shifted(target, 2, -3)
    assert whole_image_shift(moved, target, 0.02) == (-2, 3)
    assert whole_image_shift(shifted(target, 9, 0), target, 0.02) == (0, 0)  # 9 px > 2% of 300: not a misalignment
    plain = np.full_like(target, 200)
    assert whole_image_shift(plain, target, 0.02) == (0, 0)


def test_identical_and_legitimate_images_do_not_differ() -> None:
    same = content_difference(badge(), badge())
    assert same.changed == 0 and same.mean_delta_e == 0 and same.output_colour == ""
    lifted = Image.fromarray(np.clip(np.asarray(badge(), np.int16) - 8, 0, 255).astype(np.uint8))
    assert content_difference(lifted, badge()).changed == 0


def test_white_space_does_not_dilute_a_recolour() -> None:
    green = badge((22, 163, 74))
    mad = np.abs(np.asarray(green, np.float32) - np.asarray(badge(), np.float32)).mean() / 255
    difference = content_difference(green, badge())
    assert mad < 0.02  # the mean pixel difference hardly moves
    assert 0.5 < difference.changed < 1.0  # the badge (most of the content) changed; the bar did not
    assert 0.02 < difference.content < 0.1
    assert difference.output_colour == "#16a34a" and difference.target_colour == "#2563eb"


def test_plain_images_compare_every_pixel() -> None:
    grey, black = Image.new("RGB", (32, 32), (51, 51, 51)), Image.new("RGB", (32, 32), (0, 0, 0))
    difference = content_difference(grey, black)
    assert difference.content == 1.0 and difference.changed == 1.0
    assert difference.mean_delta_e > 10
