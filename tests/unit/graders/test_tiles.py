"""graders/tiles.py: tile grids cut to the image, window statistics and correlation over them."""

from __future__ import annotations

import numpy as np

from pytest_visioneval.graders.tiles import WindowSums, box_around, correlation, grid, widened


def test_grid_steps_over_the_image_and_is_cut_to_it() -> None:
    tiles = grid(40, 24, 16, 8)
    assert tiles.tops.ravel().tolist() == [0, 8, 16, 24]
    assert tiles.lefts.ravel().tolist() == [0, 8]
    assert tiles.bottoms.ravel().tolist() == [16, 24, 32, 40]
    thin = grid(5, 24, 16, 8)
    assert thin.tops.ravel().tolist() == [0] and thin.bottoms.ravel().tolist() == [5]


def test_widened_tiles_stay_inside_the_image() -> None:
    tiles = widened(grid(40, 24, 16, 8), 3, 40, 24)
    assert tiles.tops.ravel().tolist() == [0, 5, 13, 21]
    assert tiles.rights.ravel().tolist() == [19, 24]


def test_window_mean_and_spread_match_numpy() -> None:
    rng = np.random.default_rng(0)
    pixels = rng.normal(100, 20, (40, 24))
    tiles = grid(40, 24, 16, 8)
    sums = WindowSums(pixels)
    window = pixels[8:24, 8:24]
    assert abs(sums.mean(tiles)[1, 1] - window.mean()) < 1e-9
    assert abs(sums.std(tiles)[1, 1] - window.std()) < 1e-9


def test_correlation_is_one_for_a_scaled_copy_minus_one_for_a_negative_and_zero_when_flat() -> None:
    rng = np.random.default_rng(1)
    pixels = rng.normal(100, 20, (32, 32))
    tiles = grid(32, 32, 16, 16)
    assert np.allclose(correlation(pixels, pixels * 0.5 + 10, tiles), 1.0)
    assert np.allclose(correlation(pixels, -pixels, tiles), -1.0)
    assert np.allclose(correlation(pixels, np.full_like(pixels, 7.0), tiles), 0.0)


def test_box_around_the_chosen_tiles_in_shares_of_the_size() -> None:
    tiles = grid(40, 24, 16, 8)
    chosen = np.zeros((4, 2), dtype=bool)
    chosen[1, 1] = chosen[2, 1] = True
    assert box_around(tiles, chosen, 40, 24) == (8 / 24, 8 / 40, 24 / 24, 32 / 40)
