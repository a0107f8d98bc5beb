"""Legitimate variants of an output image, which every gate must pass: what re-encoding or re-rendering does.

A JPEG re-encode (q70-95), the whole picture moved by 1-2 px, every level
moved by up to 5, a resize round trip that keeps the aspect; for an edit, the
whole edit re-rendered (moved by 2 px, brightened by 5, or both): a model
that redraws the whole picture changes every pixel a little, and that is not
a change of what a person sees.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
from PIL import Image

from .base import Family, MutantClass, NotApplicable, Subject, Variant, jpeg, shifted

FAMILY = "legitimate"
KEEPS = "what a person sees"


def legitimate(subject: Subject) -> Family:
    image = subject.rgb
    if image is None:
        return [], [NotApplicable(FAMILY, "the known-good output holds no image that decodes")]
    made = [
        _class("jpeg", lambda rng: _jpeg(subject, image, rng)),
        _class("shift", lambda rng: _shift(subject, image, rng)),
        _class("brightness", lambda rng: _brightness(subject, image, rng)),
        _class("resize_round_trip", lambda rng: _round_trip(subject, image, rng)),
    ]
    if subject.is_edit:
        made.append(_class("rerender", lambda rng: _rerender(subject, image, rng)))
    return made, ([] if subject.is_edit else [NotApplicable(f"{FAMILY}/rerender", "not an edit of an input image")])


def _class(name: str, make: Callable[[random.Random], Variant | None]) -> MutantClass:
    return MutantClass(FAMILY, name, False, KEEPS, frozenset(), make)


def brightened(image: Image.Image, offset: int) -> Image.Image:
    return Image.fromarray(np.clip(np.asarray(image, dtype=np.int16) + offset, 0, 255).astype(np.uint8))


def _jpeg(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    quality = rng.randint(70, 95)
    return Variant(
        {"quality": quality}, f"the output re-encoded as JPEG q{quality}", subject.with_image(image, ".jpg", jpeg(image, quality))
    )


def _shift(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    dx, dy = rng.choice(((1, 0), (0, 1), (-1, 0), (0, -1), (2, 0), (0, 2), (1, 1), (-2, 0), (0, -2), (-1, 1)))
    return Variant({"dx": dx, "dy": dy}, f"the output moved by ({dx}, {dy}) px", subject.with_image(shifted(image, dx, dy)))


def _brightness(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    offset = rng.choice((-5, -4, -3, 3, 4, 5))
    return Variant({"offset": offset}, f"every channel moved by {offset:+d}/255", subject.with_image(brightened(image, offset)))


def _round_trip(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    scale = round(rng.uniform(0.6, 0.9), 2)
    small = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))), Image.Resampling.LANCZOS)
    back = small.resize(image.size, Image.Resampling.LANCZOS)
    return Variant({"scale": scale}, f"the output resized to {scale:.0%} and back", subject.with_image(back))


def _rerender(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    how = rng.choice(("shift", "brighten", "both"))
    dx = rng.choice((-2, 2)) if how != "brighten" else 0
    offset = 5 if how != "shift" else 0
    changed = brightened(shifted(image, dx, 0), offset) if offset else shifted(image, dx, 0)
    params = {"dx": dx, "offset": offset}
    return Variant(params, f"the whole edit re-rendered: moved by {dx} px, levels {offset:+d}", subject.with_image(changed))
