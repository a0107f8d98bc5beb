"""graders/screen_match.py: a real next screen passes; a mirrored, scaled, blurred, recoloured or foreign one fails."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter, ImageOps

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.graders.base import Gate
from pytest_visioneval.graders.screen_match import ScreenMatchGrader

GEBENCH = Path(__file__).resolve().parents[3] / "cases" / "gebench"
SETTINGS = GEBENCH / "single_step" / "settings.png"
WIFI_ON = Image.open(GEBENCH / "single_step" / "settings-wifi-on.png").convert("RGB")


def encode(image: Image.Image, fmt: str = "PNG", **kwargs: Any) -> bytes:
    out = io.BytesIO()
    image.convert("RGB").save(out, format=fmt, **kwargs)
    return out.getvalue()


@pytest.fixture
def case(make_case: Callable[..., CaseSpec]) -> CaseSpec:
    return make_case(task="image_editing", images=(SETTINGS,))


def grade(case: CaseSpec, image: Image.Image, **options: Any) -> dict[str, Gate]:
    jsonschema.validate(options, ScreenMatchGrader.options_schema)
    result = ScreenMatchGrader(options).grade(case, (Artifact("next.png", encode(image)),))
    return {g.name: g for g in result.gates}


def failed(gates: dict[str, Gate]) -> set[str]:
    return {name for name, gate in gates.items() if not gate.passed}


def test_the_reference_next_screen_passes_every_gate(case: CaseSpec) -> None:
    gates = grade(case, WIFI_ON)
    assert set(gates) == {"orientation", "scale", "keeps_screen", "sharpness", "clean", "backdrop", "palette"}
    assert not failed(gates), gates
    assert gates["keeps_screen"].reason == "next.png: 97% of the input screen's content kept"


@pytest.mark.parametrize(
    "variant",
    [
        lambda im: Image.open(io.BytesIO(encode(im, "JPEG", quality=70))),
        lambda im: Image.fromarray(np.roll(np.asarray(im), (1, 2), axis=(0, 1))),
        lambda im: Image.fromarray(np.clip(np.asarray(im, dtype=np.int16) + 5, 0, 255).astype(np.uint8)),
        lambda im: im.resize((im.width // 2, im.height // 2), Image.Resampling.BICUBIC).resize(im.size, Image.Resampling.BICUBIC),
    ],
    ids=["jpeg_q70", "shift_2px", "brighter_5", "resize_round_trip"],
)
def test_legitimate_copies_of_the_next_screen_pass(case: CaseSpec, variant: Callable[[Image.Image], Image.Image]) -> None:
    assert not failed(grade(case, variant(WIFI_ON)))


def test_a_mirrored_screen_fails_orientation(case: CaseSpec) -> None:
    gate = grade(case, ImageOps.mirror(WIFI_ON))["orientation"]
    assert not gate.passed
    assert gate.reason.startswith("next.png: the input screen matches it better mirrored left-right (97% of the content kept)")
    assert gate.reason.endswith("than as it is (69%)")


def test_a_screen_shrunk_into_the_canvas_fails_scale_and_keeps_little(case: CaseSpec) -> None:
    shrunk = Image.new("RGB", WIFI_ON.size, (255, 255, 255))
    small = WIFI_ON.resize((WIFI_ON.width * 4 // 5, WIFI_ON.height * 4 // 5))
    shrunk.paste(small, ((WIFI_ON.width - small.width) // 2, (WIFI_ON.height - small.height) // 2))
    gates = grade(case, shrunk)
    assert failed(gates) >= {"scale", "keeps_screen"}
    assert "better scaled x0.8" in gates["scale"].reason
    assert gates["keeps_screen"].reason == "next.png: 11% of the input screen's content kept, below 45%: not the input's screen"


def test_a_cropped_and_enlarged_screen_fails_scale(case: CaseSpec) -> None:
    width, height = WIFI_ON.size
    cropped = WIFI_ON.crop((width // 10, height // 10, width - width // 10, height - height // 10)).resize(WIFI_ON.size)
    gate = grade(case, cropped)["scale"]
    assert not gate.passed
    assert "better scaled x1.25" in gate.reason


def test_a_blurred_screen_fails_sharpness(case: CaseSpec) -> None:
    gates = grade(case, WIFI_ON.filter(ImageFilter.GaussianBlur(2)))
    assert failed(gates) == {"sharpness"}
    assert gates["sharpness"].reason.startswith("next.png: edge energy 0.0")
    assert gates["sharpness"].reason.endswith("x the input's (below 0.1x): blurred")


def test_a_hue_shifted_screen_keeps_too_little(case: CaseSpec) -> None:
    hue, saturation, value = WIFI_ON.convert("HSV").split()
    shifted = Image.merge("HSV", (hue.point(lambda h: (h + 43) % 256), saturation, value)).convert("RGB")
    gates = grade(case, shifted)
    assert {"keeps_screen", "palette"} <= failed(gates)
    assert "of it in colours the input lacks (CIEDE2000 > 12), above 4%" in gates["palette"].reason


def test_another_apps_screen_fails(case: CaseSpec) -> None:
    other = Image.open(GEBENCH / "fiction_app" / "trajectory" / "frame-3.png")
    gates = grade(case, other)
    assert {"keeps_screen", "palette"} <= failed(gates)
    share = re.match(r"next\.png: ([\d.]+)% of it in colours the input lacks", gates["palette"].reason)
    assert share is not None and float(share.group(1)) >= 10, gates["palette"].reason


def test_thresholds_are_options(case: CaseSpec) -> None:
    blurred = WIFI_ON.filter(ImageFilter.GaussianBlur(2))
    assert grade(case, blurred, min_sharpness=0.0)["sharpness"].passed
    assert not grade(case, WIFI_ON, min_kept=0.99)["keeps_screen"].passed


def test_a_case_without_an_input_screen_cannot_be_graded(make_case: Callable[..., CaseSpec]) -> None:
    why = ScreenMatchGrader.check_case(make_case(task="image_generation"), {})
    assert why == "screen_match compares the output with the input screen, which this case lacks"


def test_no_decodable_output_fails(case: CaseSpec) -> None:
    (gate,) = ScreenMatchGrader({}).grade(case, (Artifact("next.png", b"not an image"),)).gates
    assert not gate.passed and gate.reason == "no output image decodes"


def test_a_noisy_screen_fails_clean(case: CaseSpec) -> None:
    pixels = np.asarray(WIFI_ON, dtype=np.float32)
    noisy = np.clip(pixels + np.random.default_rng(3).normal(0, 16, pixels.shape), 0, 255).astype(np.uint8)
    gates = grade(case, Image.fromarray(noisy))
    assert not gates["clean"].passed
    assert gates["clean"].reason.startswith("next.png: speckle ")
    assert gates["clean"].reason.endswith("on the input's flat areas (grey 0-255, above 1.5): noisy")


def test_a_re_encoded_next_screen_stays_clean(case: CaseSpec) -> None:
    gates = grade(case, Image.open(io.BytesIO(encode(WIFI_ON, "JPEG", quality=70))))
    assert gates["clean"].passed, gates["clean"].reason
    assert gates["clean"].reason == "next.png: speckle 0.0 on the input's flat areas (grey 0-255)"


def veiled(image: Image.Image, box: tuple[int, int, int, int], opacity: float) -> Image.Image:
    """``image`` with a black veil of ``opacity`` over ``box``."""
    pixels = np.asarray(image, dtype=np.float32).copy()
    left, top, right, bottom = box
    pixels[top:bottom, left:right] *= 1 - opacity
    return Image.fromarray(pixels.astype(np.uint8))


def with_dialog(image: Image.Image, box: tuple[int, int, int, int]) -> Image.Image:
    """A white dialog with a title, a line of text and a blue button drawn in ``box``."""
    out = image.copy()
    draw = ImageDraw.Draw(out)
    left, top, right, bottom = box
    draw.rounded_rectangle(box, radius=10, fill="white")
    draw.text((left + 20, top + 20), "Turn on Wi-Fi?", fill="black")
    draw.text((left + 20, top + 50), "Networks will be scanned.", fill=(60, 60, 60))
    draw.rounded_rectangle((right - 90, bottom - 45, right - 15, bottom - 10), radius=6, fill=(37, 99, 235))
    return out


def test_a_dark_veil_over_part_of_the_screen_fails_backdrop(case: CaseSpec) -> None:
    gates = grade(case, veiled(WIFI_ON, (0, 240, 270, 480), 0.6))
    assert "backdrop" in failed(gates)
    assert gates["backdrop"].reason == (
        "next.png: 49% of the screen (x 0%-100%, y 50%-100%) 150 grey levels darker with no new, lighter panel drawn on it"
    )


def test_the_whole_screen_darkened_fails_backdrop(case: CaseSpec) -> None:
    darker = Image.fromarray(np.clip(np.asarray(WIFI_ON, dtype=np.int16) - 44, 0, 255).astype(np.uint8))
    gate = grade(case, darker)["backdrop"]
    assert not gate.passed
    assert gate.reason == (
        "next.png: 99% of the screen (x 0%-100%, y 0%-100%) 44 grey levels darker with no new, lighter panel drawn on it"
    )


def test_a_dimmed_screen_behind_a_dialog_passes(case: CaseSpec) -> None:
    gates = grade(case, with_dialog(veiled(WIFI_ON, (0, 0, 270, 480), 0.5), (30, 150, 240, 330)))
    assert gates["backdrop"].passed, gates["backdrop"].reason
    assert gates["backdrop"].reason == (
        "next.png: a modal backdrop: 68% of the screen (x 0%-100%, y 0%-100%) 114 grey levels darker behind 1 new panel(s)"
    )


def test_a_veil_that_stops_inside_the_content_fails_though_a_dialog_sits_on_it(case: CaseSpec) -> None:
    half = with_dialog(veiled(WIFI_ON, (0, 240, 270, 480), 0.5), (30, 300, 240, 440))
    gate = grade(case, half)["backdrop"]
    assert not gate.passed
    assert gate.reason == (
        "next.png: 25% of the screen (x 0%-100%, y 50%-100%) 125 grey levels darker, stopping inside the content: 64% of "
        "the input's content below the top band still shown as it was, undimmed (a backdrop leaves at most 25%)"
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("real_app/trajectory/frame-1.png", "real_app/trajectory/frame-3.png"),  # a dialog on the dimmed calendar
        ("multi_step/notes-home.png", "multi_step/trajectory/frame-1.png"),  # a side drawer over the dimmed notes
        ("fiction_app/trajectory/frame-1.png", "fiction_app/trajectory/frame-2.png"),  # a pressed card, tinted
        ("fiction_app/trajectory/frame-4.png", "fiction_app/trajectory/frame-5.png"),  # a button greyed out, disabled
        ("real_app/trajectory/frame-5.png", "real_app/trajectory/frame-6.png"),  # the dialog dismissed, the scrim gone
    ],
)
def test_shipped_modal_and_pressed_states_pass_backdrop(make_case: Callable[..., CaseSpec], before: str, after: str) -> None:
    case = make_case(task="image_editing", images=(GEBENCH / before,))
    gate = grade(case, Image.open(GEBENCH / after))["backdrop"]
    assert gate.passed, gate.reason


def test_the_backdrop_limits_are_options(case: CaseSpec) -> None:
    half = with_dialog(veiled(WIFI_ON, (0, 240, 270, 480), 0.5), (30, 300, 240, 440))
    assert grade(case, half, max_unveiled=0.7)["backdrop"].passed
    assert grade(case, veiled(WIFI_ON, (0, 240, 270, 480), 0.6), min_veil_area=0.6)["backdrop"].passed


@pytest.fixture
def with_reference(make_case: Callable[..., CaseSpec]) -> CaseSpec:
    return make_case(task="image_editing", images=(SETTINGS,), reference=GEBENCH / "single_step" / "settings-wifi-on.png")


def test_with_a_reference_the_next_screen_keeps_what_the_reference_keeps(with_reference: CaseSpec) -> None:
    gates = grade(with_reference, Image.open(io.BytesIO(encode(WIFI_ON, "JPEG", quality=70))))
    assert gates["consistent"].passed
    assert gates["consistent"].reason == "next.png: 100% of the input's content that the reference next screen keeps is kept"


def test_another_screen_of_the_same_design_fails_consistent(with_reference: CaseSpec) -> None:
    # the notes app's Notifications screen: the same status bar, blue header and rows, other labels and toggles
    gates = grade(with_reference, Image.open(GEBENCH / "multi_step" / "trajectory" / "frame-4.png"))
    assert "consistent" in failed(gates)
    assert gates["consistent"].reason == (
        "next.png: 73% of the input's content that the reference next screen keeps is kept (at least 85%): "
        "the screen changed where the expected next state leaves it: another screen?"
    )
    inbox = grade(with_reference, Image.open(GEBENCH / "grounding" / "inbox-archived.png"))["consistent"]
    assert not inbox.passed and inbox.reason.startswith("next.png: 28% of the input's content")


def test_consistent_is_left_out_without_a_reference_image(case: CaseSpec) -> None:
    assert "consistent" not in grade(case, WIFI_ON)
    assert grade(case, WIFI_ON, min_consistent=0.5)  # the option is valid without a reference, unused


def test_a_block_drawn_where_input_and_reference_are_empty_fails_consistent(make_case: Callable[..., CaseSpec]) -> None:
    # The inbox after archiving a conversation: the list ends after three rows in both screens. A block
    # drawn over that empty area keeps every row (consistent's share stays at 100%) and every colour.
    archived = make_case(images=(GEBENCH / "grounding" / "inbox.png",), reference=GEBENCH / "grounding" / "inbox-archived.png")
    next_screen = Image.open(GEBENCH / "grounding" / "inbox-archived.png").convert("RGB")
    gates = grade(archived, next_screen)
    assert gates["consistent"].passed, gates["consistent"].reason
    blocked = next_screen.copy()
    blocked.paste((13, 52, 156), (14, 290, 111, 380))
    gates = grade(archived, blocked)
    assert failed(gates) == {"consistent"}
    assert "something drawn over " in gates["consistent"].reason
    assert "where the input and the reference next screen are both empty (at most 1%)" in gates["consistent"].reason
    assert grade(archived, blocked, max_drawn_on_empty=0.2)["consistent"].passed


@pytest.mark.parametrize("shade", [0.0, 255.0])
def test_a_veil_over_what_the_reference_keeps_fails_consistent(make_case: Callable[..., CaseSpec], shade: float) -> None:
    # The files screen after "New folder": a film over the folders the step leaves alone keeps their shapes
    # (consistent's kept share stays high) but shows them with a fraction of their contrast.
    files = make_case(images=(GEBENCH / "grounding" / "files.png",), reference=GEBENCH / "grounding" / "files-new-folder.png")
    next_screen = Image.open(GEBENCH / "grounding" / "files-new-folder.png").convert("RGB")
    pixels = np.asarray(next_screen, dtype=np.float32).copy()
    pixels[58:212, 231:441] = pixels[58:212, 231:441] * 0.28 + shade * 0.72
    gates = grade(files, Image.fromarray(pixels.astype(np.uint8)))
    assert not gates["consistent"].passed
    said = r"; \d+ areas \(x \d+%-\d+%, y \d+%-\d+%\) that the reference next screen keeps as they were are shown with under 60%"
    assert re.search(said, gates["consistent"].reason), gates["consistent"].reason
    for copy in (next_screen, Image.open(io.BytesIO(encode(next_screen, "JPEG", quality=70)))):
        assert grade(files, copy)["consistent"].passed


def test_a_step_that_dims_the_screen_may_show_it_dimmed(make_case: Callable[..., CaseSpec], tmp_path: Path) -> None:
    # Where the reference itself shows the input under a scrim, the same scrim in the output is what is
    # expected: compared with the reference, its content is as strong as it should be.
    before = Image.open(SETTINGS).convert("RGB")
    dimmed = veiled(before, (0, 0, before.width, before.height), 0.5)
    dimmed.save(tmp_path / "dimmed.png")
    case = make_case(images=(SETTINGS,), reference=tmp_path / "dimmed.png")
    gate = grade(case, dimmed, min_consistent=0.0)["consistent"]
    assert "as under a veil" not in gate.reason, gate.reason
