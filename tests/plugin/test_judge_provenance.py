"""The results say which judge answered and how it was asked; compare reports a changed judge."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_visioneval.cli.compare import main as compare_main
from pytest_visioneval.testing import FakeOpenAIServer
from pytest_visioneval.testing.openai_server import RecordedRequest
from tests.conftest import draw_png, read_json

SUITE = """\
suite: judged
defaults:
  task: image_generation
  graders:
    - use: score
      options: {dimensions: {quality: overall visual quality}, scale: 10}
cases:
  - {id: one, prompt: a red square, reference: refs/one.png}
  - {id: two, prompt: a blue square, reference: refs/two.png}
"""
REPLY = '{"scores": {"quality": {"reason": "clean", "score": 8}}}'


@pytest.fixture
def judged_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    root = pytester.path / "cases"
    draw_png(root / "refs" / "one.png", color=(200, 30, 30))
    draw_png(root / "refs" / "two.png", color=(30, 30, 200))
    (root / "judged.eval.yaml").write_text(SUITE)
    return root


@pytest.mark.slow
def test_judge_provenance_is_recorded_and_a_changed_judge_is_reported(
    pytester: pytest.Pytester, judged_suite: Path, xdist_args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer(text_reply=REPLY) as server:
        judge = ["--judge=openai:grader", f"--judge-base-url={server.base_url}", "--eval-cache=off"]
        before = pytester.runpytest("cases", *judge, "--judge-seed=5", "--eval-results=a.json", *xdist_args)
        before.assert_outcomes(passed=2)
        server.served_model = "grader-2026-11-01"  # the provider moved the name to a new snapshot
        after = pytester.runpytest(
            "cases", *judge, "--judge-seed=5", "--judge-temperature=0.3", "--eval-results=b.json", *xdist_args
        )
        after.assert_outcomes(passed=2)
    a, b = read_json(pytester.path / "a.json"), read_json(pytester.path / "b.json")
    provenance = a["judges"]["openai:grader"]
    assert provenance["served_by"] == ["grader"] and provenance["seed"] == [5] and provenance["temperature"] == [0.0]
    assert provenance["endpoint"] == [server.base_url.rstrip("/")]
    assert len(provenance["instructions_sha256"]) == 1
    assert b["judges"]["openai:grader"]["served_by"] == ["grader-2026-11-01"]
    assert b["judges"]["openai:grader"]["temperature"] == [0.3]
    capsys.readouterr()
    compare_main([str(pytester.path / "a.json"), str(pytester.path / "b.json"), "--resamples", "100"])
    out = capsys.readouterr().out
    assert "JUDGE CHANGED: judge openai:grader served_by: ['grader'] -> ['grader-2026-11-01']" in out
    assert "JUDGE CHANGED: judge openai:grader temperature: [0.0] -> [0.3]" in out


def test_judge_sampling_options_are_checked(pytester: pytest.Pytester, judged_suite: Path) -> None:
    result = pytester.runpytest("cases", "--judge=openai:grader", "--judge-seed=abc")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*visioneval_judge_seed must be a whole number, got 'abc'*"])
    negative = pytester.runpytest("cases", "--judge=openai:grader", "--judge-temperature=-1")
    assert negative.ret == pytest.ExitCode.USAGE_ERROR


def test_a_judge_whose_repeats_disagree_makes_the_case_flaky(
    pytester: pytest.Pytester, judged_suite: Path, xdist_args: list[str]
) -> None:
    def reply(request: RecordedRequest) -> str:
        # Case "one" (a red square) gets 5, 1, 5 over its three judge repeats (seeds 1, 2, 3); case "two" 7 each time.
        body = request.json or {}
        score = {1: 5, 2: 1, 3: 5}[body["seed"]] if "a red square" in json.dumps(body["messages"]) else 7
        return f'{{"scores": {{"quality": {{"reason": "r", "score": {score}}}}}}}'

    with FakeOpenAIServer(text_reply=reply) as server:
        result = pytester.runpytest(
            "cases",
            "--judge=openai:grader",
            f"--judge-base-url={server.base_url}",
            "--judge-repeats=3",
            "--judge-seed=1",
            "--eval-flaky-spread=score.quality=1",
            "--eval-results=r.json",
            *xdist_args,
        )
    result.assert_outcomes(passed=2)
    cases = {c["uid"]: c for c in read_json(pytester.path / "r.json")["cases"]}
    assert cases["judged/one"]["flaky_metrics"] == {"score.quality": pytest.approx(1.885618, abs=1e-5)}
    assert "flaky_metrics" not in cases["judged/two"]
    document = read_json(pytester.path / "r.json")
    assert document["aggregates"]["overall"]["flaky"] == 1


NOISY_SUITE = (
    "suite: noisy\ndefaults:\n  task: image_generation\n  graders:\n    - use: score\n"
    "      options: {dimensions: {quality: overall quality}, scale: 10}\ncases:\n"
    + "".join(f"  - {{id: c{i:02d}, prompt: 'picture number {i:02d}', reference: refs/one.png}}\n" for i in range(24))
)


def test_a_noisy_judge_on_an_unchanged_model_passes_its_baseline_and_a_real_drop_fails(
    pytester: pytest.Pytester, judged_suite: Path
) -> None:
    (judged_suite / "judged.eval.yaml").unlink()
    (judged_suite / "noisy.eval.yaml").write_text(NOISY_SUITE)
    state = {"run": 0, "drop": 0}

    def reply(request: RecordedRequest) -> str:
        case = int(json.dumps((request.json or {})["messages"]).split("picture number ")[1][:2])
        noise = random.Random(state["run"] * 1000 + case).choice([-2, -1, 0, 1, 2])  # each run, other noise per case
        score = 5 + case % 4 + noise - state["drop"]
        return f'{{"scores": {{"quality": {{"reason": "r", "score": {score}}}}}}}'

    with FakeOpenAIServer(text_reply=reply) as server:
        judge = ["--judge=openai:grader", f"--judge-base-url={server.base_url}", "--eval-cache=off"]
        pytester.runpytest("cases", *judge, "--eval-results=base.json").assert_outcomes(passed=24)
        state["run"] = 1
        same = pytester.runpytest("cases", *judge, "--eval-baseline=base.json")
        state["drop"] = 2
        dropped = pytester.runpytest("cases", *judge, "--eval-baseline=base.json")
    base = read_json(pytester.path / "base.json")["aggregates"]["suites"]["noisy"]["metrics"]["score.quality"]["mean"]
    assert same.ret == 0, same.stdout.str()
    # score is on 0-10 (results/metric_scales.py): the default tolerance of 0.01 of the scale is 0.1 point
    same.stdout.re_match_lines([r"^\s+noisy\s+score\.quality\s+[\d.]+\s+[\d.]+\s+[-+][\d.]+\s+0\.1\s+noise$"])
    assert dropped.ret == 1
    # The drop of 2 is seen through the judge's noise: its whole interval lies below 0.
    dropped.stdout.re_match_lines([r"^\s+noisy\s+score\.quality\s+[\d.]+\s+[\d.]+\s+-[\d.]+\s+0\.1\s+REGRESSED$"])
    # Each regression is said in the exit-status line after pytest's last line (wrapped to the terminal, never cut).
    final = max(i for i, line in enumerate(dropped.outlines) if line.startswith("=") and line.endswith("="))
    last = " ".join(line.strip() for line in dropped.outlines[final + 1 :] if line.strip())
    assert last.startswith("visioneval: exit status 1: ") and "regression(s) against the baseline: " in last, last
    assert re.search(
        rf"noisy\.score\.quality: {re.escape(f'{base:.4g}')} -> [\d.]+ "
        r"\([^)]*paired interval \[-[\d.]+, -[\d.]+\] over 24 cases\)",
        last,
    ), last


def test_judge_repeats_that_send_the_same_request_are_warned_about(
    pytester: pytest.Pytester, judged_suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the warning on one line (at 80 columns it wraps)
    with FakeOpenAIServer(text_reply=REPLY) as server:
        judge = ["--judge=openai:grader", f"--judge-base-url={server.base_url}", "--judge-repeats=2"]
        same = pytester.runpytest("cases", *judge)
        seeded = pytester.runpytest("cases", *judge, "--judge-seed=3")
    same.stdout.fnmatch_lines(["WARNING openai:grader: --judge-repeats 2 at temperature 0 and without --judge-*"])
    assert "--judge-repeats 2 at temperature 0" not in seeded.stdout.str()


VERDICT_SUITE = """\
suite: verdicts
defaults:
  task: image_generation
  graders:
    - use: checklist
      gate: false
      options: {questions: ["Is it red?"]}
cases:
""" + "".join(f"  - {{id: c{i}, prompt: 'case {i}', reference: refs/one.png}}\n" for i in range(8))


@pytest.mark.slow
def test_the_run_fails_when_its_judge_drifts_away_from_the_labels(
    pytester: pytest.Pytester, judged_suite: Path, xdist_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the labels' path and the exit-status line whole (at 80 columns they wrap)
    (judged_suite / "judged.eval.yaml").unlink()
    (judged_suite / "verdicts.eval.yaml").write_text(VERDICT_SUITE)
    people = ["yes", "yes", "no", "no", "yes", "no", "yes", "no"]
    (pytester.path / "labels.csv").write_text(
        "case,name,label\n" + "".join(f"verdicts/c{i},checklist.q1,{v}\n" for i, v in enumerate(people))
    )
    answers = {"agrees": people, "drifts": ["yes"] * 8}  # the drifted judge says yes to everything

    def judge(kind: str) -> Callable[[RecordedRequest], str]:
        def reply(request: RecordedRequest) -> str:
            case = int(json.dumps((request.json or {})["messages"]).split("case ")[1][0])
            return json.dumps({"answers": [{"id": 1, "reason": "r", "answer": answers[kind][case]}]})

        return reply

    outcomes = {}
    for kind in answers:
        with FakeOpenAIServer(text_reply=judge(kind)) as server:
            outcomes[kind] = pytester.runpytest(
                "cases",
                "--judge=openai:grader",
                f"--judge-base-url={server.base_url}",
                "--eval-labels=labels.csv",
                "--eval-agreement-floor=kappa=0.6",
                f"--eval-results={kind}.json",
                *xdist_args,
            )
    agrees, drifts = outcomes["agrees"], outcomes["drifts"]
    assert agrees.ret == 0, agrees.stdout.str()
    agrees.stdout.fnmatch_lines(["judges against the labels in *labels.csv", "  checklist.q1 (binary, n=8): accuracy 1.000*"])
    assert drifts.ret == 1
    drifts.stdout.fnmatch_lines(["*1 judge-human agreement floor(s) not met: checklist.q1: judge-human kappa *< 0.6*"])
    document = read_json(pytester.path / "drifts.json")
    row = document["agreement"]["agreement"][0]
    assert row["stats"]["accuracy"]["value"] == pytest.approx(0.5)
    assert document["agreement"]["below_floor"] and document["exit"]["status"] == 1


def test_labels_file_and_floors_are_checked_up_front(pytester: pytest.Pytester, judged_suite: Path) -> None:
    result = pytester.runpytest("cases", "--eval-agreement-floor=kappa=0.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--eval-agreement-floor needs --eval-labels*"])
    missing = pytester.runpytest("cases", "--eval-labels=nope.csv")
    missing.stderr.fnmatch_lines(["*--eval-labels: no such file*nope.csv*"])
    (pytester.path / "l.csv").write_text("case,name,label\n")
    bad = pytester.runpytest("cases", "--eval-labels=l.csv", "--eval-agreement-floor=kappa")
    bad.stderr.fnmatch_lines(["*--eval-agreement-floor expects [[]NAME:[]]STAT=VALUE*"])


def test_a_changed_judge_is_said_against_the_baseline_and_in_the_report(pytester: pytest.Pytester, judged_suite: Path) -> None:
    with FakeOpenAIServer(text_reply=REPLY) as server:
        judge = ["--judge=openai:grader", f"--judge-base-url={server.base_url}", "--eval-cache=off"]
        pytester.runpytest("cases", *judge, "--eval-results=base.json").assert_outcomes(passed=2)
        server.served_model = "grader-v2"
        again = pytester.runpytest("cases", *judge, "--eval-baseline=base.json", "--eval-report=report.html")
    again.stdout.fnmatch_lines(
        ["WARNING against the baseline: judge openai:grader served_by: ?'grader'? ->", "    ?'grader-v2'?"]
    )
    html = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert "<dt>judge openai:grader</dt><dd>answered by grader-v2 at http://127.0.0.1:" in html
