"""Areas where the output shows the comparison image's content softened: blurred, its edges smeared.

A blur keeps every shape where it was and every colour near its own, so the
per-pixel colour check and a similarity score move little, while a person sees
a soft, out-of-focus picture at once. Sharpness is edge energy: the mean
squared step between neighbouring pixels of the grey image. Compared tile by
tile (TILE px, stepping STEP px, at the working size) where the comparison
image has edges (at least MIN_EDGE_ENERGY) and the output shows the same
content (the two, both softened by CONTENT_SIGMA px, correlate at least
MIN_CORRELATION over the tile): the tile is softened when the output has less
edge energy than the comparison image blurred by CALIBRATION_SIGMA px. The
yardstick is each tile's own, so a photo with soft edges and a screen of sharp
text are judged alike.

Measured by ``benchmarks/softened_separation.py --photos`` on the 73 shipped
images under ``cases/`` and ten scikit-image photos (docs/graders.md): JPEG
q70-95, 1-2 px shifts, +5 levels, a blur of 0.25 px per 256 px and Lanczos,
bilinear and bicubic resize round trips at 0.5-0.9 soften at most 4% of the
content tiles; a Gaussian blur of 2.5-6 px per 512 px of the picture softens
89-100%, and a blur over a centred quarter of the picture 5% or more (45 of
83 past the default limit).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .alignment import grey
from .tiles import WindowSums, box_around, correlation, grid

TILE = 32  # px at the working size (256 px on the long side)
STEP = 16
MIN_EDGE_ENERGY = 20.0  # mean squared neighbour step (grey levels^2) of a tile with edges to soften
CALIBRATION_SIGMA = 1.1  # px at the working size: softer than re-encodes and resize round trips, sharper than a blur
CONTENT_SIGMA = 2.0  # px: what is compared for "the same content" ignores sharpness itself
MIN_CORRELATION = 0.7


@dataclass(frozen=True)
class Softening:
    softened: int  # content tiles softened
    content: int  # content tiles compared (edges in the comparison image, the same content in the output)
    box: tuple[float, float, float, float] | None  # around the softened tiles: x0, y0, x1, y1 as shares of the size

    @property
    def share(self) -> float:
        return self.softened / self.content if self.content else 0.0


def edge_energy(luma: np.ndarray) -> np.ndarray:
    """Per pixel, the squared steps to the right and the lower neighbour, summed."""
    energy = np.zeros_like(luma)
    across, down = np.diff(luma, axis=1), np.diff(luma, axis=0)
    energy[:, :-1] += across * across
    energy[:-1, :] += down * down
    return energy


def softening(output: np.ndarray, target: np.ndarray) -> Softening:
    """The softened content tiles of ``output`` against ``target`` (aligned RGB arrays of one size, 0-255)."""
    from scipy import ndimage

    out, tgt = grey(output).astype(np.float64), grey(target).astype(np.float64)
    height, width = tgt.shape
    tiles = grid(height, width, TILE, STEP)
    target_energy = WindowSums(edge_energy(tgt)).mean(tiles)
    yardstick = WindowSums(edge_energy(ndimage.gaussian_filter(tgt, CALIBRATION_SIGMA))).mean(tiles)
    output_energy = WindowSums(edge_energy(out)).mean(tiles)
    alike = correlation(ndimage.gaussian_filter(out, CONTENT_SIGMA), ndimage.gaussian_filter(tgt, CONTENT_SIGMA), tiles)
    content = (target_energy >= MIN_EDGE_ENERGY) & (alike >= MIN_CORRELATION)
    softened = content & (output_energy < yardstick)
    if not softened.any():
        return Softening(0, int(content.sum()), None)
    return Softening(int(softened.sum()), int(content.sum()), box_around(tiles, softened, height, width))
