"""report/terminal.py: the 'visioneval scores' summary lines."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_visioneval.cases.spec import Threshold
from pytest_visioneval.report.terminal import counts_line, group_lines, render, table, verdict_line
from pytest_visioneval.results.aggregate import aggregate
from pytest_visioneval.results.thresholds import evaluate_thresholds
from pytest_visioneval.results.verdict import Verdict, decide


def record(uid: str, status: str, score: float, tags: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "uid": uid,
        "suite": uid.split("/")[0],
        "protocol": "cookbook",
        "status": status,
        "tags": list(tags),
        "metrics": [{"name": "sim.score", "value": score}],
        "gates": [{"name": "image.decodes", "passed": status == "passed"}],
    }


@pytest.fixture
def aggregates() -> dict[str, Any]:
    return aggregate([record("ui/a", "passed", 0.9, ("mobile",)), record("ui/b", "failed", 0.5), record("ui/c", "skipped", 0.7)])


def test_render_shows_pass_and_fail_threshold_lines_and_the_verdict(aggregates: dict[str, Any]) -> None:
    results = evaluate_thresholds(
        [Threshold("ui", "sim.score", min=0.6, source="ui.eval.yaml:4")],
        [Threshold("ui", "image.decodes", min=0.9, source="--eval-fail-under")],
        aggregates,
    )
    verdict = decide(1, results, aggregates["overall"])
    lines = render(aggregates, verdict)

    assert lines[0] == "suite ui: 3 cases, 1 passed, 1 failed, 0 errors, 1 skipped; pass rate 50.0%"
    assert "thresholds" in lines
    threshold_lines = lines[lines.index("thresholds") + 1 : lines.index("thresholds") + 3]
    assert threshold_lines == [
        "  PASS ui.sim.score: mean 0.7 >= 0.6  [ui.eval.yaml:4]",
        "  FAIL ui.image.decodes: pass rate 0.333333 < 0.9 (short by 0.567)  [--eval-fail-under]",
    ]
    assert lines[-2] == ""
    assert lines[-1].startswith("visioneval: exit status 1: ")
    assert "1 case(s) failed a gate or assertion" in lines[-1]
    assert "1 threshold(s) missed: ui.image.decodes" in lines[-1]


def test_render_detailed_suite_tables(aggregates: dict[str, Any]) -> None:
    lines = render(aggregates, Verdict())
    assert "  gate           passed  pass rate" in lines
    assert "  image.decodes  1/3     33.3%" in lines
    assert any(line.split() == ["sim.score", "0.7000", "0.1633", "0.5000", "0.9000", "3"] for line in lines)


def test_render_groups_by_protocol_and_tag(aggregates: dict[str, Any]) -> None:
    lines = render(aggregates, Verdict())
    assert lines[lines.index("by protocol") + 1].startswith("  cookbook: 3 cases")
    assert lines[lines.index("by tag") + 1].startswith("  mobile: 1 cases, 1 passed")
    assert "      sim.score 0.9000±0.0000" in lines


def test_render_green_run(aggregates: dict[str, Any]) -> None:
    results = evaluate_thresholds([Threshold("ui", "sim.score", min=0.1, source="f:1")], [], aggregates)
    lines = render(aggregates, decide(0, results, {}))
    assert lines[-1] == "visioneval: exit status 0 (all gates passed, 1 threshold(s) met)"
    assert not any(line.lstrip().startswith("FAIL") for line in lines)


def test_render_without_thresholds_has_no_threshold_section(aggregates: dict[str, Any]) -> None:
    lines = render(aggregates, Verdict())
    assert "thresholds" not in lines
    assert lines[-1] == "visioneval: exit status 0 (all gates passed)"


def test_verdict_line_for_a_failure() -> None:
    assert verdict_line(Verdict((), 2, ("a", "b"))) == "visioneval: exit status 2: a | b"


def test_counts_line_shows_optional_statuses_only_when_present() -> None:
    summary: dict[str, Any] = {
        "cases": 2,
        "passed": 1,
        "failed": 0,
        "errors": 1,
        "skipped": 0,
        "xfailed": 0,
        "xpassed": 0,
        "pass_rate": 0.5,
    }
    assert counts_line(summary) == "2 cases, 1 passed, 0 failed, 1 errors; pass rate 50.0%"
    summary.update(xfailed=2, pass_rate=None)
    assert counts_line(summary) == "2 cases, 1 passed, 0 failed, 1 errors, 2 xfailed; pass rate -"


def test_group_lines_without_metrics() -> None:
    summary = {
        "cases": 1,
        "passed": 1,
        "failed": 0,
        "errors": 0,
        "skipped": 0,
        "xfailed": 0,
        "xpassed": 0,
        "pass_rate": 1.0,
        "gates": {},
        "metrics": {},
    }
    assert group_lines("suite s", summary, detailed=True) == ["suite s: 1 cases, 1 passed, 0 failed, 0 errors; pass rate 100.0%"]


def test_table_aligns_columns() -> None:
    assert table([("a", "bb"), ("ccc", "d")]) == ["  a    bb", "  ccc  d"]


def test_compact_lines_show_a_few_metrics_and_count_the_rest() -> None:
    from pytest_visioneval.report.terminal import COMPACT_METRICS, group_lines

    metrics = {f"m{i}": {"n": 1, "mean": 0.5, "std": 0.0, "min": 0.5, "max": 0.5} for i in range(COMPACT_METRICS + 3)}
    summary = {
        "cases": 1, "passed": 1, "failed": 0, "errors": 0, "skipped": 0, "xfailed": 0, "xpassed": 0,
        "pass_rate": 1.0, "gates": {}, "metrics": metrics,
    }  # fmt: skip
    line = group_lines("tag", summary, detailed=False, indent="  ")[1]
    assert line.count("±") == COMPACT_METRICS and line.endswith("(+3 more in the results JSON)")
