"""mutants/geometric.py: each geometric mutant is the transformation it names, with the parameters it reports."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image

from pytest_visioneval.cases.spec import CaseSpec, GraderSpec
from pytest_visioneval.mutants.base import Subject
from pytest_visioneval.mutants.geometric import geometric

from .helpers import pixels, png_artifact, synthetic


@pytest.fixture
def made(make_case: Callable[..., CaseSpec]) -> Callable[[str, int], tuple[dict, np.ndarray, Image.Image]]:
    def make(name: str, seed: int) -> tuple[dict, np.ndarray, Image.Image]:
        image = synthetic(seed)
        classes, _ = geometric(Subject(make_case(), (png_artifact(image),)))
        variant = next(c for c in classes if c.name == name).make(random.Random(seed))
        assert variant is not None
        return dict(variant.params), pixels(variant.artifacts[0]), image

    return make


@pytest.mark.parametrize("seed", range(5))
def test_a_mirror_is_the_picture_flipped(made: Callable, seed: int) -> None:
    params, out, image = made("mirror", seed)
    axis = Image.Transpose.FLIP_LEFT_RIGHT if params["axis"] == "left-right" else Image.Transpose.FLIP_TOP_BOTTOM
    assert np.array_equal(out, np.asarray(image.transpose(axis)))


@pytest.mark.parametrize("seed", range(5))
def test_a_shift_moves_the_picture_by_4_to_15_percent(made: Callable, seed: int) -> None:
    params, out, image = made("shift", seed)
    dx, dy = params["dx"], params["dy"]
    assert 0.04 * 160 - 1 <= abs(dx) <= 0.15 * 160 + 1 and 0.04 * 120 - 1 <= abs(dy) <= 0.15 * 120 + 1
    source = np.asarray(image).astype(np.int16)
    inner = out[max(dy, 0) : 120 + min(dy, 0), max(dx, 0) : 160 + min(dx, 0)]
    assert np.array_equal(inner, source[max(-dy, 0) : 120 - max(dy, 0), max(-dx, 0) : 160 - max(dx, 0)])


def test_a_picture_shrunk_into_a_corner_leaves_the_rest_white(made: Callable) -> None:
    params, out, _ = made("shrunk_into_corner", 2)
    width, height = round(160 * params["scale"]), round(120 * params["scale"])
    left = 0 if params["corner"].endswith("left") else 160 - width
    top = 0 if params["corner"].startswith("top") else 120 - height
    blank = np.ones(out.shape[:2], bool)
    blank[top : top + height, left : left + width] = False
    assert (out[blank] == 255).all() and not (out[~blank] == 255).all()


def test_wrong_aspect_stretches_one_side(made: Callable) -> None:
    params, out, _ = made("wrong_aspect", 1)
    expected = (120, round(160 * params["factor"])) if params["axis"] == "width" else (round(120 * params["factor"]), 160)
    assert out.shape[:2] == expected and 1.3 <= params["factor"] <= 1.8


@pytest.mark.parametrize("seed", range(4))
def test_rotations_and_crops_keep_the_size_and_change_the_picture(made: Callable, seed: int) -> None:
    for name in ("rotate", "crop"):
        _, out, image = made(name, seed)
        assert out.shape == np.asarray(image).shape
        assert np.abs(out - np.asarray(image).astype(np.int16)).mean() > 10, name


def test_a_symmetric_picture_is_not_mirrored(make_case: Callable[..., CaseSpec]) -> None:
    symmetric = Image.new("RGB", (64, 64), (200, 30, 30))
    classes, _ = geometric(Subject(make_case(), (png_artifact(symmetric),)))
    mirror = next(c for c in classes if c.name == "mirror")
    assert mirror.make(random.Random(0)) is None


def test_size_gates_see_a_stretch_only_where_the_case_asks_for_a_size(make_case: Callable[..., CaseSpec]) -> None:
    image = png_artifact(synthetic(0))
    plain = next(c for c in geometric(Subject(make_case(), (image,)))[0] if c.name == "wrong_aspect")
    sized = make_case(graders=(GraderSpec(use="image", name="image", options={"width": 160}),))
    asked = next(c for c in geometric(Subject(sized, (image,)))[0] if c.name == "wrong_aspect")
    assert "image" not in plain.seen_by and "image" in asked.seen_by
