"""cli/diff.py: two results files compared model by model, never an average of models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.cli import main as dispatcher
from pytest_visioneval.cli.diff import model_pairs


def aggregates(score: float) -> dict[str, Any]:
    summary = {"pass_rate": 1.0, "gates": {}, "metrics": {"similarity.score": {"mean": score}}}
    return {"overall": summary, "suites": {"demo": summary}}


def case(model: str, score: float) -> dict[str, Any]:
    return {
        "uid": "demo/a",
        "suite": "demo",
        "model": model,
        "status": "passed",
        "gates": [],
        "metrics": [{"name": "similarity.score", "value": score, "higher_is_better": True}],
    }


def one_model(model: str, score: float) -> dict[str, Any]:
    return {
        "schema": "pytest-visioneval/results",
        "run": {"model": model},
        "aggregates": aggregates(score),
        "cases": [case(model, score)],
    }


def two_models(scores: dict[str, float]) -> dict[str, Any]:
    mean = sum(scores.values()) / len(scores)  # what an average of the models would show
    return {
        "schema": "pytest-visioneval/results",
        "run": {"models": list(scores)},
        "aggregates": aggregates(mean),
        "models": {label: {"aggregates": aggregates(score)} for label, score in scores.items()},
        "cases": [case(label, score) for label, score in scores.items()],
    }


def write(folder: Path, name: str, document: dict[str, Any]) -> str:
    path = folder / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def test_a_one_model_file_against_a_two_model_file_compares_the_shared_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = write(tmp_path, "one.json", one_model("reference", 0.5))
    after = write(tmp_path, "two.json", two_models({"reference": 0.5, "cand": 0.75}))
    assert dispatcher.main(["diff", before, after, "--all"]) == 0
    out = capsys.readouterr().out
    assert "compared model by model: reference" in out
    assert "not compared: model cand is only in two.json" in out
    assert "0.625" not in out  # the two models' average, which the old diff compared 0.5 with
    [row] = [line.split() for line in out.splitlines() if "similarity.score" in line]
    assert row[:4] == ["demo", "reference", "similarity.score", "0.5"]


def test_a_drop_of_one_model_is_a_regression_of_that_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = write(tmp_path, "a.json", two_models({"reference": 0.5, "cand": 0.75}))
    after = write(tmp_path, "b.json", two_models({"reference": 0.5, "cand": 0.25}))
    assert dispatcher.main(["diff", before, after]) == 1
    out = capsys.readouterr().out
    assert "[cand] demo.similarity.score: 0.75 -> 0.25" in out
    assert "[reference]" not in out.split("regression(s):")[1]


def test_files_with_no_model_in_common_are_refused_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = write(tmp_path, "one.json", one_model("other", 0.5))
    after = write(tmp_path, "two.json", two_models({"reference": 0.5, "cand": 0.75}))
    assert dispatcher.main(["diff", before, after]) == 2
    assert capsys.readouterr().err.strip() == (
        "diff: no model is in both files (one.json: other; two.json: reference, cand); diff compares each model with "
        "the same model of the other file, never an average of models. To compare different models, use 'visioneval compare'"
    )


def test_two_one_model_files_are_compared_whole_whatever_their_models() -> None:
    before, after = one_model("old", 0.5), one_model("new", 0.6)
    assert model_pairs(before, after, "a", "b") == ([(None, before, after)], [])
