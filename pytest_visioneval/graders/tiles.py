"""Overlapping square tiles of an image, and fast window statistics over them (summed-area tables).

Shared by the checks that compare an output with a reference area by area
(:mod:`.faded_content`, :mod:`.softened_content`): each tile is a window
``[top, bottom) x [left, right)``; the grids are cut to the image, so an image
thinner than a tile gets one short row.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Grid(NamedTuple):
    """Tile windows as broadcastable arrays: rows of tops against columns of lefts."""

    tops: np.ndarray  # n x 1
    lefts: np.ndarray  # 1 x m
    bottoms: np.ndarray
    rights: np.ndarray


def grid(height: int, width: int, tile: int, step: int) -> Grid:
    """Tiles of ``tile`` px every ``step`` px over an image of ``height`` x ``width``, cut to the image."""
    tops = np.arange(0, max(1, height - tile + 1), step)[:, None]
    lefts = np.arange(0, max(1, width - tile + 1), step)[None, :]
    return Grid(tops, lefts, np.minimum(height, tops + tile), np.minimum(width, lefts + tile))


def widened(tiles: Grid, margin: int, height: int, width: int) -> Grid:
    """The same tiles widened by ``margin`` px on every side, cut to the image."""
    return Grid(
        np.maximum(0, tiles.tops - margin),
        np.maximum(0, tiles.lefts - margin),
        np.minimum(height, tiles.bottoms + margin),
        np.minimum(width, tiles.rights + margin),
    )


def box_around(tiles: Grid, chosen: np.ndarray, height: int, width: int) -> tuple[float, float, float, float]:
    """The box around the chosen tiles: x0, y0, x1, y1 as shares of the image's width and height."""
    rows, columns = np.nonzero(chosen)
    top, bottom = int(tiles.tops[rows.min(), 0]), int(tiles.bottoms[rows.max(), 0])
    left, right = int(tiles.lefts[0, columns.min()]), int(tiles.rights[0, columns.max()])
    return left / width, top / height, right / width, bottom / height


class WindowSums:
    """Summed-area tables of an image and its square: the mean and spread over any window."""

    def __init__(self, pixels: np.ndarray):
        self._tables = [
            np.pad(np.cumsum(np.cumsum(values, axis=0), axis=1), ((1, 0), (1, 0))) for values in (pixels, pixels * pixels)
        ]

    def _window_means(self, tiles: Grid) -> list[np.ndarray]:
        tops, lefts, bottoms, rights = tiles
        count = (bottoms - tops) * (rights - lefts)
        return [(t[bottoms, rights] - t[tops, rights] - t[bottoms, lefts] + t[tops, lefts]) / count for t in self._tables]

    def mean(self, tiles: Grid) -> np.ndarray:
        return self._window_means(tiles)[0]

    def std(self, tiles: Grid) -> np.ndarray:
        mean, squares = self._window_means(tiles)
        return np.sqrt(np.maximum(squares - mean**2, 0.0))


def correlation(
    a: np.ndarray, b: np.ndarray, tiles: Grid, a_sums: WindowSums | None = None, b_sums: WindowSums | None = None
) -> np.ndarray:
    """Pearson correlation of ``a`` and ``b`` over each tile (0 where either is flat)."""
    a_sums = a_sums or WindowSums(a)
    b_sums = b_sums or WindowSums(b)
    covariance = WindowSums(a * b).mean(tiles) - a_sums.mean(tiles) * b_sums.mean(tiles)
    spreads = a_sums.std(tiles) * b_sums.std(tiles)
    return np.where(spreads > 1e-6, covariance / np.maximum(spreads, 1e-6), 0.0)
