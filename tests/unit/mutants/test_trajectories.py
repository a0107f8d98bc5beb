"""mutants/trajectories.py: frames repeated, reordered, replaced; re-encoded frames as the legitimate variants."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec, GraderSpec
from pytest_visioneval.mutants.base import Subject
from pytest_visioneval.mutants.trajectories import legitimate_frames, temporal

from .helpers import CASES, FRAMES

SUITE = CASES / "gebench" / "gui_environments.eval.yaml"


@pytest.fixture
def subject(make_case: Callable[..., CaseSpec]) -> Subject:
    case = make_case(
        suite="gebench-examples",
        id="mute-notification-sound",
        source=SUITE,
        task="image_editing",
        images=(CASES / "gebench" / "multi_step" / "notes-home.png",),
        reference=FRAMES[0].parent,
        graders=(GraderSpec(use="trajectory", name="trajectory"),),
    )
    return Subject(case, tuple(Artifact(p.name, p.read_bytes()) for p in FRAMES))


def frames_of(subject: Subject, name: str, seed: int) -> tuple[dict, list[bytes]]:
    classes, _ = temporal(subject)
    variant = next(c for c in classes if c.name == name).make(random.Random(seed))
    assert variant is not None
    return dict(variant.params), [a.data for a in variant.artifacts]


@pytest.mark.parametrize("seed", range(3))
def test_order_mutants(subject: Subject, seed: int) -> None:
    good = [a.data for a in subject.artifacts]
    params, repeated = frames_of(subject, "repeated_step", seed)
    step = params["step"]
    assert repeated[step] == good[step - 1] and repeated[:step] == good[:step] and repeated[step + 1 :] == good[step + 1 :]
    params, shuffled = frames_of(subject, "shuffled", seed)
    assert shuffled == [good[i] for i in params["order"]] and shuffled not in (good, good[::-1])
    assert frames_of(subject, "reversed", seed)[1] == good[::-1]
    params, one = frames_of(subject, "one_frame_throughout", seed)
    assert set(one) == {good[params["frame"]]}
    params, with_input = frames_of(subject, "input_as_frame", seed)
    assert with_input[params["frame"]] == subject.case.images[0].read_bytes()


def test_other_cases_frames_and_screens_come_from_the_suite(subject: Subject) -> None:
    good = [a.data for a in subject.artifacts]
    params, other = frames_of(subject, "another_case_frames", 0)
    assert params["trajectory"] == "trajectory" and not set(other) & set(good)
    params, foreign = frames_of(subject, "frame_from_another_app", 1)
    changed = [i for i, (a, b) in enumerate(zip(foreign, good, strict=True)) if a != b]
    assert changed == [params["frame"]] and "multi_step" not in params["screen"]


def test_legitimate_frames_keep_the_order(subject: Subject) -> None:
    classes, _ = legitimate_frames(subject)
    for c in classes:
        variant = c.make(random.Random(0))
        assert variant is not None and not c.broken
        assert len(variant.artifacts) == len(FRAMES)


def test_too_few_frames(make_case: Callable[..., CaseSpec]) -> None:
    two = tuple(Artifact(p.name, p.read_bytes()) for p in FRAMES[:2])
    classes, skipped = temporal(Subject(make_case(), two))
    assert classes == [] and skipped[0].reason == "2 frame(s): too few to repeat or reorder"
