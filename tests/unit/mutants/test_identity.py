"""mutants/identity.py: small changes outside an edit's mask, a wrong edit inside it, another case's output."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image

from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.mutants.base import Subject
from pytest_visioneval.mutants.identity import editable_area, identity

from .helpers import CASES, LOGO, output, pixels

TRYON = CASES / "cookbook" / "virtual_tryon"


@pytest.fixture
def tryon(make_case: Callable[..., CaseSpec]) -> Subject:
    case = make_case(
        task="image_editing",
        images=(TRYON / "striped-tee-person.png", TRYON / "striped-tee-garment.png"),
        mask=TRYON / "striped-tee-mask.png",
    )
    return Subject(case, output(TRYON / "striped-tee-result.png"))


def made(subject: Subject, name: str, seed: int) -> tuple[dict, np.ndarray]:
    classes, _ = identity(subject)
    variant = next(c for c in classes if c.name == name).make(random.Random(seed))
    assert variant is not None
    return dict(variant.params), pixels(variant.artifacts[0])


@pytest.mark.parametrize("name", ["letter_patch", "local_detail", "specks"])
@pytest.mark.parametrize("seed", range(3))
def test_identity_changes_stay_outside_the_mask(tryon: Subject, name: str, seed: int) -> None:
    assert tryon.rgb is not None
    source = np.asarray(tryon.rgb).astype(np.int16)
    editable = editable_area(tryon, tryon.rgb.size)
    assert editable is not None
    params, out = made(tryon, name, seed)
    changed = (out != source).any(axis=2)
    assert changed.any() and not (changed & editable).any(), params
    outside = changed.sum() / (~editable).sum()
    if name == "specks":  # 3x3 specks over 1-5% of the outside (some land on pixels of their own colour or overlap)
        assert 0.005 <= outside <= 0.05, outside
    else:  # a letter or a detail (6-12% of the side, squared): at most about 1.5% of the outside here
        assert outside < 0.02


@pytest.mark.parametrize("seed", range(3))
def test_half_edited_puts_back_the_input_in_half_of_the_mask(tryon: Subject, seed: int) -> None:
    assert tryon.rgb is not None
    editable = editable_area(tryon, tryon.rgb.size)
    assert editable is not None
    params, out = made(tryon, "half_edited", seed)
    person = Image.open(TRYON / "striped-tee-person.png").convert("RGB").resize(tryon.rgb.size, Image.Resampling.LANCZOS)
    reverted = (out == np.asarray(person)).all(axis=2) & editable
    result = (out == np.asarray(tryon.rgb)).all(axis=2)
    assert not (~editable & ~result).any()  # the outside is the result's
    assert 0.25 < reverted.sum() / editable.sum() < 0.75, params


def test_a_wrong_colour_inside_the_mask_changes_only_the_mask(tryon: Subject) -> None:
    assert tryon.rgb is not None
    editable = editable_area(tryon, tryon.rgb.size)
    assert editable is not None
    params, out = made(tryon, "wrong_colour_inside", 1)
    changed = (out != np.asarray(tryon.rgb)).any(axis=2)
    assert 60 <= abs(params["degrees"]) <= 180 and not (changed & ~editable).any() and changed[editable].mean() > 0.3


def test_another_case_output_comes_from_the_same_suite(make_case: Callable[..., CaseSpec]) -> None:
    suite = CASES / "cookbook" / "logo_edits.eval.yaml"
    case = make_case(suite="logo-edits", id="northwind-teal", source=suite, reference=LOGO / "northwind-teal.png")
    params, out = made(Subject(case, output(LOGO / "northwind-teal.png")), "another_case", 0)
    assert params == {"reference": "acme-navy.png"}
    assert np.array_equal(out, np.asarray(Image.open(LOGO / "acme-navy.png").convert("RGB")))


def test_without_a_mask_or_siblings_nothing_applies(make_case: Callable[..., CaseSpec]) -> None:
    classes, skipped = identity(Subject(make_case(), output(LOGO / "northwind-teal.png")))
    assert classes == []
    assert {s.name for s in skipped} == {"identity/another_case", "identity/outside_the_mask"}
