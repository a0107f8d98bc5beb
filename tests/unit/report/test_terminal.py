"""report/terminal.py: the 'visioneval scores' summary lines."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_visioneval.cases.spec import Threshold
from pytest_visioneval.report.terminal import (
    benchmark_lines,
    compact_lines,
    compact_threshold_lines,
    counts_line,
    group_lines,
    render,
    table,
    verdict_line,
    verdict_lines,
    warning_lines,
)
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
        [Threshold("ui", "sim.score", min=0.5, source="ui.eval.yaml:4")],
        [Threshold("ui", "image.decodes", min=0.9, source="--eval-fail-under")],
        aggregates,
    )
    verdict = decide(1, results, aggregates["overall"])
    lines = render(aggregates, verdict)

    assert lines[0] == "suite ui: 3 cases, 1 passed, 1 failed, 0 errors, 1 skipped; pass rate 50.0% [9.5, 90.5]"
    assert "thresholds" in lines
    threshold_lines = lines[lines.index("thresholds") + 1 : lines.index("thresholds") + 3]
    assert threshold_lines == [
        "  PASS ui.sim.score: mean 0.7 >= 0.5  [ui.eval.yaml:4]",
        "  FAIL ui.image.decodes: pass rate 0.333333 < 0.9 (short by 0.567)  [--eval-fail-under]",
    ]
    assert lines[-2] == ""
    assert lines[-1].startswith("visioneval: exit status 1: ")
    assert "1 case(s) failed a gate or assertion" in lines[-1]
    assert "1 threshold(s) missed: ui.image.decodes" in lines[-1]


def test_render_detailed_suite_tables(aggregates: dict[str, Any]) -> None:
    lines = render(aggregates, Verdict())
    assert "  gate           passed  pass rate  95% CI" in lines
    assert "  image.decodes  1/3     33.3%      [6.1, 79.2]" in lines  # Wilson, 1 of 3
    assert "  metric     mean    95% CI            std     min     max     n" in lines
    assert "  sim.score  0.7000  [0.5000, 0.9000]  0.1633  0.5000  0.9000  3" in lines


def test_render_names_the_level_of_the_intervals() -> None:
    aggregates = aggregate([record("ui/a", "passed", 0.9), record("ui/b", "failed", 0.5)], confidence=0.9)
    lines = render(aggregates, Verdict())
    assert lines[1].split()[-2:] == ["90%", "CI"] and lines[3].split()[2:4] == ["90%", "CI"]


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


# -- intervals and inconclusive thresholds --

SPREAD = [1.0, 1.0, 1.0, 1.0, 1.0, 0.6]  # mean 0.9333, bootstrap interval [0.8, 1.0]


@pytest.fixture
def spread() -> dict[str, Any]:
    return aggregate([record(f"ui/{i}", "passed" if v == 1.0 else "failed", v) for i, v in enumerate(SPREAD)])


def test_an_inconclusive_threshold_is_printed_as_such(spread: dict[str, Any]) -> None:
    thresholds = [
        Threshold("ui", "sim.score", min=0.9, source="ui.eval.yaml:4"),
        Threshold("ui", "sim.score", min=0.5, source="ui.eval.yaml:5"),
        Threshold("ui", "sim.score", min=0.99, source="--eval-fail-under"),
    ]
    verdict = decide(0, evaluate_thresholds(thresholds, [], spread), spread["overall"])
    lines = render(spread, verdict, with_verdict=False)
    start = lines.index("thresholds") + 1
    assert lines[start] == (
        "  INCONCLUSIVE ui.sim.score: mean 0.933333 >= 0.9 but its 95% interval [0.8, 1] reaches below 0.9 "
        "(inconclusive)  [ui.eval.yaml:4]"
    )
    assert lines[start + 1].startswith("  PASS ") and lines[start + 2].startswith("  FAIL ")
    assert compact_threshold_lines(verdict)[1] == "thresholds: 1 met, 1 inconclusive, 1 missed"


def test_many_thresholds_list_only_the_unmet_ones(spread: dict[str, Any]) -> None:
    bounds = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.9)  # 0.9 lies inside [0.8, 1.0]
    thresholds = [Threshold("ui", "sim.score", min=bound, source="f:1") for bound in bounds]
    verdict = decide(0, evaluate_thresholds(thresholds, [], spread), spread["overall"])
    lines = compact_threshold_lines(verdict)
    assert lines[1] == "thresholds: 8 met, 1 inconclusive, 0 missed"
    assert [line.split()[0] for line in lines[2:]] == ["INCONCLUSIVE"]


def test_the_green_verdict_line_counts_inconclusive_thresholds(spread: dict[str, Any]) -> None:
    thresholds = [Threshold("ui", "sim.score", min=0.9, source="f:1"), Threshold("ui", "sim.score", min=0.5, source="f:2")]
    verdict = decide(0, evaluate_thresholds(thresholds, [], spread), {})
    assert verdict_line(verdict) == "visioneval: exit status 0 (all gates passed, 1 threshold(s) met, 1 inconclusive)"


def test_the_compact_pass_rate_cell_carries_its_interval_within_the_width() -> None:
    aggregates = aggregate([record("ui/a", "passed", 0.9), record("ui/b", "passed", 0.8), record("ui/c", "failed", 0.1)])
    lines = compact_lines(aggregates, {}, width=60)
    assert lines[0].split()[:7] == ["suite", "cases", "passed", "failed", "errors", "pass", "rate"]
    assert lines[1].split()[:8] == ["ui", "3", "2", "1", "0", "66.7%", "[20.8,", "93.9]"]  # Wilson, 2 of 3
    assert all(len(line) <= 60 for line in lines)
    assert any(len(line) > 60 for line in compact_lines(aggregates, {}, width=200))  # the cut did something


def test_benchmark_scores_print_their_interval() -> None:
    stats = {"mean": 0.75, "n": 4, "ci_low": 0.5, "ci_high": 0.9375}
    result = {"compat": "official", "cases": 4, "scored": 4, "errored": [], "scores": {"accuracy": stats}, "groups": {}}
    lines = benchmark_lines({"bizgeneval": result})
    assert lines[-1].split() == ["all", "0.75", "[0.5,", "0.938]", "(n=4)"]
    del stats["ci_low"], stats["ci_high"]  # scores recorded before intervals
    assert benchmark_lines({"bizgeneval": result})[-1].split() == ["all", "0.75", "(n=4)"]


# -- fitting the width: wrapped or laid out narrower, never cut --


def _gates_record(uid: str, failed: tuple[str, ...], gating: bool = True) -> dict[str, Any]:
    names = ("image.decodes", "image.size", "ocr.text_present", "locality.preserved")
    return {
        "uid": uid,
        "suite": uid.split("/")[0],
        "protocol": "cookbook",
        "status": "failed" if failed else "passed",
        "tags": [],
        "metrics": [],
        "gates": [{"name": n, "passed": n not in failed, "gating": gating} for n in names],
    }


@pytest.fixture
def failing() -> dict[str, Any]:
    return aggregate(
        [
            _gates_record("checkout-buttons/a", ("ocr.text_present", "image.size")),
            _gates_record("checkout-buttons/b", ("ocr.text_present",)),
            _gates_record("logo-edits/c", ("locality.preserved",)),
        ]
    )


def test_the_suites_table_keeps_its_failed_gates_column_when_it_fits(failing: dict[str, Any]) -> None:
    lines = compact_lines(failing, {}, width=200)
    assert lines[0].split()[-2:] == ["failed", "gates"]
    assert lines[1].endswith("ocr.text_present (2), image.size (1)")
    assert lines[2].endswith("locality.preserved (1)")


def test_too_narrow_for_the_column_the_failed_gates_go_below_the_table(failing: dict[str, Any]) -> None:
    lines = compact_lines(failing, {}, width=80)
    assert lines[0].split()[-2:] == ["pass", "rate"]
    assert "failed gates in checkout-buttons: ocr.text_present (2), image.size (1)" in lines
    assert "failed gates in logo-edits: locality.preserved (1)" in lines
    assert all(len(line) <= 80 and "\u2026" not in line and "..." not in line for line in lines)


def test_too_narrow_for_the_table_each_suite_is_one_wrapped_entry(failing: dict[str, Any]) -> None:
    lines = compact_lines(failing, {}, width=50)
    assert all(len(line) <= 50 for line in lines)
    text = " ".join(line.strip() for line in lines)
    assert (
        "checkout-buttons: 2 cases, 0 passed, 2 failed, 0 errors; pass rate 0.0% [0.0, 65.8]; "
        "failed gates: ocr.text_present (2), image.size (1)"
    ) in text
    assert "all: 3 cases, 0 passed, 3 failed, 0 errors; pass rate 0.0% [0.0, 56.1]" in text


def test_a_gate_that_decides_no_case_is_marked_among_the_failed_ones() -> None:
    aggregates = aggregate([_gates_record("s/a", ("image.size",), gating=False), _gates_record("s/b", ("ocr.text_present",))])
    row = compact_lines(aggregates, {}, width=200, not_gating={"image.size"})[1]
    assert row.endswith("ocr.text_present (1), image.size (1, not gating)")


def test_the_exit_status_names_missed_thresholds_and_wraps_whole(spread: dict[str, Any]) -> None:
    thresholds = [
        Threshold("ui", "sim.score", min=0.99, source="--eval-fail-under"),
        Threshold("ui", "image.decodes", min=1.0, source="f:2"),
    ]
    verdict = decide(0, evaluate_thresholds(thresholds, [], spread), {})
    assert verdict_line(verdict) == (
        "visioneval: exit status 1: 2 threshold(s) missed: ui.sim.score: mean 0.933333 < 0.99 (short by 0.0567); "
        "ui.image.decodes: pass rate 0.833333 < 1 (short by 0.167)"
    )  # every reason whole, for a reader without the thresholds' lines (the merge command)
    named = verdict_lines(verdict, 60)
    assert named == ["visioneval: exit status 1: 2 threshold(s) missed:", "    ui.sim.score, ui.image.decodes"]
    # A reason that is not what decide() wrote for these thresholds is kept whole.
    other = Verdict(verdict.thresholds, 1, ("1 threshold(s) missed: written elsewhere",))
    assert verdict_lines(other, 200) == ["visioneval: exit status 1: 1 threshold(s) missed: written elsewhere"]


def test_threshold_lines_wrap_with_their_source_last(spread: dict[str, Any]) -> None:
    verdict = decide(
        0, evaluate_thresholds([Threshold("ui", "sim.score", min=0.9, source="cases/ui.eval.yaml:4")], [], spread), {}
    )
    lines = compact_threshold_lines(verdict, width=80)
    assert lines[2:] == [
        "  INCONCLUSIVE ui.sim.score: mean 0.933333 >= 0.9 but its 95% interval [0.8, 1]",
        "      reaches below 0.9 (inconclusive)  [cases/ui.eval.yaml:4]",
    ]


def test_warnings_are_wrapped_not_cut() -> None:
    lines = warning_lines(Verdict(warnings=("no --judge: " + "judge graders did not run " * 6,)), 80)
    assert len(lines) == 3 and all(len(line) <= 80 for line in lines) and lines[1].startswith("    ")
