"""mutants/occlusion.py: a patch or a veil covers the share of the picture it reports, and nothing else changes."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest

from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.mutants.base import Subject
from pytest_visioneval.mutants.occlusion import occlusion

from .helpers import pixels, png_artifact, synthetic


@pytest.mark.parametrize("name", ["patch", "veil"])
@pytest.mark.parametrize("seed", range(4))
def test_only_the_box_changes(make_case: Callable[..., CaseSpec], name: str, seed: int) -> None:
    image = synthetic(seed)
    classes, _ = occlusion(Subject(make_case(), (png_artifact(image),)))
    variant = next(c for c in classes if c.name == name).make(random.Random(seed))
    assert variant is not None
    left, top, right, bottom = variant.params["box"]
    changed = (pixels(variant.artifacts[0]) != np.asarray(image)).any(axis=2)
    inside = np.zeros_like(changed)
    inside[top:bottom, left:right] = True
    assert not changed[~inside].any()
    share = inside.sum() / inside.size
    assert (0.08 <= share <= 0.26) if name == "patch" else (0.2 <= share <= 0.51)
    assert changed[inside].mean() > 0.5
