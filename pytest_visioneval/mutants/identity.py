"""Identity mutants of an output image: details a person notices though most pixels are right.

For an edit with a mask: a letter-sized patch, a detail turned upside down
in place (what a changed face looks like at pixel level) or scattered 3x3 specks,
all outside the area the edit may change; inside it, the wrong colour or
only half of the area edited. For any image case: another case's output of
the same suite.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

from ..artifacts import Artifact
from . import seen_by
from .base import Family, MutantClass, NotApplicable, Subject, Variant, decoded
from .photometric import hue_rotated
from .siblings import sibling_references

FAMILY = "identity"


def identity(subject: Subject) -> Family:
    image = subject.rgb
    if image is None:
        return [], [NotApplicable(FAMILY, "the known-good output holds no image that decodes")]
    made: list[MutantClass] = []
    skipped: list[NotApplicable] = []
    others = [p for p in sibling_references(subject.case) if p.is_file() and _is_image(p)]
    if others:
        made.append(
            _class(
                "another_case",
                "which picture it is",
                seen_by.COMPARISON | seen_by.TEXT,
                lambda rng: _another(subject, image, others, rng),
            )
        )
    else:
        skipped.append(NotApplicable(f"{FAMILY}/another_case", "no other case of the suite has a reference image"))
    editable = editable_area(subject, image.size)
    if editable is None:
        skipped.append(NotApplicable(f"{FAMILY}/outside_the_mask", "not an edit with a mask: no area that must stay as it was"))
        return made, skipped
    outside = ~editable
    outside_seen, inside_seen = seen_by.OUTSIDE_THE_MASK, seen_by.INSIDE_THE_MASK
    made += [
        _class("letter_patch", "the area outside the edit", outside_seen, lambda rng: _letter(subject, image, outside, rng)),
        _class("local_detail", "the area outside the edit", outside_seen, lambda rng: _detail(subject, image, outside, rng)),
        _class("specks", "the area outside the edit", outside_seen, lambda rng: _specks(subject, image, outside, rng)),
        _class(
            "wrong_colour_inside",
            "the edit's colour",
            frozenset({"similarity"}),
            lambda rng: _recoloured(subject, image, editable, rng),
        ),
        _class("half_edited", "the whole area edited", inside_seen, lambda rng: _half(subject, image, editable, rng)),
    ]
    return made, skipped


def editable_area(subject: Subject, size: tuple[int, int]) -> np.ndarray | None:
    """The pixels the edit may change, at the output's size: transparent pixels of the mask if it has any, else white."""
    if not subject.is_edit or subject.case.mask is None or not subject.case.mask.is_file():
        return None
    mask = Image.open(subject.case.mask)
    mask.load()
    mask = mask.convert("RGBA").resize(size, Image.Resampling.NEAREST)
    convention = next((g.options.get("mask_editable") for g in subject.case.graders if g.use == "locality"), None)
    alpha = np.asarray(mask)[..., 3]
    if convention is None:
        convention = "transparent" if (alpha == 0).any() else "white"
    if convention == "transparent":
        area = alpha == 0
    else:
        luminance = np.asarray(mask.convert("L"))
        area = luminance >= 128 if convention == "white" else luminance < 128
    return area if area.any() and not area.all() else None


def _class(name: str, breaks: str, seen: frozenset[str], make: Callable[[random.Random], Variant | None]) -> MutantClass:
    return MutantClass(FAMILY, name, True, breaks, seen, make)


def _is_image(path: Path) -> bool:
    return path.suffix.lower() in (".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp")


def _another(subject: Subject, image: Image.Image, others: list[Path], rng: random.Random) -> Variant | None:
    path = rng.choice(others)
    other = decoded(Artifact(path.name, path.read_bytes()))
    if other is None:
        return None
    fitted = other.convert("RGB").resize(image.size, Image.Resampling.LANCZOS)
    return Variant({"reference": path.name}, f"another case's output ({path.name}) in its place", subject.with_image(fitted))


def _place_outside(outside: np.ndarray, side: int, rng: random.Random, tries: int = 40) -> tuple[int, int] | None:
    """Top-left corner of a ``side`` x ``side`` square wholly outside the editable area, drawn at random."""
    height, width = outside.shape
    if side >= min(height, width):
        return None
    for _ in range(tries):
        x, y = rng.randint(0, width - side), rng.randint(0, height - side)
        if outside[y : y + side, x : x + side].all():
            return x, y
    return None


def _letter(subject: Subject, image: Image.Image, outside: np.ndarray, rng: random.Random) -> Variant | None:
    side = max(6, round(min(image.size) * rng.uniform(0.02, 0.04)))
    corner = _place_outside(outside, side, rng)
    if corner is None:
        return None
    x, y = corner
    pixels = np.asarray(image).copy()
    local = pixels[y : y + side, x : x + side].reshape(-1, 3).mean(axis=0)
    ink = np.where(local > 127, 20, 235).astype(np.uint8)  # dark on light, light on dark, as a letter would be
    stroke = max(1, side // 5)
    pixels[y : y + side, x : x + stroke] = ink  # an "L": two strokes
    pixels[y + side - stroke : y + side, x : x + side] = ink
    params = {"x": x, "y": y, "side": side}
    return Variant(
        params, f"a letter-sized mark ({side} px) outside the mask at ({x}, {y})", subject.with_image(Image.fromarray(pixels))
    )


def _detail(subject: Subject, image: Image.Image, outside: np.ndarray, rng: random.Random) -> Variant | None:
    side = max(8, round(min(image.size) * rng.uniform(0.06, 0.12)))
    pixels = np.asarray(image).copy()
    best: tuple[float, int, int] | None = None
    for _ in range(8):  # the busiest of a few places: mirroring a flat area would change nothing
        corner = _place_outside(outside, side, rng)
        if corner is None:
            continue
        x, y = corner
        spread = float(pixels[y : y + side, x : x + side].std())
        if best is None or spread > best[0]:
            best = (spread, x, y)
    if best is None or best[0] < 8:
        return None
    _, x, y = best
    pixels[y : y + side, x : x + side] = pixels[y : y + side, x : x + side][::-1, ::-1]
    params = {"x": x, "y": y, "side": side}
    return Variant(
        params,
        f"a {side} px detail outside the mask turned upside down at ({x}, {y})",
        subject.with_image(Image.fromarray(pixels)),
    )


def _specks(subject: Subject, image: Image.Image, outside: np.ndarray, rng: random.Random) -> Variant | None:
    share = round(rng.uniform(0.01, 0.05), 3)
    # Centres whose whole 3x3 neighbourhood lies outside the editable area (and inside the picture).
    centres = outside.copy()
    centres[[0, -1], :] = centres[:, [0, -1]] = False
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            centres &= np.roll(outside, (dy, dx), axis=(0, 1))
    ys, xs = np.nonzero(centres)
    if len(ys) == 0:
        return None
    count = max(1, round(share * outside.sum() / 9))
    generator = np.random.default_rng(rng.getrandbits(32))
    chosen = generator.choice(len(ys), size=min(count, len(ys)), replace=False)
    pixels = np.asarray(image).copy()
    colours = generator.integers(0, 256, (len(chosen), 3), dtype=np.uint8)
    for (y, x), colour in zip(zip(ys[chosen], xs[chosen], strict=True), colours, strict=True):
        pixels[y - 1 : y + 2, x - 1 : x + 2] = colour
    params = {"share": share, "specks": int(len(chosen))}
    return Variant(
        params,
        f"{len(chosen)} 3x3 specks over about {share:.1%} of the area outside the mask",
        subject.with_image(Image.fromarray(pixels)),
    )


def _recoloured(subject: Subject, image: Image.Image, editable: np.ndarray, rng: random.Random) -> Variant:
    degrees = rng.randint(60, 180) * rng.choice((-1, 1))
    turned = np.asarray(hue_rotated(image, degrees))
    pixels = np.asarray(image).copy()
    pixels[editable] = turned[editable]
    return Variant(
        {"degrees": degrees}, f"the edited area's hues turned by {degrees} degrees", subject.with_image(Image.fromarray(pixels))
    )


def _half(subject: Subject, image: Image.Image, editable: np.ndarray, rng: random.Random) -> Variant:
    side = rng.choice(("left", "right", "top", "bottom"))
    source = Image.open(subject.case.images[0])
    source.load()
    original = np.asarray(source.convert("RGB").resize(image.size, Image.Resampling.LANCZOS))
    ys, xs = np.nonzero(editable)
    half = np.zeros_like(editable)
    if side in ("left", "right"):
        middle = (xs.min() + xs.max()) // 2
        columns = np.arange(editable.shape[1])
        half[:, columns <= middle if side == "left" else columns > middle] = True
    else:
        middle = (ys.min() + ys.max()) // 2
        rows = np.arange(editable.shape[0])
        half[rows <= middle if side == "top" else rows > middle, :] = True
    reverted = editable & half
    pixels = np.asarray(image).copy()
    pixels[reverted] = original[reverted]
    return Variant(
        {"half": side},
        f"the {side} half of the edited area left as it was in the input",
        subject.with_image(Image.fromarray(pixels)),
    )
