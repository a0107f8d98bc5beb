"""The ``visioneval scores`` section of the terminal summary."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from ..protocols.scoring import describe
from ..results.baseline import Delta, format_value
from ..results.statistics import DEFAULT_CONFIDENCE
from ..results.thresholds import ThresholdResult
from ..results.verdict import Verdict

Row = tuple[str, ...]
COMPACT_METRICS = 6  # metrics shown on a protocol's or tag's line


def table(rows: Sequence[Row], indent: str = "  ") -> list[str]:
    """Left-aligned columns, first row is the header."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _pct_range(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f"[{100 * low:.1f}, {100 * high:.1f}]"


def _rate(summary: Mapping[str, Any]) -> str:
    """A group's case pass rate and its interval, in percent: ``66.7% [20.8, 93.9]``."""
    interval = _pct_range(summary.get("pass_rate_ci_low"), summary.get("pass_rate_ci_high"))
    return " ".join(filter(None, (_pct(summary["pass_rate"]), interval)))


def _level(confidence: float) -> str:
    return f"{100 * confidence:g}%"


def counts_line(summary: Mapping[str, Any]) -> str:
    parts = [
        f"{summary['cases']} cases",
        f"{summary['passed']} passed",
        f"{summary['failed']} failed",
        f"{summary['errors']} errors",
    ]
    parts += [f"{summary[k]} {k}" for k in ("skipped", "xfailed", "xpassed", "flaky") if summary.get(k)]
    return ", ".join(parts) + f"; pass rate {_rate(summary)}"


def group_lines(
    title: str, summary: Mapping[str, Any], detailed: bool, indent: str = "", confidence: float = DEFAULT_CONFIDENCE
) -> list[str]:
    """A group's counts; ``detailed``: its gate and metric tables too, with intervals at ``confidence``."""
    lines = [f"{indent}{title}: {counts_line(summary)}"]
    if detailed:
        for what, count in summary.get("skipped_graders", {}).items():
            lines.append(f"{indent}  not graded in {count} case(s): {what}")
    if detailed and summary["gates"]:
        rows: list[Row] = [("gate", "passed", "pass rate", f"{_level(confidence)} CI")]
        rows += [
            (name, f"{g['passed']}/{g['evaluated']}", _pct(g["pass_rate"]), _pct_range(g.get("ci_low"), g.get("ci_high")))
            for name, g in summary["gates"].items()
        ]
        lines += table(rows)
    if summary["metrics"]:
        if detailed:
            rows = [("metric", "mean", f"{_level(confidence)} CI", "std", "min", "max", "n")]
            rows += [
                (name, f"{m['mean']:.4f}", _range(m), f"{m['std']:.4f}", f"{m['min']:.4f}", f"{m['max']:.4f}", str(m["n"]))
                for name, m in summary["metrics"].items()
            ]
            lines += table(rows)
        else:
            shown = list(summary["metrics"].items())[:COMPACT_METRICS]
            more = len(summary["metrics"]) - len(shown)
            text = ", ".join(f"{name} {m['mean']:.4f}±{m['std']:.4f}" for name, m in shown)
            lines.append(indent + "    " + text + (f" (+{more} more in the results JSON)" if more > 0 else ""))
    return lines


def _range(stats: Mapping[str, Any], digits: str = ".4f") -> str:
    """A mean's interval, ``[low, high]``; empty for numbers recorded without one."""
    if stats.get("ci_low") is None or stats.get("ci_high") is None:
        return ""
    return f"[{stats['ci_low']:{digits}}, {stats['ci_high']:{digits}}]"


def render(
    aggregates: Mapping[str, Any],
    verdict: Verdict,
    *,
    with_verdict: bool = True,
    models: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[str]:
    """Every suite's gates and metrics, then per protocol and tag; with several ``models``, all of it per model."""
    lines: list[str] = []
    for label, section in (models or {}).items():
        lines += [f"model {label}", *("  " + line if line else line for line in _groups(section["aggregates"])), ""]
    if not models:
        lines += _groups(aggregates)
    lines += threshold_lines(verdict)
    if with_verdict:
        lines.append("")
        lines.append(verdict_line(verdict))
    return lines


def _groups(aggregates: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    for name, summary in aggregates["suites"].items():
        lines += group_lines(f"suite {name}", summary, detailed=True, confidence=aggregates.get("confidence", DEFAULT_CONFIDENCE))
    if aggregates["protocols"]:
        lines.append("")
        lines.append("by protocol")
        for name, summary in aggregates["protocols"].items():
            lines += group_lines(name, summary, detailed=False, indent="  ")
    if aggregates["tags"]:
        lines.append("")
        lines.append("by tag")
        for name, summary in aggregates["tags"].items():
            lines += group_lines(name, summary, detailed=False, indent="  ")
    return lines


def usage_lines(usage: Mapping[str, Any]) -> list[str]:
    """API calls per kind: made, cached, retried; tokens, images and cost."""
    lines = ["API usage"]
    for kind, v in [*usage["kinds"].items(), ("total", usage["total"])]:
        cost = f"${v['cost']:.4f}" if not v["unpriced"] else f"${v['cost']:.4f} + unpriced ({', '.join(v['unpriced'])})"
        lines.append(
            f"  {kind}: {v['calls']} calls ({v.get('failed', 0)} failed{_batched(v)}), "
            f"{v['cached']} cached, {v['retries']} retries; "
            f"{v['input_tokens']} input / {v['output_tokens']} output tokens, {v['images']} images; "
            f"{v['seconds']:.1f} s in requests; cost {cost}"
        )
    return lines


def _batched(v: Mapping[str, Any]) -> str:
    if not v.get("batched"):
        return ""
    failed = f", {v['batch_failed']} of them failed" if v.get("batch_failed") else ""
    return f"; {v['batched']} in provider batches at batch prices{failed}"


def benchmark_lines(benchmarks: Mapping[str, Any]) -> list[str]:
    """Per protocol: how its numbers were formed, its scores overall, then per group value."""
    lines = ["benchmark scores"]
    for protocol, result in benchmarks.items():
        lines.append(f"  {protocol}: {describe(result)}")
        names = list(result["scores"])
        if not names:
            continue
        rows: list[Row] = [("", *names)]
        rows.append(("all", *(_score(result["scores"][n]) for n in names)))
        for field, values in result["groups"].items():
            for value, scores in values.items():
                rows.append((f"{field}={value}", *(_score(scores.get(n)) for n in names)))
        lines += table(rows, indent="    ")
    return lines


def _score(stats: Mapping[str, Any] | None) -> str:
    """A benchmark score: ``mean [low, high] (n=N)``."""
    if not stats:
        return "-"
    return " ".join(filter(None, (f"{stats['mean']:.4g}", _range(stats, ".3g"), f"(n={stats['n']})")))


def incomplete_lines(incomplete: Mapping[str, Any], expected: int, shown: int = 5) -> list[str]:
    """A run that did not run all its cases says so first: its numbers are over the cases that ran."""
    not_run = incomplete["not_run"]
    lines = [f"INCOMPLETE run: {incomplete['reason']}; {len(not_run)} of {expected} case(s) did not run"]
    if not_run:
        lines.append(
            "  not run: " + ", ".join(not_run[:shown]) + (f" (+{len(not_run) - shown} more)" if len(not_run) > shown else "")
        )
    lines.append("  the scores below are over the cases that ran; the results JSON lists every case not run")
    return lines


def not_evaluated_lines(section: Mapping[str, Any], shown: int = 5) -> list[str]:
    """Cases not evaluated yet (batches) or at all (budget): not passes, not errors; the summary says which."""
    lines = [section["summary"]]
    for reason in sorted(section["by_reason"]):
        cases = [c for c in section["cases"] if c["reason"] == reason]
        names = ", ".join(c["uid"] + (f"[{c['model']}]" if c.get("model") else "") for c in cases[:shown])
        more = f" (+{len(cases) - shown} more)" if len(cases) > shown else ""
        lines.append(f"  {reason}: {names}{more}")
    lines.append("  the scores below are over the evaluated cases only; thresholds and the baseline are not checked")
    return lines


def batch_and_budget_lines(batches: Mapping[str, Any] | None, budget: Mapping[str, Any] | None) -> list[str]:
    """Where the provider batches stand, and the run's cost against its budget."""
    lines: list[str] = []
    # Said while there is something to say: a batch open, requests queued, a problem (ended ones stay in the JSON).
    if batches and (batches.get("open") or batches.get("queued") or batches.get("problems")):
        open_, ended = batches.get("open", []), batches.get("ended", [])
        lines.append(
            f"provider batches ({batches['dir']}): {len(open_)} open, {len(ended)} ended, "
            f"{batches.get('queued', 0)} request(s) queued"
        )
        for batch in open_:
            counts = batch.get("counts") or {}
            done = int(counts.get("completed", 0)) + int(counts.get("failed", 0))
            lines.append(f"  {batch['id']}: {batch['status']}, {done}/{batch['requests']} done ({', '.join(batch['kinds'])})")
    if budget:
        held = f", ~${budget['held']:.4f} held (in flight or committed to batches)" if budget.get("held") else ""
        stop = f"; reached: {budget['refused']} call(s) refused" if budget.get("exhausted") else ""
        lines.append(f"budget ${budget['limit']:.4f}: ${budget['spent']:.4f} spent{held}{stop}")
    return [""] + lines if lines else []


def threshold_lines(verdict: Verdict) -> list[str]:
    """Every threshold checked, PASS, FAIL or INCONCLUSIVE, with where it was set."""
    if not verdict.thresholds:
        return []
    return ["", "thresholds", *(_threshold_line(result) for result in verdict.thresholds)]


_STATUS_WORDS = {"met": "PASS", "missed": "FAIL", "inconclusive": "INCONCLUSIVE"}


def _threshold_line(result: ThresholdResult) -> str:
    # One line each, whole even past the terminal's width: it is what a user greps for and copies.
    return f"  {_STATUS_WORDS[result.status]} {result.message}  [{result.threshold.source}]"


def _threshold_counts(verdict: Verdict) -> dict[str, int]:
    return {status: sum(1 for t in verdict.thresholds if t.status == status) for status in _STATUS_WORDS}


REASON_WIDTH = 120  # each reason on the exit-status line; the whole reason is printed above it


def verdict_line(verdict: Verdict) -> str:
    """One line: the exit status and why, each reason cut short (:func:`reason_lines` has them whole)."""
    if verdict.exit_status == 0:
        counts = _threshold_counts(verdict)
        met = f", {counts['met']} threshold(s) met" if verdict.thresholds else ""
        inconclusive = f", {counts['inconclusive']} inconclusive" if counts["inconclusive"] else ""
        warned = f"; {len(verdict.warnings)} warning(s) above" if verdict.warnings else ""
        return f"visioneval: exit status 0 (all gates passed{met}{inconclusive}{warned})"
    return f"visioneval: exit status {verdict.exit_status}: " + " | ".join(_cut(r, REASON_WIDTH) for r in verdict.reasons)


def reason_lines(verdict: Verdict, width: int) -> list[str]:
    """The warnings, and the reasons the exit-status line had to cut, whole (wrapped at ``width``)."""
    lines = [f"WARNING {warning}" for warning in verdict.warnings]
    if verdict.exit_status != 0:
        lines += [f"why: {reason}" for reason in verdict.reasons if len(reason) > REASON_WIDTH]
    return [wrapped for line in lines for wrapped in textwrap.wrap(line, width, subsequent_indent="    ")]


def compact_lines(
    aggregates: Mapping[str, Any],
    benchmarks: Mapping[str, Any],
    width: int,
    models: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[str]:
    """A handful of lines per run: one row per suite, one per protocol; the rest is in -v and the results JSON.

    With several ``models`` (label -> that model's aggregates and benchmarks), each suite and each
    protocol has one row per model, next to each other.
    """
    overall = aggregates["overall"]
    # Columns for the other outcomes only when some case has them (skipped, xfailed, flaky repeats...).
    counts = ["cases", "passed", "failed", "errors", *(k for k in ("skipped", "xfailed", "xpassed", "flaky") if overall.get(k))]
    per_model = list((models or {}).items()) or [("", {"aggregates": aggregates, "benchmarks": benchmarks})]
    model_column = ("model",) if models else ()
    rows: list[Row] = [("suite", *model_column, *counts, "pass rate", "failed gates")]
    suites = sorted({suite for _, section in per_model for suite in section["aggregates"]["suites"]})
    for suite in suites:
        for label, section in per_model:
            summary = section["aggregates"]["suites"].get(suite)
            if summary is not None:
                named = (label,) if models else ()
                rows.append((suite, *named, *(str(summary.get(k, 0)) for k in counts), _rate(summary), _failed_gates(summary)))
    if len(suites) > 1:
        for label, section in per_model:
            total = section["aggregates"]["overall"]
            rows.append(("all", *((label,) if models else ()), *(str(total.get(k, 0)) for k in counts), _rate(total), ""))
    lines = [_cut(line, width) for line in table(rows, indent="")]
    skipped = overall.get("skipped_graders", {})
    if skipped:
        graders = sorted({what.partition(":")[0] for what in skipped})
        lines.append(_cut(f"not graded ({sum(skipped.values())} grader-case(s), -v says why): {', '.join(graders)}", width))
    if any(section["benchmarks"] for _, section in per_model):
        lines.append("")
        rows = [("benchmark", *model_column, "compat", "in means", "scores")]
        protocols = sorted({protocol for _, section in per_model for protocol in section["benchmarks"]})
        for protocol in protocols:
            for label, section in per_model:
                result = section["benchmarks"].get(protocol)
                if result is None:
                    continue
                headline = result.get("headline") or {}
                scores = "  ".join(f"{n} {v:.4g}" for n, v in headline.items()) or _why_no_scores(result)
                named = (label,) if models else ()
                rows.append((protocol, *named, result.get("compat", "official"), f"{result['scored']}/{result['cases']}", scores))
        lines += [_cut(line, width) for line in table(rows, indent="")]
    lines.append(_cut("(per gate, metric, protocol group and tag: -v or --eval-summary=full, and the results JSON)", width))
    if models and len(models) > 1:
        lines.append(_cut("(differences with intervals: python -m pytest_visioneval compare RESULTS.json)", width))
    return lines


def _failed_gates(summary: Mapping[str, Any], shown: int = 2) -> str:
    failing = sorted(
        ((g["evaluated"] - g["passed"], name) for name, g in summary.get("gates", {}).items() if g["passed"] < g["evaluated"]),
        key=lambda item: (-item[0], item[1]),
    )
    text = ", ".join(f"{name} ({count})" for count, name in failing[:shown])
    return text + (f" +{len(failing) - shown} more" if len(failing) > shown else "") if failing else "-"


def _why_no_scores(result: Mapping[str, Any]) -> str:
    return "- (a grader was skipped: no --judge?)" if result.get("unscored") else "-"


def compact_threshold_lines(verdict: Verdict, listed: int = 8) -> list[str]:
    """Every threshold when there are a few; else the missed and inconclusive ones, with the met ones counted."""
    if not verdict.thresholds:
        return []
    counts = _threshold_counts(verdict)
    unmet = tuple(t for t in verdict.thresholds if t.status != "met")
    shown = verdict.thresholds if len(verdict.thresholds) <= listed else unmet
    lines = ["", f"thresholds: {counts['met']} met, {counts['inconclusive']} inconclusive, {counts['missed']} missed"]
    return lines + [_threshold_line(result) for result in shown]


def mutation_lines(summary: Mapping[str, Any], width: int = 100) -> list[str]:
    """The mutation self-test: one row per suite, then each missed mutant and each brittle gate."""
    suites = summary.get("suites", {})
    if not suites:
        return []
    lines = ["mutation self-test (the known-good output of each case and its mutants; deterministic gates only)"]
    rows: list[tuple[str, ...]] = [("suite", "cases", "broken caught", "score", "legitimate passed")]
    for name, s in suites.items():
        score = "-" if s["score"] is None else f"{100 * s['score']:.1f}%"
        rows.append((name, str(s["cases"]), f"{s['caught']}/{s['broken']}", score, f"{s['legitimate_passed']}/{s['legitimate']}"))
    lines += table(rows)
    for name, s in suites.items():
        lines += [_cut(f"  {name}: known-good output fails its own gates: {uid}", width) for uid in s["baselines_failed"]]
        lines += [_cut(f"  MISSED {m['case']}: {m['mutant']} ({m['description']})", width) for m in s["missed"]]
        lines += [_cut(f"  BRITTLE {b['case']}: {b['mutant']} failed {b['failed']}", width) for b in s["brittle"]]
    return lines


def _cut(line: str, width: int) -> str:
    return line if len(line) <= width else line[: width - 1] + "\u2026"


def delta_lines(deltas: list[Delta], *, only_changes: bool = False) -> list[str]:
    several = any(d.model is not None for d in deltas)  # a run of several models: whose value each is
    rows: list[tuple[str, ...]] = [
        ("suite", *(("model",) if several else ()), "name", "before", "after", "change", "tolerance", "")
    ]
    for d in deltas:
        if only_changes and d.verdict == "same":
            continue
        change = "-" if d.change is None else f"{d.change:+.4g}"
        model = (d.model or "",) if several else ()
        rows.append(
            (d.suite, *model, d.name, format_value(d.before), format_value(d.after), change, f"{d.tolerance:g}", d.verdict)
        )
    return table(rows) if len(rows) > 1 else ["  no differences"]


def agreement_lines(agreement: Mapping[str, Any], width: int = 100) -> list[str]:
    """The judges against the people's labels (--eval-labels): one line per labelled name."""
    lines = [f"judges against the labels in {agreement['labels']}"]
    if agreement.get("error"):
        return [*lines, _cut(f"  cannot use them: {agreement['error']}", width)]
    for row in agreement["agreement"]:
        stats = "; ".join(f"{name} {_estimate(e)}" for name, e in row["stats"].items())
        raters = f", {row['raters']} raters" if row["raters"] > 1 else ""
        lines.append(_cut(f"  {row['name']} ({row['kind']}, n={row['n']}{raters}): {stats}", width))
        if row.get("ceiling"):
            ceiling = "; ".join(f"{name} {e['value']:.3f}" for name, e in row["ceiling"].items() if e["value"] is not None)
            lines.append(_cut(f"    people among themselves (the ceiling): {ceiling}", width))
    lines += [_cut(f"  BELOW FLOOR {line}", width) for line in agreement["below_floor"]]
    return lines


def _estimate(estimate: Mapping[str, Any]) -> str:
    if estimate.get("value") is None:
        return "-"
    if estimate.get("low") is None or estimate.get("high") is None:
        return f"{estimate['value']:.3f}"
    return f"{estimate['value']:.3f} [{estimate['low']:.3f}, {estimate['high']:.3f}]"
