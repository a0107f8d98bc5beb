"""graders/screen_veil.py: darker copies of the input found, with the panels on them and what they leave in view."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from pytest_visioneval.graders.screen_compare import ScreenPair
from pytest_visioneval.graders.screen_veil import find_veils

GEBENCH = Path(__file__).resolve().parents[3] / "cases" / "gebench"
SETTINGS = Image.open(GEBENCH / "single_step" / "settings.png").convert("RGB")
WIFI_ON = Image.open(GEBENCH / "single_step" / "settings-wifi-on.png").convert("RGB")


def dimmed(image: Image.Image, box: tuple[int, int, int, int], level: float) -> Image.Image:
    pixels = np.asarray(image, dtype=np.float32).copy()
    left, top, right, bottom = box
    pixels[top:bottom, left:right] *= level
    return Image.fromarray(pixels.astype(np.uint8))


def test_a_next_screen_without_a_veil_has_none() -> None:
    assert find_veils(ScreenPair.of(SETTINGS, WIFI_ON), 0.1) == []


def test_a_scrim_behind_a_sheet_is_one_veil_with_one_panel_and_nothing_left_in_view() -> None:
    sheet = dimmed(WIFI_ON, (0, 0, 270, 480), 0.4)
    draw = ImageDraw.Draw(sheet)
    draw.rectangle((0, 300, 270, 480), fill="white")
    for row in range(320, 460, 30):
        draw.rectangle((20, row, 200, row + 10), fill=(40, 40, 40))
    (veil,) = find_veils(ScreenPair.of(SETTINGS, sheet), 0.1)
    assert veil.panels == 1
    assert veil.unveiled < 0.05
    assert veil.area == pytest.approx(0.62, abs=0.03)
    assert veil.change > 100 and veil.darker  # white at 40% of its light: 153 levels darker, dark text less


def test_a_veil_over_half_the_screen_leaves_the_rest_in_view() -> None:
    (veil,) = find_veils(ScreenPair.of(SETTINGS, dimmed(WIFI_ON, (0, 240, 270, 480), 0.5)), 0.1)
    assert veil.panels == 0
    assert veil.box == pytest.approx((0.0, 0.5, 1.0, 1.0), abs=0.02)
    assert veil.describe() == "49% of the screen (x 0%-100%, y 50%-100%) 125 grey levels darker"


def test_an_exposure_drop_is_a_veil_too() -> None:
    darker = Image.fromarray(np.clip(np.asarray(WIFI_ON, dtype=np.int16) - 60, 0, 255).astype(np.uint8))
    (veil,) = find_veils(ScreenPair.of(SETTINGS, darker), 0.1)
    assert veil.area > 0.95 and veil.panels == 0


@pytest.mark.parametrize("size", [10, 20])
def test_a_dark_toast_with_its_own_text_is_not_a_veil(size: int) -> None:
    toast = WIFI_ON.copy()
    draw = ImageDraw.Draw(toast)
    draw.rounded_rectangle((20, 360, 250, 440), radius=8, fill=(33, 35, 41))
    draw.text((36, 385), "Wi-Fi on. Scanning", fill="white", font=ImageFont.load_default(size=size))
    assert find_veils(ScreenPair.of(SETTINGS, toast), 0.05) == []


def test_a_dark_box_over_a_blank_part_of_the_screen_is_a_veil() -> None:
    boxed = dimmed(WIFI_ON, (20, 360, 250, 440), 0.2)
    (veil,) = find_veils(ScreenPair.of(SETTINGS, boxed), 0.05)
    assert veil.panels == 0


def test_areas_under_the_minimum_are_left_to_the_caller() -> None:
    pressed = dimmed(WIFI_ON, (0, 80, 270, 130), 0.5)  # one row, about 10% of the screen
    assert find_veils(ScreenPair.of(SETTINGS, pressed), 0.15) == []
    assert len(find_veils(ScreenPair.of(SETTINGS, pressed), 0.05)) == 1


def test_a_white_veil_over_the_rows_is_a_washed_out_area() -> None:
    pixels = np.asarray(WIFI_ON, dtype=np.float32).copy()
    pixels[70:340] = pixels[70:340] * 0.3 + 255 * 0.7
    (veil,) = find_veils(ScreenPair.of(SETTINGS, Image.fromarray(pixels.astype(np.uint8))), 0.1)
    assert not veil.darker and veil.panels == 0
    assert veil.describe().endswith("grey levels lighter (washed out)")


def test_a_dismissed_dialog_is_not_a_washed_out_veil() -> None:
    # the calendar's last step: the dialog closed, the scrim gone, the screen a lighter copy of the step before
    real_app = GEBENCH / "real_app" / "trajectory"
    before, after = (Image.open(real_app / name).convert("RGB") for name in ("frame-5.png", "frame-6.png"))
    assert find_veils(ScreenPair.of(before, after), 0.1) == []
