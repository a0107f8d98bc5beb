"""graders/jpeg_quality.py: the quality a JPEG was saved at, read back from its tables; and the image grader's gate."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.graders.image import DEFAULT_MIN_JPEG_QUALITY, ImageGrader
from pytest_visioneval.graders.jpeg_quality import STANDARD_LUMINANCE, estimated_quality, libjpeg_table

FLYER = Path(__file__).resolve().parents[3] / "cases" / "cookbook" / "promo_flyers" / "cocoa-nights.png"


def saved(image: Image.Image, fmt: str = "JPEG", **kwargs: object) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **kwargs)
    return out.getvalue()


@pytest.fixture(scope="module")
def flyer() -> Image.Image:
    return Image.open(FLYER).convert("RGB")


@pytest.mark.parametrize("quality", [1, 2, 5, 9, 10, 20, 49, 50, 51, 75, 90, 95])
@pytest.mark.parametrize("subsampling", [-1, 0])  # Pillow's default (4:2:0) and 4:4:4: the tables are the same
def test_the_quality_libjpeg_saved_at_is_read_back_exactly(flyer: Image.Image, quality: int, subsampling: int) -> None:
    assert estimated_quality(saved(flyer, quality=quality, subsampling=subsampling)) == quality


def test_progressive_and_optimized_files_keep_their_tables(flyer: Image.Image) -> None:
    assert estimated_quality(saved(flyer, quality=6, progressive=True, optimize=True)) == 6


def test_other_formats_and_broken_files_have_no_quality(flyer: Image.Image) -> None:
    assert estimated_quality(saved(flyer, "PNG")) is None
    assert estimated_quality(saved(flyer, "WEBP", quality=5)) is None  # lossy, but no JPEG tables to read
    assert estimated_quality(b"\xff\xd8 not really a JPEG") is None


def test_the_standard_table_is_quality_50_and_lower_qualities_scale_it_up() -> None:
    assert libjpeg_table(50) == STANDARD_LUMINANCE
    assert libjpeg_table(5)[0] == 160 and max(libjpeg_table(5)) == 255  # ten times, capped at 255
    assert libjpeg_table(100) == (1,) * 64


def test_an_encoder_with_tables_of_its_own_gets_the_nearest_setting(flyer: Image.Image) -> None:
    # Another base table (every entry of the standard one plus 20 %), at a high and a low scale.
    own = [round(entry * 1.2) for entry in STANDARD_LUMINANCE]
    fine = saved(flyer, qtables=[[max(1, round(v * 0.2)) for v in own]])
    coarse = saved(flyer, qtables=[[min(255, v * 8) for v in own]])
    assert (fine_q := estimated_quality(fine)) is not None and 85 <= fine_q <= 92
    assert (coarse_q := estimated_quality(coarse)) is not None and coarse_q <= 6


# -- the image grader's gate -------------------------------------------------------------------------------------
def gates(case: CaseSpec, *artifacts: Artifact, **options: object) -> dict[str, tuple[bool, str]]:
    return {g.name: (g.passed, g.reason) for g in ImageGrader(options).grade(case, artifacts).gates}


def test_a_heavily_compressed_jpeg_fails_with_its_quality(make_case: Callable[..., CaseSpec], flyer: Image.Image) -> None:
    passed, reason = gates(make_case(), Artifact("output-0.jpg", saved(flyer, quality=4)))["jpeg_quality"]
    assert not passed
    assert reason.startswith("output-0.jpg was saved at JPEG quality 4 (read from the quantisation tables), below 10")


def test_jpegs_at_usual_qualities_pass_and_a_png_has_no_such_gate(make_case: Callable[..., CaseSpec], flyer: Image.Image) -> None:
    both = (Artifact("a.jpg", saved(flyer, quality=75)), Artifact("b.jpg", saved(flyer, quality=DEFAULT_MIN_JPEG_QUALITY)))
    assert gates(make_case(), *both)["jpeg_quality"] == (True, f"JPEG quality {DEFAULT_MIN_JPEG_QUALITY} or more (>= 10)")
    assert "jpeg_quality" not in gates(make_case(), Artifact("c.png", saved(flyer, "PNG")))


def test_the_floor_is_an_option_and_zero_turns_the_gate_off(make_case: Callable[..., CaseSpec], flyer: Image.Image) -> None:
    forty = Artifact("output-0.jpg", saved(flyer, quality=40))
    assert gates(make_case(), forty, min_jpeg_quality=60)["jpeg_quality"][0] is False
    assert "jpeg_quality" not in gates(make_case(), Artifact("x.jpg", saved(flyer, quality=3)), min_jpeg_quality=0)
