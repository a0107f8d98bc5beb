"""Geometric mutants of an output image: moved, cropped, rotated, mirrored, shrunk into a corner, stretched."""

from __future__ import annotations

import random
from collections.abc import Callable

from PIL import Image

from ..graders.image import requested_size
from . import seen_by
from .base import Family, MutantClass, NotApplicable, Subject, Variant, border_colour, mean_difference, shifted

FAMILY = "geometric"
SIZE_OPTIONS = ("width", "height", "aspect")


def geometric(subject: Subject) -> Family:
    image = subject.rgb
    if image is None:
        return [], [NotApplicable(FAMILY, "the known-good output holds no image that decodes")]
    aspect_seen = seen_by.GEOMETRY | ({"image"} if expects_size(subject) else set())
    made = [
        _class("shift", seen_by.GEOMETRY, lambda rng: _shift(subject, image, rng)),
        _class("crop", seen_by.GEOMETRY, lambda rng: _crop(subject, image, rng)),
        _class("rotate", seen_by.GEOMETRY | seen_by.TEXT, lambda rng: _rotate(subject, image, rng)),
        _class("mirror", seen_by.GEOMETRY | seen_by.TEXT, lambda rng: _mirror(subject, image, rng)),
        _class("shrunk_into_corner", seen_by.GEOMETRY, lambda rng: _shrunk(subject, image, rng)),
        _class("wrong_aspect", frozenset(aspect_seen), lambda rng: _stretched(subject, image, rng)),
    ]
    return made, []


def expects_size(subject: Subject) -> bool:
    """Whether the case asks for a size or an aspect (an edit keeps its input's)."""
    case = subject.case
    if subject.is_edit or requested_size(case.params) is not None:
        return True
    return any(g.use == "image" and any(k in g.options for k in SIZE_OPTIONS) for g in case.graders)


def _class(name: str, seen: frozenset[str], make: Callable[[random.Random], Variant | None]) -> MutantClass:
    return MutantClass(FAMILY, name, True, "where things stand in the picture", seen, make)


def _shift(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    # 4-15% of the side: far beyond the 1-2 px a re-render may move, small enough to keep most of the picture.
    dx = round(image.width * rng.uniform(0.04, 0.15)) * rng.choice((-1, 1))
    dy = round(image.height * rng.uniform(0.04, 0.15)) * rng.choice((-1, 1))
    moved = shifted(image, dx, dy)
    return Variant({"dx": dx, "dy": dy}, f"the output moved by ({dx}, {dy}) px, the edge repeated", subject.with_image(moved))


def _crop(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    share = round(rng.uniform(0.6, 0.85), 2)
    width, height = round(image.width * share), round(image.height * share)
    left, top = rng.randint(0, image.width - width), rng.randint(0, image.height - height)
    cropped = image.crop((left, top, left + width, top + height)).resize(image.size, Image.Resampling.BICUBIC)
    params = {"share": share, "left": left, "top": top}
    return Variant(params, f"a {share:.0%} crop at ({left}, {top}) blown up to the full size", subject.with_image(cropped))


def _rotate(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    degrees = rng.choice((rng.randint(12, 45), -rng.randint(12, 45), 90, 180, 270))
    if degrees in (90, 270) and image.width != image.height:
        # A quarter turn of a non-square image changes its size; the canvas is kept and the picture fitted in it.
        turned = image.rotate(degrees, expand=True, fillcolor=border_colour(image))
        turned = _fitted(turned, image.size, border_colour(image))
    else:
        turned = image.rotate(degrees, resample=Image.Resampling.BICUBIC, fillcolor=border_colour(image))
    return Variant({"degrees": degrees}, f"the output rotated by {degrees} degrees", subject.with_image(turned))


def _mirror(subject: Subject, image: Image.Image, rng: random.Random) -> Variant | None:
    axis = rng.choice(("left-right", "top-bottom"))
    method = Image.Transpose.FLIP_LEFT_RIGHT if axis == "left-right" else Image.Transpose.FLIP_TOP_BOTTOM
    flipped = image.transpose(method)
    if mean_difference(flipped, image) < 3:  # a symmetric picture: its mirror image is the same picture
        return None
    return Variant({"axis": axis}, f"the output mirrored {axis}", subject.with_image(flipped))


def _shrunk(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    scale = round(rng.uniform(0.4, 0.7), 2)
    corner = rng.choice(("top-left", "top-right", "bottom-left", "bottom-right"))
    small = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))), Image.Resampling.LANCZOS)
    canvas = Image.new("RGB", image.size, (255, 255, 255))
    left = 0 if corner.endswith("left") else image.width - small.width
    top = 0 if corner.startswith("top") else image.height - small.height
    canvas.paste(small, (left, top))
    params = {"scale": scale, "corner": corner}
    return Variant(
        params, f"the output shrunk to {scale:.0%} in the {corner} corner of a white canvas", subject.with_image(canvas)
    )


def _stretched(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    factor = round(rng.uniform(1.3, 1.8), 2)
    axis = rng.choice(("width", "height"))
    size = (round(image.width * factor), image.height) if axis == "width" else (image.width, round(image.height * factor))
    stretched = image.resize(size, Image.Resampling.BILINEAR)
    params = {"axis": axis, "factor": factor}
    return Variant(params, f"the output stretched to {size[0]}x{size[1]} ({axis} x{factor})", subject.with_image(stretched))


def _fitted(image: Image.Image, size: tuple[int, int], fill: tuple[int, int, int]) -> Image.Image:
    scale = min(size[0] / image.width, size[1] / image.height)
    small = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))), Image.Resampling.LANCZOS)
    canvas = Image.new("RGB", size, fill)
    canvas.paste(small, ((size[0] - small.width) // 2, (size[1] - small.height) // 2))
    return canvas
