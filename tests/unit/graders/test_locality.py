"""graders/locality.py: edits stay inside the mask or region, the rest is preserved.

The scene is 100x100; the mask makes the left half (x < 50) editable, so the
outside is 5000 pixels and a 35x20 rectangle drawn there is 14.0% of it (13.9% are
counted: the comparison softens both images, which rounds the rectangle's corners).
"""

from __future__ import annotations

import io
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
from pytest_visioneval.graders.base import Gate, Metric
from pytest_visioneval.graders.locality import LocalityGrader, box_pixels, editable_pixels, percents

SIZE = (100, 100)
INSIDE_BOX = (10, 20, 40, 50)  # 30x30 = 900 px, 18% of the editable half
OUTSIDE_BOX = (60, 10, 95, 30)  # 35x20 = 700 px, 14% of the kept half
MAGENTA = (255, 0, 255)


def scene() -> Image.Image:
    """A photo-like input: smooth gradients and soft-edged shapes."""
    x = np.linspace(0, 1, SIZE[0])[None, :]
    y = np.linspace(0, 1, SIZE[1])[:, None]
    arr = np.stack([90 + 100 * x + 0 * y, 120 + 60 * y + 0 * x, 160 - 60 * x * y], axis=2)
    img = Image.fromarray(arr.astype(np.uint8))
    draw = ImageDraw.Draw(img)
    draw.ellipse((10, 10, 40, 40), fill=(200, 170, 120))
    draw.rectangle((55, 50, 85, 85), fill=(70, 90, 110))
    return img.filter(ImageFilter.GaussianBlur(1))


def encode(img: Image.Image, fmt: str = "PNG", **kwargs: Any) -> bytes:
    out = io.BytesIO()
    img.save(out, format=fmt, **kwargs)
    return out.getvalue()


def painted(*boxes: tuple[int, int, int, int], base: Image.Image | None = None) -> Image.Image:
    img = (base or scene()).copy()
    for box in boxes:
        img.paste(MAGENTA, box)
    return img


def output(img: Image.Image, name: str = "image-0.png", **kwargs: Any) -> Artifact:
    return Artifact(name, encode(img, "JPEG" if name.endswith(".jpg") else "PNG", **kwargs))


def left_half_mask(tmp_path: Path, size: tuple[int, int] = SIZE) -> Path:
    """OpenAI-style mask: transparent (editable) on the left half, opaque elsewhere."""
    mask = Image.new("RGBA", size, (0, 0, 0, 255))
    mask.paste((0, 0, 0, 0), (0, 0, size[0] // 2, size[1]))
    path = tmp_path / f"mask-{size[0]}x{size[1]}.png"
    mask.save(path)
    return path


@pytest.fixture
def input_path(tmp_path: Path) -> Path:
    path = tmp_path / "input.png"
    scene().save(path)
    return path


@pytest.fixture
def case(make_case: Callable[..., CaseSpec], input_path: Path, tmp_path: Path) -> CaseSpec:
    return make_case(task="image_editing", images=(input_path,), mask=left_half_mask(tmp_path))


@pytest.fixture
def region_case(make_case: Callable[..., CaseSpec], input_path: Path) -> CaseSpec:
    return make_case(task="image_editing", images=(input_path,))


def grade(options: dict[str, Any], case: CaseSpec, *artifacts: Artifact) -> tuple[dict[str, Gate], dict[str, Metric]]:
    jsonschema.validate(options, LocalityGrader.options_schema)
    result = LocalityGrader(options).grade(case, artifacts)
    gates = {g.name: g for g in result.gates}
    metrics = {m.name: m for m in result.metrics}
    assert len(gates) == len(result.gates) and len(metrics) == len(result.metrics)
    return gates, metrics


# -- preserved ----------------------------------------------------------------
def test_edit_confined_to_the_mask_passes(case: CaseSpec) -> None:
    gates, metrics = grade({}, case, output(painted(INSIDE_BOX)))
    assert set(gates) == {"preserved"}  # no min_changed_inside, no `edited` gate
    assert gates["preserved"].passed
    assert gates["preserved"].reason == "0.0% of pixels changed outside the mask (limit 2.0%)"
    assert metrics["changed_outside"].value == 0.0
    assert metrics["changed_inside"].value == pytest.approx(900 / 5000, abs=0.002)
    assert metrics["ssim_outside"].value == pytest.approx(1.0)


def test_an_edit_up_to_the_border_does_not_leak_into_ssim_outside(case: CaseSpec) -> None:
    # SSIM windows centred just outside the mask reach inside it; the edit is masked out there.
    _, metrics = grade({}, case, output(painted((30, 0, 50, 100))))
    assert metrics["changed_outside"].value == 0.0
    assert metrics["ssim_outside"].value == pytest.approx(1.0)


def test_change_outside_the_mask_fails_with_the_exact_share(case: CaseSpec) -> None:
    gates, metrics = grade({}, case, output(painted(INSIDE_BOX, OUTSIDE_BOX)))
    assert not gates["preserved"].passed
    assert gates["preserved"].reason == "13.9% of pixels changed outside the mask (limit 2.0%)"
    assert metrics["changed_outside"].value == pytest.approx(0.14, abs=0.002)
    assert metrics["changed_outside"].higher_is_better is False
    assert "of the 5000 pixels outside the mask" in metrics["changed_outside"].reason
    assert metrics["ssim_outside"].value < 0.95


def test_max_changed_outside_is_the_limit(case: CaseSpec) -> None:
    ten_by_ten = (60, 10, 70, 20)  # 100 px = 2.0% of the outside; 1.9% once its corners are softened
    gate = grade({}, case, output(painted(ten_by_ten)))[0]["preserved"]
    assert gate.passed and gate.reason == "1.9% of pixels changed outside the mask (limit 2.0%)"
    one_column_more = grade({}, case, output(painted((60, 10, 71, 20))))[0]["preserved"]
    assert not one_column_more.passed
    assert one_column_more.reason == "2.1% of pixels changed outside the mask (limit 2.0%)"
    assert grade({"max_changed_outside": 0.15}, case, output(painted(OUTSIDE_BOX)))[0]["preserved"].passed


def test_jpeg_noise_stays_under_the_tolerance(case: CaseSpec) -> None:
    jpeg = output(scene(), "image-0.jpg", quality=90)
    gates, metrics = grade({}, case, jpeg)
    assert gates["preserved"].passed
    assert metrics["changed_outside"].value < 0.005
    # The noise is real: without a tolerance nearly every pixel counts as changed.
    strict, _ = grade({"pixel_tolerance": 0}, case, jpeg)
    assert not strict["preserved"].passed


def test_resized_output_is_compared_at_the_input_size(case: CaseSpec) -> None:
    big = painted(INSIDE_BOX).resize((200, 200), Image.Resampling.BICUBIC)
    gates, metrics = grade({}, case, output(big))
    assert gates["preserved"].passed
    assert "(output resized from 200x200 to the input's 100x100)" in gates["preserved"].reason
    assert metrics["changed_inside"].value == pytest.approx(0.18, abs=0.01)


def test_resized_output_still_catches_a_change_outside(case: CaseSpec) -> None:
    big = painted(OUTSIDE_BOX).resize((200, 200), Image.Resampling.NEAREST)
    gates, metrics = grade({}, case, output(big))
    assert not gates["preserved"].passed
    assert "resized from 200x200" in gates["preserved"].reason
    assert metrics["changed_outside"].value == pytest.approx(0.14, abs=0.01)


def test_percents() -> None:
    assert percents(0.14, 0.02) == ("14.0%", "2.0%")
    assert percents(0.02, 0.02) == ("2.0%", "2.0%")
    assert percents(0.0202, 0.02) == ("2.02%", "2.00%")
    assert percents(0.0199, 0.02) == ("1.99%", "2.00%")
    assert percents(0.019996, 0.02) == ("2.000%", "2.000%")  # three decimals at most


# -- region option ------------------------------------------------------------
@pytest.mark.parametrize("region", [[0, 0, 50, 100], [0, 0, 0.5, 1]], ids=["pixels", "fractions"])
def test_region_box(region_case: CaseSpec, region: list[float]) -> None:
    ok, _ = grade({"region": region}, region_case, output(painted(INSIDE_BOX)))
    assert ok["preserved"].passed
    bad, metrics = grade({"region": region}, region_case, output(painted(OUTSIDE_BOX)))
    assert not bad["preserved"].passed
    assert bad["preserved"].reason == "13.9% of pixels changed outside the region (limit 2.0%)"
    assert "region [0, 0, 50, 100] px" in metrics["changed_outside"].reason


def test_region_wins_over_the_mask(case: CaseSpec) -> None:
    # The right half is editable by region, so the change at OUTSIDE_BOX is now inside.
    gates, metrics = grade({"region": [50, 0, 100, 100]}, case, output(painted(OUTSIDE_BOX)))
    assert gates["preserved"].passed
    assert metrics["changed_inside"].value == pytest.approx(0.14, abs=0.002)


def test_box_pixels() -> None:
    assert box_pixels([0, 0, 0.5, 1], (100, 60)) == (0, 0, 50, 60)
    assert box_pixels([0.25, 0.1, 0.75, 0.9], (10, 10)) == (2, 1, 8, 9)  # rounded half to even
    assert box_pixels([10, 5, 500, 500], (100, 60)) == (10, 5, 100, 60)  # clipped
    assert box_pixels([0, 0, 1, 2], (100, 60)) == (0, 0, 1, 2)  # one value > 1: pixels


# -- edited -------------------------------------------------------------------
def test_edited_passes_when_the_area_changed(case: CaseSpec) -> None:
    gates, _ = grade({"min_changed_inside": 0.1}, case, output(painted(INSIDE_BOX)))
    assert gates["edited"].passed
    assert gates["edited"].reason == "18.1% of pixels changed inside the mask (need at least 10.0%)"


def test_edited_fails_when_nothing_changed_inside(case: CaseSpec) -> None:
    gates, metrics = grade({"min_changed_inside": 0.1}, case, output(scene()))
    assert gates["preserved"].passed
    assert not gates["edited"].passed
    assert gates["edited"].reason == "0.0% of pixels changed inside the mask (need at least 10.0%)"
    assert metrics["changed_inside"].value == 0.0


# -- mask conventions ---------------------------------------------------------
def test_white_mask_without_alpha(make_case: Callable[..., CaseSpec], input_path: Path, tmp_path: Path) -> None:
    mask = Image.new("RGB", SIZE, (0, 0, 0))
    mask.paste((255, 255, 255), (0, 0, 50, 100))
    mask.save(tmp_path / "white.png")
    case = make_case(task="image_editing", images=(input_path,), mask=tmp_path / "white.png")
    gates, metrics = grade({}, case, output(painted(INSIDE_BOX, OUTSIDE_BOX)))
    assert gates["preserved"].reason == "13.9% of pixels changed outside the mask (limit 2.0%)"
    assert "white = editable" in metrics["changed_outside"].reason
    # black = editable turns it around: the 900 px edit is now outside, 18% of it
    flipped, _ = grade({"mask_editable": "black"}, case, output(painted(INSIDE_BOX)))
    assert flipped["preserved"].reason == "18.1% of pixels changed outside the mask (limit 2.0%)"


def test_editable_pixels_conventions() -> None:
    rgba = Image.new("RGBA", (4, 1), (255, 255, 255, 255))
    rgba.putpixel((0, 0), (0, 0, 0, 0))
    editable, convention = editable_pixels(rgba, None)
    assert convention == "transparent" and editable.tolist() == [[True, False, False, False]]
    opaque = Image.new("RGBA", (2, 1), (0, 0, 0, 255))
    opaque.putpixel((1, 0), (255, 255, 255, 255))
    editable, convention = editable_pixels(opaque, None)  # no transparency: read as white = editable
    assert convention == "white" and editable.tolist() == [[False, True]]
    editable, _ = editable_pixels(opaque, "black")
    assert editable.tolist() == [[True, False]]


def test_mask_of_another_size_is_scaled(make_case: Callable[..., CaseSpec], input_path: Path, tmp_path: Path) -> None:
    case = make_case(task="image_editing", images=(input_path,), mask=left_half_mask(tmp_path, (50, 50)))
    gates, metrics = grade({}, case, output(painted(INSIDE_BOX, OUTSIDE_BOX)))
    assert gates["preserved"].reason == "13.9% of pixels changed outside the mask (limit 2.0%)"
    assert "mask scaled from 50x50" in metrics["changed_outside"].reason


# -- outputs that cannot be compared -----------------------------------------
def test_undecodable_output_fails_the_gates(case: CaseSpec) -> None:
    gates, metrics = grade({"min_changed_inside": 0.1}, case, Artifact("image-0.png", b"\x89PNG broken"))
    assert not gates["preserved"].passed and not gates["edited"].passed
    assert gates["preserved"].reason.startswith("image-0.png does not decode")
    assert metrics == {}


def test_no_image_fails_the_gate(case: CaseSpec) -> None:
    gates, metrics = grade({}, case, Artifact("reply.md", b"done"))
    assert not gates["preserved"].passed
    assert gates["preserved"].reason == "the output holds no image"
    assert metrics == {}


def test_several_outputs_must_all_be_preserved(case: CaseSpec) -> None:
    gates, metrics = grade({}, case, output(painted(INSIDE_BOX)), output(painted(OUTSIDE_BOX), "image-1.png"))
    assert not gates["preserved"].passed
    assert "image-0.png: 0.0% of pixels" in gates["preserved"].reason
    assert "image-1.png: 13.9% of pixels" in gates["preserved"].reason
    assert metrics["changed_outside"].value == pytest.approx(0.07, abs=0.002)
    assert "image-0.png 0.00%, image-1.png 13.92%" in metrics["changed_outside"].reason


def test_a_broken_output_among_good_ones_fails(case: CaseSpec) -> None:
    gates, metrics = grade({}, case, output(painted(INSIDE_BOX)), Artifact("image-1.png", b"junk"))
    assert not gates["preserved"].passed
    assert "image-0.png: 0.0% of pixels" in gates["preserved"].reason
    assert "image-1.png does not decode" in gates["preserved"].reason
    assert metrics["changed_outside"].value == 0.0  # means over the outputs that decode


# -- errors and check_case ----------------------------------------------------
def test_unreadable_mask_is_a_grader_error(make_case: Callable[..., CaseSpec], input_path: Path, tmp_path: Path) -> None:
    bad = tmp_path / "mask.png"
    bad.write_bytes(b"not a png")
    with pytest.raises(GraderError, match="cannot read image"):
        LocalityGrader({}).grade(make_case(images=(input_path,), mask=bad), [output(scene())])


def test_unreadable_input_is_a_grader_error(case: CaseSpec, tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"nope")
    with pytest.raises(GraderError, match="cannot read image"):
        LocalityGrader({}).grade(replace(case, images=(broken,)), [output(scene())])


def test_mask_without_editable_pixels_is_a_grader_error(
    make_case: Callable[..., CaseSpec], input_path: Path, tmp_path: Path
) -> None:
    Image.new("RGB", SIZE, (0, 0, 0)).save(tmp_path / "black.png")
    case = make_case(images=(input_path,), mask=tmp_path / "black.png")
    with pytest.raises(GraderError, match="marks no pixel"):
        LocalityGrader({}).grade(case, [output(scene())])
    with pytest.raises(GraderError, match="marks no pixel"):
        LocalityGrader({"mask_editable": "transparent"}).grade(case, [output(scene())])


def test_region_covering_everything_is_a_grader_error(region_case: CaseSpec) -> None:
    with pytest.raises(GraderError, match="nothing is left to preserve"):
        LocalityGrader({"region": [0, 0, 1, 1]}).grade(region_case, [output(scene())])


def test_check_case(case: CaseSpec, region_case: CaseSpec, make_case: Callable[..., CaseSpec], tmp_path: Path) -> None:
    assert LocalityGrader.check_case(case, {}) is None
    assert LocalityGrader.check_case(region_case, {"region": [0, 0, 0.5, 1]}) is None
    no_input = LocalityGrader.check_case(make_case(task="image_editing", mask=left_half_mask(tmp_path)), {})
    assert no_input is not None and "first input image" in no_input
    no_area = LocalityGrader.check_case(region_case, {})
    assert no_area is not None and "'mask'" in no_area and "'region'" in no_area
    flipped = LocalityGrader.check_case(region_case, {"region": [50, 0, 10, 100]})
    assert flipped is not None and "x0 < x1" in flipped


def test_options_schema_rejects_unknown_and_bad_options() -> None:
    schema = LocalityGrader.options_schema
    jsonschema.validate({"region": [0, 0, 1, 1], "pixel_tolerance": 8, "mask_editable": "white"}, schema)
    for bad in ({"tolerance": 8}, {"region": [0, 0, 1]}, {"mask_editable": "grey"}, {"max_changed_outside": 2}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


# -- faint changes, alignment and aspect ratio -----------------------------------
def shifted(img: Image.Image, dx: int, dy: int) -> Image.Image:
    return Image.fromarray(np.roll(np.asarray(img), (dy, dx), axis=(0, 1)))


def darkened(img: Image.Image, by: int) -> Image.Image:
    return Image.fromarray(np.clip(np.asarray(img, dtype=np.int16) - by, 0, 255).astype(np.uint8))


@pytest.mark.parametrize("by", [10, 20])
def test_a_faint_change_of_everything_outside_fails(case: CaseSpec, by: int) -> None:
    # Every pixel moves by less than the tolerance: none counts as changed, but the picture is not the same.
    gates, metrics = grade({}, case, output(darkened(painted(INSIDE_BOX), by)))
    assert metrics["changed_outside"].value == 0.0
    assert metrics["faint_change_outside"].value == pytest.approx(by, abs=1.0)
    assert not gates["preserved"].passed
    assert gates["preserved"].reason == (
        f"0.0% of pixels changed outside the mask (limit 2.0%); everything else outside the mask changed faintly: "
        f"mean difference {metrics['faint_change_outside'].value:.1f} (0-255, limit 4)"
    )


@pytest.mark.parametrize(
    "variant",
    [
        lambda img: output(shifted(img, 1, 0)),
        lambda img: output(shifted(img, 0, -1)),
        lambda img: output(img, "image-0.jpg", quality=85),
        lambda img: output(shifted(img, 1, 1), "image-0.jpg", quality=85),
    ],
    ids=["shift-right", "shift-up", "jpeg-q85", "shifted-jpeg"],
)
def test_a_correct_edit_shifted_by_a_pixel_or_re_encoded_passes(
    case: CaseSpec, variant: Callable[[Image.Image], Artifact]
) -> None:
    gates, metrics = grade({"max_changed_outside": 0.01}, case, variant(painted(INSIDE_BOX)))
    assert gates["preserved"].passed, gates["preserved"].reason
    assert metrics["faint_change_outside"].value < 4


def test_a_shift_of_several_pixels_is_a_change(case: CaseSpec) -> None:
    gates, _ = grade({}, case, output(shifted(painted(INSIDE_BOX), 4, 0)))
    assert not gates["preserved"].passed


def test_an_output_of_another_aspect_ratio_fails_instead_of_being_stretched(case: CaseSpec) -> None:
    wide = painted(INSIDE_BOX).resize((150, 100))
    gates, metrics = grade({"min_changed_inside": 0.1}, case, output(wide))
    expected = (
        "image-0.png is 150x100, the input 100x100: another aspect ratio cannot be compared pixel by pixel "
        "(stretching it would hide or invent changes)"
    )
    assert not gates["preserved"].passed and gates["preserved"].reason == expected
    assert not gates["edited"].passed and gates["edited"].reason == expected
    assert metrics == {}
