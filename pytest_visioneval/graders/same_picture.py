"""Whether one picture is another one transformed: flipped, turned, cropped, resized, recoloured.

A copy stays a copy for a person when it is mirrored, turned by 90 degrees,
cropped (keeping at least ``MIN_CROP_SIDE`` of each side, so a third of the
area or more) and scaled back, re-encoded, or recoloured (hue turned,
brightness and contrast changed, turned grey). Both pictures are seen as
``SIDE`` x ``SIDE`` thumbnails, softened a little; the candidate transforms
of the original are the 8 turns and flips of the square, each whole or
cropped (``CROP_SIDES`` per axis, placed where the candidate fits best by
normalized cross-correlation). For each, :func:`explained_share` asks how
much of the copy's colour variation an affine colour map (in RGB, least
squares) of the transformed original explains (R squared). Hue turns,
brightness, contrast, saturation and grey are such maps (close enough); a
new picture - the product turned or moved, or on another background while
the product keeps its colours - is not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PIL import Image

from .imaging import rgb_array

SIDE = 64
MIN_CROP_SIDE = 0.6
CROP_SIDES = (1.0, 0.9, 0.8, 0.7, 0.6)  # first tried alike on both axes, then refined per axis
_REFINE_STEPS = (0.1, 0.05)
_SOFTEN_SIGMA = 0.8  # px at SIDE: resampling and re-encoding differences are finer than this

DIHEDRAL: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "as it is": lambda a: a,
    "mirrored": lambda a: a[:, ::-1],
    "flipped": lambda a: a[::-1],
    "turned 180 degrees": lambda a: a[::-1, ::-1],
    "turned 90 degrees": lambda a: np.rot90(a, 1),
    "turned 270 degrees": lambda a: np.rot90(a, 3),
    "transposed": lambda a: np.transpose(a, (1, 0, 2)),
    "anti-transposed": lambda a: np.rot90(a, 2).transpose(1, 0, 2),
}


@dataclass(frozen=True)
class Match:
    share: float  # R squared of the best colour map, 0-1
    how: str  # the transform, e.g. "mirrored, cropped to 80% x 60%"


def thumbnail(image: Image.Image) -> np.ndarray:
    """SIDE x SIDE CIELAB (alpha on white), box-filtered and softened."""
    from scipy import ndimage
    from skimage.color import rgb2lab

    flat = Image.fromarray(rgb_array(image).astype(np.uint8)).resize((SIDE, SIDE), Image.Resampling.BOX)
    pixels = np.asarray(ndimage.gaussian_filter(np.asarray(flat, dtype=np.float64) / 255, (_SOFTEN_SIGMA, _SOFTEN_SIGMA, 0)))
    return np.asarray(rgb2lab(pixels))


def explained_share(source: np.ndarray, copy: np.ndarray) -> float:
    """R squared of ``copy`` (Lab) fitted by one global colour shift of ``source`` (Lab); 1 for such a recolour.

    The shift is what recolouring a whole picture does: lightness scaled and
    offset (brightness, contrast), and the colour plane (a*, b*) turned by one
    hue angle and scaled by one chroma factor (hue turn, saturation, grey).
    Six numbers for the picture: another background behind an unchanged
    product needs one colour moved and the others kept, which it cannot do.
    """
    lightness, target_lightness = source[..., 0].ravel(), copy[..., 0].ravel()
    gain, offset = np.polyfit(lightness, target_lightness, 1) if np.ptp(lightness) > 1e-6 else (0.0, target_lightness.mean())
    chroma = source[..., 1].ravel() + 1j * source[..., 2].ravel()
    target_chroma = copy[..., 1].ravel() + 1j * copy[..., 2].ravel()
    power = float((np.abs(chroma) ** 2).sum())
    turn = complex((np.conj(chroma) * target_chroma).sum() / power) if power > 1e-6 else 0j
    residual = float(
        ((target_lightness - (gain * lightness + offset)) ** 2).sum() + (np.abs(target_chroma - turn * chroma) ** 2).sum()
    )
    total = float(
        ((target_lightness - target_lightness.mean()) ** 2).sum() + (np.abs(target_chroma - target_chroma.mean()) ** 2).sum()
    )
    if total < 1e-6:
        return 1.0 if residual < 1e-3 * copy[..., 0].size else 0.0
    return max(0.0, 1 - residual / total)


def best_match(original: np.ndarray, copy: np.ndarray) -> Match:
    """How well ``copy`` is explained as ``original`` turned, flipped and/or cropped, then recoloured (thumbnails)."""
    best = Match(-1.0, "")
    for turn_name, turn in DIHEDRAL.items():
        turned = np.ascontiguousarray(turn(original))
        share, (side_x, side_y) = _best_crop(turned, copy)
        if share > best.share:
            crop = "" if side_x == side_y == 1.0 else f", cropped to {side_x:.0%} x {side_y:.0%}"
            best = Match(share, turn_name + crop)
    return best


def _best_crop(original: np.ndarray, copy: np.ndarray) -> tuple[float, tuple[float, float]]:
    """The crop of ``original`` (sides as shares) that explains ``copy`` best: alike on both axes, then per axis."""
    tried: dict[tuple[float, float], float] = {}

    def score(sides: tuple[float, float]) -> float:
        if sides not in tried:
            tried[sides] = _cropped_share(original, copy, *sides)
        return tried[sides]

    sides = max(((side, side) for side in CROP_SIDES), key=score)
    for step in _REFINE_STEPS:
        for dx, dy in ((step, 0), (-step, 0), (0, step), (0, -step)):
            near = (round(sides[0] + dx, 2), round(sides[1] + dy, 2))
            if all(MIN_CROP_SIDE <= side <= 1 for side in near) and score(near) > score(sides):
                sides = near
    return score(sides), sides


def _cropped_share(original: np.ndarray, copy: np.ndarray, side_x: float, side_y: float) -> float:
    if side_x == side_y == 1.0:
        return explained_share(original, copy)
    from scipy import ndimage
    from skimage.feature import match_template  # loaded when pictures are compared

    width, height = round(SIDE * side_x), round(SIDE * side_y)
    small = np.asarray(ndimage.zoom(copy, (height / SIDE, width / SIDE, 1), order=1))[:height, :width]
    # placed by lightness at half size (4 times cheaper); a pixel off at full size is within the softening
    correlation = match_template(original[::2, ::2, 0], small[::2, ::2, 0])
    y, x = np.unravel_index(int(np.argmax(correlation)), correlation.shape)
    y, x = min(2 * int(y), SIDE - height), min(2 * int(x), SIDE - width)
    return explained_share(original[y : y + height, x : x + width], small)
