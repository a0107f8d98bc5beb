"""run/mutation.py: each mutant graded and given a status; judge-only mutants counted apart, or judged with --judge."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.artifacts import ArtifactStore
from pytest_visioneval.cases.spec import CaseSpec, GraderSpec
from pytest_visioneval.graders import GradeContext
from pytest_visioneval.models.reference import ReferenceModel
from pytest_visioneval.mutants.base import Mutant
from pytest_visioneval.mutants.settings import MutationSettings
from pytest_visioneval.run.environment import Environment
from pytest_visioneval.run.mutation import judge_only, mutation_outcome, mutation_problems
from pytest_visioneval.testing import FakeOpenAIServer

FLYER = Path(__file__).parents[3] / "cases" / "cookbook" / "flyers" / "book-fair.png"
QUESTIONS = ["Is it a flyer?", "Is the title readable?"]


def answers(yes: bool) -> str:
    return json.dumps({"answers": [{"id": i, "reason": "looked", "answer": "yes" if yes else "no"} for i in (1, 2)]})


@pytest.fixture
def case(make_case: Callable[..., CaseSpec]) -> CaseSpec:
    graders = (
        GraderSpec(use="image", name="image"),
        GraderSpec(use="checklist", name="checklist", options={"questions": QUESTIONS}),
    )
    return make_case(reference=FLYER, graders=graders, prompt="a book fair flyer")


def environment(tmp_path: Path, context: GradeContext, per_family: int = 1) -> Environment:
    return Environment(
        model=ReferenceModel(),
        store=ArtifactStore(tmp_path / "out", "run"),
        context=context,
        renderer=lambda: None,  # type: ignore[arg-type, return-value]
        model_params={},
        mutants=MutationSettings(seed=5, per_family=per_family),  # type: ignore[arg-type]
    )


def statuses(mutation: dict[str, Any]) -> dict[str, str]:
    return {m["name"]: m["status"] for m in mutation["mutants"]}


def test_a_mutant_no_gate_can_see_is_judge_only(case: CaseSpec) -> None:
    hue = Mutant("photometric", "hue_rotation", 1, True, "d", (), {"degrees": 90}, "colour", frozenset({"similarity"}))
    assert judge_only(case, hue)
    blank = Mutant("degenerate", "transparent", 1, True, "d", (), {}, "a picture", frozenset({"image"}))
    assert not judge_only(case, blank)
    legitimate = Mutant("legitimate", "jpeg", 1, False, "d", (), {}, "", frozenset())
    assert not judge_only(case, legitimate)


def test_without_judges_judge_only_mutants_are_neither_caught_nor_missed(case: CaseSpec, tmp_path: Path) -> None:
    outcome: dict[str, Any] = {"artifacts": []}
    baseline, mutation = mutation_outcome(case, environment(tmp_path, GradeContext()), outcome)
    assert not baseline.failed_gates and mutation["baseline_passed"]
    assert (mutation["seed"], mutation["per_family"], mutation["judged"]) == (5, 1, False)
    found = statuses(mutation)
    assert "caught" in (found.get("degenerate/transparent"), found.get("degenerate/faint_noise"))
    unseen = [m for m in mutation["mutants"] if m["status"] == "judge_only"]
    assert unseen and all(not m["caught"] and m["judge_only"] for m in unseen)
    assert "geometric" in {m["family"] for m in unseen}  # only the image grader: it sees no shift...
    photometric = [m for m in mutation["mutants"] if m["family"] == "photometric"]
    # ...and no colour: of the photometric classes it sees a heavy JPEG alone (its jpeg_quality gate).
    assert photometric and all(
        m["status"] == ("caught" if m["name"] == "photometric/compression" else "judge_only") for m in photometric
    )
    assert mutation_problems("unit/case-1", mutation) == []  # judge-only is no failure
    stored = tmp_path / "out" / "run" / "reference" / "unit" / "case-1" / "mutants"
    assert sorted(p.name for p in stored.iterdir()) == sorted(m["folder"].split("/")[-1] for m in mutation["mutants"])


def test_with_a_judge_judge_only_mutants_are_judged(
    case: CaseSpec, tmp_path: Path, server: FakeOpenAIServer, judge_context: Callable[..., GradeContext]
) -> None:
    server.text_reply = answers(False)  # the judge sees something wrong in every picture it is shown
    _, mutation = mutation_outcome(case, environment(tmp_path, judge_context()), {"artifacts": []})
    judged = [m for m in mutation["mutants"] if m["judged"]]
    assert judged and all(m["status"] == "caught_by_judge" and m["caught"] for m in judged)
    assert all(g["name"] == "checklist.answers" for m in judged for g in m["judge_failed_gates"])
    # Only the judge-only mutants were shown to the judge: neither the known-good output nor the others.
    assert len(server.requests) == len(judged)
    assert all(not m["judged"] for m in mutation["mutants"] if m["status"] in ("caught", "passed"))


def test_a_judge_that_sees_nothing_wrong_misses_them(
    case: CaseSpec, tmp_path: Path, server: FakeOpenAIServer, judge_context: Callable[..., GradeContext]
) -> None:
    server.text_reply = answers(True)
    _, mutation = mutation_outcome(case, environment(tmp_path, judge_context()), {"artifacts": []})
    missed = [m for m in mutation["mutants"] if m["status"] == "missed"]
    assert missed and all(m["judged"] for m in missed)
    problems = mutation_problems("unit/case-1", mutation)
    first = missed[0]
    assert f"unit/case-1: mutant {first['label']} ({first['description']}) passed every gate and every judge" in problems[0]


def test_a_brittle_gate_and_a_blind_one_are_named_with_the_parameters() -> None:
    base = {"family": "photometric", "class": "hue_rotation", "description": "every hue turned by 137 degrees"}
    missed = {**base, "label": "photometric/hue_rotation(degrees=137)", "status": "missed", "judged": False, "broken": True}
    brittle = {
        "label": "legitimate/jpeg(quality=74)",
        "description": "the output re-encoded as JPEG q74",
        "status": "brittle",
        "broken": False,
        "error": None,
        "failed_gates": [{"name": "locality.preserved", "reason": "mean difference 5.3"}],
    }
    problems = mutation_problems("s/c", {"baseline_passed": True, "mutants": [missed, brittle]})
    assert problems == [
        "s/c: mutant photometric/hue_rotation(degrees=137) (every hue turned by 137 degrees) passed every gate: "
        "your suite cannot see this",
        "s/c: legitimate variant legitimate/jpeg(quality=74) (the output re-encoded as JPEG q74) failed: "
        "locality.preserved: mean difference 5.3: this gate is brittle",
    ]
