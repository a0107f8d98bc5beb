"""Whether one picture is another one transformed: flipped, turned, cropped, resized, recoloured.

A copy stays a copy for a person when it is mirrored, turned by 90 degrees,
cropped (keeping at least ``MIN_CROP_AREA`` of the area, each side at least
``MIN_CROP_SIDE``, the sides' shares within ``MAX_STRETCH`` of each other)
and scaled back, re-encoded, or recoloured (hue turned, brightness and
contrast changed, turned grey). Pictures are compared as ``SIDE`` x ``SIDE``
views, softened a little, of a twice finer :func:`thumbnail`.

For each of the 8 turns and flips of the original, the copy is first
explained whole; then the crop it may be is *located*: the copy, shrunk to a
coarse grid of window sizes, is placed where it fits best by normalized
cross-correlation (:func:`skimage.feature.match_template`) on the brightest
channel, which a hue turn keeps; the few best placements are then refined
(window edges, to a fraction of a pixel) by least squares
(:func:`scipy.optimize.least_squares`). The verdict is :func:`explained_share`:
how much of the copy's colour variation, and of its fine detail, one global
colour shift of the located window explains (R squared). A new picture - the
product turned or moved, or on another background while the product keeps
its colours - is not so explained, wherever the window lands. A zoomed new
shot of a flat drawing is, geometrically, a crop: callers hold crops to a
higher share (``distinct_images``' ``same_explained_crop``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PIL import Image

from .imaging import rgb_array

SIDE = 64
MIN_CROP_AREA = 0.35
MIN_CROP_SIDE = 0.5
MAX_STRETCH = 1.4  # a window's side shares differ by at most this factor: a crop scaled back keeps its shapes roughly
COARSE_SIDES = (1.0, 0.85, 0.7, 0.55)  # window sides tried per axis before refining
_REFINED = 4  # best placements refined
_SOFTEN_SIGMA = 0.8  # px at SIDE: resampling and re-encoding differences are finer than this
_DETAIL_SIGMA = 2.0  # px at SIDE: what is left after this blur is edges and texture

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
_BRIGHTEST, _DARKEST, _CHROMA = 3, 4, 5  # thumbnail channels after L*, a*, b*


@dataclass(frozen=True)
class Match:
    share: float  # R squared of the best colour shift, 0-1
    how: str  # the transform, e.g. "mirrored, cropped to 80% x 60%"
    turn: str = "as it is"  # the DIHEDRAL transform of the original
    window: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)  # top, left, bottom, right of the turned original, 0-1

    @property
    def cropped(self) -> bool:
        return self.window != (0.0, 0.0, 1.0, 1.0)


def thumbnail(image: Image.Image) -> np.ndarray:
    """2 SIDE x 2 SIDE x 7 (alpha on white), box-filtered: CIELAB, then HSV as numbers on 0-100 scales.

    HSV here: the brightest and the darkest RGB channel, and the chroma (their
    difference) as a vector at the HSV hue angle. An HSV or HLS hue turn keeps
    the first two and turns the vector; the brightest channel carries the
    picture's structure through any hue turn. Twice the compared size, so that
    a window of it can be seen as sharp as a whole copy is (:func:`_window_view`).
    """
    from skimage.color import rgb2hsv, rgb2lab

    fine = 2 * SIDE
    flat = Image.fromarray(rgb_array(image).astype(np.uint8)).resize((fine, fine), Image.Resampling.BOX)
    pixels = np.asarray(flat, dtype=np.float64) / 255
    brightest, darkest = pixels.max(axis=2), pixels.min(axis=2)
    chroma = (brightest - darkest) * np.exp(2j * np.pi * rgb2hsv(pixels)[..., 0])
    hsv = np.stack([brightest, darkest, chroma.real, chroma.imag], axis=2) * 100
    return np.concatenate([np.asarray(rgb2lab(pixels)), hsv], axis=2)


def explained_share(source: np.ndarray, copy: np.ndarray) -> float:
    """R squared of ``copy`` fitted by one global colour shift of ``source`` (thumbnails); 1 for such a recolour.

    Two kinds of shift, the better one counts. In CIELAB: lightness scaled and
    offset (brightness, contrast), and the colour plane (a*, b*) turned by one
    hue angle and scaled by one chroma factor (hue turn, saturation, grey).
    In HSV: the brightest and the darkest channel each scaled and offset, and
    the chroma vector turned by one angle and scaled (an HSV hue turn is exactly
    that). A handful of numbers for the whole picture: another background
    behind an unchanged product needs one colour moved and the others kept,
    which neither can do.

    The share counted is the lower of the pictures' and of their fine detail's
    (each minus a blur of ``_DETAIL_SIGMA``): a shape that is only roughly in
    place - the product drawn larger or in another pose, a window a pixel off -
    still explains the broad colour areas, not the edges.
    """
    from scipy import ndimage

    whole = _colour_share(source, copy)
    if whole < 0.5:
        return whole

    def detail(picture: np.ndarray) -> np.ndarray:
        return picture - ndimage.gaussian_filter(picture, (_DETAIL_SIGMA, _DETAIL_SIGMA, 0))

    return min(whole, _colour_share(detail(source), detail(copy)))


def _colour_share(source: np.ndarray, copy: np.ndarray) -> float:
    return max(_lab_share(source, copy), _hsv_share(source, copy))


def _r_squared(residual: float, target: np.ndarray) -> float:
    total = float(((target - target.mean(axis=0)) ** 2).sum())
    if total < 1e-6:
        return 1.0 if residual < 1e-3 * len(target) else 0.0
    return max(0.0, 1 - residual / total)


def _affine_residual(source: np.ndarray, target: np.ndarray) -> float:
    if np.ptp(source) <= 1e-6:
        return float(((target - target.mean()) ** 2).sum())
    gain, offset = np.polyfit(source, target, 1)
    return float(((target - (gain * source + offset)) ** 2).sum())


def _lab_share(source: np.ndarray, copy: np.ndarray) -> float:
    lightness, target_lightness = source[..., 0].ravel(), copy[..., 0].ravel()
    chroma = source[..., 1].ravel() + 1j * source[..., 2].ravel()
    target_chroma = copy[..., 1].ravel() + 1j * copy[..., 2].ravel()
    power = float((np.abs(chroma) ** 2).sum())
    turn = complex((np.conj(chroma) * target_chroma).sum() / power) if power > 1e-6 else 0j
    residual = _affine_residual(lightness, target_lightness) + float((np.abs(target_chroma - turn * chroma) ** 2).sum())
    target = np.stack([target_lightness, target_chroma.real, target_chroma.imag], axis=1)
    return _r_squared(residual, target)


def _hsv_share(source: np.ndarray, copy: np.ndarray) -> float:
    residual = sum(_affine_residual(source[..., c].ravel(), copy[..., c].ravel()) for c in (_BRIGHTEST, _DARKEST))
    chroma = source[..., _CHROMA].ravel() + 1j * source[..., _CHROMA + 1].ravel()
    target_chroma = copy[..., _CHROMA].ravel() + 1j * copy[..., _CHROMA + 1].ravel()
    power = float((np.abs(chroma) ** 2).sum())
    turn = complex((np.conj(chroma) * target_chroma).sum() / power) if power > 1e-6 else 0j
    residual += float((np.abs(target_chroma - turn * chroma) ** 2).sum())
    return _r_squared(residual, copy[..., _BRIGHTEST:].reshape(-1, 4))


@dataclass(frozen=True)
class _Window:
    """Where the copy lies in the (turned) original, in thumbnail pixels: top, left, bottom, right edges."""

    edges: tuple[float, float, float, float]

    @property
    def sides(self) -> tuple[float, float]:  # x, y as shares of SIDE
        top, left, bottom, right = self.edges
        return (right - left) / SIDE, (bottom - top) / SIDE

    def allowed(self) -> bool:
        side_x, side_y = self.sides
        return (
            min(side_x, side_y) >= MIN_CROP_SIDE - 0.02
            and side_x * side_y >= MIN_CROP_AREA - 0.02
            and max(side_x / side_y, side_y / side_x) <= MAX_STRETCH
        )


def best_match(original: np.ndarray, copy: np.ndarray, crops: bool = True) -> Match:
    """How well ``copy`` is explained as ``original`` turned, flipped and/or cropped, then recoloured (thumbnails).

    ``crops=False`` looks for whole-picture transforms only.
    """
    whole = _Window((0.0, 0.0, SIDE, SIDE))
    copy_view = _window_view(copy, whole)
    best = Match(-1.0, "")
    placements: list[tuple[float, str, _Window]] = []
    for turn_name, turn in DIHEDRAL.items():
        turned = _window_view(np.ascontiguousarray(turn(original)), whole)
        share = explained_share(turned, copy_view)
        if share > best.share:
            best = Match(share, turn_name, turn_name)
        placements += [(score, turn_name, window) for score, window in _placements(turned, copy_view)]
    if best.share >= 0.99 or not crops:
        return best
    placements.sort(key=lambda placement: -placement[0])
    for _, turn_name, window in placements[:_REFINED]:
        turned = np.ascontiguousarray(DIHEDRAL[turn_name](original))
        refined = _refine(_window_view(turned, whole), copy_view, window)
        if not refined.allowed():
            continue
        share = explained_share(_window_view(turned, refined), copy_view)
        if share > best.share:
            side_x, side_y = refined.sides
            if min(side_x, side_y) < 0.995:
                edges = tuple(edge / SIDE for edge in refined.edges)
                best = Match(share, f"{turn_name}, cropped to {side_x:.0%} x {side_y:.0%}", turn_name, edges)
            else:
                best = Match(share, turn_name, turn_name)
    return best


def _window_view(fine: np.ndarray, window: _Window) -> np.ndarray:
    """The window (SIDE units) of a :func:`thumbnail` seen at SIDE x SIDE, as blurred as a whole picture's view.

    A whole picture's view pixel averages 2 x 2 thumbnail pixels and is then
    softened by ``_SOFTEN_SIGMA``; a window's view pixel spans fewer thumbnail
    pixels, so the thumbnail is blurred by what makes up the difference, per axis.
    """
    from scipy import ndimage

    spread = _SOFTEN_SIGMA**2 + 1 / 12  # a view pixel's blur, in view pixels squared
    sigmas = [np.sqrt(max(0.0, 4 * side**2 * spread - 1 / 12)) for side in reversed(window.sides)]
    return _sample(ndimage.gaussian_filter(fine, (*sigmas, 0)), window, scale=2)


def _placements(original: np.ndarray, copy: np.ndarray) -> list[tuple[float, _Window]]:
    """For each coarse window size, where the shrunk copy correlates best with ``original`` (brightest channel, half size)."""
    from skimage.feature import match_template  # loaded when pictures are compared
    from skimage.transform import resize

    half = SIDE // 2
    source = original[::2, ::2, _BRIGHTEST]
    target = copy[..., _BRIGHTEST]
    found = []
    for side_y in COARSE_SIDES:
        for side_x in COARSE_SIDES:
            if side_x == side_y == 1.0 or not _Window((0, 0, SIDE * side_y, SIDE * side_x)).allowed():
                continue
            height, width = round(half * side_y), round(half * side_x)
            small = resize(target, (height, width), order=1, anti_aliasing=True)
            if np.ptp(small) < 1e-6:
                continue
            correlation = match_template(source, small)
            y, x = np.unravel_index(int(np.argmax(correlation)), correlation.shape)
            top, left = 2.0 * y, 2.0 * x
            found.append((float(correlation[y, x]), _Window((top, left, top + 2 * height, left + 2 * width))))
    return found


def _sample(picture: np.ndarray, window: _Window, scale: int = 1, step: int = 1) -> np.ndarray:
    """The window (SIDE units) of ``picture`` (``scale`` pixels a unit) sampled at SIDE x SIDE (bilinear, edges clamped).

    ``step``: only every step-th row and column of those SIDE x SIDE points, the same values as
    ``[::step, ::step]`` of the whole sample (each point is interpolated on its own), for a step of the cost.
    """
    from scipy import ndimage

    top, left, bottom, right = window.edges
    centres = ((np.arange(SIDE) + 0.5) / SIDE)[::step]
    shape = (len(centres), len(centres))
    rows = np.broadcast_to((scale * (top + centres * (bottom - top)) - 0.5)[:, None], shape)
    cols = np.broadcast_to((scale * (left + centres * (right - left)) - 0.5)[None, :], shape)
    return np.stack(
        [ndimage.map_coordinates(picture[..., c], [rows, cols], order=1, mode="nearest") for c in range(picture.shape[2])],
        axis=2,
    )


def _refine(original: np.ndarray, copy: np.ndarray, window: _Window) -> _Window:
    """The window edges that make the copy's brightest channel one scale and offset of the window's, by least squares."""
    from scipy.optimize import least_squares

    channels = [_BRIGHTEST, _DARKEST]
    target = copy[::2, ::2][..., channels].reshape(-1, 2)
    small = original[..., channels]

    def residuals(edges: np.ndarray) -> np.ndarray:
        seen = _sample(small, _Window(tuple(edges)), step=2).reshape(-1, 2)  # least squares calls this 10-40 times
        out = []
        for c in range(2):
            design = np.stack([seen[:, c], np.ones(len(seen))], axis=1)
            coefficients, *_ = np.linalg.lstsq(design, target[:, c], rcond=None)
            out.append(target[:, c] - design @ coefficients)
        return np.concatenate(out)

    start = np.clip(np.asarray(window.edges), 0, SIDE)
    fitted = least_squares(residuals, start, bounds=(np.zeros(4) - 1e-9, np.full(4, SIDE) + 1e-9), diff_step=0.02, max_nfev=40)
    return _Window(tuple(float(v) for v in fitted.x))
