"""A run of several ``--model``: each case once per model, side by side, each model with its own numbers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_visioneval.cli.compare import main as compare_main
from pytest_visioneval.cli.merge import main as merge_main
from pytest_visioneval.report.results_json import results_schema
from tests.conftest import draw_png, read_json


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """200 columns: these tests read a threshold's, a table's or the exit status's whole text on one line
    (at 80 columns the summary wraps them; test_first_hour_summary.py reads it there)."""
    monkeypatch.setenv("COLUMNS", "200")


TWO_MODELS = ["--model=reference", "--model=cand=replay:cand"]


@pytest.fixture
def candidate(demo_suite: Path, pytester: pytest.Pytester) -> Path:
    """A replayed model that reproduces two references and answers the first case with a flat (blank) image."""
    folder = pytester.path / "cand" / "demo"
    for case in ("second", "third"):
        (folder / case).mkdir(parents=True)
        shutil.copy(demo_suite / "refs" / f"{case}.png", folder / case / "out.png")
    draw_png(folder / "first" / "out.png", color=(200, 30, 30), box=False)
    return folder.parent


def _without_timings(document: dict[str, Any]) -> dict[str, Any]:
    document = json.loads(json.dumps(document))
    for key in ("run", "timings", "usage"):
        document.pop(key)
    for case in document["cases"]:
        for key in ("duration", "timings", "usage", "message"):  # time, and the xdist worker's line in a message
            case.pop(key, None)
        case["artifacts"] = [Path(a["path"]).name for a in case["artifacts"]]  # each run has its own folder
    for section in document["models"].values():
        section.pop("timings")
        section.pop("usage")
    return document


def test_each_case_runs_once_per_model_with_its_own_numbers(
    pytester: pytest.Pytester, candidate: Path, xdist_args: list[str]
) -> None:
    collected = pytester.runpytest("cases", *TWO_MODELS, "--collect-only", "-q")
    collected.stdout.fnmatch_lines(
        [
            f"cases/demo.eval.yaml::demo/{case}[[]{model}[]]"
            for case in ("first", "second", "third")
            for model in ("reference", "cand")
        ]
    )
    result = pytester.runpytest("cases", *TWO_MODELS, "--eval-results=r.json", *xdist_args)
    result.stdout.fnmatch_lines(["FAILED cases/demo.eval.yaml::demo/first[[]cand[]] - *"])
    result.assert_outcomes(passed=5, failed=2)  # the blank case of cand, and visioneval::thresholds
    document = read_json(pytester.path / "r.json")
    jsonschema.validate(document, results_schema())
    assert document["run"]["models"] == ["reference", "cand"]
    assert document["run"]["model_specs"] == {"reference": "reference", "cand": "replay:cand"}
    assert {(c["uid"], c["model"], c["status"]) for c in document["cases"]} == {
        (f"demo/{case}", model, "failed" if (case, model) == ("first", "cand") else "passed")
        for case in ("first", "second", "third")
        for model in ("reference", "cand")
    }
    reference, cand = document["models"]["reference"], document["models"]["cand"]
    assert reference["aggregates"]["overall"]["passed"] == 3
    assert cand["aggregates"]["overall"]["passed"] == 2
    assert cand["aggregates"]["suites"]["demo"]["metrics"]["similarity.score"]["mean"] < 0.9
    assert reference["aggregates"]["suites"]["demo"]["metrics"]["similarity.score"]["mean"] == pytest.approx(1.0)
    # The top level counts every case of the run; benchmarks are each model's, under "protocol [label]".
    assert document["aggregates"]["overall"]["cases"] == 6
    assert set(document["benchmarks"]) == {"cookbook [reference]", "cookbook [cand]"}
    # The suite's threshold is checked for each model: one meets it, the other does not.
    checks = {(t["model"], t["passed"]) for t in document["thresholds"]}
    assert checks == {("reference", True), ("cand", False)}
    result.stdout.fnmatch_lines(["*FAIL ?cand? demo.similarity.score: mean 0.* < 0.9*"])
    # Outputs are kept per model.
    run_folder = Path(document["run"]["output_dir"])
    assert (run_folder / "reference" / "demo" / "first").is_dir() and (run_folder / "cand" / "demo" / "first").is_dir()


def test_the_compact_summary_puts_the_models_side_by_side(
    pytester: pytest.Pytester, candidate: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = pytester.runpytest("cases", *TWO_MODELS)
    result.stdout.re_match_lines(
        [
            r"^suite\s+model\s+cases\s+passed\s+failed\s+errors\s+pass rate\s+failed gates$",
            r"^demo\s+reference\s+3\s+3\s+0\s+0\s+100\.0% \[43\.9, 100\.0\]\s+-$",
            r"^demo\s+cand\s+3\s+2\s+1\s+0\s+66\.7% \[20\.8, 93\.9\]\s+image\.not_blank \(1\)",
        ]
    )
    result.stdout.re_match_lines(
        [r"^benchmark\s+model\s+compat", r"^cookbook\s+reference\s+official", r"^cookbook\s+cand\s+official"]
    )
    result.stdout.fnmatch_lines(["*python -m pytest_visioneval compare RESULTS.json*"])


def test_results_are_the_same_with_and_without_xdist(pytester: pytest.Pytester, candidate: Path) -> None:
    pytester.runpytest("cases", *TWO_MODELS, "--eval-results=n0.json")
    pytester.runpytest("cases", *TWO_MODELS, "--eval-results=n2.json", "-n", "2")
    alone, spread = (read_json(pytester.path / name) for name in ("n0.json", "n2.json"))
    assert _without_timings(alone) == _without_timings(spread)


def test_a_model_that_cannot_be_built_fails_only_its_own_cases(
    pytester: pytest.Pytester, demo_suite: Path, monkeypatch: pytest.MonkeyPatch, xdist_args: list[str]
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = pytester.runpytest("cases", "--model=reference", "--model=openai:gpt-image-1", "--eval-results=r.json", *xdist_args)
    result.assert_outcomes(passed=3, errors=3, failed=1)
    statuses = {(c["model"], c["status"]) for c in read_json(pytester.path / "r.json")["cases"]}
    assert statuses == {("reference", "passed"), ("openai:gpt-image-1", "error")}
    result.stdout.fnmatch_lines(
        ["*ERROR at setup of case demo/first?openai:gpt-image-1?*", "ModelError: no API key*OPENAI_API_KEY*"]
    )
    result.stdout.fnmatch_lines(["*FAIL ?openai:gpt-image-1? demo.similarity.score: no case recorded*; 3 case(s) errored*"])
    result.stdout.fnmatch_lines(["WARNING cookbook ?openai:gpt-image-1?: no benchmark score: 3 case(s) errored*"])


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--model=reference", "--model=reference"], "*two models share the label 'reference'*--model LABEL=SPEC*"),
        (["--model=a=reference", "--model=a=replay:x"], "*two models share the label 'a'*"),
        (["--model=bad label=reference", "--model=reference"], "*a label is letters, digits*"),
        (["--model=reference", "--model=replay:x", "--eval-mutants"], "*--eval-mutants*give one --model*"),
        (["--model=reference", "--model=nosuch:thing"], "*unknown model provider 'nosuch'*"),
    ],
)
def test_bad_model_lists_are_refused(pytester: pytest.Pytester, demo_suite: Path, flags: list[str], message: str) -> None:
    result = pytester.runpytest("cases", *flags)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_keywords_and_last_failed_select_by_model(pytester: pytest.Pytester, candidate: Path) -> None:
    only_cand = pytester.runpytest("cases", *TWO_MODELS, "-k", "cand", "--eval-results=k.json")
    only_cand.assert_outcomes(passed=2, failed=2, deselected=3)
    assert {c["model"] for c in read_json(pytester.path / "k.json")["cases"]} == {"cand"}
    pytester.runpytest("cases", *TWO_MODELS)
    again = pytester.runpytest("cases", *TWO_MODELS, "--lf", "--eval-results=lf.json")
    again.assert_outcomes(failed=2)  # the failed case and the thresholds (now over that case alone)
    again.stdout.fnmatch_lines(["run-last-failure: rerun previous 1 failure*"])
    document = read_json(pytester.path / "lf.json")
    assert [(c["uid"], c["model"]) for c in document["cases"]] == [("demo/first", "cand")]
    assert document["complete"] is True  # --lf deselected the others: the run is not short of any case it meant to run


def test_a_baseline_is_compared_model_by_model(pytester: pytest.Pytester, candidate: Path) -> None:
    pytester.runpytest("cases", *TWO_MODELS, "--eval-results=base.json")
    same = pytester.runpytest("cases", *TWO_MODELS, "--eval-baseline=base.json", "--eval-fail-under=demo.similarity.score=0")
    same.stdout.fnmatch_lines(["*against the baseline*", "  no differences"])
    # cand now reproduces the first reference too: cand improved, reference unchanged; nothing regressed.
    shutil.copy(pytester.path / "cases" / "refs" / "first.png", candidate / "demo" / "first" / "out.png")
    better = pytester.runpytest("cases", *TWO_MODELS, "--eval-baseline=base.json")
    better.stdout.re_match_lines([r"^\s+demo\s+cand\s+similarity\.score\s+0\.\d+\s+1\s+\+0\.\d+\s+0\.01\s+improved$"])
    assert "REGRESSED" not in better.stdout.str()
    # A run of one model is compared with its own part of a baseline of several, found by label.
    alone = pytester.runpytest("cases", "--model=reference=replay:cand", "--eval-baseline=base.json")
    alone.stdout.fnmatch_lines(["*against the baseline*", "  no differences"])
    unknown = pytester.runpytest("cases", "--model=other=reference", "--eval-baseline=base.json")
    assert unknown.ret == pytest.ExitCode.USAGE_ERROR
    unknown.stderr.fnmatch_lines(["*holds the models reference, cand, not 'other'*--model LABEL=SPEC*"])


def test_snapshots_are_kept_per_model(pytester: pytest.Pytester, candidate: Path) -> None:
    pytester.runpytest("cases", *TWO_MODELS, "--eval-snapshot=scores", "--snapshot-update")
    folder = pytester.path / "cases" / "__eval_snapshots__" / "demo.eval"
    assert sorted(p.name for p in folder.iterdir()) == ["cand", "reference"]
    assert (folder / "cand" / "first.scores.json").is_file() and (folder / "reference" / "first.scores.json").is_file()
    # The candidate now answers the first case well: only its snapshot differs, and says how.
    shutil.copy(pytester.path / "cases" / "refs" / "first.png", candidate / "demo" / "first" / "out.png")
    again = pytester.runpytest("cases", *TWO_MODELS, "--eval-snapshot=scores")
    again.assert_outcomes(passed=5, failed=1)
    again.stdout.fnmatch_lines(
        [
            "snapshot cases/__eval_snapshots__/demo.eval/cand/first.scores.json differs:",
            "  - gate image.not_blank flipped: failed -> passed",
        ]
    )


def test_compare_and_merge_read_a_run_of_several_models(
    pytester: pytest.Pytester, candidate: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.runpytest("cases", *TWO_MODELS, "--eval-results=whole.json")
    for shard in (1, 2):
        pytester.runpytest("cases", *TWO_MODELS, f"--eval-shard={shard}/2", f"--eval-results=s{shard}.json")
    capsys.readouterr()
    whole = pytester.path / "whole.json"
    assert compare_main([str(whole), "--resamples", "200"]) == 0
    text = capsys.readouterr().out
    assert "== cand (B)  vs  reference (A) ==" in text  # the first --model is the baseline
    assert "pass->fail  demo/first" in text
    merged = pytester.path / "merged.json"
    merge_main([str(merged), str(pytester.path / "s1.json"), str(pytester.path / "s2.json")])
    a, b = read_json(whole), read_json(merged)
    assert b["run"]["models"] == ["reference", "cand"]
    assert b["thresholds"] == a["thresholds"]
    for label in ("reference", "cand"):
        assert b["models"][label]["aggregates"] == a["models"][label]["aggregates"]
        assert b["models"][label]["benchmarks"] == a["models"][label]["benchmarks"]


def test_the_report_shows_each_case_once_with_its_models_side_by_side(pytester: pytest.Pytester, candidate: Path) -> None:
    pytester.runpytest("cases", *TWO_MODELS, "--eval-report=report.html")
    html = (pytester.path / "report.html").read_text(encoding="utf-8")
    start = html.index('<script type="application/json" id="report-data">') + len(
        '<script type="application/json" id="report-data">'
    )
    data = json.loads(html[start : html.index("</script>", start)])
    assert sorted(data["models"]) == ["cand", "reference"]
    by_key: dict[str, set[str]] = {}
    for case in data["cases"]:
        by_key.setdefault(case["key"], set()).add(case["model"])
    assert by_key == {f"demo/{case}": {"reference", "cand"} for case in ("first", "second", "third")}
    assert "reference, cand" in html  # the summary names both models
