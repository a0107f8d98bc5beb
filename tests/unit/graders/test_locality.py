"""graders/locality.py: edits stay inside the mask or region, the rest is preserved.

The scene is 100x100; the mask makes the left half (x < 50) editable, so the
outside is 5000 pixels and a 35x20 rectangle drawn there is 14.0% of it. A change
is counted at its full area (the softened comparison finds it, the unsoftened
difference next to it measures it), so the rectangle counts as 14.0%, not the
13.9% that softening alone gave before whole-image drifts were taken out.
"""

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
from PIL import Image, ImageDraw, ImageFilter, ImageFont

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
    assert gates["preserved"].reason == (
        "14.0% of pixels changed outside the mask (limit 2.0%); "
        "one local change covers 14.00% of the outside (limit 0.03%), in x 60-95, y 10-30"
    )
    assert metrics["changed_outside"].value == pytest.approx(0.14, abs=0.002)
    assert metrics["largest_change_outside"].value == pytest.approx(0.14, abs=0.002)
    assert metrics["changed_outside"].higher_is_better is False
    assert "of the 5000 pixels outside the mask" in metrics["changed_outside"].reason
    assert metrics["ssim_outside"].value < 0.95


def test_max_changed_outside_is_the_limit(case: CaseSpec) -> None:
    # One 10x10 square is one local change a person sees, failed by largest_change_outside since the
    # drifts are taken out (before, only the 2% total share judged it); max_largest_change_outside: 1
    # and plain_marks: false (the square stands on a plain part of the scene) leave the total share
    # alone to decide here.
    alone = {"max_largest_change_outside": 1, "plain_marks": False}
    ten_by_ten = (60, 10, 70, 20)  # 100 px = 2.0% of the outside
    gate = grade(alone, case, output(painted(ten_by_ten)))[0]["preserved"]
    assert gate.passed and gate.reason == "2.0% of pixels changed outside the mask (limit 2.0%)"
    one_column_more = grade(alone, case, output(painted((60, 10, 71, 20))))[0]["preserved"]
    assert not one_column_more.passed
    assert one_column_more.reason == "2.2% of pixels changed outside the mask (limit 2.0%)"
    assert grade({"max_changed_outside": 0.15, **alone}, case, output(painted(OUTSIDE_BOX)))[0]["preserved"].passed
    with_the_default = grade({}, case, output(painted(ten_by_ten)))[0]["preserved"]
    assert not with_the_default.passed
    assert "one local change covers 2.00% of the outside (limit 0.03%)" in with_the_default.reason


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
    assert bad["preserved"].reason.startswith("14.0% of pixels changed outside the region (limit 2.0%); one local change")
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
    # 900 px of 5000 exactly: the change is counted at its full area (18.1% with the old softened count)
    assert gates["edited"].reason == "18.0% of pixels changed inside the mask (need at least 10.0%)"


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
    assert gates["preserved"].reason.startswith("14.0% of pixels changed outside the mask (limit 2.0%);")
    assert "white = editable" in metrics["changed_outside"].reason
    # black = editable turns it around: the 900 px edit is now outside, 18% of it
    flipped, _ = grade({"mask_editable": "black"}, case, output(painted(INSIDE_BOX)))
    assert flipped["preserved"].reason.startswith("18.0% of pixels changed outside the mask (limit 2.0%);")


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
    assert gates["preserved"].reason.startswith("14.0% of pixels changed outside the mask (limit 2.0%);")
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
    assert "image-1.png: 14.0% of pixels" in gates["preserved"].reason
    assert metrics["changed_outside"].value == pytest.approx(0.07, abs=0.002)
    assert "image-0.png 0.00%, image-1.png 14.00%" in metrics["changed_outside"].reason


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


@pytest.mark.parametrize("by", [16, 20])
def test_a_global_darkening_fails_as_a_tone_change(case: CaseSpec, by: int) -> None:
    # Every pixel moves by less than the tolerance, so none counts as changed; the fitted tone
    # drift is what a person sees. (Before drifts were taken out, faint_change_outside caught it;
    # now it is the residual after the drift, near 0 here.)
    gates, metrics = grade({}, case, output(darkened(painted(INSIDE_BOX), by)))
    assert metrics["changed_outside"].value == 0.0
    assert metrics["tone_change"].value == pytest.approx(by, abs=0.5)
    assert metrics["faint_change_outside"].value < 1
    assert not gates["preserved"].passed
    assert gates["preserved"].reason == (
        f"0.0% of pixels changed outside the mask (limit 2.0%); the whole image darkened by "
        f"{metrics['tone_change'].value:.1f} (mean change of the kept pixels, 0-255, limit 12)"
    )


def test_a_faint_change_of_part_of_the_outside_fails(case: CaseSpec) -> None:
    # The right 15 columns (30% of the outside) darkened by 18: under the tolerance, and a minority
    # the robust tone fit does not follow (a majority would be the new tone, and fail tone_change).
    img = np.asarray(painted(INSIDE_BOX), dtype=np.int16)
    img[:, 85:] -= 18
    gates, metrics = grade({}, case, output(Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))))
    faint = metrics["faint_change_outside"].value
    assert faint > 4 and metrics["tone_change"].value < 12
    assert not gates["preserved"].passed
    assert gates["preserved"].reason == (
        f"0.0% of pixels changed outside the mask (limit 2.0%); everything else outside the mask changed faintly: "
        f"mean difference {faint:.1f} (0-255, limit 4)"
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


def test_a_shift_of_a_few_pixels_is_taken_out(case: CaseSpec) -> None:
    # A re-render 4 px off is not a change (it failed before whole-image shifts were taken out).
    gates, metrics = grade({}, case, output(shifted(painted(INSIDE_BOX), 4, 0)))
    assert gates["preserved"].passed, gates["preserved"].reason
    assert metrics["shift"].value == pytest.approx(4, abs=0.5)


def test_a_shift_past_max_shift_fails_and_says_by_how_much(case: CaseSpec) -> None:
    gates, metrics = grade({}, case, output(shifted(painted(INSIDE_BOX), 10, 0)))
    assert not gates["preserved"].passed
    shift = metrics["shift"].value
    assert shift == pytest.approx(10, abs=0.5)
    assert gates["preserved"].reason == (
        f"0.0% of pixels changed outside the mask (limit 2.0%); the whole image shifted by {shift:.1f} px "
        f"(dx +{shift:.1f}, dy +0.0; limit 4)"
    )


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


# -- re-renders pass, changes a person sees fail (issue 34) -------------------------
# A 256x256 logo: an emblem in the editable circle, a word mark and a small face outside it.
LOGO_SIZE = (256, 256)
EMBLEM = (78, 20, 178, 120)  # the editable circle's box


def logo(
    word: str = "NORTHWIND", eyes_open: bool = True, smile: bool = True, emblem: tuple[int, int, int] = (220, 40, 40)
) -> Image.Image:
    img = Image.new("RGB", LOGO_SIZE, (255, 255, 255))
    draw = ImageDraw.Draw(img)
    draw.ellipse(EMBLEM, fill=emblem)
    draw.text((80, 200), word, fill=(30, 30, 30), font=ImageFont.load_default(size=18))
    # a face in the corner: head, eyes, mouth
    draw.ellipse((190, 130, 240, 185), fill=(225, 185, 150))
    if eyes_open:
        draw.ellipse((202, 146, 210, 154), fill=(40, 30, 30))
        draw.ellipse((220, 146, 228, 154), fill=(40, 30, 30))
    else:
        draw.line((202, 150, 210, 150), fill=(40, 30, 30), width=2)
        draw.line((220, 150, 228, 150), fill=(40, 30, 30), width=2)
    if smile:
        draw.arc((204, 158, 226, 176), 20, 160, fill=(140, 40, 40), width=2)
    else:
        draw.line((206, 170, 224, 170), fill=(140, 40, 40), width=2)
    return img


@pytest.fixture
def logo_case(make_case: Callable[..., CaseSpec], tmp_path: Path) -> CaseSpec:
    logo().save(tmp_path / "logo.png")
    mask = Image.new("RGBA", LOGO_SIZE, (0, 0, 0, 255))
    ImageDraw.Draw(mask).ellipse(EMBLEM, fill=(0, 0, 0, 0))
    mask.save(tmp_path / "circle-mask.png")
    return make_case(task="image_editing", images=(tmp_path / "logo.png",), mask=tmp_path / "circle-mask.png")


def the_edit() -> Image.Image:
    """The correct output: the emblem recoloured, everything else as it was."""
    return logo(emblem=(30, 150, 150))


def brightened(img: Image.Image, by: int) -> Image.Image:
    return darkened(img, -by)


def resized_round_trip(img: Image.Image, scale: float) -> Image.Image:
    small = img.resize((round(img.width * scale), round(img.height * scale)), Image.Resampling.LANCZOS)
    return small.resize(img.size, Image.Resampling.BICUBIC)


@pytest.mark.parametrize(
    "variant",
    [
        lambda img: output(shifted(img, 2, 0)),
        lambda img: output(shifted(img, -1, 2)),
        lambda img: output(brightened(img, 5)),
        lambda img: output(darkened(img, 8)),
        lambda img: output(img, "image-0.jpg", quality=75),
        lambda img: output(resized_round_trip(img, 0.75)),
        lambda img: output(img.filter(ImageFilter.GaussianBlur(0.7))),
        lambda img: output(brightened(shifted(img, 2, 1), 5), "image-0.jpg", quality=75),
    ],
    ids=["shift-2px", "shift-1-2px", "brighter-5", "darker-8", "jpeg-q75", "resize-round-trip", "blur-0.7", "all-at-once"],
)
def test_a_re_rendered_correct_edit_passes(logo_case: CaseSpec, variant: Callable[[Image.Image], Artifact]) -> None:
    gates, metrics = grade({"max_changed_outside": 0.01}, logo_case, variant(the_edit()))
    assert gates["preserved"].passed, gates["preserved"].reason
    assert metrics["largest_change_outside"].value == 0.0


def test_the_correct_edit_itself_passes_untouched(logo_case: CaseSpec) -> None:
    gates, metrics = grade({"max_changed_outside": 0.01}, logo_case, output(the_edit()))
    assert gates["preserved"].reason == "0.0% of pixels changed outside the mask (limit 1.0%)"
    assert metrics["shift"].value == 0.0 and metrics["tone_change"].value == 0.0


def test_one_changed_letter_of_the_word_mark_fails(logo_case: CaseSpec) -> None:
    gates, metrics = grade({"max_changed_outside": 0.01}, logo_case, output(logo("NORTHWINO", emblem=(30, 150, 150))))
    value = metrics["largest_change_outside"].value
    assert metrics["changed_outside"].value < 0.01  # far under the total-share limit: only the blob gate sees it
    assert value > 0.0003
    assert not gates["preserved"].passed
    assert f"one local change covers {value:.2%} of the outside (limit 0.03%)" in gates["preserved"].reason


def test_a_changed_face_fails(logo_case: CaseSpec) -> None:
    changed = logo(eyes_open=False, smile=False, emblem=(30, 150, 150))
    gates, metrics = grade({"max_changed_outside": 0.01}, logo_case, output(changed, "image-0.jpg", quality=85))
    assert metrics["changed_outside"].value < 0.01
    assert not gates["preserved"].passed
    assert "one local change covers" in gates["preserved"].reason
    x0, x1, y0, y1 = (int(v) for v in re.findall(r"in x (\d+)-(\d+), y (\d+)-(\d+)", gates["preserved"].reason)[0])
    assert (x0, y0) <= (205, 148) and (x1, y1) >= (225, 174)  # both eyes and the mouth: one change


def test_specks_over_three_percent_of_the_outside_fail(logo_case: CaseSpec) -> None:
    rng = np.random.default_rng(7)
    img = np.asarray(the_edit()).copy()
    editable = np.zeros(LOGO_SIZE[::-1], dtype=bool)
    editable[EMBLEM[1] : EMBLEM[3], EMBLEM[0] : EMBLEM[2]] = True
    placed, wanted = 0, int(0.03 * (~editable).sum() / 9)
    while placed < wanted:
        y, x = (int(v) for v in rng.integers(0, 253, 2))
        if not editable[y : y + 3, x : x + 3].any():
            img[y : y + 3, x : x + 3] = rng.integers(0, 256, 3)
            placed += 1
    gates, metrics = grade({}, logo_case, output(Image.fromarray(img)))
    assert not gates["preserved"].passed
    value = metrics["changed_outside"].value
    assert value > 0.02
    assert gates["preserved"].reason.startswith(f"{value:.1%} of pixels changed outside the mask (limit 2.0%)")


def test_a_darkened_output_fails_even_when_shifted(logo_case: CaseSpec) -> None:
    gates, metrics = grade({}, logo_case, output(darkened(shifted(the_edit(), 1, 1), 20)))
    assert not gates["preserved"].passed
    assert metrics["tone_change"].value == pytest.approx(20, abs=1)
    assert "the whole image darkened by 20.0 (mean change of the kept pixels, 0-255, limit 12)" in gates["preserved"].reason


def test_a_colour_cast_is_named(logo_case: CaseSpec) -> None:
    cast = np.asarray(the_edit(), dtype=np.int16) + np.asarray([-20, 0, 20], dtype=np.int16)
    gates, _ = grade({}, logo_case, output(Image.fromarray(np.clip(cast, 0, 255).astype(np.uint8))))
    assert not gates["preserved"].passed
    assert "the whole image's colours or contrast changed by" in gates["preserved"].reason


# -- protected areas --------------------------------------------------------------
FACE = [190, 130, 240, 185]


def test_a_change_in_a_protected_box_fails_with_its_name(logo_case: CaseSpec) -> None:
    changed = logo(eyes_open=False, emblem=(30, 150, 150))  # the eyes only
    relaxed = {"max_largest_change_outside": 1}  # so only the protected area can fail it
    gates, metrics = grade({**relaxed, "protect": [{"name": "face", "box": FACE}]}, logo_case, output(changed))
    share = metrics["changed_protected"].value
    assert share > 0.002
    assert not gates["preserved"].passed
    assert gates["preserved"].reason.endswith(f"; {share:.1%} of the protected area 'face' changed (limit 0.2%)")
    assert grade(relaxed, logo_case, output(changed))[0]["preserved"].passed


def test_a_protected_box_in_fractions_passes_a_re_render(logo_case: CaseSpec) -> None:
    box = [v / 256 for v in FACE]
    gates, metrics = grade(
        {"protect": [box]}, logo_case, output(shifted(brightened(the_edit(), 5), 2, 0), "image-0.jpg", quality=80)
    )
    assert gates["preserved"].passed, gates["preserved"].reason
    assert metrics["changed_protected"].value == 0.0
    assert "the protected area [190, 130, 240, 185]" in metrics["changed_protected"].reason


def test_protect_mask_is_read_next_to_the_case_file(
    make_case: Callable[..., CaseSpec], logo_case: CaseSpec, tmp_path: Path
) -> None:
    protect = Image.new("L", LOGO_SIZE, 0)
    ImageDraw.Draw(protect).rectangle(FACE, fill=255)  # white = protected
    protect.save(tmp_path / "face.png")
    case = replace(logo_case, source=tmp_path / "suite.eval.yaml")
    options = {"protect_mask": "face.png", "max_largest_change_outside": 1}
    assert LocalityGrader.check_case(case, options) is None
    gates, _ = grade(options, case, output(logo(eyes_open=False, emblem=(30, 150, 150))))
    assert not gates["preserved"].passed
    assert "of the protected area 'face.png' changed (limit 0.2%)" in gates["preserved"].reason
    missing = LocalityGrader.check_case(case, {"protect_mask": "nope.png"})
    assert missing is not None and "'nope.png' is not a file" in missing
    escaping = LocalityGrader.check_case(case, {"protect_mask": "../outside.png"})
    assert escaping is not None and "leaves the suite folder" in escaping


def test_protect_options_schema() -> None:
    schema = LocalityGrader.options_schema
    jsonschema.validate({"protect": [[0, 0, 0.5, 0.5], {"name": "face", "box": [1, 2, 3, 4]}]}, schema)
    for bad in ({"protect": []}, {"protect": [{"box": [0, 0, 1, 1]}]}, {"protect": [[0, 0, 1]]}, {"max_shift": -1}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_check_case_refuses_an_empty_protect_box(case: CaseSpec) -> None:
    said = LocalityGrader.check_case(case, {"protect": [[10, 10, 5, 20]]})
    assert said is not None and "'protect' boxes must be [x0, y0, x1, y1]" in said


# -- marks on a plain part ------------------------------------------------------
def test_a_stray_letter_on_a_plain_part_fails_though_it_is_tiny(make_case: Callable[..., CaseSpec], tmp_path: Path) -> None:
    # 400x400, the left half editable: an 11 px "L" is 0.014% of the outside, under the 0.03% a single
    # change may cover, but it stands on a plain, gently shaded wall.
    x = np.linspace(0, 1, 400)[None, :]
    wall = np.stack([np.broadcast_to(170 + 30 * x, (400, 400))] * 3, axis=2).astype(np.uint8)
    path = tmp_path / "wall.png"
    Image.fromarray(wall).save(path)
    case = make_case(task="image_editing", images=(path,), mask=left_half_mask(tmp_path, (400, 400)))
    marked = wall.copy()
    marked[200:206, 300] = 20
    marked[205, 300:306] = 20
    gates, metrics = grade({}, case, output(Image.fromarray(marked)))
    assert not gates["preserved"].passed
    assert "a new mark on a plain part of the picture: 11 px in x 300-306, y 200-206" in gates["preserved"].reason
    assert metrics["plain_marks_outside"].value == 1
    assert metrics["largest_change_outside"].value < 0.0003
    assert grade({"plain_marks": False}, case, output(Image.fromarray(marked)))[0]["preserved"].passed
    # The same wall re-encoded, or moved by a pixel, shows no mark.
    for legit in (output(Image.fromarray(wall), "image-0.jpg", quality=75), output(Image.fromarray(np.roll(wall, 1, axis=1)))):
        gates, metrics = grade({}, case, legit)
        assert gates["preserved"].passed, gates["preserved"].reason
        assert metrics["plain_marks_outside"].value == 0


def test_noise_over_the_whole_output_fails_preserved_as_grain(case: CaseSpec) -> None:
    # Noise cancels out in the softened per-pixel comparison: no pixel outside counts as changed.
    pixels = np.asarray(painted(INSIDE_BOX), dtype=np.float32)
    grainy = np.clip(pixels + np.random.default_rng(0).normal(0, 25, pixels.shape), 0, 255).astype(np.uint8)
    gates, metrics = grade({}, case, output(Image.fromarray(grainy)))
    assert not gates["preserved"].passed
    assert "outside the mask is grainy: its smooth parts step" in gates["preserved"].reason
    assert metrics["grain_outside"].value > 5
    assert grade({"max_grain": 100}, case, output(Image.fromarray(grainy)))[0]["preserved"].reason.count("grainy") == 0
    clean, metrics = grade({}, case, output(painted(INSIDE_BOX), "image-0.jpg", quality=70))
    assert clean["preserved"].passed and metrics["grain_outside"].value < 1
