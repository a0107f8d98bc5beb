"""How much of an image's content differs in colour from a known image, as a person would judge it.

Both images are box-filtered down to ``WORK_SIDE`` px (re-encoding noise and
resampling differences average away), the output is aligned to the target
by phase correlation (a whole-image shift of a few pixels is not a change)
and both are softened a little. Each pixel is then compared in CIELAB with
CIEDE2000, allowing it to match a neighbour within 1 px (the sub-pixel rest
of the alignment and edge ringing do not count). Only *content* pixels are
counted: those where either image is off its own background colour, so a
mostly-white screen cannot hide a changed header in its white space.

A hue rotation moves every coloured pixel far in CIEDE2000 while keeping
luminance, which a mean RGB difference barely sees on a mostly-white image;
another screen moves its text, fields and header colours. Thresholds are
measured in ``benchmarks/colour_separation.py`` (see ``docs/graders.md``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from PIL import Image

from .faded_content import Fading, fading
from .imaging import BACKGROUND_TOLERANCE, dominant_colour, downscaled
from .softened_content import Softening, softening

WORK_SIDE = 256  # longer side of the working images, px
SOFTEN_SIGMA = 1.0  # px at the working size
MAX_SHIFT_SHARE = 0.04  # at the working size; a larger estimated shift is not a misalignment
ALIGN_CROP = 512  # px: shifts are estimated on a central crop of at most this size
# A content pixel differs in colour past this CIEDE2000 distance, and the gates allow this share of
# the content past it. Measured by benchmarks/colour_separation.py on the shipped references, six
# scikit-image photos and seeded random drawings (docs/graders.md, similarity): legitimate variants
# (JPEG q60-95, shifts of 1-3 px, brightness +-8, resize round trips, blur <= 0.7) leave at most
# 2.4% of the content past 10; a 30-degree hue rotation at least 12%, desaturation to 0.3 at least
# 9.2%, another image of the set at least 81%.
DEFAULT_DELTA_E = 10.0
DEFAULT_MAX_CHANGED_CONTENT = 0.08


@dataclass(frozen=True)
class ContentDifference:
    changed: float  # share of the content pixels past the deltaE threshold
    mean_delta_e: float  # mean CIEDE2000 over the content pixels
    content: float  # share of the pixels that are content
    shift: tuple[int, int]  # (dy, dx) applied to the output, at the working size
    output_colour: str  # hex: the commonest output colour among the changed pixels ("" when none)
    target_colour: str  # hex: the target's colour at those pixels
    fading: Fading | None = None  # against_reference: the target's content areas the output shows faded (faded_content.py)
    softening: Softening | None = None  # against_reference: the target's content the output shows blurred (softened_content.py)


def to_lab(pixels: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of an RGB array (0-255)."""
    from skimage.color import rgb2lab  # scikit-image loads slowly; only when a comparison is made

    return np.asarray(rgb2lab(np.clip(pixels, 0, 255) / 255.0), dtype=np.float64)


def delta_e(lab_a: np.ndarray, lab_b: np.ndarray) -> np.ndarray:
    """CIEDE2000 between two Lab arrays of the same shape (last axis L, a, b)."""
    from skimage.color import deltaE_ciede2000

    return np.asarray(deltaE_ciede2000(lab_a, lab_b, channel_axis=-1), dtype=np.float64)


def hex_colour(rgb: np.ndarray | tuple[float, float, float]) -> str:
    r, g, b = (int(round(min(255.0, max(0.0, float(v))))) for v in rgb)
    return f"#{r:02x}{g:02x}{b:02x}"


def working_pair(output: Image.Image, target: Image.Image) -> tuple[np.ndarray, np.ndarray]:
    """Both images as RGB arrays at the working size; the output resized to the target's size first."""
    if output.size != target.size:
        output = output.convert("RGBA").resize(target.size, Image.Resampling.BILINEAR)
    return downscaled(output, WORK_SIDE), downscaled(target, WORK_SIDE)


def whole_image_shift(output: np.ndarray, target: np.ndarray, bound_share: float) -> tuple[int, int]:
    """The whole-pixel (dy, dx) that moves ``output`` onto ``target`` (same-size RGB arrays).

    Phase correlation on grey, over a central crop of at most ALIGN_CROP px (a
    global shift shows there as well, at a fraction of the cost). A shift
    larger than ``bound_share`` of the longer side is not a misalignment but
    different content: (0, 0) then, as for an image with no structure.
    """
    from skimage.registration import phase_cross_correlation

    height, width = target.shape[:2]
    top, left = max(0, (height - ALIGN_CROP) // 2), max(0, (width - ALIGN_CROP) // 2)
    crop = (slice(top, top + ALIGN_CROP), slice(left, left + ALIGN_CROP))
    grey_out, grey_target = output[crop].mean(axis=2), target[crop].mean(axis=2)
    if grey_out.std() < 1e-6 or grey_target.std() < 1e-6:
        return 0, 0
    with warnings.catch_warnings():  # a flat image: scikit-image warns about an error estimate not used here
        warnings.simplefilter("ignore", UserWarning)
        found, _, _ = phase_cross_correlation(grey_target, grey_out, normalization=None)
    dy, dx = (int(round(float(v))) for v in found)
    bound = max(1, round(bound_share * max(height, width)))
    return (dy, dx) if max(abs(dy), abs(dx)) <= bound else (0, 0)


def shifted(pixels: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """``pixels`` moved by (dy, dx), the uncovered border filled with the nearest edge pixels."""
    if dy == 0 and dx == 0:
        return pixels
    height, width = pixels.shape[:2]
    pad = max(abs(dy), abs(dx))
    padded = np.pad(pixels, ((pad, pad), (pad, pad), (0, 0)), mode="edge")
    return padded[pad - dy : pad - dy + height, pad - dx : pad - dx + width]


def content_pixels(pixels: np.ndarray) -> np.ndarray:
    """Boolean map of the pixels off the image's dominant (background) colour."""
    background = dominant_colour(pixels)
    return np.asarray(np.abs(pixels - background).max(axis=2) > BACKGROUND_TOLERANCE)


def neighbourhood_delta_e(output_lab: np.ndarray, target_lab: np.ndarray, radius: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Per target pixel, CIEDE2000 to the closest output pixel within ``radius`` px, and that output Lab.

    The closest neighbour is chosen by plain Lab distance (cheap); CIEDE2000 is
    then computed once per pixel for the chosen one.
    """
    height, width = target_lab.shape[:2]
    padded = np.pad(output_lab, ((radius, radius), (radius, radius), (0, 0)), mode="edge")
    best = np.full((height, width), np.inf)
    chosen = output_lab.copy()
    for dy in range(2 * radius + 1):
        for dx in range(2 * radius + 1):
            window = padded[dy : dy + height, dx : dx + width]
            distance = ((window - target_lab) ** 2).sum(axis=2)
            closer = distance < best
            best[closer] = distance[closer]
            chosen[closer] = window[closer]
    return delta_e(chosen, target_lab), chosen


def content_difference(
    output: Image.Image, target: Image.Image, threshold: float = DEFAULT_DELTA_E, against_reference: bool = False
) -> ContentDifference:
    """Compare ``output`` with ``target`` as described in the module docstring."""
    from scipy import ndimage

    out, tgt = working_pair(output, target)
    dy, dx = whole_image_shift(out, tgt, MAX_SHIFT_SHARE)
    out = shifted(out, dy, dx)
    content = content_pixels(out) | content_pixels(tgt)
    if not content.any():  # both plain backgrounds: compare every pixel
        content = np.ones_like(content)
    sigma = (SOFTEN_SIGMA, SOFTEN_SIGMA, 0)
    out_soft = np.asarray(ndimage.gaussian_filter(out, sigma), dtype=np.float64)
    tgt_soft = np.asarray(ndimage.gaussian_filter(tgt, sigma), dtype=np.float64)
    target_lab = to_lab(tgt_soft)
    distances, _ = neighbourhood_delta_e(to_lab(out_soft), target_lab)
    counted = distances[content]
    past = content & (distances > threshold)
    output_colour = target_colour = ""
    if past.any():
        output_colour, target_colour = _commonest_pair(out_soft[past], tgt_soft[past])
    return ContentDifference(
        changed=float(past.sum() / content.sum()),
        mean_delta_e=float(counted.mean()),
        content=float(content.mean()),
        shift=(dy, dx),
        output_colour=output_colour,
        target_colour=target_colour,
        fading=fading(out, tgt) if against_reference else None,
        softening=softening(out, tgt) if against_reference else None,
    )


def _commonest_pair(output_rgb: np.ndarray, target_rgb: np.ndarray) -> tuple[str, str]:
    """The commonest (coarsely quantised) output colour among the given pixels, and the target's mean there."""
    keys = (np.clip(output_rgb, 0, 255) // 32).astype(np.int64) @ np.array([64, 8, 1])
    values, counts = np.unique(keys, return_counts=True)
    chosen = keys == values[int(np.argmax(counts))]
    return hex_colour(np.median(output_rgb[chosen], axis=0)), hex_colour(np.median(target_rgb[chosen], axis=0))
