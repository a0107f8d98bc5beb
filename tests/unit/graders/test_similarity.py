"""graders/similarity.py: pixel similarity to a reference or an input image."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

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


def run(options: dict[str, Any], case: CaseSpec, *artifacts: Artifact) -> tuple[float, str, dict[str, Any]]:
    result = SimilarityGrader(options).grade(case, artifacts)
    assert len(result.metrics) == 1
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
    assert gates == {}  # no min_score, no gate


def test_different_image_scores_lower(case: CaseSpec, encode_image: Encode) -> None:
    grey, _, _ = run({}, case, solid(encode_image, (51, 51, 51)))
    white, _, _ = run({}, case, solid(encode_image, (255, 255, 255)))
    assert grey == pytest.approx(1 - 51 / 255)
    assert white == 0.0
    assert white < grey < 1.0


def test_min_score_gate_passes(case: CaseSpec, encode_image: Encode) -> None:
    _, _, gates = run({"min_score": 0.75}, case, solid(encode_image, (51, 51, 51)))
    assert gates["match"].passed
    assert gates["match"].reason.startswith("score 0.8000 >= 0.75; vs reference reference.png")


def test_min_score_gate_fails_below(case: CaseSpec, encode_image: Encode) -> None:
    _, _, gates = run({"min_score": 0.9}, case, solid(encode_image, (51, 51, 51)))
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
