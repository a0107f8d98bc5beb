"""``--eval-regrade RUN``: an earlier run's stored outputs graded again by this run's judges, the model never called."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.cli.compare import main as compare_main
from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import draw_png, read_json

SUITE = """\
suite: judged
defaults:
  task: image_generation
  params: {size: 64x48}
  graders:
    - use: image
      options: {width: 64, height: 48}
    - use: checklist
      options:
        questions: ["Is there a box?", "Is the background white?"]
cases:
  - id: one
    prompt: a box on white
  - id: two
    prompt: another box on white
"""
YES = json.dumps({"answers": [{"id": i, "reason": "seen", "answer": "yes"} for i in (1, 2)]})


@pytest.fixture
def judged_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-regrade")
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "judged.eval.yaml").write_text(SUITE)
    return pytester.path / "cases"


def run(pytester: pytest.Pytester, run_id: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest("cases", "--eval-output-dir=out", f"--eval-run-id={run_id}", f"--eval-results={run_id}.json", *args)


def judge_args(server: FakeOpenAIServer) -> list[str]:
    return ["--judge=openai:judge-model", f"--judge-base-url={server.base_url}"]


def model_requests(requests: list[Any]) -> list[str]:
    return [r.path for r in requests if "/images/" in r.path or r.path.endswith("/responses")]


def scores(document: dict[str, Any]) -> dict[str, dict[str, float]]:
    return {c["nodeid"]: {m["name"]: m["value"] for m in c["metrics"]} for c in document["cases"]}


def test_a_regrade_asks_the_judge_and_never_the_model(
    pytester: pytest.Pytester, judged_suite: Path, xdist_args: list[str]
) -> None:
    with FakeOpenAIServer(text_reply=YES) as server:
        model = ["--model=openai:gpt-image-1", f"--model-base-url={server.base_url}"]
        run(pytester, "first", *model, *xdist_args).assert_outcomes(passed=2)  # no judge: the checklist is skipped
        assert len(server.calls_to("/images/generations")) == 2 and not server.calls_to("/chat/completions")
        before = len(server.requests)
        result = run(pytester, "again", "--eval-regrade=out/first", *judge_args(server), *xdist_args)
        regrade_requests = server.requests[before:]
    result.assert_outcomes(passed=2)
    assert model_requests(regrade_requests) == []  # the server would have answered: it was never asked
    assert [r.path for r in regrade_requests] == ["/v1/chat/completions"] * 2  # one judge request per case

    first, again = read_json(pytester.path / "first.json"), read_json(pytester.path / "again.json")
    folder = (pytester.path / "out" / "first" / "openai_gpt-image-1").resolve()
    assert again["run"]["model"] == f"regrade:{folder}"
    assert [c["nodeid"] for c in again["cases"]] == [c["nodeid"] for c in first["cases"]]
    assert {c["model"] for c in again["cases"]} == {"openai:gpt-image-1"}  # the earlier label
    for case in again["cases"]:
        metrics = {m["name"]: m["value"] for m in case["metrics"]}
        assert metrics["checklist.score"] == 1.0 and metrics["checklist.q1"] == 1.0
        assert case["skipped_graders"] == []
        [image] = case["artifacts"]
        assert Path(image["path"]).is_relative_to(pytester.path / "out" / "again")  # written into this run's folder
        [earlier] = next(c["artifacts"] for c in first["cases"] if c["uid"] == case["uid"])
        assert (image["name"], image["sha256"]) == (earlier["name"], earlier["sha256"])  # the output the earlier run stored
    assert again["aggregates"]["suites"]["judged"]["metrics"]["checklist.score"]["mean"] == 1.0
    assert "model" not in again["usage"]["kinds"] and again["usage"]["kinds"]["judge"]["calls"] == 2


@pytest.fixture
def candidate(pytester: pytest.Pytester) -> Path:
    """A replayed model's folder: a box for case one, a flat image for case two."""
    draw_png(pytester.path / "cand" / "judged" / "one" / "out.png")
    draw_png(pytester.path / "cand" / "judged" / "two" / "out.png", box=False)
    return pytester.path / "cand"


@pytest.mark.slow
def test_every_model_of_a_run_is_regraded_under_its_label_from_its_results(
    pytester: pytest.Pytester, judged_suite: Path, candidate: Path, xdist_args: list[str]
) -> None:
    with FakeOpenAIServer(text_reply=YES) as server:
        models = ["--model", "a=openai:gpt-image-1", f"--model-base-url={server.base_url}", "--model", f"b=replay:{candidate}"]
        run(pytester, "first", *models, *judge_args(server), *xdist_args).assert_outcomes(passed=3, failed=1)
        before = len(server.requests)
        shutil.rmtree(candidate)  # the replayed model's own folder is not what a regrade reads
        result = run(pytester, "again", "--eval-regrade=first.json", *judge_args(server), "--eval-cache=off", *xdist_args)
        regrade_requests = server.requests[before:]
    result.assert_outcomes(passed=3, failed=1)  # b's flat image fails its gate again
    result.stdout.fnmatch_lines(["FAILED cases/judged.eval.yaml::judged/two[[]b[]] - *"])
    assert model_requests(regrade_requests) == [] and len(regrade_requests) == 4  # the judge, uncached, per case

    first, again = read_json(pytester.path / "first.json"), read_json(pytester.path / "again.json")
    folder = (pytester.path / "out" / "first").resolve()
    assert again["run"]["models"] == ["a", "b"] == first["run"]["models"]
    assert again["run"]["model_specs"] == {"a": f"regrade:{folder / 'a'}", "b": f"regrade:{folder / 'b'}"}
    assert scores(again) == scores(first)  # same outputs, same judge answers: the same numbers, case by case
    assert set(again["models"]) == {"a", "b"}

    assert compare_main(["first.json", "again.json", "--json", "cmp.json"]) == 0
    [comparison] = read_json(pytester.path / "cmp.json")["comparisons"]
    assert comparison["cases"] == {"paired": 4, "only_a": [], "only_b": []}  # case by case, model by model

    result = run(pytester, "picked", "--eval-regrade=out/first", "--model=b", *xdist_args)
    result.assert_outcomes(passed=1, failed=1)  # without a judge, the checklist is skipped
    picked = read_json(pytester.path / "picked.json")
    assert {c["model"] for c in picked["cases"]} == {"b"} and picked["run"]["model"] == f"regrade:{folder / 'b'}"


@pytest.fixture
def earlier_run(pytester: pytest.Pytester, demo_suite: Path) -> Path:
    """A reference run of the demo suite without its third case: out/first."""
    run(pytester, "first", "-k", "not third").assert_outcomes(passed=2)
    return pytester.path / "out" / "first"


def test_a_case_missing_from_the_earlier_run_is_an_error_naming_the_run(pytester: pytest.Pytester, earlier_run: Path) -> None:
    result = run(pytester, "again", f"--eval-regrade={earlier_run}")
    result.assert_outcomes(passed=2, errors=1, failed=1)  # the failure: visioneval::thresholds, with a case errored
    folder = earlier_run.resolve()
    message = f"demo/third is not in the earlier run {folder}: no output folder {folder}/reference/demo/third/"
    assert message in result.stdout.str()
    [third] = [c for c in read_json(pytester.path / "again.json")["cases"] if c["uid"] == "demo/third"]
    assert third["status"] == "error" and message in third["error"]


def test_the_ini_names_the_run_to_regrade(pytester: pytest.Pytester, earlier_run: Path) -> None:
    pytester.makeini(
        "[pytest]\nfilterwarnings =\n    ignore::pytest.PytestAssertRewriteWarning\nvisioneval_regrade = out/first\n"
    )
    run(pytester, "again", "-k", "not third").assert_outcomes(passed=2)
    assert read_json(pytester.path / "again.json")["run"]["model"] == f"regrade:{earlier_run.resolve() / 'reference'}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--eval-regrade=out/first", "--model=openai:gpt-image-1"], "*--model may only pick some of them by label, not*"),
        (["--eval-regrade=out/first", "--model=reference", "--model=new=replay:x"], "*not 'new=replay:x'*"),
        (["--eval-regrade=out/nowhere"], "*out/nowhere: no such run folder or results JSON*"),
        (["--eval-regrade=out/empty"], "*out/empty: holds no model outputs*"),
        (["--eval-regrade=out/first/reference"], "*holds no model outputs*give its run folder*out/first"),
        (["--eval-regrade=out/first", "--eval-run-id=first"], "*would write this run's outputs into the run it grades*"),
    ],
)
def test_what_cannot_be_regraded_is_a_usage_error(
    pytester: pytest.Pytester, earlier_run: Path, args: list[str], message: str
) -> None:
    (pytester.path / "out" / "empty" / ".exchange").mkdir(parents=True)
    result = pytester.runpytest("cases", "--eval-output-dir=out", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest-visioneval: --eval-regrade {message}"])
