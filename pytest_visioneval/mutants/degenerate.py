"""Degenerate outputs: a transparent image, a white one with faint noise, the input again or with one pixel changed."""

from __future__ import annotations

import random

import numpy as np
from PIL import Image

from . import seen_by
from .base import Family, MutantClass, NotApplicable, Subject, Variant, jpeg

FAMILY = "degenerate"


def degenerate(subject: Subject) -> Family:
    image = subject.rgb
    if image is None:
        return [], [NotApplicable(FAMILY, "the known-good output holds no image that decodes")]
    made = [
        MutantClass(
            FAMILY, "transparent", True, "there is a picture", seen_by.ANY_GATE, lambda rng: _transparent(subject, image)
        ),
        MutantClass(FAMILY, "faint_noise", True, "there is a picture", seen_by.ANY_GATE, lambda rng: _faint(subject, image, rng)),
    ]
    skipped = []
    if subject.is_edit:
        seen = seen_by.COMPARISON | {"image"}
        made += [
            MutantClass(FAMILY, "input_copy", True, "the edit was made", seen, lambda rng: _input_copy(subject, rng)),
            MutantClass(FAMILY, "input_touched", True, "the edit was made", seen, lambda rng: _input_touched(subject, rng)),
        ]
    else:
        skipped.append(NotApplicable(f"{FAMILY}/input_copy", "not an edit of an input image"))
    return made, skipped


def _transparent(subject: Subject, image: Image.Image) -> Variant:
    empty = Image.new("RGBA", image.size, (0, 0, 0, 0))
    return Variant({}, "a fully transparent PNG of the same size", subject.with_image(empty))


def _faint(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    level = rng.randint(235, 252)
    generator = np.random.default_rng(rng.getrandbits(32))
    noise = np.clip(level + generator.normal(0, 4, (image.height, image.width, 3)), 0, 255).astype(np.uint8)
    return Variant({"level": level}, f"a light grey ({level}) image with faint noise", subject.with_image(Image.fromarray(noise)))


def _input(subject: Subject) -> Image.Image:
    source = Image.open(subject.case.images[0])
    source.load()
    return source.convert("RGB")


def _input_copy(subject: Subject, rng: random.Random) -> Variant:
    quality = rng.randint(80, 95)
    source = _input(subject)
    name = subject.case.images[0].name
    return Variant(
        {"quality": quality},
        f"the input {name} re-saved as JPEG q{quality}",
        subject.with_image(source, ".jpg", jpeg(source, quality)),
    )


def _input_touched(subject: Subject, rng: random.Random) -> Variant:
    source = _input(subject)
    x, y = rng.randrange(source.width), rng.randrange(source.height)
    old = source.getpixel((x, y))
    source.putpixel((x, y), tuple(255 - v for v in old))  # type: ignore[arg-type, union-attr]
    name = subject.case.images[0].name
    return Variant({"x": x, "y": y}, f"the input {name} with the pixel at ({x}, {y}) inverted", subject.with_image(source))
