"""cases/problems.py: one error for every problem of a file, sorted by line, each said once."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_visioneval.cases.problems import CaseFileProblems, combined
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import CaseFileError


def test_combined_orders_by_line_and_keeps_the_first_as_its_fields(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    error = combined([CaseFileError(path, "late", line=9, field="b"), CaseFileError(path, "early", line=2, field="a")])
    assert isinstance(error, CaseFileError)
    assert (error.line, error.field, error.message) == (2, "a", "early")
    assert str(error) == f"{path}:2: field 'a': early\n{path}:9: field 'b': late"
    assert [p.message for p in error.problems] == ["early", "late"]
    with pytest.raises(ValueError):
        combined([])


def test_a_problem_found_twice_is_said_once(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    twice = [CaseFileError(path, "same", line=3, field="x"), CaseFileError(path, "same", line=3, field="x")]
    assert str(combined(twice)) == f"{path}:3: field 'x': same"


def test_a_caller_adds_its_problems_to_a_files_error(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    case = CaseSpec(suite="s", id="a", protocol="generic", task="image_generation", source=path, line=4)
    first = combined([CaseFileError(path, "one", line=5), CaseFileError(path, "two", line=1)], [case])
    assert first.cases == (case,)
    both = combined([first, CaseFileError(path, "three", line=3)])
    assert isinstance(both, CaseFileProblems)
    assert [(p.line, p.message) for p in both.problems] == [(1, "two"), (3, "three"), (5, "one")]  # flat, by line
    assert str(both).count("\n") == 2
