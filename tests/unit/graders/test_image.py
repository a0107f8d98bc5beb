"""graders/image.py: every gate passes a correct artifact and fails a broken one."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import GraderError
from pytest_visioneval.graders import Gate, Grade, create_grader, option_schemas
from pytest_visioneval.graders import image as image_module
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
    # with no options, only decodes, not_blank, fills_canvas and the colour the prompt names ("a red square") apply
    assert set(gates) == {"decodes", "not_blank", "fills_canvas", "named_colours"}
    assert gates["named_colours"].passed


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
    assert gate.reason.startswith("image-0.png has the least content: ")


def test_not_blank_fails_a_blank_image(case: CaseSpec, encode_image: Encode) -> None:
    gates = grade({}, case, png(encode_image), png(encode_image, "image-1.png", pattern=False, color=(120, 120, 120)))
    assert not gates["not_blank"].passed
    assert "image-1.png (0.00% of pixels off its background colour, luminance std 0.00)" in gates["not_blank"].reason
    assert "image-0.png" not in gates["not_blank"].reason
    assert "need at least 0.20% content and std 2" in gates["not_blank"].reason


def test_not_blank_thresholds_are_configurable(case: CaseSpec, encode_image: Encode) -> None:
    faint = png(encode_image, size=(32, 32), color=(255, 255, 255))  # white square on white: blank
    assert not grade({"blank_std": 0.5}, case, faint)["not_blank"].passed
    assert grade({"blank_std": 0.0, "min_content": 0.0}, case, faint)["not_blank"].passed


def encoded(image: Image.Image, fmt: str = "PNG", **kwargs: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **kwargs)
    return out.getvalue()


def test_not_blank_fails_a_fully_transparent_image(case: CaseSpec) -> None:
    # Colourful pixels, but alpha 0 everywhere: a viewer shows nothing.
    rgba = np.zeros((64, 64, 4), dtype=np.uint8)
    rgba[..., 0] = np.arange(64, dtype=np.uint8)[None, :] * 4
    rgba[..., 1] = 200
    gate = grade({}, case, Artifact("image-0.png", encoded(Image.fromarray(rgba, "RGBA"))))["not_blank"]
    assert not gate.passed
    assert "image-0.png (0.00% of pixels off its background colour" in gate.reason
    assert "after flattening transparency onto white" in gate.reason


def test_not_blank_fails_white_with_faint_noise(case: CaseSpec) -> None:
    rng = np.random.default_rng(7)
    noisy = np.clip(250 + rng.normal(0, 4, (512, 512, 3)), 0, 255).astype(np.uint8)  # per-pixel std 4 > blank_std
    assert np.asarray(Image.fromarray(noisy).convert("L"), dtype=float).std() > 2.0
    gate = grade({}, case, Artifact("image-0.png", encoded(Image.fromarray(noisy))))["not_blank"]
    assert not gate.passed, gate.reason
    assert gate.reason.startswith("blank image(s): image-0.png (0.00% of pixels off its background colour, luminance std 1.26)")


def test_not_blank_passes_a_small_icon_on_a_large_canvas(case: CaseSpec) -> None:
    canvas = Image.new("RGB", (1024, 1024), "white")
    ImageDraw.Draw(canvas).rounded_rectangle((480, 480, 544, 544), radius=12, fill=(30, 90, 200))  # 0.4% of the canvas
    gate = grade({}, case, Artifact("image-0.png", encoded(canvas)))["not_blank"]
    assert gate.passed, gate.reason
    assert gate.reason == "image-0.png has the least content: 0.4% of pixels off its background"


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
    assert gate.reason == "image-0.png is input.png again (0.000% of pixels changed, need 0.20%): nothing was edited"


@pytest.fixture
def photo_edit_case(make_case: Callable[..., CaseSpec], tmp_path: Path) -> CaseSpec:
    source = tmp_path / "photo.png"
    source.write_bytes(encoded(busy_picture()))
    return make_case(task="image_editing", images=(source,))


def busy_picture(size: tuple[int, int] = (128, 96)) -> Image.Image:
    """Gradients and shapes: an input with edges everywhere, like a photo or a logo."""
    x, y = np.meshgrid(np.arange(size[0]), np.arange(size[1]))
    rgb = np.stack([(x * 2) % 256, (y * 3) % 256, ((x + y) * 5) % 256], axis=2).astype(np.uint8)
    image = Image.fromarray(rgb)
    ImageDraw.Draw(image).ellipse((20, 20, 60, 60), fill=(220, 30, 30))
    return image


@pytest.mark.parametrize(
    "variant",
    [
        lambda img: encoded(img, "JPEG", quality=85),
        lambda img: encoded(img.point(lambda v: v)),
        lambda img: encoded(_touched(img)),
    ],
    ids=["jpeg-q85-resave", "png-resave", "one-pixel-changed"],
)
def test_differs_from_input_fails_the_input_resaved_or_barely_touched(
    photo_edit_case: CaseSpec, variant: Callable[[Image.Image], bytes]
) -> None:
    source = Image.open(photo_edit_case.images[0])
    gate = grade({}, photo_edit_case, Artifact("image-0.png", variant(source)))["differs_from_input"]
    assert not gate.passed
    assert "image-0.png is photo.png again" in gate.reason and "nothing was edited" in gate.reason


def _touched(image: Image.Image) -> Image.Image:
    copy = image.copy()
    copy.putpixel((5, 5), (0, 0, 0))
    return copy


def test_differs_from_input_passes_a_real_edit_of_the_same_picture(photo_edit_case: CaseSpec) -> None:
    edited = Image.open(photo_edit_case.images[0]).convert("RGB")
    ImageDraw.Draw(edited).ellipse((20, 20, 60, 60), fill=(20, 160, 160))  # the red circle recoloured
    gate = grade({}, photo_edit_case, Artifact("image-0.png", encoded(edited, "JPEG", quality=90)))["differs_from_input"]
    assert gate.passed, gate.reason


def test_matches_input_fails_an_edit_returned_at_another_aspect(photo_edit_case: CaseSpec) -> None:
    squashed = Image.open(photo_edit_case.images[0]).resize((96, 96))
    gates = grade({}, photo_edit_case, Artifact("image-0.png", encoded(squashed)))
    assert not gates["matches_input"].passed
    assert gates["matches_input"].reason == (
        "image-0.png is 96x96: an edit must keep the aspect ratio of photo.png (128x96, 1.333)"
    )


def test_matches_input_passes_the_same_aspect_at_another_size(photo_edit_case: CaseSpec) -> None:
    doubled = Image.open(photo_edit_case.images[0]).resize((256, 192))
    gates = grade({}, photo_edit_case, Artifact("image-0.png", encoded(doubled)))
    assert gates["matches_input"].passed
    assert "matches_input" not in grade({"match_input": False}, photo_edit_case, Artifact("image-0.png", encoded(doubled)))


def test_requested_size_checks_the_aspect_of_params_size(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(params={"size": "1024x1536"})
    portrait = Artifact("image-0.png", encoded(busy_picture((512, 768))))
    landscape = Artifact("image-0.png", encoded(busy_picture((768, 512))))
    assert grade({}, case, portrait)["requested_size"].passed
    gate = grade({}, case, landscape)["requested_size"]
    assert not gate.passed
    assert gate.reason == "image-0.png is 768x512: not the aspect ratio of the requested size 1024x1536 (aspect 0.667)"
    # an explicit size option decides instead
    assert "requested_size" not in grade({"width": 768}, case, landscape)


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


# -- fills_canvas -------------------------------------------------------------
FLYER = Path(__file__).resolve().parents[3] / "cases" / "cookbook" / "flyers" / "book-fair.png"


def artifact_of(image: Image.Image, fmt: str = "PNG", **kwargs: Any) -> Artifact:
    out = io.BytesIO()
    image.save(out, format=fmt, **kwargs)
    return Artifact("image-0.png", out.getvalue())


def shrunk_onto(image: Image.Image, scale: float, corner: str, canvas: tuple[int, int, int]) -> Image.Image:
    small = image.resize((round(image.width * scale), round(image.height * scale)), Image.Resampling.LANCZOS)
    out = Image.new("RGB", image.size, canvas)
    free_x, free_y = image.width - small.width, image.height - small.height
    out.paste(small, {"top-left": (0, 0), "centre": (free_x // 2, free_y // 2), "bottom-right": (free_x, free_y)}[corner])
    return out


def test_fills_canvas_passes_the_reference_and_faithful_copies(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(reference=FLYER)
    flyer = Image.open(FLYER).convert("RGB")
    moved = Image.fromarray(np.roll(np.asarray(flyer), (2, -1), axis=(0, 1)))
    brighter = Image.fromarray(np.clip(np.asarray(flyer).astype(np.int16) + 5, 0, 255).astype(np.uint8))
    for copy in (artifact_of(flyer), artifact_of(flyer, "JPEG", quality=70), artifact_of(moved), artifact_of(brighter)):
        gate = grade({}, case, copy)["fills_canvas"]
        assert gate.passed, gate.reason
        assert gate.reason == "every image's content spans at least 90% of the reference's width and height"


@pytest.mark.parametrize("scale", [0.3, 0.8])
@pytest.mark.parametrize("corner", ["top-left", "centre", "bottom-right"])
@pytest.mark.parametrize("canvas", [(255, 255, 255), (252, 250, 245)], ids=["white", "own-background"])
def test_fills_canvas_fails_the_reference_shrunk_onto_an_empty_canvas(
    make_case: Callable[..., CaseSpec], scale: float, corner: str, canvas: tuple[int, int, int]
) -> None:
    flyer = Image.open(FLYER).convert("RGB")
    gate = grade({}, make_case(reference=FLYER), artifact_of(shrunk_onto(flyer, scale, corner, canvas)))["fills_canvas"]
    assert not gate.passed
    assert gate.reason.startswith("content shrunk: image-0.png spans ")
    assert "of its canvas, the reference 100% x 91%" in gate.reason  # the flyer's own extent
    assert gate.reason.endswith("; need 90% of the reference's width and height")


def test_fills_canvas_sees_a_picture_with_its_own_background_shrunk_onto_white(
    make_case: Callable[..., CaseSpec], tmp_path: Path
) -> None:
    # a cream poster whose text leaves wide margins: shrunk onto white, the cream panel is not content
    poster = Image.new("RGB", (480, 640), (245, 236, 210))
    draw = ImageDraw.Draw(poster)
    draw.rectangle((120, 80, 360, 140), fill=(30, 90, 40))
    draw.ellipse((170, 260, 310, 400), fill=(190, 90, 50))
    draw.rectangle((140, 500, 340, 560), fill=(30, 90, 40))
    reference = tmp_path / "poster.png"
    poster.save(reference)
    case = make_case(reference=reference)
    assert grade({}, case, artifact_of(poster))["fills_canvas"].passed
    gate = grade({}, case, artifact_of(shrunk_onto(poster, 0.75, "centre", (255, 255, 255))))["fills_canvas"]
    assert not gate.passed
    assert "spans 38% x 57% of its canvas, the reference 51% x 75%" in gate.reason


def test_fills_canvas_without_a_reference_needs_half_the_canvas(case: CaseSpec) -> None:
    full = Image.new("RGB", (400, 400), "white")
    ImageDraw.Draw(full).rectangle((40, 40, 360, 300), fill=(20, 60, 160))
    gate = grade({}, case, artifact_of(full))["fills_canvas"]
    assert gate.passed
    assert gate.reason == "image-0.png has the smallest content: 80% x 66% of the canvas"
    small = grade({}, case, artifact_of(shrunk_onto(full, 0.4, "bottom-right", (255, 255, 255))))["fills_canvas"]
    assert not small.passed
    assert small.reason == (
        "content covers too little of the canvas: image-0.png (32% x 26% of the canvas); need 50% in its longer direction"
    )


def test_fills_canvas_options(case: CaseSpec, make_case: Callable[..., CaseSpec]) -> None:
    flyer = Image.open(FLYER).convert("RGB")
    small = artifact_of(shrunk_onto(flyer, 0.4, "centre", (255, 255, 255)))
    assert "fills_canvas" not in grade({"fills_canvas": False}, case, small)
    assert grade({"min_extent": 0.3}, case, small)["fills_canvas"].passed
    assert grade({"min_extent_of_reference": 0.35}, make_case(reference=FLYER), small)["fills_canvas"].passed


# -- the case's outputs together, and large outputs graded reduced ------------
def test_decodes_refuses_outputs_over_the_case_total_from_their_headers(case: CaseSpec, monkeypatch: pytest.MonkeyPatch) -> None:
    frames = [Artifact(f"frame-{i}.png", encoded(Image.new("L", (1000, 800), 200))) for i in range(3)]  # 2.4 Mpx together
    monkeypatch.setenv("VISIONEVAL_MAX_CASE_PIXELS", "2_400_000")
    assert grade({}, case, *frames)["decodes"].passed  # exactly at the limit
    monkeypatch.setenv("VISIONEVAL_MAX_CASE_PIXELS", "2_000_000")
    gates = grade({}, case, *frames)
    assert set(gates) == {"decodes"}  # nothing was decoded, so nothing else is graded
    assert gates["decodes"].reason == (
        "the case's 3 output images are 2.4 Mpx together (the largest, frame-0.png, 1000x800), over the limit of "
        "2.0 Mpx per case (VISIONEVAL_MAX_CASE_PIXELS=2000000); nothing was decoded"
    )


def test_a_large_output_is_graded_reduced_with_its_own_size_and_format(case: CaseSpec, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pytest_visioneval.graders.image.WORK_SIDE", 512)  # as 2048 does for 4096 px, cheaper
    picture = Image.new("RGB", (1200, 900), "white")
    ImageDraw.Draw(picture).rectangle((300, 200, 900, 700), fill=(200, 40, 40))
    gates = grade({"width": 1200, "height": 900, "formats": ["PNG"]}, case, Artifact("big.png", encoded(picture)))
    assert gates["size"].passed and gates["size"].reason == "all 1200x900", gates["size"].reason
    assert gates["format"].passed
    assert gates["not_blank"].passed and gates["fills_canvas"].passed
    wrong = grade({"width": 1000}, case, Artifact("big.png", encoded(picture)))["size"]
    assert not wrong.passed and wrong.reason == "big.png is 1200x900, expected 1000x*"


def test_differs_from_input_on_large_images_compares_them_reduced(
    make_case: Callable[..., CaseSpec], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pytest_visioneval.graders.image.WORK_SIDE", 512)  # as 2048 does for 4096 px, cheaper
    source = Image.new("RGB", (1200, 900), "white")  # compared at 600 x 450
    ImageDraw.Draw(source).rectangle((300, 200, 900, 700), fill=(200, 40, 40))
    source_path = tmp_path / "input.png"
    source.save(source_path)
    edit = make_case(task="image_editing", images=[source_path])
    compared: list[tuple[tuple[int, int], tuple[int, int]]] = []
    measure = image_module.changed_share
    monkeypatch.setattr(image_module, "changed_share", lambda a, b: compared.append((a.size, b.size)) or measure(a, b))
    same = grade({}, edit, Artifact("out.png", encoded(source)))["differs_from_input"]
    assert not same.passed and same.reason.startswith("out.png is input.png again (0.000% of pixels changed"), same.reason
    edited = source.copy()
    ImageDraw.Draw(edited).ellipse((40, 40, 160, 120), fill=(20, 160, 60))  # about 1% of the picture
    moved = grade({}, edit, Artifact("out.png", encoded(edited)))["differs_from_input"]
    assert moved.passed, moved.reason
    assert compared == [((600, 450), (600, 450))] * 2  # neither image was compared at full size


# -- named_colours ------------------------------------------------------------
def bars(colours: list[tuple[int, int, int]], size: tuple[int, int] = (400, 300)) -> Image.Image:
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    for index, colour in enumerate(colours):
        draw.rectangle((40 + 70 * index, 80, 90 + 70 * index, 260), fill=colour)
    return image


ORANGE, TEAL = (249, 115, 22), (13, 148, 136)


def test_named_colours_passes_an_image_showing_every_colour_the_prompt_names(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(prompt="A bar chart: Monday and Friday bars orange, the others teal, on white")
    gate = grade({}, case, artifact_of(bars([ORANGE, TEAL, TEAL, TEAL, ORANGE])))["named_colours"]
    assert gate.passed
    assert gate.reason.startswith("shows every colour the prompt names: orange ")


def test_named_colours_fails_a_picture_whose_named_colours_are_gone(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(prompt="A bar chart: Monday and Friday bars orange, the others teal, on white")
    picture = bars([ORANGE, TEAL, TEAL, TEAL, ORANGE])
    grey = grade({}, case, artifact_of(picture.convert("L").convert("RGB")))["named_colours"]
    assert not grey.passed
    assert "orange (0.00%)" in grey.reason and "teal (0.00%)" in grey.reason
    swapped = Image.fromarray(np.asarray(picture)[..., ::-1].copy())  # orange turns blue, teal turns olive
    gate = grade({}, case, artifact_of(swapped))["named_colours"]
    assert not gate.passed
    assert "orange (0.00%)" in gate.reason


def test_named_colours_passes_another_shade_and_a_jpeg(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(prompt="orange and teal bars")
    shades = bars([(234, 88, 12), (20, 184, 166)])
    assert grade({}, case, artifact_of(shades, "JPEG", quality=60))["named_colours"].passed


def test_named_colours_applies_to_generation_only_and_can_be_turned_off(
    make_case: Callable[..., CaseSpec], make_image: Callable[..., Path]
) -> None:
    grey = artifact_of(bars([(120, 120, 120)]))
    assert "named_colours" not in grade({}, make_case(prompt="a grey box"), grey)  # names no hue
    assert "named_colours" not in grade({"named_colours": False}, make_case(prompt="a blue box"), grey)
    edit = make_case(task="image_editing", prompt="make the blue box grey", images=(make_image(),))
    assert "named_colours" not in grade({}, edit, grey)
    assert not grade({"named_colours": True}, edit, grey)["named_colours"].passed
