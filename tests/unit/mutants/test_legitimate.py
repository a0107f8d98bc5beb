"""mutants/legitimate.py: the variants a gate must pass stay within what re-encoding or re-rendering does."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest

from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.mutants.base import Subject
from pytest_visioneval.mutants.legitimate import legitimate

from .helpers import LOGO, output, pixels, png_artifact, synthetic


@pytest.mark.parametrize("seed", range(8))
def test_legitimate_variants_stay_small(make_case: Callable[..., CaseSpec], seed: int) -> None:
    image = synthetic(seed)
    case = make_case(task="image_editing", images=(LOGO / "northwind.png",))
    classes, _ = legitimate(Subject(case, (png_artifact(image),)))
    source = np.asarray(image).astype(np.int16)
    for mutant_class in classes:
        variant = mutant_class.make(random.Random(seed))
        assert variant is not None and not mutant_class.broken
        out = pixels(variant.artifacts[0])
        assert out.shape == source.shape
        params = variant.params
        if "offset" in params and "dx" not in params:
            assert abs(params["offset"]) <= 5 and np.abs(out - source).max() <= 5
        if "dx" in params:
            assert abs(params["dx"]) <= 2 and abs(params.get("dy", 0)) <= 2
        if "quality" in params:
            assert 70 <= params["quality"] <= 95 and variant.artifacts[0].name.endswith(".jpg")


def test_only_an_edit_gets_the_re_render_variant(make_case: Callable[..., CaseSpec]) -> None:
    classes, skipped = legitimate(Subject(make_case(), output(LOGO / "northwind-teal.png")))
    assert "rerender" not in {c.name for c in classes}
    assert [s.name for s in skipped] == ["legitimate/rerender"]
