"""mutants/text.py: text located with tesseract and broken where it stands (read back with the OCR grader's reader)."""

from __future__ import annotations

import io
import random
from collections.abc import Callable

import pytest
from PIL import Image

from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.graders.ocr import ocr_lines
from pytest_visioneval.mutants.base import Subject, Variant
from pytest_visioneval.mutants.text import text_family

from .helpers import FLYER, output

PROMPT = 'A flyer for the "Summer Book Fair" at the "Riverside Library".'


@pytest.fixture(scope="module")
def variants() -> dict[str, Variant]:
    from pytest_visioneval.cases.spec import CaseSpec

    case = CaseSpec(suite="unit", id="flyer", protocol="generic", task="image_generation", source=FLYER, line=1, prompt=PROMPT)
    classes, skipped = text_family(Subject(case, output(FLYER)))
    assert skipped == []
    made = {c.name: c.make(random.Random(2)) for c in classes}
    assert all(v is not None for v in made.values())
    return made  # type: ignore[return-value]


def read(variant: Variant) -> str:
    return " | ".join(ocr_lines(Image.open(io.BytesIO(variant.artifacts[0].data))))


def test_typo_and_missing_line_break_the_line_they_name(variants: dict[str, Variant]) -> None:
    typo = variants["typo"]
    assert typo.params["line"] not in read(typo)
    missing = variants["missing_line"]
    text = read(missing)
    other = "Riverside Library" if missing.params["line"] == "Summer Book Fair" else "Summer Book Fair"
    assert missing.params["line"] not in text and other in text


def test_a_duplicated_line_is_read_twice(variants: dict[str, Variant]) -> None:
    twice = variants["duplicated_line"]
    assert read(twice).count(twice.params["line"]) == 2


def test_swapped_lines_are_read_in_the_other_order(variants: dict[str, Variant]) -> None:
    original = " | ".join(ocr_lines(Image.open(FLYER)))
    swapped = read(variants["swapped_lines"])
    first, second = variants["swapped_lines"].params["first"], variants["swapped_lines"].params["second"]
    assert original.index(first) < original.index(second)
    assert swapped.index(second) < swapped.index(first)


def test_swapped_labels_change_only_the_two_boxes(variants: dict[str, Variant]) -> None:
    import numpy as np

    swapped = variants["swapped_labels"]
    out = np.asarray(Image.open(io.BytesIO(swapped.artifacts[0].data)).convert("RGB")).astype(int)
    source = np.asarray(Image.open(FLYER).convert("RGB")).astype(int)
    changed = (out != source).any(axis=2)
    boxes = np.zeros_like(changed)
    for left, top, right, bottom in (swapped.params["first_box"], swapped.params["second_box"]):
        boxes[top:bottom, left:right] = True
        assert changed[top:bottom, left:right].mean() > 0.05
    assert not changed[~boxes].any()


def test_text_classes_need_asked_for_text(make_case: Callable[..., CaseSpec]) -> None:
    classes, skipped = text_family(Subject(make_case(prompt="a flyer"), output(FLYER)))
    assert classes == [] and "asks for no particular text" in skipped[0].reason
