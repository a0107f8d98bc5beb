"""Merge gating in CI: baselines, shards and their merge, and the last line of the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_visioneval.cli import diff, merge
from tests.conftest import draw_png, read_json


def _imperfect_outputs(root: Path) -> None:
    out = root / "outputs" / "demo"
    draw_png(out / "first.png", color=(200, 30, 30))
    draw_png(out / "second.png", color=(40, 180, 40))
    draw_png(out / "third.png", color=(30, 30, 170))


def test_baseline_regression_fails_the_run_and_the_last_line_says_why(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the exit-status line on one line (at 80 columns it wraps)
    pytester.runpytest("cases", "--eval-results=baseline.json").assert_outcomes(passed=3)
    _imperfect_outputs(pytester.path)
    strict = "--eval-baseline-tolerance=0.001"
    result = pytester.runpytest("cases", "--model=replay:outputs", "--eval-baseline=baseline.json", strict, *xdist_args)
    result.assert_outcomes(passed=3, failed=1)  # failed: visioneval::thresholds, the run-level check
    # The card and its short summary line count the run-level checks; each is listed once, in the scores.
    result.stdout.fnmatch_lines(["FAILED visioneval::thresholds - * regression(s) against the baseline"])
    assert "[133%]" not in result.stdout.str()  # no progress letter after the 100% line
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*against the baseline*", "*demo*similarity.score*1*0.9*REGRESSED*"])
    # The exit-status line, after pytest's last line; wrapped when longer than the terminal, never cut.
    final = max(i for i, line in enumerate(result.outlines) if line.startswith("=") and line.endswith("="))
    last = " ".join(line.strip() for line in result.outlines[final + 1 :] if line.strip())
    assert last.startswith("visioneval: exit status 1: ")
    assert "regression(s) against the baseline: " in last and "demo.similarity.score: 1 -> 0.9918 (-0.008191;" in last
    # The recolouring also moves the colour-difference metric (CIEDE2000 mean, 0 -> 3.14): a regression too.
    assert "demo.similarity.mean_delta_e: 0 -> 3.14 (+3.14; lower is better" in last
    # A tolerance for each metric that moved accepts the change.
    relaxed = pytester.runpytest(
        "cases",
        "--model=replay:outputs",
        "--eval-baseline=baseline.json",
        strict,
        "--eval-baseline-tolerance=similarity.score=0.05",
        "--eval-baseline-tolerance=similarity.mean_delta_e=5",
        *xdist_args,
    )
    assert relaxed.ret == pytest.ExitCode.OK
    assert [line for line in relaxed.outlines if line.strip()][-1].startswith("visioneval: exit status 0")


@pytest.mark.slow
def test_shards_split_the_cases_and_merge_into_the_full_run(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    _imperfect_outputs(pytester.path)
    draw_png(pytester.path / "outputs" / "demo" / "first.png", size=(10, 10))  # one failing case
    common = ["cases", "--model=replay:outputs", *xdist_args]
    pytester.runpytest(*common, "--eval-results=full.json")
    one = pytester.runpytest(*common, "--eval-shard=1/2", "--eval-results=s1.json")
    two = pytester.runpytest(*common, "--eval-shard=2/2", "--eval-results=s2.json")
    uids = [{c["uid"] for c in read_json(pytester.path / name)["cases"]} for name in ("s1.json", "s2.json")]
    assert uids[0].isdisjoint(uids[1]) and uids[0] | uids[1] == {"demo/first", "demo/second", "demo/third"}
    # Each shard ran only its own cases (xdist does not report deselections, so count runs).
    # (less the run-level visioneval::thresholds test, failed where a shard misses the suite's threshold)
    ran = [
        sum(v for k, v in r.parseoutcomes().items() if k in ("passed", "failed"))
        - ("FAILED visioneval::thresholds" in r.stdout.str())
        for r in (one, two)
    ]
    assert ran == [len(uids[0]), len(uids[1])]
    status = merge.main([str(pytester.path / "merged.json"), str(pytester.path / "s1.json"), str(pytester.path / "s2.json")])
    merged, full = read_json(pytester.path / "merged.json"), read_json(pytester.path / "full.json")
    assert merged["aggregates"] == full["aggregates"]
    assert merged["thresholds"] == full["thresholds"]
    assert status == 1 == merged["exit"]["status"]  # the failing case fails the merged verdict too
    assert "1 case(s) failed a gate or assertion" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="in more than one shard"):
        merge.main([str(pytester.path / "m2.json"), str(pytester.path / "s1.json"), str(pytester.path / "s1.json")])


def test_diff_command(pytester: pytest.Pytester, demo_suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.runpytest("cases", "--eval-results=before.json")
    _imperfect_outputs(pytester.path)
    pytester.runpytest("cases", "--model=replay:outputs", "--eval-results=after.json")
    before, after = str(pytester.path / "before.json"), str(pytester.path / "after.json")
    # The recolouring moves the colour-difference metric (CIEDE2000 mean, 0 -> 3.14) past any small tolerance:
    assert diff.main([before, after]) == 1
    out = capsys.readouterr().out
    assert "1 regression(s):" in out and "demo.similarity.mean_delta_e: 0 -> 3.14" in out
    delta_e = ["--tolerance", "similarity.mean_delta_e=5"]  # allowed for it, the score alone is compared below
    assert diff.main([before, after, *delta_e]) == 0  # the default tolerance (0.01) absorbs a 0.008 drop
    assert "no regressions" in capsys.readouterr().out
    assert diff.main([before, after, "--tolerance", "0.001", *delta_e]) == 1
    out = capsys.readouterr().out
    assert "REGRESSED" in out and "1 regression(s):" in out and "demo.similarity.score: 1 -> 0.9918" in out
    assert diff.main([after, before, "--tolerance", "0.001"]) == 0
    assert "improved" in capsys.readouterr().out


def test_bad_shard_is_a_usage_error(pytester: pytest.Pytester, demo_suite: Path) -> None:
    result = pytester.runpytest("cases", "--eval-shard=3/2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--eval-shard expects K/N with 1 <= K <= N*"])


def test_html_report_is_written_with_every_case(pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]) -> None:
    _imperfect_outputs(pytester.path)
    (pytester.path / "outputs" / "demo" / "third.png").unlink()  # one error
    result = pytester.runpytest("cases", "--model=replay:outputs", "--eval-report=report/index.html", *xdist_args)
    result.assert_outcomes(passed=2, errors=1, failed=1)  # failed: visioneval::thresholds (the errored case)
    result.stdout.fnmatch_lines(["HTML report: */report/index.html"])
    html = (pytester.path / "report" / "index.html").read_text()
    for uid in ("demo/first", "demo/second", "demo/third"):
        assert uid in html
    assert "no replayed output for demo/third" in html
    assert len(list((pytester.path / "report" / "index_files" / "t").iterdir())) >= 3  # thumbnails written beside the report
