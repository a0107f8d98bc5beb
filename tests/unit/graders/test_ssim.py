"""graders/ssim.py: structural similarity to a reference or an input image."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
from PIL import Image, ImageDraw
from skimage.metrics import structural_similarity

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import GraderError
from pytest_visioneval.graders.base import Gate
from pytest_visioneval.graders.ssim import SsimGrader, mean_ssim, ssim_map

SIZE = (64, 64)


def scene() -> Image.Image:
    """Stripes and shapes: enough structure for SSIM to notice a shift."""
    img = Image.new("RGB", SIZE, (230, 220, 200))
    draw = ImageDraw.Draw(img)
    for x in range(0, SIZE[0], 8):
        draw.rectangle((x, 0, x + 3, 20), fill=(40, 60, 120))
    draw.ellipse((8, 28, 40, 60), fill=(200, 40, 40))
    draw.rectangle((44, 30, 60, 58), fill=(30, 140, 60))
    return img


def png(img: Image.Image, name: str = "image-0.png") -> Artifact:
    out = io.BytesIO()
    img.save(out, format="PNG")
    return Artifact(name, out.getvalue())


def noisy(sigma: float, seed: int = 0) -> Image.Image:
    rng = np.random.default_rng(seed)
    arr = np.asarray(scene(), dtype=np.float64) + rng.normal(0, sigma, (*SIZE[::-1], 3))
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))


@pytest.fixture
def reference(tmp_path: Path) -> Path:
    path = tmp_path / "reference.png"
    scene().save(path)
    return path


@pytest.fixture
def case(make_case: Callable[..., CaseSpec], reference: Path) -> CaseSpec:
    return make_case(reference=reference)


def run(options: dict[str, Any], case: CaseSpec, *artifacts: Artifact) -> tuple[float, str, dict[str, Gate]]:
    jsonschema.validate(options, SsimGrader.options_schema)
    result = SsimGrader(options).grade(case, artifacts)
    metric = result.metrics[0]
    assert metric.name == "ssim" and metric.higher_is_better
    assert type(metric.value) is float and -1.0 <= metric.value <= 1.0
    return metric.value, metric.reason, {g.name: g for g in result.gates}


def test_identical_image_scores_one(case: CaseSpec) -> None:
    score, reason, gates = run({}, case, png(scene()))
    assert score == pytest.approx(1.0, abs=1e-6)
    assert reason == "vs reference reference.png: image-0.png: 1.0000"
    assert gates == {}  # no min_ssim nor max_changed_content, no gate


def test_noise_lowers_the_score_more_the_stronger_it_is(case: CaseSpec) -> None:
    light, _, _ = run({}, case, png(noisy(5)))
    heavy, _, _ = run({}, case, png(noisy(40)))
    assert 0.0 < heavy < light < 0.99


def test_a_shift_lowers_the_score(case: CaseSpec) -> None:
    shifted = Image.fromarray(np.roll(np.asarray(scene()), 4, axis=1))
    score, _, _ = run({}, case, png(shifted))
    assert score < 0.8


def test_a_recolour_counts_even_at_equal_luminance(case: CaseSpec) -> None:
    # Swapping the channels of a grey-ish image keeps much of its luminance; per-channel SSIM still sees it.
    swapped = Image.fromarray(np.asarray(scene())[..., ::-1].copy())
    gray = mean_ssim(
        np.repeat(np.asarray(scene().convert("L"), np.float32)[..., None], 3, axis=2),
        np.repeat(np.asarray(swapped.convert("L"), np.float32)[..., None], 3, axis=2),
    )
    score, _, _ = run({}, case, png(swapped))
    assert score < gray - 0.1


def test_ssim_is_wang_et_al_per_channel() -> None:
    a, b = np.asarray(scene(), np.float32), np.asarray(noisy(20), np.float32)
    wang = {"gaussian_weights": True, "sigma": 1.5, "use_sample_covariance": False, "data_range": 255}
    per_channel = [structural_similarity(a[..., c], b[..., c], **wang) for c in range(3)]
    assert mean_ssim(a, b) == pytest.approx(np.mean(per_channel), abs=1e-6)
    assert mean_ssim(a, b) != pytest.approx(structural_similarity(a, b, channel_axis=2, data_range=255), abs=1e-3)
    full = ssim_map(a, b)
    assert full.shape == a.shape[:2]
    assert full[5:-5, 5:-5].mean() == pytest.approx(mean_ssim(a, b), abs=1e-6)  # skimage drops a 5 px border


def test_min_ssim_gate_passes(case: CaseSpec) -> None:
    score, _, gates = run({"min_ssim": 0.5}, case, png(noisy(5)))
    assert gates["match"].passed
    assert gates["match"].reason.startswith(f"ssim {score:.4f} >= 0.5; ")
    assert "; vs reference reference.png: image-0.png" in gates["match"].reason


def test_min_ssim_gate_fails_below(case: CaseSpec) -> None:
    score, _, gates = run({"min_ssim": 0.9}, case, png(noisy(40)))
    assert not gates["match"].passed
    assert gates["match"].reason.startswith(f"ssim {score:.4f} < 0.9;")


def test_min_ssim_of_one_passes_an_identical_image(case: CaseSpec) -> None:
    _, _, gates = run({"min_ssim": 1.0}, case, png(scene()))
    assert gates["match"].passed


def test_resize_is_noted_in_the_reason(case: CaseSpec) -> None:
    score, reason, _ = run({}, case, png(scene().resize((128, 128), Image.Resampling.NEAREST)))
    assert score > 0.9
    assert "image-0.png:" in reason and "(resized from 128x128)" in reason


def test_mean_over_several_images(case: CaseSpec) -> None:
    heavy, _, _ = run({}, case, png(noisy(40)))
    score, reason, _ = run({}, case, png(scene()), png(noisy(40), "image-1.png"))
    assert score == pytest.approx((1.0 + heavy) / 2, abs=1e-6)
    assert "image-0.png: 1.0000" in reason and f"image-1.png: {heavy:.4f}" in reason


def test_undecodable_output_scores_zero(case: CaseSpec) -> None:
    score, reason, gates = run({"min_ssim": 0.4}, case, png(scene()), Artifact("image-1.png", b"\x89PNG broken"))
    assert score == pytest.approx(0.5, abs=1e-6)
    assert "image-1.png: does not decode" in reason and "scored 0" in reason
    assert gates["match"].passed


def test_no_image_scores_zero_and_fails_the_gate(case: CaseSpec) -> None:
    score, reason, gates = run({"min_ssim": -1}, case, Artifact("reply.md", b"text"))
    assert score == 0.0
    assert reason == "the output holds no image"
    assert gates["match"].passed is True  # 0 >= -1: the gate follows the number
    _, _, strict = run({"min_ssim": 0.1}, case, Artifact("reply.md", b"text"))
    assert not strict["match"].passed


def test_against_input(make_case: Callable[..., CaseSpec], tmp_path: Path) -> None:
    scene().save(tmp_path / "input.png")
    case = make_case(task="image_editing", images=(tmp_path / "input.png",))
    score, reason, _ = run({"against": "input"}, case, png(scene()))
    assert score == pytest.approx(1.0, abs=1e-6)
    assert reason.startswith("vs input input.png:")


# -- check_case and errors ----------------------------------------------------
def test_check_case(case: CaseSpec, make_case: Callable[..., CaseSpec], reference: Path) -> None:
    assert SsimGrader.check_case(case, {}) is None
    assert SsimGrader.check_case(make_case(images=(reference,)), {"against": "input"}) is None
    missing_ref = SsimGrader.check_case(make_case(), {})
    assert missing_ref is not None and "'reference'" in missing_ref and "lacks" in missing_ref
    missing_input = SsimGrader.check_case(case, {"against": "input"})
    assert missing_input is not None and "first input image" in missing_input


def test_grade_without_reference_is_a_grader_error(make_case: Callable[..., CaseSpec]) -> None:
    with pytest.raises(GraderError, match="has no reference image"):
        SsimGrader({}).grade(make_case(), [png(scene())])


def test_unreadable_reference_is_a_grader_error(make_case: Callable[..., CaseSpec], tmp_path: Path) -> None:
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"nope")
    with pytest.raises(GraderError, match="cannot read image"):
        SsimGrader({}).grade(make_case(reference=bad), [png(scene())])


def test_tiny_reference_is_a_grader_error(make_case: Callable[..., CaseSpec], make_image: Callable[..., Path]) -> None:
    tiny = make_image("tiny.png", size=(10, 40))
    with pytest.raises(GraderError, match="SSIM needs at least 11x11"):
        SsimGrader({}).grade(make_case(reference=tiny), [png(scene())])


def test_options_schema() -> None:
    jsonschema.validate({"against": "input", "min_ssim": -0.5}, SsimGrader.options_schema)
    jsonschema.validate({"min_ssim": 0.9, "max_changed_content": 0.05, "delta_e": 8}, SsimGrader.options_schema)
    for bad in ({"min_ssim": 1.5}, {"against": "mask"}, {"min_score": 0.5}, {"max_changed_content": -0.1}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, SsimGrader.options_schema)


# -- alignment and the content-colour check of the match gate -----------------
def hue_rotated(image: Image.Image, degrees: float) -> Image.Image:
    from skimage.color import hsv2rgb, rgb2hsv

    hsv = rgb2hsv(np.asarray(image))
    hsv[..., 0] = (hsv[..., 0] + degrees / 360) % 1.0
    return Image.fromarray((hsv2rgb(hsv) * 255).round().astype(np.uint8))


def logo() -> Image.Image:
    """A teal emblem with a white triangle on white, like the cookbook's logo edits."""
    image = Image.new("RGB", (128, 128), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.ellipse((32, 8, 96, 72), fill=(13, 148, 136))
    draw.polygon([(64, 20), (46, 60), (82, 60)], fill=(255, 255, 255))
    draw.rectangle((30, 90, 98, 100), fill=(30, 30, 30))
    return image


@pytest.fixture
def logo_case(make_case: Callable[..., CaseSpec], tmp_path: Path) -> CaseSpec:
    logo().save(tmp_path / "logo.png")
    return make_case(reference=tmp_path / "logo.png")


def test_a_whole_image_shift_is_undone_and_named(logo_case: CaseSpec) -> None:
    moved = Image.fromarray(np.pad(np.asarray(logo()), ((2, 0), (0, 0), (0, 0)), mode="edge")[:-2])  # 2 px down
    plain = mean_ssim(np.asarray(moved, np.float32), np.asarray(logo(), np.float32))
    score, reason, gates = run({"min_ssim": 0.9}, logo_case, png(moved))
    assert plain < 0.9 < score  # unaligned, the shift alone would fail the gate
    assert "(shifted by x +0, y +2 px; aligned)" in reason
    assert gates["match"].passed


@pytest.mark.parametrize("degrees", [30, 180])
def test_a_hue_rotation_fails_the_gate(logo_case: CaseSpec, degrees: int) -> None:
    score, _, gates = run({"min_ssim": 0.9}, logo_case, png(hue_rotated(logo(), degrees)))
    if degrees == 30:
        assert score >= 0.9  # SSIM alone hardly sees a moderate hue rotation of flat colour
    gate = gates["match"]
    assert not gate.passed
    assert re.search(r"; \d+\.\d% of the content differs in colour from the reference \(deltaE00 > 10; limit 8%\)", gate.reason)
    assert "where the reference has #0d9488" in gate.reason


def test_changed_content_metric(logo_case: CaseSpec) -> None:
    result = SsimGrader({}).grade(logo_case, [png(hue_rotated(logo(), 90))])
    names = [m.name for m in result.metrics]
    assert names == ["ssim", "changed_content"]
    changed = result.metrics[1]
    assert not changed.higher_is_better and changed.value > 0.5


def test_jpeg_and_brightness_pass_the_gate(logo_case: CaseSpec) -> None:
    out = io.BytesIO()
    logo().save(out, format="JPEG", quality=60)
    _, _, gates = run({"min_ssim": 0.9}, logo_case, Artifact("image-0.jpg", out.getvalue()))
    assert gates["match"].passed, gates["match"].reason
    lifted = Image.fromarray(np.clip(np.asarray(logo(), np.int16) - 8, 0, 255).astype(np.uint8))
    _, _, gates = run({"min_ssim": 0.9}, logo_case, png(lifted))
    assert gates["match"].passed, gates["match"].reason
