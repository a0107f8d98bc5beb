"""graders/screen_palette.py: a screen's colours, and the share of another screen in colours it lacks."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from pytest_visioneval.graders.screen_palette import new_colour_share, palette


def screen(header: tuple[int, int, int], scrim: float = 1.0) -> Image.Image:
    image = Image.new("RGB", (90, 160), (245, 246, 248))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 89, 19), fill=header)
    draw.rectangle((10, 40, 79, 60), fill=(255, 255, 255), outline=(200, 200, 205))
    return Image.fromarray((np.asarray(image, dtype=np.float32) * scrim).astype(np.uint8))


def test_shares_sum_to_one_and_a_flat_image_has_one_colour() -> None:
    assert palette(screen((40, 110, 230))).share.sum() == 1.0
    flat = palette(Image.new("RGB", (40, 40), (250, 250, 250)))
    assert flat.lab.shape == (1, 3) and list(flat.share) == [1.0]


def test_another_header_colour_is_new_and_a_scrim_is_not() -> None:
    blue = palette(screen((40, 110, 230)))
    assert new_colour_share(palette(screen((40, 110, 230))), blue, 12) == 0.0
    assert new_colour_share(palette(screen((40, 110, 230), scrim=0.5)), blue, 12) == 0.0  # a dimmed copy
    green = new_colour_share(palette(screen((30, 140, 80))), blue, 12)
    assert 0.1 < green < 0.15  # the header: 20 of 160 rows
