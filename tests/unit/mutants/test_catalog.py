"""mutants/catalog.py: which families a case gets, how many instances, and that a seed makes the same mutants again."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec, GraderSpec
from pytest_visioneval.mutants.base import MutantClass, Variant
from pytest_visioneval.mutants.catalog import draw, mutants_for
from pytest_visioneval.mutants.settings import MutationSettings

from .helpers import FLYER, FRAMES, LOGO, output


@pytest.fixture
def logo_edit(make_case: Callable[..., CaseSpec]) -> CaseSpec:
    graders = (GraderSpec(use="locality", name="locality"), GraderSpec(use="similarity", name="similarity"))
    return make_case(task="image_editing", images=(LOGO / "northwind.png",), mask=LOGO / "circle-mask.png", graders=graders)


def families(made: tuple) -> Counter[str]:
    return Counter(m.family for m in made)


def test_an_image_edit_gets_every_image_family_n_times(logo_edit: CaseSpec) -> None:
    made = mutants_for(logo_edit, output(LOGO / "northwind-teal.png"), MutationSettings(seed=3, per_family=3))
    assert families(made.mutants) == {
        f: 3 for f in ("degenerate", "geometric", "photometric", "occlusion", "identity", "legitimate")
    }
    assert all(m.broken for m in made.mutants if m.family != "legitimate")
    assert not any(m.broken for m in made.mutants if m.family == "legitimate")
    assert "text" in {n.name for n in made.not_applicable}  # the case quotes no text
    # Three instances of a family are three different classes while the family has that many.
    assert len({m.kind for m in made.mutants if m.family == "geometric"}) == 3


def test_the_same_seed_makes_the_same_mutants_and_another_seed_others(logo_edit: CaseSpec) -> None:
    good = output(LOGO / "northwind-teal.png")
    first = mutants_for(logo_edit, good, MutationSettings(seed=7, per_family=2)).mutants
    again = mutants_for(logo_edit, good, MutationSettings(seed=7, per_family=2)).mutants
    other = mutants_for(logo_edit, good, MutationSettings(seed=8, per_family=2)).mutants
    assert [(m.label, m.artifacts) for m in first] == [(m.label, m.artifacts) for m in again]
    assert [m.label for m in first] != [m.label for m in other]


def test_more_instances_per_family_keep_the_first_ones(logo_edit: CaseSpec) -> None:
    good = output(LOGO / "northwind-teal.png")
    two = mutants_for(logo_edit, good, MutationSettings(seed=1, per_family=2)).mutants
    four = mutants_for(logo_edit, good, MutationSettings(seed=1, per_family=4)).mutants
    assert {m.label for m in two} <= {m.label for m in four}
    assert len(four) == 2 * len(two)


def test_each_mutant_is_stored_in_a_folder_of_its_own_and_labelled_with_its_parameters(logo_edit: CaseSpec) -> None:
    made = mutants_for(logo_edit, output(LOGO / "northwind-teal.png"), MutationSettings(per_family=3)).mutants
    assert len({m.folder for m in made}) == len(made)
    hue = next(m for m in made if m.params)
    assert hue.label == f"{hue.family}/{hue.kind}(" + ", ".join(f"{k}={v}" for k, v in hue.params.items()) + ")"


def test_a_generation_case_gets_no_edit_classes(make_case: Callable[..., CaseSpec]) -> None:
    made = mutants_for(make_case(), output(FLYER), MutationSettings(per_family=6))
    kinds = {m.name for m in made.mutants}
    assert not kinds & {"degenerate/input_copy", "identity/letter_patch", "legitimate/rerender"}
    reasons = {n.name: n.reason for n in made.not_applicable}
    assert reasons["degenerate/input_copy"] == "not an edit of an input image"
    assert "no area that must stay" in reasons["identity/outside_the_mask"]


def test_a_page_gets_page_families_and_a_trajectory_temporal_ones(make_case: Callable[..., CaseSpec]) -> None:
    page = "<html><body><main><h1>Lamp</h1><table><tr><th>a</th></tr><tr><td>1</td></tr></table></main></body></html>"
    made = mutants_for(make_case(task="html_generation", render={"width": 400}), (Artifact("page.html", page.encode()),))
    assert set(families(made.mutants)) == {"broken_page", "occlusion", "timing", "legitimate"}
    trajectory = make_case(
        task="image_editing", reference=FRAMES[0].parent, graders=(GraderSpec(use="trajectory", name="trajectory"),)
    )
    frames = tuple(Artifact(p.name, p.read_bytes()) for p in FRAMES)
    assert set(families(mutants_for(trajectory, frames).mutants)) == {"temporal", "legitimate"}


def test_a_draw_that_cannot_be_made_passes_to_the_next_class() -> None:
    never = MutantClass("f", "never", True, "p", frozenset(), lambda rng: None)
    always = MutantClass("f", "always", True, "p", frozenset(), lambda rng: Variant({"n": rng.random()}, "d", ()))
    made, skipped = draw("f", [never, always], "s/c", MutationSettings(per_family=3))
    assert [m.kind for m in made] == ["always"] * 3
    assert len({m.params["n"] for m in made}) == 3  # each instance draws its own parameters
    assert [(n.name, n.reason.split(" (")[0]) for n in skipped] == [("f/never", "no draw of it could be made from this output")]
