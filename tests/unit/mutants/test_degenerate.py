"""mutants/degenerate.py: a transparent image, faint noise, the input again or with one pixel changed."""

from __future__ import annotations

import io
import random
from collections.abc import Callable

import numpy as np
from PIL import Image

from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.mutants.base import Subject
from pytest_visioneval.mutants.degenerate import degenerate

from .helpers import LOGO, output, pixels, rgba


def test_degenerate_outputs_are_what_they_say(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(task="image_editing", images=(LOGO / "northwind.png",))
    classes, _ = degenerate(Subject(case, output(LOGO / "northwind-teal.png")))
    made = {c.name: c.make(random.Random(4)) for c in classes}
    assert (rgba(made["transparent"].artifacts[0])[..., 3] == 0).all()
    faint = pixels(made["faint_noise"].artifacts[0])
    assert abs(faint.mean() - made["faint_noise"].params["level"]) < 1 and faint.std() < 6
    copy = made["input_copy"].artifacts[0]
    assert copy.name == "output-0.jpg" and Image.open(io.BytesIO(copy.data)).format == "JPEG"
    touched = pixels(made["input_touched"].artifacts[0])
    source = np.asarray(Image.open(LOGO / "northwind.png").convert("RGB")).astype(np.int16)
    changed = np.argwhere((touched != source).any(axis=2))
    params = made["input_touched"].params
    assert changed.tolist() == [[params["y"], params["x"]]]


def test_a_generation_case_has_no_input_to_copy(make_case: Callable[..., CaseSpec]) -> None:
    classes, skipped = degenerate(Subject(make_case(), output(LOGO / "northwind-teal.png")))
    assert {c.name for c in classes} == {"transparent", "faint_noise"}
    assert [(s.name, s.reason) for s in skipped] == [("degenerate/input_copy", "not an edit of an input image")]
