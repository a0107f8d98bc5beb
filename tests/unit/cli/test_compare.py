"""``python -m pytest_visioneval compare``: what it prints, writes and exits with, on results files written here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.cli import main as dispatcher
from pytest_visioneval.results.statistics import mcnemar_exact

MISSING = {"name": "text.found", "passed": False, "reason": "missing 'SALE'", "gating": True}


def _case(index: int, status: str, score: float | None, found: float | None, model: str) -> dict[str, Any]:
    uid = f"posters/c{index:02d}" if index != 12 else "posters/<b>bold</b>"
    metrics = [{"name": "render.seconds", "value": 1.0 + index, "reason": "", "higher_is_better": False}]
    if score is not None:
        metrics.append({"name": "gebench.ge_score", "value": score, "reason": "", "higher_is_better": True})
    if found is not None:
        metrics.append({"name": "text.found", "value": found, "reason": "", "higher_is_better": True})
    return {
        "uid": uid,
        "suite": "posters",
        "case_id": uid.split("/", 1)[1],
        "protocol": "gebench",
        "task": "image_generation",
        "tags": [],
        "nodeid": f"cases/posters.eval.yaml::{uid}",
        "model": model,
        "status": status,
        "gates": [MISSING] if status == "failed" else [],
        "metrics": metrics,
        "artifacts": [],
        "error": "ModelError: refused\nfull traceback" if status == "error" else None,
    }


def _document(model: str, cases: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "schema": "pytest-visioneval/results",
        "schema_version": 1,
        "run": {"id": f"run-{model}", "model": model, "started": "", "finished": "", "output_dir": "", "plugin_version": "0"},
        "cases": cases,
        "aggregates": {"overall": {}, "suites": {}, "protocols": {}, "tags": {}},
        "benchmarks": {"gebench": {"compat": "official", "scores": {"ge_score": {"mean": 0.0, "n": 0}}}},
        "thresholds": [],
        "exit": {"status": 0, "reasons": []},
    }


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    """13 cases. A passes them all. B scores each 5 lower, fails c00-c05 on a gate and errors on c11."""
    a_cases, b_cases = [], []
    for i in range(13):
        a_cases.append(_case(i, "passed", 50.0 + i, 1.0, "openai:old"))
        status = "failed" if i < 6 else "error" if i == 11 else "passed"
        b_cases.append(
            _case(i, status, None if status == "error" else 45.0 + i, None if status == "error" else 0.5, "openai:new")
        )
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_document("openai:old", a_cases)))
    b.write_text(json.dumps(_document("openai:new", b_cases)))
    return a, b


def test_prints_intervals_pass_rates_and_flips(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = runs
    assert dispatcher.main(["compare", str(a), str(b), "--resamples", "1000"]) == 0  # no --fail-on-regression
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "  [baseline] a.json: model openai:old, 13 cases" in lines
    assert "cases: 13 paired, 0 only in A, 0 only in B" in lines
    # 12 cases keep a score; the errored c11 is left out under compat official: means (728 - 61) / 12 and 5 less.
    [score] = [line for line in lines if line.startswith("gebench.ge_score")]
    assert score.split() == ["gebench.ge_score", "12", "(+1", "unpaired)", "55.58", "50.58", "-5", "[-5,", "-5]", "WORSE"]
    # Pass rate 13/13 -> 6/13: 7 discordant pairs all one way, p = 2 / 2**7.
    [overall] = [line for line in lines if line.startswith("overall")]
    assert overall.split()[:5] == ["overall", "13", "100.0%", "46.2%", "-53.8%"]
    assert f"p={mcnemar_exact(7, 0):.3g} (7 A-only, 0 B-only passes) WORSE" in overall
    assert "flips (7): 6 pass->fail, 1 pass->error" in lines
    assert "gate flips: none" in lines
    flips = [line.split(None, 2) for line in lines if line.startswith("  pass->")]
    assert flips[0] == ["pass->fail", "posters/c00", "text.found: missing 'SALE'"]
    assert flips[-1] == ["pass->error", "posters/c11", "ModelError: refused"]
    assert not any("render.seconds" in line for line in lines)  # a timing, not a score
    # The largest changes of text.found: all -0.5, so listed by uid.
    assert ["posters/c00", "1", "->", "0.5", "(-0.5,", "worse)"] in [line.split() for line in lines]
    assert lines[-1].startswith(
        f"REGRESSION: b.json vs a.json: overall pass rate 100.0% -> 46.2% (McNemar p={mcnemar_exact(7, 0):.3g}"
    )
    assert "b.json vs a.json: gebench.ge_score -5 [-5, -5]" in out


def test_fail_on_regression_sets_the_exit_status(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = runs
    assert dispatcher.main(["compare", str(a), str(b), "--resamples", "500", "--fail-on-regression"]) == 1
    # The other way round everything improved: nothing to fail on.
    assert dispatcher.main(["compare", str(b), str(a), "--resamples", "500", "--fail-on-regression"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "no significant regression"


def test_writes_json_and_an_escaped_html_page(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = runs
    out_json, out_html = tmp_path / "out" / "cmp.json", tmp_path / "out" / "cmp.html"
    argv = [
        "compare",
        str(a),
        str(b),
        "--resamples",
        "300",
        "--seed",
        "3",
        "--top",
        "2",
        "--json",
        str(out_json),
        "--html",
        str(out_html),
    ]
    assert dispatcher.main(argv) == 0
    document = json.loads(out_json.read_text())
    assert document["schema"] == "pytest-visioneval/compare"
    assert document["settings"]["resamples"] == 300 and document["settings"]["seed"] == 3
    [comparison] = document["comparisons"]
    assert len(comparison["flips"]) == 7 and len(comparison["changes"]["text.found"]) == 2
    page = out_html.read_text()
    assert "Content-Security-Policy" in page and "script-src 'sha256-" in page
    assert "posters/&lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold</b>" not in page
    assert "gebench.ge_score" in page and "pass-&gt;error" in page
    # Same inputs and seed, same numbers.
    assert dispatcher.main(argv) == 0
    assert json.loads(out_json.read_text()) == document
    capsys.readouterr()


def test_three_runs_and_all_pairs(runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = runs
    c = tmp_path / "c.json"
    c.write_text(a.read_text())
    assert dispatcher.main(["compare", str(a), str(b), str(c), "--resamples", "200"]) == 0
    heads = [line for line in capsys.readouterr().out.splitlines() if line.startswith("== ")]
    assert heads == ["== b.json (B)  vs  a.json (A) ==", "== c.json (B)  vs  a.json (A) =="]
    assert dispatcher.main(["compare", str(a), str(b), str(c), "--resamples", "200", "--pairs"]) == 0
    heads = [line for line in capsys.readouterr().out.splitlines() if line.startswith("== ")]
    assert heads[-1] == "== c.json (B)  vs  b.json (A) =="


def test_bad_inputs_are_refused_with_the_reason(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, _ = runs
    assert dispatcher.main(["compare", str(a)]) == 2
    assert "one run of one model" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text('{"schema": "something-else"}')
    assert dispatcher.main(["compare", str(a), str(other)]) == 2  # not 1: that would read as a regression
    assert f"{other}: not a pytest-visioneval results file" in capsys.readouterr().err
    assert dispatcher.main(["compare", str(a), str(tmp_path / "absent.json")]) == 2
    assert "absent.json: cannot read a results JSON" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        dispatcher.main(["compare", str(a), str(a), "--confidence", "95"])
    assert "expected a number between 0 and 1" in capsys.readouterr().err


def test_the_module_runs_on_its_own() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest_visioneval.cli.compare", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "usage: visioneval compare" in result.stdout and "--fail-on-regression" in result.stdout
