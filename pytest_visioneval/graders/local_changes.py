"""Local changes between two aligned, tone-matched images, counted by the area they cover.

:func:`change_map` finds the pixels a person would see as changed: a pixel is a
*seed* when both images, softened (brightness lightly, colour more), still
differ past the tolerance in brightness (luma) or colour (chroma) after each
pixel may match a neighbour (a sub-pixel misalignment, re-encoding and
resampling do not seed). Seeding alone erodes a change at its rim, so a 3x3
speck would count as one pixel; the change then grows back over the pixels
within GROW_RADIUS of a seed whose largest RGB difference, unsoftened, is past
the tolerance: a change counts at its full area, and edge noise far from any
seed does not count.

:func:`local_changes` groups the changed pixels into separate changes (pixels
within 2% of the image's long side of each other belong together: the strokes
of one letter, two eyes and a mouth) and measures each by the changed pixels it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Softening before comparing (px), split as vision (and JPEG) split colour: brightness is seen
# sharply, colour more coarsely. JPEG's 4:2:0 chroma and resampling leave colour fringes along
# hard edges that 2 px of chroma softening absorbs; 1 px on luma absorbs re-encoding and
# resampling once a 1-pixel match is allowed, while a changed letter still stands out
# (see docs/graders.md, `locality`, for the measurements).
LUMA_SIGMA = 1.0
CHROMA_SIGMA = 2.0
# Changed pixels closer than this share of the image's long side (at least 2 px) are one change:
# the strokes of a letter, two eyes and a mouth.
GROUP_SHARE = 0.02
# A change grows back this far (px) from its seeds over the pixels that differ as they are.
GROW_RADIUS = 2
# RGB -> Y, Cb, Cr (ITU-R BT.601, full range, offsets dropped: only differences are used).
_YCBCR = np.asarray([[0.299, 0.587, 0.114], [-0.168736, -0.331264, 0.5], [0.5, -0.418688, -0.081312]], dtype=np.float32)


@dataclass(frozen=True)
class ChangeMap:
    changed: np.ndarray  # bool, height x width
    difference: np.ndarray  # float32: luma or chroma difference left once a 1-pixel match is allowed (0-255)


@dataclass(frozen=True)
class Change:
    """One local change: the changed pixels it holds and its bounding box (x0, y0, x1, y1; right/bottom exclusive)."""

    area: int
    box: tuple[int, int, int, int]


@dataclass(frozen=True)
class Softened:
    """An image's luma and chroma, each softened as :func:`change_map` compares them."""

    luma: np.ndarray
    chroma: np.ndarray


def softened(pixels: np.ndarray) -> Softened:
    """``pixels`` (RGB, 0-255) ready for :func:`change_map`; to compare one image with several, soften it once."""
    ycc = pixels @ _YCBCR.T
    return Softened(_softened(ycc[..., :1], LUMA_SIGMA), _softened(ycc[..., 1:], CHROMA_SIGMA))


def change_map(expected: np.ndarray, actual: np.ndarray, tolerance: float, soft_expected: Softened | None = None) -> ChangeMap:
    """Changed pixels of ``actual`` against ``expected`` (same-size RGB arrays, 0-255)."""
    from scipy import ndimage  # loaded when a comparison is made, not at plugin start

    soft_expected = soft_expected or softened(expected)
    soft_actual = softened(actual)
    luma = matched_difference(soft_expected.luma, soft_actual.luma)
    chroma = matched_difference(soft_expected.chroma, soft_actual.chroma)
    difference = np.maximum(luma, chroma)
    seeds = difference > tolerance
    if not seeds.any():
        return ChangeMap(seeds, difference)
    # Grown over the unsoftened difference: softening would add a rim around a strong change.
    direct = np.abs(expected - actual).max(axis=2) > tolerance
    size = 2 * GROW_RADIUS + 1
    near_seed = ndimage.binary_dilation(seeds, structure=np.ones((size, size), dtype=bool))
    return ChangeMap(near_seed & direct, difference)


def matched_difference(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Per pixel, the smallest largest-channel difference between ``after`` within 1 px and ``before``.

    Like :func:`~pytest_visioneval.graders.imaging.aligned_difference`, for any number of channels.
    """
    height, width, channels = before.shape
    # Channel-first and contiguous: each shift is then a few fast 2-D subtractions.
    base = np.ascontiguousarray(before.transpose(2, 0, 1))
    padded = np.ascontiguousarray(np.pad(after, ((1, 1), (1, 1), (0, 0)), mode="edge").transpose(2, 0, 1))
    best: np.ndarray | None = None
    for dy in range(3):
        for dx in range(3):
            window = padded[:, dy : dy + height, dx : dx + width]
            diff = np.abs(window[0] - base[0])
            for channel in range(1, channels):
                np.maximum(diff, np.abs(window[channel] - base[channel]), out=diff)
            best = diff if best is None else np.minimum(best, diff, out=best)
    assert best is not None
    return best


def _softened(pixels: np.ndarray, sigma: float) -> np.ndarray:
    from scipy import ndimage

    return np.asarray(ndimage.gaussian_filter(pixels, (sigma, sigma, 0)), dtype=np.float32)


def local_changes(changed: np.ndarray, radius: int | None = None) -> list[Change]:
    """The separate changes of a boolean map, largest first; ``radius`` defaults to GROUP_SHARE of the long side."""
    from scipy import ndimage

    if not changed.any():
        return []
    if radius is None:
        radius = max(2, round(GROUP_SHARE * max(changed.shape)))
    size = 2 * radius + 1
    groups, count = ndimage.label(ndimage.binary_dilation(changed, structure=np.ones((size, size), dtype=bool)))
    labels = np.where(changed, groups, 0)
    areas = np.bincount(labels.ravel(), minlength=count + 1)
    boxes = ndimage.find_objects(labels, max_label=count)
    found = [
        Change(int(areas[index + 1]), (box[1].start, box[0].start, box[1].stop, box[0].stop))
        for index, box in enumerate(boxes)
        if box is not None and areas[index + 1] > 0
    ]
    return sorted(found, key=lambda c: c.area, reverse=True)
