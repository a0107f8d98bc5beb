"""Occlusion mutants of an output image: an opaque patch or a translucent veil over part of it."""

from __future__ import annotations

import random

import numpy as np
from PIL import Image

from . import seen_by
from .base import Family, MutantClass, NotApplicable, Subject, Variant

FAMILY = "occlusion"


def occlusion(subject: Subject) -> Family:
    image = subject.rgb
    if image is None:
        return [], [NotApplicable(FAMILY, "the known-good output holds no image that decodes")]
    seen = seen_by.COMPARISON  # a text gate sees a patch only where it happens to cover the text
    return [
        MutantClass(FAMILY, "patch", True, "all of the picture visible", seen, lambda rng: _patch(subject, image, rng)),
        MutantClass(FAMILY, "veil", True, "all of the picture visible", seen, lambda rng: _veil(subject, image, rng)),
    ], []


def random_box(size: tuple[int, int], rng: random.Random, low: float, high: float) -> tuple[int, int, int, int]:
    """A box covering a random ``low``-``high`` share of the image, of a random shape, at a random place."""
    width, height = size
    area = rng.uniform(low, high) * width * height
    ratio = rng.uniform(0.5, 2.0)
    box_w = int(min(width, max(2, (area * ratio) ** 0.5)))
    box_h = int(min(height, max(2, area / box_w)))
    left, top = rng.randint(0, width - box_w), rng.randint(0, height - box_h)
    return left, top, left + box_w, top + box_h


def _patch(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    box = random_box(image.size, rng, 0.08, 0.25)
    colour = tuple(rng.randint(0, 255) for _ in range(3))
    covered = image.copy()
    covered.paste(colour, box)  # type: ignore[arg-type]
    share = (box[2] - box[0]) * (box[3] - box[1]) / (image.width * image.height)
    params = {"box": list(box), "colour": list(colour)}
    return Variant(params, f"an opaque patch over {share:.0%} of the output at {box}", subject.with_image(covered))


def _veil(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    box = random_box(image.size, rng, 0.2, 0.5)
    opacity = round(rng.uniform(0.55, 0.85), 2)
    shade = rng.choice((0, 255))
    pixels = np.asarray(image, dtype=np.float32).copy()
    left, top, right, bottom = box
    pixels[top:bottom, left:right] = pixels[top:bottom, left:right] * (1 - opacity) + shade * opacity
    params = {"box": list(box), "opacity": opacity, "shade": shade}
    what = "dark" if shade == 0 else "light"
    return Variant(
        params, f"a {what} veil of opacity {opacity} over {box}", subject.with_image(Image.fromarray(pixels.astype(np.uint8)))
    )
