"""graders/colour.py: the colours of an area against the reference, the input or listed colours."""

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

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import GraderError
from pytest_visioneval.graders import create_grader, grader_types
from pytest_visioneval.graders.base import Grade
from pytest_visioneval.graders.colour import ColourGrader

TEAL, RED, GREEN, WHITE, INK = (13, 148, 136), (220, 38, 38), (46, 139, 87), (255, 255, 255), (30, 30, 30)
CIRCLE = (64, 16, 192, 144)


def logo(emblem: tuple[int, int, int] = TEAL, ink: tuple[int, int, int] = INK) -> Image.Image:
    """A coloured circle with a white triangle above a dark word mark, on white (256 x 256)."""
    image = Image.new("RGB", (256, 256), WHITE)
    draw = ImageDraw.Draw(image)
    draw.ellipse(CIRCLE, fill=emblem)
    draw.polygon([(128, 40), (92, 118), (164, 118)], fill=WHITE)
    draw.rectangle((60, 180, 196, 200), fill=ink)
    return image


def half_done() -> Image.Image:
    """The recolour done on the lower half of the circle only: the upper half is still red."""
    image = np.asarray(logo()).copy()
    image[: (CIRCLE[1] + CIRCLE[3]) // 2] = np.asarray(logo(RED))[: (CIRCLE[1] + CIRCLE[3]) // 2]
    return Image.fromarray(image)


def png(image: Image.Image, fmt: str = "PNG", **save: Any) -> Artifact:
    out = io.BytesIO()
    image.save(out, format=fmt, **save)
    return Artifact("image-0.png", out.getvalue())


@pytest.fixture
def case(make_case: Callable[..., CaseSpec], tmp_path: Path) -> CaseSpec:
    logo().save(tmp_path / "reference.png")
    logo(RED).save(tmp_path / "input.png")
    mask = Image.new("RGBA", (256, 256), (0, 0, 0, 255))
    ImageDraw.Draw(mask).ellipse((CIRCLE[0] - 4, CIRCLE[1] - 4, CIRCLE[2] + 4, CIRCLE[3] + 4), fill=(0, 0, 0, 0))
    mask.save(tmp_path / "mask.png")
    return make_case(
        task="image_editing", images=(tmp_path / "input.png",), reference=tmp_path / "reference.png", mask=tmp_path / "mask.png"
    )


def grade(options: dict[str, Any], case: CaseSpec, *artifacts: Artifact) -> Grade:
    jsonschema.validate(options, ColourGrader.options_schema)
    assert ColourGrader.check_case(case, options) is None
    return ColourGrader(options).grade(case, artifacts)


def test_the_reference_itself_matches(case: CaseSpec) -> None:
    result = grade({"within": "mask"}, case, png(logo()))
    assert result.gates[0].name == "matches" and result.gates[0].passed
    assert result.gates[0].reason == "the mask area matches the reference in colour on 100% or more (limit 80%)"
    (metric,) = result.metrics
    assert metric.name == "coverage" and metric.higher_is_better and metric.value == pytest.approx(1.0)
    assert metric.reason == (
        "how much of the mask area is in the colours of the reference"
        " (in their proportions, background left out; deltaE00 <= 6): image-0.png 100.0%"
    )


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(lambda im: png(im, "JPEG", quality=60), id="jpeg_q60"),
        pytest.param(
            lambda im: png(Image.fromarray(np.clip(np.asarray(im, np.int16) + 8, 0, 255).astype(np.uint8))), id="brighter_8"
        ),
        pytest.param(lambda im: png(Image.fromarray(np.roll(np.asarray(im), (3, -2), axis=(0, 1)))), id="shift_3_2"),
        pytest.param(lambda im: png(im.resize((384, 384), Image.Resampling.BICUBIC)), id="larger"),
    ],
)
def test_legitimate_variants_match(case: CaseSpec, variant: Callable[[Image.Image], Artifact]) -> None:
    result = grade({"within": "mask"}, case, variant(logo()))
    assert result.gates[0].passed, result.gates[0].reason
    assert result.metrics[0].value >= 0.93


def test_another_colour_fails_naming_both_colours(case: CaseSpec) -> None:
    result = grade({"within": "mask"}, case, png(logo(GREEN)))
    gate = result.gates[0]
    assert not gate.passed
    found = re.match(
        r"the mask area matches the reference in colour on (\d+)% \(limit 80%\): (\d+)% of it is #2e8b57 "
        r"where the reference has #0d9488 \(deltaE00 (\d+\.\d), limit 6\)",
        gate.reason,
    )
    assert found is not None, gate.reason
    assert int(found[1]) < 40 and int(found[2]) > 60 and float(found[3]) > 10
    assert "#0d9488 covers 0% of it in the output" in gate.reason


def test_a_half_done_recolour_fails(case: CaseSpec) -> None:
    result = grade({"within": "mask"}, case, png(half_done()))
    gate = result.gates[0]
    assert not gate.passed
    assert re.search(r"on (\d+)% \(limit 80%\): (\d+)% of it is #dc2626 where the reference has", gate.reason), gate.reason
    found = re.search(r"#0d9488 covers (\d+)% of it in the output and (\d+)% in the reference", gate.reason)
    assert found is not None and int(found[1]) < int(found[2]) - 20
    assert 0.3 < result.metrics[0].value < 0.7  # about half of the emblem is the reference's colour


def test_the_unedited_input_fails(case: CaseSpec) -> None:
    result = grade({"within": "mask"}, case, png(logo(RED)))
    assert not result.gates[0].passed
    assert "of it is #dc2626 where the reference has" in result.gates[0].reason


def test_outside_the_mask_checks_the_rest(case: CaseSpec) -> None:
    assert grade({"within": "outside_mask"}, case, png(logo(GREEN))).gates[0].passed  # only the emblem changed
    gate = grade({"within": "outside_mask"}, case, png(logo(ink=(200, 30, 30)))).gates[0]
    assert not gate.passed
    assert gate.reason.startswith("the area outside the mask matches the reference in colour on")
    assert re.search(r"of it is #c81e1e where the reference has #[0-9a-f]{6}", gate.reason), gate.reason


def test_listed_brand_colours(case: CaseSpec) -> None:
    brand = {"within": "mask", "colours": ["#0d9488", "#ffffff"]}
    assert grade(brand, case, png(logo())).gates[0].passed
    gate = grade(brand, case, png(logo(GREEN))).gates[0]
    assert not gate.passed
    assert re.search(r"of it is #2e8b57 where the listed colours have #0d9488 \(deltaE00 \d+\.\d, limit 6\)", gate.reason)


def test_a_region_box(case: CaseSpec) -> None:
    box = {"region": [0.0, 0.65, 1.0, 0.85]}  # the word mark's band, in fractions
    assert grade(box, case, png(logo(GREEN))).gates[0].passed
    gate = grade(box, case, png(logo(ink=(200, 30, 30)))).gates[0]
    assert not gate.passed and gate.reason.startswith("the region [0, 166, 256, 218] matches the reference")


def test_against_input(case: CaseSpec) -> None:
    assert grade({"against": "input", "within": "outside_mask"}, case, png(logo())).gates[0].passed
    gate = grade({"against": "input", "within": "mask"}, case, png(logo())).gates[0]
    assert not gate.passed and "where the input has" in gate.reason


def test_options_tune_the_gate(case: CaseSpec) -> None:
    assert grade({"within": "mask", "min_coverage": 0.3}, case, png(half_done())).gates[0].passed
    assert grade({"within": "mask", "max_delta_e": 40}, case, png(logo(GREEN))).gates[0].passed


def test_several_outputs_each_named(case: CaseSpec) -> None:
    second = png(logo(GREEN))
    result = grade({"within": "mask"}, case, png(logo()), Artifact("image-1.png", second.data))
    assert not result.gates[0].passed
    assert result.gates[0].reason.startswith("image-1.png: the mask area matches the reference in colour on")
    assert "image-0.png 100.0%, image-1.png" in result.metrics[0].reason


def test_no_image_or_undecodable_fails(case: CaseSpec) -> None:
    none = grade({}, case, Artifact("reply.md", b"text"))
    assert not none.gates[0].passed and none.gates[0].reason == "the output holds no image" and none.metrics == ()
    broken = grade({}, case, Artifact("image-0.png", b"\x89PNG broken"))
    assert not broken.gates[0].passed and broken.gates[0].reason.startswith("image-0.png: does not decode")


def test_check_case(case: CaseSpec, make_case: Callable[..., CaseSpec]) -> None:
    plain = make_case()
    assert ColourGrader.check_case(plain, {"colours": ["#000000"]}) is None
    assert "lacks" in (ColourGrader.check_case(plain, {}) or "")
    assert "needs a 'mask'" in (ColourGrader.check_case(plain, {"colours": ["#000000"], "within": "mask"}) or "")
    assert "x0 < x1" in (ColourGrader.check_case(case, {"region": [10, 0, 5, 8]}) or "")


def test_an_empty_area_is_a_grader_error(case: CaseSpec) -> None:
    with pytest.raises(GraderError, match="holds no pixel"):
        ColourGrader({"region": [10, 10, 10.2, 10.2]}).grade(case, [png(logo())])


def test_options_schema_and_registry() -> None:
    jsonschema.validate(
        {"colours": ["#0A7D7D"], "within": "mask", "max_delta_e": 4, "min_coverage": 0.9}, ColourGrader.options_schema
    )
    for bad in ({"colours": ["teal"]}, {"colours": []}, {"within": "inside"}, {"min_coverage": 2}, {"region": [0, 0, 1]}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, ColourGrader.options_schema)
    assert grader_types()["colour"] is ColourGrader
    assert isinstance(create_grader("colour", {}), ColourGrader)


# -- the shipped cookbook cases (logo-edits emblem_colour, virtual-tryon garment_colour) --------
COOKBOOK = Path(__file__).resolve().parents[3] / "cases" / "cookbook"
SHIPPED = {
    "northwind-teal": ("logo_edits/northwind-teal.png", "logo_edits/northwind.png", "logo_edits/circle-mask.png"),
    "acme-navy": ("logo_edits/acme-navy.png", "logo_edits/acme.png", "logo_edits/circle-mask.png"),
    "striped-tee": (
        "virtual_tryon/striped-tee-result.png",
        "virtual_tryon/striped-tee-person.png",
        "virtual_tryon/striped-tee-mask.png",
    ),
    "green-zip-jacket": (
        "virtual_tryon/green-zip-jacket-result.png",
        "virtual_tryon/green-zip-jacket-person.png",
        "virtual_tryon/green-zip-jacket-mask.png",
    ),
    "logo-sweater": (
        "virtual_tryon/logo-sweater-result.png",
        "virtual_tryon/logo-sweater-person.png",
        "virtual_tryon/logo-sweater-mask.png",
    ),
}


@pytest.mark.parametrize("name", list(SHIPPED))
def test_shipped_cases(make_case: Callable[..., CaseSpec], name: str) -> None:
    reference, person, mask = (COOKBOOK / part for part in SHIPPED[name])
    case = make_case(task="image_editing", images=(person,), reference=reference, mask=mask)
    result, before = Image.open(reference).convert("RGB"), Image.open(person).convert("RGB")
    assert grade({"within": "mask"}, case, png(result)).gates[0].passed
    assert grade({"within": "mask"}, case, png(result, "JPEG", quality=60)).gates[0].passed
    unedited = grade({"within": "mask"}, case, png(before)).gates[0]
    assert not unedited.passed and "covers" in unedited.reason
    # The edit done on the upper half of the mask only: the lower half still shows the person's old top.
    half = np.asarray(before).copy()
    rows = np.nonzero(np.asarray(Image.open(mask).convert("RGBA"))[..., 3] == 0)[0]
    cut = (int(rows.min()) + int(rows.max())) // 2
    half[:cut] = np.asarray(result)[:cut]
    halved = grade({"within": "mask"}, case, png(Image.fromarray(half))).gates[0]
    assert not halved.passed, halved.reason


# -- shows: named colours the area must show -------------------------------------------------
AMBER = "#b45309"


def flyer(band: tuple[int, int, int] = (180, 83, 9)) -> Image.Image:
    """A light flyer (300 x 400) with a coloured headline band and dark text-like bars."""
    image = Image.new("RGB", (300, 400), (252, 250, 245))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 300, 40), fill=band)
    for row in range(80, 360, 40):
        draw.rectangle((20, row, 220, row + 8), fill=INK)
    return image


def test_a_named_colour_shown_passes_alone(make_case: Callable[..., CaseSpec]) -> None:
    plain = make_case(task="image_generation")  # no reference: shows alone needs none
    result = grade({"shows": [AMBER]}, plain, png(flyer()))
    assert [g.name for g in result.gates] == ["shows"]
    assert result.gates[0].passed
    assert result.gates[0].reason == f"the image shows every named colour on 2% or more: {AMBER} 11%"
    (metric,) = result.metrics
    assert metric.name == "shown" and metric.value == pytest.approx(5.5, abs=0.3)


@pytest.mark.parametrize(
    "variant",
    [
        lambda im: png(im, "JPEG", quality=60),
        lambda im: png(Image.fromarray(np.clip(np.asarray(im, np.int16) - 8, 0, 255).astype(np.uint8))),
    ],
    ids=["jpeg_q60", "darker_8"],
)
def test_legitimate_copies_still_show_the_named_colour(
    make_case: Callable[..., CaseSpec], variant: Callable[[Image.Image], Artifact]
) -> None:
    assert grade({"shows": [AMBER]}, make_case(task="image_generation"), variant(flyer())).gates[0].passed


def test_a_band_in_another_hue_fails_naming_the_nearest_colour(make_case: Callable[..., CaseSpec]) -> None:
    from pytest_visioneval.mutants.photometric import hue_rotated

    result = grade({"shows": [AMBER]}, make_case(task="image_generation"), png(hue_rotated(flyer(), 30)))
    gate = result.gates[0]
    assert not gate.passed
    assert re.fullmatch(
        rf"{AMBER} covers 0\.0% of the image \(at least 2%\); the nearest colour shown is #[0-9a-f]{{6}}, "
        r"deltaE00 \d+\.\d \(limit 6\)",
        gate.reason,
    ), gate.reason
    assert result.metrics[0].value == 0.0


def test_shows_joins_a_comparison_and_takes_its_own_share(case: CaseSpec) -> None:
    result = grade({"against": "reference", "within": "mask", "shows": ["#0d9488"], "min_share": 0.9}, case, png(logo()))
    gates = {g.name: g for g in result.gates}
    assert set(gates) == {"matches", "shows"}
    assert gates["matches"].passed
    assert not gates["shows"].passed  # the white triangle and the rim take a quarter of the mask area
    assert "(at least 90%)" in gates["shows"].reason
    assert [m.name for m in result.metrics] == ["coverage", "shown"]


def test_shows_with_no_image_or_undecodable(make_case: Callable[..., CaseSpec]) -> None:
    plain = make_case(task="image_generation")
    (none,) = grade({"shows": [AMBER]}, plain, Artifact("reply.md", b"text")).gates
    assert none.name == "shows" and not none.passed and none.reason == "the output holds no image"
    broken = grade({"shows": [AMBER]}, plain, Artifact("image-0.png", b"\x89PNG broken"))
    assert not broken.gates[0].passed and broken.gates[0].reason.startswith("image-0.png: does not decode")
    assert broken.metrics == ()


def test_shows_options_are_validated(make_case: Callable[..., CaseSpec]) -> None:
    jsonschema.validate({"shows": ["#B45309"], "min_share": 0.05}, ColourGrader.options_schema)
    for bad in ({"shows": ["amber"]}, {"shows": []}, {"min_share": 0}, {"min_share": 1.5}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, ColourGrader.options_schema)
    plain = make_case(task="image_generation")
    assert ColourGrader.check_case(plain, {"shows": [AMBER]}) is None
    assert "lacks" in (ColourGrader.check_case(plain, {"shows": [AMBER], "against": "reference"}) or "")


@pytest.mark.parametrize(
    ("suite", "image", "colour"),
    [
        ("flyers", "flyers/book-fair.png", "#b45309"),
        ("flyers", "flyers/farmers-market.png", "#15803d"),
        ("promo_flyers", "promo_flyers/bike-repair.png", "#286ea0"),
        ("promo_flyers", "promo_flyers/cocoa-nights.png", "#965a32"),
    ],
)
def test_shipped_flyers_show_their_named_colour(make_case: Callable[..., CaseSpec], suite: str, image: str, colour: str) -> None:
    from pytest_visioneval.mutants.photometric import hue_rotated

    plain = make_case(task="image_generation")
    reference = Image.open(COOKBOOK / image).convert("RGB")
    assert colour in (COOKBOOK / f"{suite}.eval.yaml").read_text()
    assert grade({"shows": [colour]}, plain, png(reference, "JPEG", quality=70)).gates[0].passed
    assert not grade({"shows": [colour]}, plain, png(hue_rotated(reference, -30))).gates[0].passed
