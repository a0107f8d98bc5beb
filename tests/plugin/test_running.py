"""Running cases: models, stored outputs, gates as assertions, errors as errors."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import draw_png, read_json


def test_reference_model_passes_and_keeps_outputs_with_provenance(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]
) -> None:
    result = pytester.runpytest("cases", "--eval-output-dir=out", "--eval-run-id=run1", *xdist_args)
    result.assert_outcomes(passed=3)
    case_dir = pytester.path / "out" / "run1" / "reference" / "demo" / "second"
    provenance = read_json(case_dir / "provenance.json")
    assert provenance["model"] == "reference"
    assert provenance["case"] == "demo/second"
    (entry,) = provenance["artifacts"]
    saved = (case_dir / entry["name"]).read_bytes()
    assert entry["sha256"] == hashlib.sha256(saved).hexdigest()
    assert saved == (demo_suite / "refs" / "second.png").read_bytes()


def test_failed_gate_fails_the_test_with_what_and_why(pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]) -> None:
    out = pytester.path / "outputs" / "demo"
    draw_png(out / "first.png", size=(10, 10))  # wrong size
    draw_png(out / "second.png", color=(30, 200, 30))  # correct
    draw_png(out / "third.png", color=(255, 255, 255), box=False)  # blank
    result = pytester.runpytest("cases", "--model=replay:outputs", *xdist_args)
    result.assert_outcomes(passed=1, failed=3)  # two cases, and visioneval::thresholds (the suite's mean misses it)
    text = result.stdout.str()
    assert "demo/first: 2 gate(s) failed" in text
    assert "image.size: first.png is 10x10, expected 64x48" in text
    assert "similarity.match: score" in text
    assert "image.not_blank: blank image(s): third.png (0.00% of pixels off its background colour, luminance std 0.00)" in text
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_model_failure_is_an_error_not_a_failure(pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]) -> None:
    out = pytester.path / "outputs" / "demo"
    draw_png(out / "first.png", color=(200, 30, 30))
    draw_png(out / "second.png", size=(10, 10))
    result = pytester.runpytest("cases", "--model=replay:outputs", *xdist_args)
    result.assert_outcomes(passed=1, failed=2, errors=1)  # + visioneval::thresholds: the errored case leaves it unconfirmed
    assert "ModelError: no replayed output for demo/third" in result.stdout.str()
    result.stdout.fnmatch_lines(["demo * 3 * 1 * 1 * 1 * 33.3%*"])  # the compact summary's row: an error, not a failure


def test_unknown_model_is_a_usage_error(pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]) -> None:
    result = pytester.runpytest("cases", "--model=nosuch:thing", *xdist_args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown model provider 'nosuch'*available: openai, pwg-edit, reference, regrade, replay*"])


def test_model_that_cannot_be_built_makes_every_case_an_error(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]
) -> None:
    result = pytester.runpytest("cases", "--model=replay:no/such/folder", *xdist_args)
    result.assert_outcomes(errors=3, failed=1)  # failed: visioneval::thresholds, unconfirmed
    assert "ModelError: replay folder not found: no/such/folder" in result.stdout.str()


def test_grader_that_cannot_apply_is_a_collection_error(pytester: pytest.Pytester) -> None:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "noref.eval.yaml").write_text(
        "cases:\n  - id: a\n    task: image_generation\n    prompt: p\n    graders:\n      - use: similarity\n"
    )
    result = pytester.runpytest("cases")
    result.assert_outcomes(errors=1)
    assert "compares with 'reference', which this case lacks" in result.stdout.str()


def test_skip_and_xfail_fields(pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]) -> None:
    text = (demo_suite / "demo.eval.yaml").read_text()
    text = text.replace("    reference: refs/first.png\n", "    reference: refs/first.png\n    skip: not ready\n")
    text = text.replace(
        "    reference: refs/third.png\n",
        "    reference: refs/third.png\n    xfail: known colour drift\n"
        "    graders:\n      - use: image\n        options: {width: 10}\n",
    )
    (demo_suite / "demo.eval.yaml").write_text(text)
    result = pytester.runpytest("cases", "-rsx", *xdist_args)
    result.assert_outcomes(passed=1, skipped=1, xfailed=1)
    result.stdout.fnmatch_lines(["*not ready*", "*known colour drift*"])


def test_record_metric_from_a_plain_python_test(pytester: pytest.Pytester, xdist_args: list[str]) -> None:
    pytester.makepyfile(
        test_scores="""
        import numpy as np
        import pytest

        @pytest.mark.parametrize("x", [0.5, 0.7, 0.9])
        def test_score(record_metric, x):
            record_metric("accuracy", np.float64(x), reason="from numpy")

        def test_bad_value(record_metric):
            record_metric("accuracy", float("nan"))
        """
    )
    result = pytester.runpytest("test_scores.py", "--eval-results=r.json", *xdist_args)
    result.assert_outcomes(passed=3, failed=1)
    assert "MetricError: metric 'accuracy' must be finite" in result.stdout.str()
    suite = read_json(pytester.path / "r.json")["aggregates"]["suites"]["test_scores"]
    assert suite["metrics"]["accuracy"]["n"] == 3
    assert suite["metrics"]["accuracy"]["mean"] == pytest.approx(0.7)
    assert suite["failed"] == 1


def test_model_params_from_cli_override_case_params(pytester: pytest.Pytester, demo_suite: Path) -> None:
    result = pytester.runpytest(
        "cases", "--eval-output-dir=out", "--eval-run-id=r", "--model-param=quality=high", "--model-param", "n=2"
    )
    result.assert_outcomes(passed=3)
    provenance = read_json(pytester.path / "out" / "r" / "reference" / "demo" / "first" / "provenance.json")
    assert provenance["params"] == {"quality": "high", "n": 2}


def test_a_cases_test_runs_in_turn_with_the_case_threads_and_a_plain_test_does_not(
    pytester: pytest.Pytester, demo_suite: Path
) -> None:
    """calls/turn.py: pytest's thread holds the turn through a case's test (not while it waits for the outcome)."""
    pytester.makeconftest(
        """
        import json
        from pytest_visioneval.calls.turn import holds_turn

        def pytest_runtest_call(item):
            with open("in_turn.jsonl", "a") as out:
                out.write(json.dumps([item.name, holds_turn()]) + "\\n")
        """
    )
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest("cases", "test_plain.py", "--eval-concurrency=2")
    result.assert_outcomes(passed=4)
    lines = (pytester.path / "in_turn.jsonl").read_text().splitlines()
    seen = dict(tuple(json.loads(line)) for line in lines)
    assert seen == {"demo/first": True, "demo/second": True, "demo/third": True, "test_plain": False}
