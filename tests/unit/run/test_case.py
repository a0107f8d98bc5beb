"""run/case.py: a case's graders run in turn, except a grader from another package."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.calls.turn import holding_turn, holds_turn
from pytest_visioneval.cases.spec import CaseSpec, GraderSpec
from pytest_visioneval.graders import ENTRY_POINT_GROUP, grader_types
from pytest_visioneval.run.case import grade
from tests.conftest import install_distribution

# A grader of another package that reports whether it ran holding the turn (it may wait for its own client).
PLUGIN_MODULE = """
from pytest_visioneval.calls.turn import holds_turn
from pytest_visioneval.graders import Gate, Grade


class TurnProbe:
    options_schema = {"type": "object"}

    def __init__(self, options):
        self.options = options

    def grade(self, case, artifacts, context=None):
        return Grade(gates=(Gate("in_turn", holds_turn(), "whether it ran in turn"),))
"""


@pytest.fixture
def probe_grader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    install_distribution(
        tmp_path / "site", "veprobe", ENTRY_POINT_GROUP, {"turn_probe": "ve_turn_probe:TurnProbe"},
        {"ve_turn_probe": PLUGIN_MODULE}, monkeypatch,
    )  # fmt: skip
    grader_types.cache_clear()
    yield
    grader_types.cache_clear()
    sys.modules.pop("ve_turn_probe", None)


def test_a_grader_from_another_package_runs_without_the_turn_and_a_built_in_one_with_it(
    probe_grader: None, make_case: Callable[..., CaseSpec], encode_image: Callable[..., bytes]
) -> None:
    case = make_case(graders=(GraderSpec("image", "image"), GraderSpec("turn_probe", "probe")), prompt="a square")
    artifacts = (Artifact("image-0.png", encode_image((32, 32))),)
    with holding_turn():
        evaluation = grade(case, artifacts)
        assert holds_turn()  # taken back after the foreign grader
    gates = {g.gate.name: g.gate.passed for g in evaluation.gates}
    assert gates["probe.in_turn"] is False
    assert gates["image.decodes"] is True
