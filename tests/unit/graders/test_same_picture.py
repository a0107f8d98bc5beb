"""graders/same_picture.py: transformed copies are explained; another picture of the same thing is not."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageOps

from pytest_visioneval.graders.same_picture import best_match, thumbnail

REFS = Path(__file__).resolve().parents[3] / "cases" / "productwebgen" / "refs"
MUG = Image.open(REFS / "harbor-mug" / "mug.png").convert("RGB")


def test_a_mirrored_copy_is_explained_mirrored() -> None:
    match = best_match(thumbnail(MUG), thumbnail(ImageOps.mirror(MUG)))
    assert match.how == "mirrored" and match.share > 0.99


def test_a_grey_copy_is_explained_by_a_colour_shift() -> None:
    match = best_match(thumbnail(MUG), thumbnail(ImageOps.grayscale(MUG).convert("RGB")))
    assert match.how == "as it is" and match.share > 0.95


def test_a_new_shot_of_the_product_is_not_explained() -> None:
    shot = Image.open(REFS / "harbor-mug" / "showcase-1.png").convert("RGB")
    assert best_match(thumbnail(MUG), thumbnail(shot)).share < 0.9
