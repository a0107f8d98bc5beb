"""Global registration and photometric normalisation of an output against its input.

Hosted edit models re-render the whole picture: the result may sit a pixel or
two off, or be a little brighter, although nothing was changed on purpose.
Before local changes are looked for, these global drifts are estimated over the
pixels that should be preserved and taken out, and reported so that a caller
can bound them:

* :func:`estimate_shift` - the translation of the output against the input
  (sub-pixel phase correlation over the kept pixels), kept only when it makes
  the two agree better than no shift at all;
* :func:`undo_shift` - the output moved back onto the input's grid, with the
  border strip that has no counterpart in the input marked;
* :func:`fit_tone` - a per-channel gain and offset that maps the input's
  colours onto the output's, fitted robustly (local changes and an edit do not
  pull it) and applied with clipping, so a white that stayed white is no drift.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

# Fit the tone curve on at most this many pixels (an even sample): plenty for 6 numbers.
_TONE_SAMPLE = 60_000
# A channel whose kept pixels span less than this (0-255 std) cannot tell gain from offset: offset only.
_FLAT_CHANNEL_STD = 6.0
# Pixels at or near 0 or 255, in the input or the output, may be clipped: they bound the tone but do not
# measure it (a white kept white under a brightening; JPEG noise on white read only where it fell below 255).
_CLIP_MARGIN = 4.0
# Phase correlation looks at a copy at most this large (long side); shifts are scaled back.
_SHIFT_WORKING_SIDE = 512
# The blurs tried by match_sharpness (px).
_SHARPNESS_STEPS = (0.4, 0.6, 0.8, 1.0, 1.3)


@dataclass(frozen=True)
class Shift:
    """How far the output sits from the input, in input pixels (positive: right / down)."""

    dx: float
    dy: float

    @property
    def length(self) -> float:
        return math.hypot(self.dx, self.dy)

    @property
    def border(self) -> int:
        """Width of the strip along the edges that undoing the shift leaves without a counterpart."""
        return math.ceil(max(abs(self.dx), abs(self.dy)) - 1e-6) + 1 if self.length > 0 else 0


NO_SHIFT = Shift(0.0, 0.0)


@dataclass(frozen=True)
class Tone:
    """``output = clip(gain * input + offset)`` per RGB channel."""

    gain: tuple[float, float, float]
    offset: tuple[float, float, float]

    def apply(self, pixels: np.ndarray) -> np.ndarray:
        """The input's RGB pixels (0-255) as the output's tone would show them."""
        gain = np.asarray(self.gain, dtype=np.float32)
        offset = np.asarray(self.offset, dtype=np.float32)
        return np.clip(pixels * gain + offset, 0, 255).astype(np.float32)


IDENTITY_TONE = Tone((1.0, 1.0, 1.0), (0.0, 0.0, 0.0))


def grey(pixels: np.ndarray) -> np.ndarray:
    """Luma (Rec. 601) of an RGB array, float32."""
    return np.asarray(pixels @ np.asarray([0.299, 0.587, 0.114], dtype=np.float32), dtype=np.float32)


def estimate_shift(before: np.ndarray, after: np.ndarray, keep: np.ndarray) -> Shift:
    """The translation of ``after`` against ``before`` (same-size RGB arrays), measured over ``keep``.

    The pixels outside ``keep`` (an edit) weigh nothing, with a soft rim so the
    area's border adds no edge of its own to the correlation. A shift longer than
    a quarter of the image's short side, or one that does not make the kept pixels agree better than no
    shift is not trusted: no shift is returned (the caller then sees the change
    as what it is). A trusted shift is returned as measured, however long, so
    that a caller can bound it and say by how much it was off.
    """
    from skimage.registration import phase_cross_correlation  # scikit-image loads slowly; only when used

    a, b = grey(before), grey(after)
    weight = _correlation_weight(keep)
    a = (a - float(a[keep].mean())) * weight
    b = (b - float(b[keep].mean())) * weight
    scale = min(1.0, _SHIFT_WORKING_SIDE / max(a.shape))
    if scale < 1.0:
        a, b = _shrunk(a, scale), _shrunk(b, scale)
    with warnings.catch_warnings():
        # A flat image (nothing to align on) makes scikit-image warn that it cannot compute its error
        # estimate, which is not used here; the shift found is then ~0 and treated as none.
        warnings.simplefilter("ignore", UserWarning)
        found, _, _ = phase_cross_correlation(a, b, upsample_factor=20, normalization=None)
    # phase_cross_correlation gives the shift that registers `after` onto `before`: the output moved by -found.
    shift = Shift(-float(found[1]) / scale + 0.0, -float(found[0]) / scale + 0.0)  # + 0.0: no -0.0
    if shift.length < 0.05 or shift.length > min(before.shape[:2]) / 4:
        return NO_SHIFT
    # Both judged over the same pixels: those the shift leaves a counterpart for.
    if _disagreement(before, undo_shift(after, shift), keep, shift.border) >= _disagreement(before, after, keep, shift.border):
        return NO_SHIFT
    return shift


def _correlation_weight(keep: np.ndarray) -> np.ndarray:
    """1 on the kept pixels, fading to 0 over a few px towards the edit and the image's edges."""
    from scipy import ndimage

    weight = np.asarray(ndimage.gaussian_filter(keep.astype(np.float32), 3), dtype=np.float32) * keep
    height, width = keep.shape
    ramp_y = np.minimum(1.0, np.minimum(np.arange(height), np.arange(height)[::-1]) / 8.0)
    ramp_x = np.minimum(1.0, np.minimum(np.arange(width), np.arange(width)[::-1]) / 8.0)
    return weight * ramp_y[:, None].astype(np.float32) * ramp_x[None, :].astype(np.float32)


def undo_shift(after: np.ndarray, shift: Shift) -> np.ndarray:
    """``after`` (RGB, 0-255) moved by ``-shift`` onto the input's grid (bilinear, edges repeated)."""
    if shift.length == 0:
        return after
    height, width = after.shape[:2]
    pad = math.ceil(max(abs(shift.dx), abs(shift.dy))) + 1
    padded = np.pad(after, ((pad, pad), (pad, pad), (0, 0)), mode="edge")
    ix, iy = math.floor(shift.dx), math.floor(shift.dy)
    fx, fy = shift.dx - ix, shift.dy - iy

    def window(oy: int, ox: int) -> np.ndarray:
        top, left = pad + iy + oy, pad + ix + ox
        return padded[top : top + height, left : left + width]

    # Output pixel (y, x) is the input's (y + dy, x + dx): four neighbours, weighted (numpy beats ndimage.shift here).
    top = window(0, 0) * (1 - fx) + window(0, 1) * fx
    bottom = window(1, 0) * (1 - fx) + window(1, 1) * fx
    return np.asarray(top * (1 - fy) + bottom * fy, dtype=np.float32)


def match_sharpness(expected: np.ndarray, aligned: np.ndarray, keep: np.ndarray) -> float:
    """The Gaussian blur (sigma, px) of ``expected`` that makes it agree best with ``aligned`` over ``keep``.

    A re-render is often a little softer than its input (resampling, a sub-pixel
    shift undone, JPEG): blurring the input as much makes its sharp edges and
    thin strokes match again, while a changed letter or object still differs.
    Measured on luma, capped differences (a local change weighs the same for every sigma).
    """
    from scipy import ndimage

    a, b = grey(expected), grey(aligned)
    best, best_sigma = _capped_mean(a, b, keep), 0.0
    for sigma in _SHARPNESS_STEPS:
        score = _capped_mean(np.asarray(ndimage.gaussian_filter(a, sigma), dtype=np.float32), b, keep)
        if score < best * 0.97:  # a blur must earn its place: a clearly better match, not noise
            best, best_sigma = score, sigma
    return best_sigma


def inner(shape: tuple[int, ...], border: int) -> np.ndarray:
    """Boolean map (height x width) of the pixels at least ``border`` px away from the image's edges."""
    height, width = shape[:2]
    valid = np.zeros((height, width), dtype=bool)
    if 2 * border < height and 2 * border < width:
        valid[border : height - border, border : width - border] = True
    return valid


def fit_tone(before: np.ndarray, after: np.ndarray, keep: np.ndarray) -> Tone:
    """Per-channel gain and offset mapping ``before`` onto ``after`` over ``keep``, robust to local changes.

    Least squares over the flat kept pixels (away from edges, which a shift or a
    blur changes), refitted on the pixels that agree with the last fit (residual
    within 3 robust standard deviations, at least 4/255), so that local changes
    and the edit's leak do not pull the fit. Pixels clipped in the output are left
    out; a channel whose pixels barely vary gets an offset only.
    """
    flat = keep & _flat(before)
    # Edges are where a shift, a blur or a resampling differ: fit on the flat kept pixels when there are enough.
    index = np.flatnonzero(flat if flat.sum() >= max(200, 0.05 * keep.sum()) else keep)
    if index.size > _TONE_SAMPLE:
        index = index[:: math.ceil(index.size / _TONE_SAMPLE)]
    if index.size == 0:
        return IDENTITY_TONE
    x_all = before.reshape(-1, 3)[index].astype(np.float64)
    y_all = after.reshape(-1, 3)[index].astype(np.float64)
    gains, offsets = [], []
    for channel in range(3):
        gain, offset = _fit_channel(x_all[:, channel], y_all[:, channel])
        gains.append(gain)
        offsets.append(offset)
    return Tone((gains[0], gains[1], gains[2]), (offsets[0], offsets[1], offsets[2]))


def _fit_channel(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    unclipped = (y > _CLIP_MARGIN) & (y < 255 - _CLIP_MARGIN) & (x > _CLIP_MARGIN) & (x < 255 - _CLIP_MARGIN)
    if unclipped.sum() >= 50:
        x, y = x[unclipped], y[unclipped]
    use = np.ones(x.size, dtype=bool)
    gain, offset = 1.0, 0.0
    for _ in range(4):
        xs, ys = x[use], y[use]
        if xs.size < 10:
            break
        if xs.std() < _FLAT_CHANNEL_STD:
            gain, offset = 1.0, float(np.median(ys - xs))
        else:
            gain, offset = (float(v) for v in np.polyfit(xs, ys, 1))
        residual = y - (gain * x + offset)
        spread = 1.4826 * float(np.median(np.abs(residual[use] - np.median(residual[use]))))
        use = np.abs(residual) <= max(3 * spread, 4.0)
    return gain, offset


def _flat(pixels: np.ndarray) -> np.ndarray:
    """Pixels whose 3x3 neighbourhood (grey) varies by at most 6 of 255: no edge nearby."""
    from scipy import ndimage

    luma = grey(pixels)
    spread = ndimage.maximum_filter(luma, size=3) - ndimage.minimum_filter(luma, size=3)
    return np.asarray(spread <= 6.0)


def _disagreement(before: np.ndarray, after: np.ndarray, keep: np.ndarray, border: int) -> float:
    """Mean grey difference over the kept pixels away from the edges, both softened, each capped at 40 of 255.

    The softening keeps the blur of undoing a sub-pixel shift from outweighing the misalignment it
    removes; the cap keeps a local change (the same with or without a shift) from deciding.
    """
    from scipy import ndimage

    soft_before = np.asarray(ndimage.gaussian_filter(grey(before), 1.0), dtype=np.float32)
    soft_after = np.asarray(ndimage.gaussian_filter(grey(after), 1.0), dtype=np.float32)
    return _capped_mean(soft_before, soft_after, keep & inner(before.shape, border))


def _capped_mean(a: np.ndarray, b: np.ndarray, where: np.ndarray) -> float:
    if not where.any():
        return math.inf
    return float(np.minimum(np.abs(a - b)[where], 40.0).mean())


def _shrunk(image: np.ndarray, scale: float) -> np.ndarray:
    from PIL import Image

    height, width = image.shape
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return np.asarray(Image.fromarray(image.astype(np.float32), mode="F").resize(size, Image.Resampling.BOX), dtype=np.float32)
