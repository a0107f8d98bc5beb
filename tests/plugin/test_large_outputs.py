"""Large model outputs through real runs: a case's outputs over the per-case pixel total are refused from their
headers; a 40 Mpx output (under the per-image limit) is graded on a reduced copy, never held or compared at full size.

Peak RSS is measured as in test_hostile_inputs.py: a fresh process per run.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from tests.plugin.test_hostile_inputs import PEAK_RSS_BOUND_MB, run_measured

FRAMES_SUITE = """\
suite: frames
protocol: cookbook
cases:
  - id: thirty_frames  # the reference model answers with every file of the folder: 30 outputs of 30 Mpx
    task: image_generation
    prompt: record the session
    reference: frames
    graders:
      - use: image
      - use: similarity
"""


def test_outputs_over_the_per_case_total_are_refused_from_their_headers_in_little_memory(tmp_path: Path) -> None:
    frames = tmp_path / "cases" / "frames"
    frames.mkdir(parents=True)
    Image.new("L", (6000, 5000), 200).save(frames / "frame-00.png")  # 30 Mpx: under the 40 Mpx of one image
    for index in range(1, 30):
        shutil.copyfile(frames / "frame-00.png", frames / f"frame-{index:02d}.png")
    (tmp_path / "cases" / "frames.eval.yaml").write_text(FRAMES_SUITE)
    output, peak_mb = run_measured(tmp_path, "cases")
    assert "FAILED cases/frames.eval.yaml::frames/thirty_frames" in output, output
    assert "outputs.pixels: the case's 30 output images" in " ".join(output.split()), output  # before any grader
    assert (
        "the case's 30 output images are 900 Mpx together (the largest, frame-00.png, 6000x5000), over the limit of "
        "200 Mpx per case (VISIONEVAL_MAX_CASE_PIXELS=200000000); nothing was decoded"
    ) in " ".join(output.split()), output
    assert peak_mb < PEAK_RSS_BOUND_MB, f"peak RSS {peak_mb:.0f} MB, over {PEAK_RSS_BOUND_MB} MB"


def big_picture(path: Path, shift: int = 0) -> None:
    """7300 x 5470 = 39.9 Mpx: a gradient with a box and a disc, just under the 40 Mpx limit of one image."""
    size = (7300, 5470)
    image = Image.linear_gradient("L").resize(size).convert("RGB")
    draw = ImageDraw.Draw(image)
    width, height = size
    draw.rectangle((width // 5 + shift, height // 5, 4 * width // 5, 4 * height // 5), fill=(200, 40, 40))
    draw.ellipse((width // 3, height // 3 + shift, width // 2, height // 2), fill=(20, 160, 60))
    image.save(path, format="PNG", compress_level=1)


BIG_SUITE = """\
suite: big
protocol: cookbook
cases:
  - id: generated
    task: image_generation
    prompt: draw a red box
    reference: images/b.png
    graders:
      - use: image
  - id: edited
    task: image_editing
    prompt: move the box
    images: [images/a.png]
    reference: images/b.png
    graders:
      - use: image
"""
# Peak RSS of these runs before the image grader worked on reduced copies: 1,093 MB (generated, 38 s) and
# 3,733 MB (edited, 88 s); after: 249 MB and 514 MB (3 and 5 s).
BIG_OUTPUT_BOUND_MB = 700


@pytest.mark.slow
def test_a_40_mpx_output_is_graded_on_a_reduced_copy_in_bounded_memory(tmp_path: Path) -> None:
    images = tmp_path / "cases" / "images"
    images.mkdir(parents=True)
    big_picture(images / "a.png")
    big_picture(images / "b.png", shift=400)  # the edit: the box and the disc moved
    (tmp_path / "cases" / "big.eval.yaml").write_text(BIG_SUITE)
    for case in ("generated", "edited"):
        output, peak_mb = run_measured(tmp_path, "cases", "-k", case)
        assert f"PASSED cases/big.eval.yaml::big/{case}" in output, output
        assert peak_mb < BIG_OUTPUT_BOUND_MB, f"{case}: peak RSS {peak_mb:.0f} MB, over {BIG_OUTPUT_BOUND_MB} MB"
