"""An output screen compared with the input screen it should continue, as a person looks at the two.

Both are seen at a working size (the input's, scaled to ``WORK_LONGEST`` px
on its longer side; the output resized to it). Measures:

* :func:`kept_share` - the share of the screens' content (pixels off the
  input's background colour in either) that the output keeps from the input:
  perceived difference at most ``CHANGE_TOLERANCE`` (softened, 1-px shifts
  allowed), after the output is aligned by phase correlation (a shift of at
  most ``MAX_SHIFT`` of the size). A dimmed copy counts as kept where a modal
  scrim darkens the screen behind a menu or a dialog: one darkening factor,
  measured where the output is darker, for the whole screen.
* :func:`geometry_scores` - that share for the output as it is, mirrored,
  flipped, turned 180 degrees, and scaled (``SCALES``: the input shrunk into
  the canvas or cropped and enlarged), each placed where it fits best.
* :func:`consistency` - of the input's content edges (text, icons, borders)
  that the case's expected next screen keeps, the share the output keeps:
  another screen of the same design keeps the bars and backgrounds but not
  the labels.
* :func:`sharpness_ratio` - the Laplacian energy of the output over that of
  the input, on the input's edges that the output keeps: a blurred copy
  loses most of it, a next state that moves things keeps it elsewhere.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PIL import Image

from .alignment import grey
from .imaging import BACKGROUND_TOLERANCE, CHANGE_TOLERANCE, aligned_difference, dominant_colour, rgb_array, soften

WORK_LONGEST = 256
MAX_SHIFT = 0.03  # of the width / height: a re-render may sit a few px off; more is another layout
# Output scaled by these against the input: < 1 shrunk into the canvas, > 1 cropped and enlarged.
SCALES = (0.65, 0.8, 0.9, 1.12, 1.25, 1.5)
ORIENTATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "mirrored left-right": lambda a: a[:, ::-1],
    "upside down": lambda a: a[::-1],
    "turned 180 degrees": lambda a: a[::-1, ::-1],
}
# A scrim is found when at least this share of the screen got darker.
_SCRIM_AREA = 0.1
_EDGE = 0.02  # |Laplacian| of grey 0-1 above this is an edge
_MIN_EDGE_PIXELS = 50


@dataclass(frozen=True)
class ScreenPair:
    """The input and the output screen at the working size (RGB float32 0-255), and the input's background colour."""

    before: np.ndarray
    after: np.ndarray
    background: np.ndarray

    @classmethod
    def of(cls, before: Image.Image, after: Image.Image, longest: int = WORK_LONGEST) -> ScreenPair:
        scale = min(1.0, longest / max(before.size))
        size = (max(1, round(before.width * scale)), max(1, round(before.height * scale)))
        first = working_array(before, size)
        return cls(first, working_array(after, size), dominant_colour(first))


def working_array(image: Image.Image, size: tuple[int, int]) -> np.ndarray:
    """RGB float32 at ``size``: box-filtered when shrinking (noise averages out), bilinear when enlarging."""
    flat = Image.fromarray(rgb_array(image).astype(np.uint8))
    if flat.size != size:
        shrinking = flat.width >= size[0] and flat.height >= size[1]
        flat = flat.resize(size, Image.Resampling.BOX if shrinking else Image.Resampling.BILINEAR)
    return np.asarray(flat, dtype=np.float32)


def shifted(pixels: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """``pixels`` moved by (dy, dx), the uncovered border filled with the nearest edge pixels (no wrap-around)."""
    height, width = pixels.shape[:2]
    pad = ((max(dy, 0), max(-dy, 0)), (max(dx, 0), max(-dx, 0))) + ((0, 0),) * (pixels.ndim - 2)
    padded = np.pad(pixels, pad, mode="edge")
    top, left = max(-dy, 0), max(-dx, 0)
    return padded[top : top + height, left : left + width]


def aligned(before: np.ndarray, after: np.ndarray, max_shift: float = MAX_SHIFT, *, subpixel: bool = True) -> np.ndarray:
    """``after`` moved onto ``before`` by the phase-correlation shift, when that shift is within ``max_shift``.

    ``subpixel: False`` moves by whole pixels only: interpolating would soften the edges whose sharpness is measured.
    """
    from scipy import ndimage
    from skimage.registration import phase_cross_correlation  # loaded when screens are compared

    with warnings.catch_warnings():  # a flat image: scikit-image warns about an error estimate not used here
        warnings.simplefilter("ignore", UserWarning)
        (dy, dx), _, _ = phase_cross_correlation(grey(before), grey(after), upsample_factor=4, normalization=None)
    height, width = before.shape[:2]
    if abs(dy) > max_shift * height or abs(dx) > max_shift * width or (dy == 0 and dx == 0):
        return after
    if not subpixel:
        return shifted(after, int(round(dy)), int(round(dx)))
    # sub-pixel: at the working size a 2-px shift of the full screen is about one pixel
    return np.asarray(ndimage.shift(after, (dy, dx, 0), order=1, mode="nearest"), dtype=np.float32)


def kept_share(before: np.ndarray, after: np.ndarray, background: np.ndarray) -> float:
    """The share of content pixels (either screen off ``background``) where ``after`` shows ``before``, a scrim allowed."""
    kept, level = kept_pixels(before, after)
    content = _off(before, background) | _off(after, background)
    if level is not None:
        # the background under the scrim is background still: a flat dimmed screen keeps nothing by itself
        content = _off(before, background) | (_off(after, background) & _off(after, background * level))
    if not content.any():
        return 1.0
    return float(kept[content].mean())


def kept_pixels(before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, float | None]:
    """Where ``after`` shows ``before`` (perceived difference within CHANGE_TOLERANCE), and the scrim level allowed.

    When at least ``_SCRIM_AREA`` of the screen got darker, a dimmed copy counts as kept: one factor for the
    whole screen, what a black overlay leaves of the colours below it (None when no scrim is allowed).
    """
    soft_before, soft_after = soften(before), soften(after)
    difference = aligned_difference(soft_before, soft_after)
    grey_before, grey_after = grey(soft_before), grey(soft_after)
    darker = grey_after < grey_before - CHANGE_TOLERANCE
    level = None
    if darker.mean() >= _SCRIM_AREA:
        level = float(np.clip(np.median(grey_after[darker] / np.maximum(grey_before[darker], 1)), 0.2, 0.95))
        np.minimum(difference, aligned_difference(soft_before * level, soft_after), out=difference)
    return difference <= CHANGE_TOLERANCE, level


def consistency(before: np.ndarray, expected: np.ndarray, after: np.ndarray) -> float | None:
    """Of the input's content edges that the ``expected`` next screen keeps, the share ``after`` keeps (a scrim allowed).

    Content edges: pixels off their 5x5 median grey by more than CHANGE_TOLERANCE (text, icons, borders: what
    tells one screen from another of the same design). None when the expected screen keeps fewer than
    ``_MIN_EDGE_PIXELS`` of them (it replaces the whole screen).
    """
    from scipy import ndimage

    plain = grey(before)
    edges = np.abs(plain - ndimage.median_filter(plain, size=5)) > CHANGE_TOLERANCE
    expected_keeps = edges & kept_pixels(before, aligned(before, expected))[0]
    if int(expected_keeps.sum()) < _MIN_EDGE_PIXELS:
        return None
    return float(kept_pixels(before, aligned(before, after))[0][expected_keeps].mean())


def _off(pixels: np.ndarray, colour: np.ndarray) -> np.ndarray:
    return np.asarray(np.abs(pixels - colour).max(axis=2) > BACKGROUND_TOLERANCE)


def geometry_scores(pair: ScreenPair) -> dict[str, float]:
    """Kept share of the output as it is (``"as it is"``), in each orientation, and at each scale (``"scaled xS"``)."""
    before, after, background = pair.before, pair.after, pair.background
    scores = {"as it is": kept_share(before, aligned(before, after), background)}
    for name, turn in ORIENTATIONS.items():
        scores[name] = kept_share(before, aligned(before, np.ascontiguousarray(turn(after))), background)
    for scale in SCALES:
        scores[f"scaled x{scale:g}"] = _scaled_score(pair, scale)
    return scores


def _scaled_score(pair: ScreenPair, scale: float) -> float:
    """Kept share if the output showed the input scaled by ``scale`` (placed where it matches best)."""
    before, after = pair.before, pair.after
    height, width = before.shape[:2]
    size = (max(8, round(width / scale)), max(8, round(height / scale)))
    undone = np.asarray(Image.fromarray(after.astype(np.uint8)).resize(size, Image.Resampling.BILINEAR), dtype=np.float32)
    if scale < 1:  # the input would be a region of the enlarged output
        y, x = _best_offset(undone, before)
        return kept_share(before, undone[y : y + height, x : x + width], pair.background)
    y, x = _best_offset(before, undone)  # the output would be a region of the input
    return kept_share(before[y : y + size[1], x : x + size[0]], undone, pair.background)


def _best_offset(image: np.ndarray, template: np.ndarray) -> tuple[int, int]:
    """Where ``template`` fits ``image`` best (normalized cross-correlation), searched at half size.

    A pixel off at the working size is absorbed later by the comparison's 1-px tolerance.
    """
    from skimage.feature import match_template

    correlation = match_template(grey(image)[::2, ::2], grey(template)[::2, ::2])
    y, x = np.unravel_index(int(np.argmax(correlation)), correlation.shape)
    limit_y, limit_x = image.shape[0] - template.shape[0], image.shape[1] - template.shape[1]
    return min(2 * int(y), limit_y), min(2 * int(x), limit_x)


def sharpness_ratio(pair: ScreenPair) -> float | None:
    """Laplacian energy of the output over the input's, on the input's edges the output keeps; None without such edges."""
    from scipy import ndimage

    after = aligned(pair.before, pair.after, subpixel=False)
    edges_before = ndimage.laplace(grey(pair.before) / 255)
    edges_after = ndimage.laplace(grey(after) / 255)
    kept = aligned_difference(soften(pair.before), soften(after)) <= CHANGE_TOLERANCE
    where = ndimage.binary_dilation(np.abs(edges_before) > _EDGE, iterations=2) & kept
    if int(where.sum()) < _MIN_EDGE_PIXELS:
        return None
    return float((edges_after[where] ** 2).mean() / (edges_before[where] ** 2).mean())


def speckle(pair: ScreenPair) -> float | None:
    """How noisy the output is where the input is flat: the 75th percentile of |grey - its 3x3 median| there.

    New content on a flat area (a dialog, a line of text) covers a minority of it and leaves the percentile at
    0; noise over the whole screen moves it. None when the input has too little flat area.
    """
    from .grain import MIN_FLAT_PIXELS, PERCENTILE, median_steps, smooth

    after = grey(aligned(pair.before, pair.after, subpixel=False))
    flat = smooth(grey(pair.before), 2.0)
    if int(flat.sum()) < MIN_FLAT_PIXELS:
        return None
    return float(np.percentile(median_steps(after)[flat], PERCENTILE))
