"""graders/screen_match.py: a real next screen passes; a mirrored, scaled, blurred, recoloured or foreign one fails."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
from PIL import Image, ImageFilter, ImageOps

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
    assert set(gates) == {"orientation", "scale", "keeps_screen", "sharpness", "clean", "palette"}
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
    assert gates["palette"].reason.startswith("next.png: 2")


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
