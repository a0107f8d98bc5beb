"""graders/similarity.py: pixel similarity to a reference or an input image."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import GraderError
from pytest_visioneval.graders.similarity import SimilarityGrader, pixel_similarity

Encode = Callable[..., bytes]


@pytest.fixture
def reference(make_image: Callable[..., Path]) -> Path:
    return make_image("reference.png", size=(16, 16), color=(0, 0, 0), pattern=False)


@pytest.fixture
def case(make_case: Callable[..., CaseSpec], reference: Path) -> CaseSpec:
    return make_case(reference=reference)


# The score's own tests switch the content-colour check off (max_changed_content: 1): a solid grey output is
# far from a solid black reference in colour. The colour check has its own tests below.
SCORE_ONLY = {"max_changed_content": 1}


def run(options: dict[str, Any], case: CaseSpec, *artifacts: Artifact) -> tuple[float, str, dict[str, Any]]:
    jsonschema.validate(options, SimilarityGrader.options_schema)
    result = SimilarityGrader(options).grade(case, artifacts)
    metric = result.metrics[0]
    assert metric.name == "score" and metric.higher_is_better
    assert type(metric.value) is float
    return metric.value, metric.reason, {g.name: g for g in result.gates}


def solid(encode: Encode, color: tuple[int, int, int], size: tuple[int, int] = (16, 16), name: str = "image-0.png") -> Artifact:
    return Artifact(name, encode(size=size, color=color, pattern=False))


def test_identical_image_scores_one(case: CaseSpec, reference: Path) -> None:
    score, reason, gates = run({}, case, Artifact("image-0.png", reference.read_bytes()))
    assert score == 1.0
    assert reason == "vs reference reference.png: image-0.png: 1.0000"
    assert gates == {}  # no min_score nor max_changed_content, no gate


def test_different_image_scores_lower(case: CaseSpec, encode_image: Encode) -> None:
    grey, _, _ = run({}, case, solid(encode_image, (51, 51, 51)))
    white, _, _ = run({}, case, solid(encode_image, (255, 255, 255)))
    assert grey == pytest.approx(1 - 51 / 255)
    assert white == 0.0
    assert white < grey < 1.0


def test_min_score_gate_passes(case: CaseSpec, encode_image: Encode) -> None:
    _, _, gates = run({"min_score": 0.75, **SCORE_ONLY}, case, solid(encode_image, (51, 51, 51)))
    assert gates["match"].passed
    assert gates["match"].reason.startswith("score 0.8000 >= 0.75; ")
    assert "; vs reference reference.png: image-0.png: 0.8000" in gates["match"].reason


def test_min_score_gate_fails_below(case: CaseSpec, encode_image: Encode) -> None:
    _, _, gates = run({"min_score": 0.9, **SCORE_ONLY}, case, solid(encode_image, (51, 51, 51)))
    assert not gates["match"].passed
    assert gates["match"].reason.startswith("score 0.8000 < 0.9;")


def test_score_exactly_at_min_passes(case: CaseSpec, reference: Path) -> None:
    _, _, gates = run({"min_score": 1.0}, case, Artifact("image-0.png", reference.read_bytes()))
    assert gates["match"].passed


def test_resize_is_noted_in_the_reason(case: CaseSpec, encode_image: Encode) -> None:
    score, reason, _ = run({}, case, solid(encode_image, (0, 0, 0), size=(40, 24)))
    assert score == 1.0
    assert "(resized from 40x24)" in reason


def test_no_resize_note_when_sizes_match(case: CaseSpec, encode_image: Encode) -> None:
    _, reason, _ = run({}, case, solid(encode_image, (0, 0, 0)))
    assert "resized" not in reason


def test_mean_over_several_images(case: CaseSpec, encode_image: Encode) -> None:
    score, reason, _ = run({}, case, solid(encode_image, (0, 0, 0)), solid(encode_image, (255, 255, 255), name="image-1.png"))
    assert score == pytest.approx(0.5)
    assert "image-0.png: 1.0000" in reason and "image-1.png: 0.0000" in reason


def test_undecodable_output_scores_zero(case: CaseSpec, encode_image: Encode) -> None:
    score, reason, gates = run(
        {"min_score": 0.4}, case, solid(encode_image, (0, 0, 0)), Artifact("image-1.png", b"\x89PNG broken")
    )
    assert "0.0% of the content differs in colour" in gates["match"].reason  # the image that decodes is compared
    assert score == pytest.approx(0.5)
    assert "image-1.png: does not decode" in reason and "scored 0" in reason
    assert gates["match"].passed


def test_no_image_scores_zero_and_fails_the_gate(case: CaseSpec) -> None:
    score, reason, gates = run({"min_score": 0.1}, case, Artifact("reply.md", b"text"))
    assert score == 0.0
    assert reason == "the output holds no image"
    assert not gates["match"].passed


def test_against_input(make_case: Callable[..., CaseSpec], make_image: Callable[..., Path], encode_image: Encode) -> None:
    picture = make_image("input.png", size=(16, 16), color=(255, 255, 255), pattern=False)
    case = make_case(task="image_editing", images=(picture,))
    score, reason, _ = run({"against": "input"}, case, solid(encode_image, (255, 255, 255)))
    assert score == 1.0
    assert reason.startswith("vs input input.png:")


def test_transparency_is_flattened_onto_white(case: CaseSpec, make_image: Callable[..., Path], encode_image: Encode) -> None:
    transparent = Artifact("image-0.png", encode_image(size=(16, 16), color=(0, 0, 0, 0), pattern=False, mode="RGBA"))
    white = make_image("white.png", size=(16, 16), color=(255, 255, 255), pattern=False)
    score, _, _ = run({}, replace(case, reference=white), transparent)
    assert score == 1.0


def test_pixel_similarity_function() -> None:
    black = Image.new("RGB", (4, 4), (0, 0, 0))
    half = Image.new("RGB", (8, 8), (0, 0, 0))
    half.paste((255, 255, 255), (0, 0, 8, 4))
    assert pixel_similarity(black, black) == (1.0, False)
    score, resized = pixel_similarity(half, Image.new("RGB", (8, 8), (0, 0, 0)))
    assert (score, resized) == (0.5, False)
    assert pixel_similarity(Image.new("RGB", (2, 2)), black)[1] is True


# -- missing comparison image -----------------------------------------------
def test_check_case_errors_when_reference_is_missing(make_case: Callable[..., CaseSpec]) -> None:
    problem = SimilarityGrader.check_case(make_case(), {})
    assert problem is not None and "'reference'" in problem and "lacks" in problem


def test_check_case_errors_when_input_is_missing(make_case: Callable[..., CaseSpec]) -> None:
    problem = SimilarityGrader.check_case(make_case(), {"against": "input"})
    assert problem is not None and "input image" in problem


def test_check_case_ok(case: CaseSpec, make_case: Callable[..., CaseSpec], make_image: Callable[..., Path]) -> None:
    assert SimilarityGrader.check_case(case, {}) is None
    assert SimilarityGrader.check_case(make_case(images=(make_image(),)), {"against": "input"}) is None


def test_grade_without_reference_is_a_grader_error(make_case: Callable[..., CaseSpec], encode_image: Encode) -> None:
    with pytest.raises(GraderError, match="has no reference image"):
        SimilarityGrader({}).grade(make_case(), [solid(encode_image, (0, 0, 0))])


def test_unreadable_reference_is_a_grader_error(make_case: Callable[..., CaseSpec], tmp_path: Path, encode_image: Encode) -> None:
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"nope")
    with pytest.raises(GraderError, match="cannot read image"):
        SimilarityGrader({}).grade(make_case(reference=bad), [solid(encode_image, (0, 0, 0))])


# -- the content-colour check of the match gate ------------------------------
HEADER = (37, 99, 235)


def screen(header: tuple[int, int, int] = HEADER, fields: int = 3, size: tuple[int, int] = (200, 300)) -> Image.Image:
    """A mostly light-grey phone screen: a coloured header, labelled fields and a button."""
    width, height = size
    image = Image.new("RGB", size, (243, 244, 246))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, 40), fill=header)
    draw.rectangle((12, 14, 80, 24), fill=(255, 255, 255))
    for i in range(fields):
        top = 60 + i * 52
        draw.rectangle((15, top, 15 + 30 + 12 * i, top + 6), fill=(55, 65, 81))
        draw.rectangle((15, top + 12, width - 15, top + 36), outline=(156, 163, 175), width=2)
    draw.rounded_rectangle((15, height - 50, width - 15, height - 15), radius=8, fill=header)
    return image


def hue_rotated(image: Image.Image, degrees: float) -> Image.Image:
    from skimage.color import hsv2rgb, rgb2hsv

    hsv = rgb2hsv(np.asarray(image))
    hsv[..., 0] = (hsv[..., 0] + degrees / 360) % 1.0
    return Image.fromarray((hsv2rgb(hsv) * 255).round().astype(np.uint8))


def encoded(image: Image.Image, fmt: str = "PNG", **save: Any) -> Artifact:
    out = io.BytesIO()
    image.save(out, format=fmt, **save)
    return Artifact("image-0.png", out.getvalue())


def moved(image: Image.Image, dy: int, dx: int) -> Image.Image:
    pad = max(abs(dy), abs(dx))
    padded = np.pad(np.asarray(image), ((pad, pad), (pad, pad), (0, 0)), mode="edge")
    return Image.fromarray(padded[pad - dy : pad - dy + image.height, pad - dx : pad - dx + image.width])


def brightened(image: Image.Image, by: float) -> Image.Image:
    return Image.fromarray(np.clip(np.asarray(image, np.float32) + by, 0, 255).astype(np.uint8))


@pytest.fixture
def screen_case(make_case: Callable[..., CaseSpec], tmp_path: Path) -> CaseSpec:
    path = tmp_path / "login.png"
    screen().save(path)
    return make_case(reference=path)


@pytest.mark.parametrize("degrees", [30, 90, 180])
def test_a_hue_rotation_fails_the_gate_although_the_score_passes(screen_case: CaseSpec, degrees: int) -> None:
    score, _, gates = run({"min_score": 0.8}, screen_case, encoded(hue_rotated(screen(), degrees)))
    assert score >= 0.8  # the mean pixel difference alone would pass it
    gate = gates["match"]
    assert not gate.passed
    found = re.search(
        r"; (\d+\.\d)% of the content differs in colour from the reference \(deltaE00 > 10; limit 8%\)", gate.reason
    )
    assert found is not None and float(found[1]) > 30, gate.reason
    assert re.search(r": mostly #[0-9a-f]{6} where the reference has #2563eb", gate.reason), gate.reason


def test_another_screen_fails_the_gate(screen_case: CaseSpec) -> None:
    other = screen(header=(22, 163, 74), fields=2)
    score, _, gates = run({"min_score": 0.8}, screen_case, encoded(other))
    assert score >= 0.8
    assert not gates["match"].passed
    assert "of the content differs in colour from the reference" in gates["match"].reason


def _legit_variants() -> dict[str, Callable[[Image.Image], Artifact]]:
    half = (100, 150)
    return {
        "jpeg_q60": lambda im: encoded(im, "JPEG", quality=60),
        "jpeg_q95": lambda im: encoded(im, "JPEG", quality=95),
        "shift_2_-3": lambda im: encoded(moved(im, 2, -3)),
        "brighter_8": lambda im: encoded(brightened(im, 8)),
        "darker_8": lambda im: encoded(brightened(im, -8)),
        "resize_round_trip": lambda im: encoded(
            im.resize(half, Image.Resampling.BICUBIC).resize(im.size, Image.Resampling.BICUBIC)
        ),
        "blur_0.7": lambda im: encoded(im.filter(ImageFilter.GaussianBlur(0.7))),
        "larger_same_aspect": lambda im: encoded(im.resize((400, 600), Image.Resampling.BICUBIC)),
    }


@pytest.mark.parametrize("variant", list(_legit_variants()))
def test_legitimate_variants_pass_the_gate(screen_case: CaseSpec, variant: str) -> None:
    result = SimilarityGrader({"min_score": 0.9}).grade(screen_case, [_legit_variants()[variant](screen())])
    metrics = {m.name: m for m in result.metrics}
    assert result.gates[0].passed, result.gates[0].reason
    assert metrics["changed_content"].value <= 0.02
    assert metrics["mean_delta_e"].value < 3.0


def test_colour_metrics(screen_case: CaseSpec) -> None:
    result = SimilarityGrader({}).grade(screen_case, [encoded(hue_rotated(screen(), 180))])
    metrics = {m.name: m for m in result.metrics}
    assert list(metrics) == ["score", "changed_content", "mean_delta_e", "faded_areas", "softened_content"]
    assert not metrics["changed_content"].higher_is_better and not metrics["mean_delta_e"].higher_is_better
    assert not metrics["faded_areas"].higher_is_better and not metrics["softened_content"].higher_is_better
    assert metrics["changed_content"].value > 0.3
    assert metrics["mean_delta_e"].value > 10
    assert metrics["changed_content"].reason.startswith(
        "share of the content pixels differing from the reference past deltaE00 10: image-0.png "
    )
    assert result.gates == ()


def test_a_shift_is_undone_and_named(screen_case: CaseSpec) -> None:
    score, reason, _ = run({}, screen_case, encoded(moved(screen(), 2, -3)))
    assert score == pytest.approx(1.0, abs=0.005)
    assert "(shifted by x -3, y +2 px; aligned)" in reason


def test_max_changed_content_alone_makes_the_gate(screen_case: CaseSpec) -> None:
    _, _, gates = run({"max_changed_content": 0.5}, screen_case, encoded(hue_rotated(screen(), 180)))
    assert not gates["match"].passed
    assert gates["match"].reason.startswith("8")  # no score part: "8x.x% of the content ..."
    assert "limit 50%" in gates["match"].reason


def test_delta_e_option_sets_what_counts_as_a_change(screen_case: CaseSpec) -> None:
    _, _, gates = run({"min_score": 0.8, "delta_e": 150}, screen_case, encoded(hue_rotated(screen(), 30)))
    assert gates["match"].passed  # nothing is 150 apart in CIEDE2000
    assert "(deltaE00 > 150; limit 8%)" in gates["match"].reason


def test_options_schema() -> None:
    jsonschema.validate({"min_score": 0.8, "max_changed_content": 0.1, "delta_e": 5}, SimilarityGrader.options_schema)
    for bad in ({"max_changed_content": 2}, {"delta_e": 0}, {"min_ssim": 0.5}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, SimilarityGrader.options_schema)


@pytest.mark.parametrize(("opacity", "shade"), [(0.57, 255), (0.6, 0)])
def test_a_veil_over_part_of_the_screen_fails_the_gate(screen_case: CaseSpec, opacity: float, shade: int) -> None:
    # A white film over the fields' right half moves no pixel far in colour (the light background stays
    # light) but shows the fields' labels and outlines with a fraction of their contrast.
    pixels = np.asarray(screen(), dtype=np.float32).copy()
    pixels[50:220, 90:190] = pixels[50:220, 90:190] * (1 - opacity) + shade * opacity
    veiled = encoded(Image.fromarray(pixels.astype(np.uint8)))
    score, _, gates = run({"min_score": 0.8}, screen_case, veiled)
    assert score >= 0.8
    assert not gates["match"].passed
    said = r"; \d+ areas \(x \d+%-\d+%, y \d+%-\d+%\) show the reference's content with under 60% of its contrast"
    assert re.search(said, gates["match"].reason), gates["match"].reason
    metrics = {m.name: m for m in SimilarityGrader({}).grade(screen_case, [veiled]).metrics}
    assert metrics["faded_areas"].value > 1
    lenient = run({"min_score": 0.8, "max_faded_areas": 500}, screen_case, veiled)[2]["match"]
    assert "contrast" not in lenient.reason
    assert lenient.passed == (shade == 255)  # a dark film also moves the light background far in colour


@pytest.mark.parametrize("radius", [1.6, 2.5])  # 2.7 and 4.3 px per 512 px of the screen
def test_a_blurred_screen_fails_the_gate_and_says_where(screen_case: CaseSpec, radius: float) -> None:
    # A blur keeps every shape and colour near its own: the score stays high, the edges go soft.
    soft = encoded(screen().filter(ImageFilter.GaussianBlur(radius)))
    score, _, gates = run({"min_score": 0.9}, screen_case, soft)
    assert score >= 0.9
    assert not gates["match"].passed
    said = r"; \d+% of the reference's content areas \(x \d+%-\d+%, y \d+%-\d+%\) are shown blurred"
    assert re.search(said, gates["match"].reason), gates["match"].reason
    metrics = {m.name: m for m in SimilarityGrader({}).grade(screen_case, [soft]).metrics}
    assert metrics["softened_content"].value > 0.5
    lenient = run({"min_score": 0.9, "max_softened_share": 1.0, "max_faded_areas": 10_000}, screen_case, soft)[2]["match"]
    assert lenient.passed and "blurred" not in lenient.reason


def test_blur_is_not_checked_against_the_input(screen_case: CaseSpec) -> None:
    # An edit may blur what it was asked to (a background, a face): only a reference is held to sharpness.
    case = replace(screen_case, images=(screen_case.reference,), reference=None)
    soft = encoded(screen().filter(ImageFilter.GaussianBlur(2.0)))
    result = SimilarityGrader({"against": "input", "min_score": 0.5}).grade(case, [soft])
    assert "softened_content" not in {m.name for m in result.metrics}
    assert "blurred" not in result.gates[0].reason
