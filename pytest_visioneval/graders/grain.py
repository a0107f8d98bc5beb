"""Grain an output adds where its input is smooth: noise a person sees at once, though it averages out.

The locality comparison softens both images, so per-pixel noise (a grainy re-render, sensor-like
speckle over the whole picture) cancels out there and leaves no pixel "changed". Grain is read
directly instead: each pixel's step from the median of its 3x3 neighbourhood, in grey levels,
where the input is smooth (its grey spans at most FLAT_RANGE over 5x5). The 75th percentile of
that step over those pixels, output less input, is the grain added: a flat wall stays at 0, a
new line of text or an object covers a minority of the smooth area and leaves the percentile
where it was, noise over the whole picture lifts it.
"""

from __future__ import annotations

import numpy as np

from .alignment import grey

FLAT_RANGE = 6.0  # grey levels over a 5x5 window: a smooth part of the input
MIN_FLAT_PIXELS = 500  # fewer smooth pixels say nothing about grain
PERCENTILE = 75


def grain_added(before: np.ndarray, after: np.ndarray, where: np.ndarray) -> float | None:
    """How much grainier ``after`` is than ``before`` (RGB arrays of one size) where ``before`` is smooth, in ``where``.

    In grey levels (0-255); None when fewer than MIN_FLAT_PIXELS of ``where`` are smooth in ``before``.
    """
    luma_before, luma_after = grey(before), grey(after)
    flat = where & smooth(luma_before, FLAT_RANGE)
    if int(flat.sum()) < MIN_FLAT_PIXELS:
        return None
    levels = [float(np.percentile(median_steps(luma)[flat], PERCENTILE)) for luma in (luma_before, luma_after)]
    return max(0.0, levels[1] - levels[0])


def smooth(luma: np.ndarray, flat_range: float) -> np.ndarray:
    """Where the grey spans at most ``flat_range`` levels over the 5x5 window around the pixel."""
    from scipy import ndimage

    return np.asarray(ndimage.maximum_filter(luma, size=5) - ndimage.minimum_filter(luma, size=5) <= flat_range)


def median_steps(luma: np.ndarray) -> np.ndarray:
    """Each pixel's step from the median of its 3x3 neighbourhood (grey levels): grain, speckle, noise."""
    from scipy import ndimage

    return np.abs(luma - ndimage.median_filter(luma, size=3))
