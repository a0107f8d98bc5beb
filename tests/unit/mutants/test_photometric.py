"""mutants/photometric.py: each change is the one it names, by the amount it reports, far beyond a re-encode."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image

from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.mutants.base import Subject
from pytest_visioneval.mutants.photometric import photometric

from .helpers import pixels, png_artifact, synthetic


def draw(make_case: Callable[..., CaseSpec], name: str, seed: int, image: Image.Image | None = None) -> tuple[dict, np.ndarray]:
    image = image or synthetic(seed)
    classes, _ = photometric(Subject(make_case(), (png_artifact(image),)))
    variant = next(c for c in classes if c.name == name).make(random.Random(seed))
    assert variant is not None
    return dict(variant.params), pixels(variant.artifacts[0])


def hues(rgb: np.ndarray) -> np.ndarray:
    from skimage.color import rgb2hsv

    return rgb2hsv(rgb.astype(np.uint8))[..., 0] * 360


@pytest.mark.parametrize("seed", range(6))
def test_a_hue_rotation_turns_saturated_hues_by_its_degrees(make_case: Callable[..., CaseSpec], seed: int) -> None:
    image = synthetic(seed)
    params, out = draw(make_case, "hue_rotation", seed, image)
    assert 30 <= abs(params["degrees"]) <= 180
    source = np.asarray(image)
    saturated = (source.max(axis=2).astype(int) - source.min(axis=2)) > 80
    turned = (hues(out) - hues(source.astype(np.int16)))[saturated]
    circular = np.degrees(np.angle(np.exp(1j * np.radians(turned)).mean()))
    assert circular == pytest.approx(params["degrees"] if abs(params["degrees"]) < 180 else circular, abs=4)


@pytest.mark.parametrize("seed", range(6))
def test_brightness_moves_every_level_by_40_to_90(make_case: Callable[..., CaseSpec], seed: int) -> None:
    params, out = draw(make_case, "brightness", seed)
    source = np.asarray(synthetic(seed)).astype(np.int16)
    unclipped = (source + params["offset"] >= 0) & (source + params["offset"] <= 255)
    assert 40 <= abs(params["offset"]) <= 90
    assert np.array_equal((out - source)[unclipped], np.full(unclipped.sum(), params["offset"]))


def edges(rgb: np.ndarray) -> float:
    """The energy of the steps between neighbours (mean squared difference): a blur spreads each step, and lowers it."""
    grey = rgb.mean(axis=2)
    return float((np.diff(grey, axis=1) ** 2).mean() + (np.diff(grey, axis=0) ** 2).mean())


@pytest.mark.parametrize("seed", range(4))
def test_a_blur_takes_a_third_of_the_edge_energy_away(make_case: Callable[..., CaseSpec], seed: int) -> None:
    params, out = draw(make_case, "blur", seed)
    assert edges(out) < 0.67 * edges(np.asarray(synthetic(seed)).astype(np.int16)), params


def test_noise_contrast_and_saturation_change_the_picture_beyond_noise(make_case: Callable[..., CaseSpec]) -> None:
    source = np.asarray(synthetic(1)).astype(np.int16)
    for name in ("noise", "contrast", "saturation"):
        _, out = draw(make_case, name, 1)
        assert np.abs(out - source).mean() > 5, name  # a JPEG q70 re-encode of it moves about 1-3 levels
    params, out = draw(make_case, "noise", 2)
    assert np.std(out - np.asarray(synthetic(2)).astype(np.int16)) == pytest.approx(params["sigma"], rel=0.25)


def test_a_grey_picture_gets_no_colour_classes(make_case: Callable[..., CaseSpec]) -> None:
    grey = synthetic(0).convert("L").convert("RGB")
    classes, skipped = photometric(Subject(make_case(), (png_artifact(grey),)))
    assert "hue_rotation" not in {c.name for c in classes}
    assert [s.name for s in skipped] == ["photometric/hue_rotation", "photometric/saturation"]
    assert "almost no colour" in skipped[0].reason and "mean saturation 0.00" in skipped[0].reason


def saturated_screen() -> Image.Image:
    """A light screen with a strong blue header and button: colours a boost can hardly push further."""
    screen = np.full((120, 80, 3), (246, 247, 250), dtype=np.uint8)
    screen[:18] = (37, 99, 235)
    screen[95:110, 8:72] = (37, 99, 235)
    return Image.fromarray(screen)


@pytest.mark.parametrize("seed", range(12))
def test_a_saturation_change_is_always_one_a_person_sees(make_case: Callable[..., CaseSpec], seed: int) -> None:
    # Boosted, the blue clips to (0, 102, 255): 2.5 deltaE, barely told apart side by side. Such a draw
    # is washed out instead, so every broken variant moves a visible share of the picture far.
    from pytest_visioneval.mutants.photometric import MIN_VISIBLE_SHARE, changed_share

    image = saturated_screen()
    params, out = draw(make_case, "saturation", seed, image)
    assert params["factor"] <= 0.3
    assert changed_share(image, Image.fromarray(out.astype(np.uint8))) >= MIN_VISIBLE_SHARE


def test_a_boost_that_shows_is_kept(make_case: Callable[..., CaseSpec]) -> None:
    boosts = [draw(make_case, "saturation", seed)[0]["factor"] for seed in range(12)]
    assert any(factor >= 2.2 for factor in boosts)  # on the synthetic pictures a boost is seen


@pytest.mark.parametrize("seed", range(4))
def test_compression_saves_a_jpeg_at_a_quality_the_image_grader_fails(make_case: Callable[..., CaseSpec], seed: int) -> None:
    from pytest_visioneval.graders.image import ImageGrader
    from pytest_visioneval.graders.jpeg_quality import estimated_quality

    classes, _ = photometric(Subject(make_case(), (png_artifact(synthetic(seed)),)))
    variant = next(c for c in classes if c.name == "compression").make(random.Random(seed))
    assert variant is not None
    (artifact,) = variant.artifacts
    assert artifact.name.endswith(".jpg") and 2 <= variant.params["quality"] <= 8
    assert estimated_quality(artifact.data) == variant.params["quality"]
    gates = {g.name: g for g in ImageGrader({}).grade(make_case(), variant.artifacts).gates}
    assert not gates["jpeg_quality"].passed
