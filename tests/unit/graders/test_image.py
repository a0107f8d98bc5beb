"""graders/image.py: every gate passes a correct artifact and fails a broken one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import GraderError
from pytest_visioneval.graders import Gate, Grade, create_grader, option_schemas
from pytest_visioneval.graders.image import ImageGrader

Encode = Callable[..., bytes]


def grade(options: dict[str, Any], case: CaseSpec, *artifacts: Artifact) -> dict[str, Gate]:
    result = ImageGrader(options).grade(case, artifacts)
    assert isinstance(result, Grade)
    assert result.metrics == ()
    names = [g.name for g in result.gates]
    assert len(names) == len(set(names))
    return {g.name: g for g in result.gates}


def png(encode: Encode, name: str = "image-0.png", **kwargs: Any) -> Artifact:
    return Artifact(name, encode(**kwargs))


@pytest.fixture
def case(make_case: Callable[..., CaseSpec]) -> CaseSpec:
    return make_case()


# -- decodes ----------------------------------------------------------------
def test_decodes_passes_a_good_image(case: CaseSpec, encode_image: Encode) -> None:
    gates = grade({}, case, png(encode_image))
    assert gates["decodes"].passed
    assert gates["decodes"].reason == "1 image(s) decode"
    # with no options, only decodes and not_blank apply
    assert set(gates) == {"decodes", "not_blank"}


def test_decodes_fails_undecodable_bytes(case: CaseSpec, encode_image: Encode) -> None:
    gates = grade({}, case, png(encode_image), Artifact("image-1.png", b"not an image at all"))
    assert not gates["decodes"].passed
    assert "1 of 2 image(s) do not decode" in gates["decodes"].reason
    assert "image-1.png" in gates["decodes"].reason
    # the image that did decode is still checked
    assert gates["not_blank"].passed


def test_decodes_fails_a_truncated_image(case: CaseSpec, encode_image: Encode) -> None:
    data = encode_image(size=(64, 64))
    gates = grade({}, case, Artifact("image-0.png", data[: len(data) // 2]))
    assert not gates["decodes"].passed
    assert "do not decode" in gates["decodes"].reason
    assert set(gates) == {"decodes"}  # nothing decoded, nothing else to check


def test_decodes_fails_when_there_is_no_image(case: CaseSpec) -> None:
    gates = grade({"count": 1, "width": 8}, case, Artifact("reply.md", b"# no image"))
    assert not gates["decodes"].passed
    assert gates["decodes"].reason == "the output holds no image"
    assert not gates["count"].passed
    assert "size" not in gates


def test_decodes_fails_with_no_artifacts(case: CaseSpec) -> None:
    assert not grade({}, case)["decodes"].passed


# -- count ------------------------------------------------------------------
def test_count_passes(case: CaseSpec, encode_image: Encode) -> None:
    gate = grade({"count": 2}, case, png(encode_image), png(encode_image, "image-1.png"))["count"]
    assert gate.passed
    assert gate.reason == "2 image(s), expected 2"


def test_count_fails_on_wrong_count(case: CaseSpec, encode_image: Encode) -> None:
    gate = grade({"count": 1}, case, png(encode_image), png(encode_image, "image-1.png"))["count"]
    assert not gate.passed
    assert gate.reason == "2 image(s), expected 1"


def test_count_ignores_non_image_artifacts(case: CaseSpec, encode_image: Encode) -> None:
    assert grade({"count": 1}, case, png(encode_image), Artifact("notes.txt", b"hi"))["count"].passed


# -- format -----------------------------------------------------------------
def test_format_passes(case: CaseSpec, encode_image: Encode) -> None:
    gate = grade({"formats": ["PNG", "WEBP"]}, case, png(encode_image))["format"]
    assert gate.passed
    assert gate.reason == "all in PNG, WEBP"


def test_format_fails_on_wrong_format(case: CaseSpec, encode_image: Encode) -> None:
    # JPEG bytes under a .png name: the format is read from the content, not the name.
    jpeg = Artifact("image-0.png", encode_image(fmt="JPEG"))
    gate = grade({"formats": ["PNG"]}, case, jpeg)["format"]
    assert not gate.passed
    assert gate.reason == "image-0.png is JPEG"


# -- size -------------------------------------------------------------------
def test_size_passes(case: CaseSpec, encode_image: Encode) -> None:
    gate = grade({"width": 64, "height": 32}, case, png(encode_image, size=(64, 32)))["size"]
    assert gate.passed
    assert gate.reason == "all 64x32"


def test_size_fails_on_wrong_size(case: CaseSpec, encode_image: Encode) -> None:
    gates = grade(
        {"width": 64, "height": 32}, case, png(encode_image, size=(64, 32)), png(encode_image, "image-1.png", size=(32, 32))
    )
    assert not gates["size"].passed
    assert gates["size"].reason == "image-1.png is 32x32, expected 64x32"


def test_size_with_width_only(case: CaseSpec, encode_image: Encode) -> None:
    assert grade({"width": 40}, case, png(encode_image, size=(40, 10)))["size"].passed
    gate = grade({"width": 40}, case, png(encode_image, size=(41, 10)))["size"]
    assert not gate.passed
    assert "expected 40x*" in gate.reason


def test_size_with_height_only(case: CaseSpec, encode_image: Encode) -> None:
    gate = grade({"height": 20}, case, png(encode_image, size=(40, 10)))["size"]
    assert not gate.passed
    assert "expected *x20" in gate.reason


# -- aspect -----------------------------------------------------------------
def test_aspect_passes(case: CaseSpec, encode_image: Encode) -> None:
    gate = grade({"aspect": 2.0}, case, png(encode_image, size=(64, 32)))["aspect"]
    assert gate.passed
    assert gate.reason == "aspect 2.000"


def test_aspect_fails_on_wrong_aspect(case: CaseSpec, encode_image: Encode) -> None:
    gate = grade({"aspect": 2.0}, case, png(encode_image, size=(32, 32)))["aspect"]
    assert not gate.passed
    assert gate.reason == "image-0.png has aspect 1.000, expected 2.000"


def test_aspect_tolerance(case: CaseSpec, encode_image: Encode) -> None:
    slightly_wide = png(encode_image, size=(66, 32))  # 2.0625: 3.1% off
    assert not grade({"aspect": 2.0}, case, slightly_wide)["aspect"].passed  # default tolerance 2%
    assert grade({"aspect": 2.0, "aspect_tolerance": 0.05}, case, slightly_wide)["aspect"].passed


# -- not_blank --------------------------------------------------------------
def test_not_blank_passes(case: CaseSpec, encode_image: Encode) -> None:
    gate = grade({}, case, png(encode_image))["not_blank"]
    assert gate.passed
    assert gate.reason.startswith("min luminance std ")


def test_not_blank_fails_a_blank_image(case: CaseSpec, encode_image: Encode) -> None:
    gates = grade({}, case, png(encode_image), png(encode_image, "image-1.png", pattern=False, color=(120, 120, 120)))
    assert not gates["not_blank"].passed
    assert "image-1.png (luminance std 0.00)" in gates["not_blank"].reason
    assert "image-0.png" not in gates["not_blank"].reason
    assert "need std >= 2.0" in gates["not_blank"].reason


def test_not_blank_threshold_is_configurable(case: CaseSpec, encode_image: Encode) -> None:
    faint = png(encode_image, size=(32, 32), color=(255, 255, 255))  # white square on white: blank
    assert not grade({"blank_std": 0.5}, case, faint)["not_blank"].passed
    assert grade({"blank_std": 0.0}, case, faint)["not_blank"].passed


# -- differs_from_input -----------------------------------------------------
@pytest.fixture
def edit_case(make_case: Callable[..., CaseSpec], make_image: Callable[..., Path]) -> CaseSpec:
    return make_case(task="image_editing", images=(make_image("input.png", color=(0, 128, 0)),))


def test_differs_from_input_passes_an_edited_image(edit_case: CaseSpec, encode_image: Encode) -> None:
    gate = grade({}, edit_case, png(encode_image, color=(0, 0, 128)))["differs_from_input"]
    assert gate.passed
    assert gate.reason == "every output differs from the inputs"


def test_differs_from_input_fails_output_identical_to_input(edit_case: CaseSpec) -> None:
    unchanged = Artifact("image-0.png", edit_case.images[0].read_bytes())
    gate = grade({}, edit_case, unchanged)["differs_from_input"]
    assert not gate.passed
    assert "image-0.png identical to an input image" in gate.reason


def test_differs_from_input_compares_pixels_not_bytes(edit_case: CaseSpec, encode_image: Encode) -> None:
    # Same pixels, re-encoded with a different container (RGBA PNG, fully opaque).
    same_pixels_rgba = encode_image(color=(0, 128, 0, 255), mode="RGBA")
    assert same_pixels_rgba != edit_case.images[0].read_bytes()
    gate = grade({}, edit_case, Artifact("image-0.png", same_pixels_rgba))["differs_from_input"]
    assert not gate.passed


def test_differs_from_input_can_be_turned_off(edit_case: CaseSpec) -> None:
    unchanged = Artifact("image-0.png", edit_case.images[0].read_bytes())
    assert "differs_from_input" not in grade({"differs_from_input": False}, edit_case, unchanged)


def test_differs_from_input_is_off_by_default_for_generation(
    make_case: Callable[..., CaseSpec], make_image: Callable[..., Path]
) -> None:
    picture = make_image("input.png")
    case = make_case(task="image_generation", images=(picture,))
    unchanged = Artifact("image-0.png", picture.read_bytes())
    assert "differs_from_input" not in grade({}, case, unchanged)
    assert not grade({"differs_from_input": True}, case, unchanged)["differs_from_input"].passed


def test_unreadable_input_image_is_a_grader_error(
    make_case: Callable[..., CaseSpec], tmp_path: Path, encode_image: Encode
) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"garbage")
    case = make_case(task="image_editing", images=(broken,))
    with pytest.raises(GraderError, match="cannot read image"):
        grade({}, case, png(encode_image))


# -- check_case, registry, schema -------------------------------------------
def test_check_case(make_case: Callable[..., CaseSpec], make_image: Callable[..., Path]) -> None:
    assert ImageGrader.check_case(make_case(), {}) is None
    assert "needs input images" in (ImageGrader.check_case(make_case(), {"differs_from_input": True}) or "")
    assert ImageGrader.check_case(make_case(images=(make_image(),)), {"differs_from_input": True}) is None
    assert "html_generation" in (ImageGrader.check_case(make_case(task="html_generation"), {}) or "")


def test_registry_creates_the_image_grader() -> None:
    grader = create_grader("image", {"count": 1})
    assert isinstance(grader, ImageGrader)
    assert grader.options == {"count": 1}
    with pytest.raises(GraderError, match="unknown grader 'nope'"):
        create_grader("nope", {})


def test_options_schema_is_published() -> None:
    assert option_schemas()["image"] is ImageGrader.options_schema
    assert set(ImageGrader.options_schema["properties"]) >= {"count", "formats", "width", "height", "aspect"}
