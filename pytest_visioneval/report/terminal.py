"""The ``visioneval scores`` section of the terminal summary.

Every function that takes a ``width`` fits its lines to it without cutting anything
(:mod:`.view_text`): tables too wide become one entry per row, long lines wrap.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ..protocols.scoring import describe
from ..results.baseline import Delta, format_value
from ..results.statistics import DEFAULT_CONFIDENCE
from ..results.thresholds import ThresholdResult
from ..results.verdict import Verdict
from .view_text import fit_lines, fit_table, fits, left_table, wrap_line

Row = tuple[str, ...]
COMPACT_METRICS = 6  # metrics shown on a protocol's or tag's line


def table(rows: Sequence[Row], indent: str = "  ") -> list[str]:
    """Left-aligned columns, first row is the header."""
    return left_table(rows, indent)


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
    title: str,
    summary: Mapping[str, Any],
    detailed: bool,
    indent: str = "",
    confidence: float = DEFAULT_CONFIDENCE,
    width: int | None = None,
) -> list[str]:
    """A group's counts; ``detailed``: its gate and metric tables too, with intervals at ``confidence``."""
    lines = [f"{indent}{title}: {counts_line(summary)}"]
    if detailed:
        for what, count in summary.get("skipped_graders", {}).items():
            lines.append(f"{indent}  not graded in {count} case(s): {what}")
    lines = fit_lines(lines, width)
    if detailed and summary["gates"]:
        rows: list[Row] = [("gate", "passed", "pass rate", f"{_level(confidence)} CI")]
        rows += [
            (name, f"{g['passed']}/{g['evaluated']}", _pct(g["pass_rate"]), _pct_range(g.get("ci_low"), g.get("ci_high")))
            for name, g in summary["gates"].items()
        ]
        lines += fit_table(rows, width)
    if summary["metrics"]:
        if detailed:
            rows = [("metric", "mean", f"{_level(confidence)} CI", "std", "min", "max", "n")]
            rows += [
                (name, f"{m['mean']:.4f}", _range(m), f"{m['std']:.4f}", f"{m['min']:.4f}", f"{m['max']:.4f}", str(m["n"]))
                for name, m in summary["metrics"].items()
            ]
            lines += fit_table(rows, width)
        else:
            shown = list(summary["metrics"].items())[:COMPACT_METRICS]
            more = len(summary["metrics"]) - len(shown)
            text = ", ".join(f"{name} {m['mean']:.4f}±{m['std']:.4f}" for name, m in shown)
            lines += wrap_line(indent + "    " + text + (f" (+{more} more in the results JSON)" if more > 0 else ""), width)
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
    width: int | None = None,
) -> list[str]:
    """Every suite's gates and metrics, then per protocol and tag; with several ``models``, all of it per model."""
    lines: list[str] = []
    inner = None if width is None else width - 2
    for label, section in (models or {}).items():
        lines += [f"model {label}", *("  " + line if line else line for line in _groups(section["aggregates"], inner)), ""]
    if not models:
        lines += _groups(aggregates, width)
    lines += threshold_lines(verdict, width)
    if with_verdict:
        lines.append("")
        lines += wrap_line(verdict_line(verdict), width)
    return lines


def _groups(aggregates: Mapping[str, Any], width: int | None) -> list[str]:
    lines: list[str] = []
    confidence = aggregates.get("confidence", DEFAULT_CONFIDENCE)
    for name, summary in aggregates["suites"].items():
        lines += group_lines(f"suite {name}", summary, detailed=True, confidence=confidence, width=width)
    if aggregates["protocols"]:
        lines.append("")
        lines.append("by protocol")
        for name, summary in aggregates["protocols"].items():
            lines += group_lines(name, summary, detailed=False, indent="  ", width=width)
    if aggregates["tags"]:
        lines.append("")
        lines.append("by tag")
        for name, summary in aggregates["tags"].items():
            lines += group_lines(name, summary, detailed=False, indent="  ", width=width)
    return lines


def usage_lines(usage: Mapping[str, Any], width: int | None = None) -> list[str]:
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
    return fit_lines(lines, width)


def _batched(v: Mapping[str, Any]) -> str:
    if not v.get("batched"):
        return ""
    failed = f", {v['batch_failed']} of them failed" if v.get("batch_failed") else ""
    return f"; {v['batched']} in provider batches at batch prices{failed}"


def benchmark_lines(benchmarks: Mapping[str, Any], width: int | None = None) -> list[str]:
    """Per protocol: how its numbers were formed, its scores overall, then per group value."""
    lines = ["benchmark scores"]
    for protocol, result in benchmarks.items():
        lines += wrap_line(f"  {protocol}: {describe(result)}", width)
        names = list(result["scores"])
        if not names:
            continue
        rows: list[Row] = [("", *names)]
        rows.append(("all", *(_score(result["scores"][n]) for n in names)))
        for field, values in result["groups"].items():
            for value, scores in values.items():
                rows.append((f"{field}={value}", *(_score(scores.get(n)) for n in names)))
        lines += fit_table(rows, width, indent="    ")
    return lines


def _score(stats: Mapping[str, Any] | None) -> str:
    """A benchmark score: ``mean [low, high] (n=N)``."""
    if not stats:
        return "-"
    return " ".join(filter(None, (f"{stats['mean']:.4g}", _range(stats, ".3g"), f"(n={stats['n']})")))


def incomplete_lines(incomplete: Mapping[str, Any], expected: int, shown: int = 5, width: int | None = None) -> list[str]:
    """A run that did not run all its cases says so first: its numbers are over the cases that ran."""
    not_run = incomplete["not_run"]
    lines = [f"INCOMPLETE run: {incomplete['reason']}; {len(not_run)} of {expected} case(s) did not run"]
    if not_run:
        lines.append(
            "  not run: " + ", ".join(not_run[:shown]) + (f" (+{len(not_run) - shown} more)" if len(not_run) > shown else "")
        )
    lines.append("  the scores below are over the cases that ran; the results JSON lists every case not run")
    return fit_lines(lines, width)


def not_evaluated_lines(section: Mapping[str, Any], shown: int = 5, width: int | None = None) -> list[str]:
    """Cases not evaluated yet (batches) or at all (budget): not passes, not errors; the summary says which."""
    lines = [section["summary"]]
    for reason in sorted(section["by_reason"]):
        cases = [c for c in section["cases"] if c["reason"] == reason]
        names = ", ".join(c["uid"] + (f"[{c['model']}]" if c.get("model") else "") for c in cases[:shown])
        more = f" (+{len(cases) - shown} more)" if len(cases) > shown else ""
        lines.append(f"  {reason}: {names}{more}")
    lines.append("  the scores below are over the evaluated cases only; thresholds and the baseline are not checked")
    return fit_lines(lines, width)


def batch_and_budget_lines(
    batches: Mapping[str, Any] | None, budget: Mapping[str, Any] | None, width: int | None = None
) -> list[str]:
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
    return [""] + fit_lines(lines, width) if lines else []


def threshold_lines(verdict: Verdict, width: int | None = None) -> list[str]:
    """Every threshold checked, PASS, FAIL or INCONCLUSIVE, with where it was set."""
    if not verdict.thresholds:
        return []
    return ["", "thresholds", *fit_lines((_threshold_line(result) for result in verdict.thresholds), width)]


_STATUS_WORDS = {"met": "PASS", "missed": "FAIL", "inconclusive": "INCONCLUSIVE"}


def _threshold_line(result: ThresholdResult) -> str:
    # The one place a threshold's whole message is printed: the verdict line names it only.
    return f"  {_STATUS_WORDS[result.status]} {result.message}  [{result.threshold.source}]"


def _threshold_counts(verdict: Verdict) -> dict[str, int]:
    return {status: sum(1 for t in verdict.thresholds if t.status == status) for status in _STATUS_WORDS}


def verdict_line(verdict: Verdict, *, listed_above: bool = False) -> str:
    """One line: the exit status and why, every reason whole.

    ``listed_above``: the thresholds' lines are printed above, so a failed threshold is named
    here, not told again (the reason ``2 threshold(s) missed: a.x, b.y``).
    """
    if verdict.exit_status == 0:
        counts = _threshold_counts(verdict)
        met = f", {counts['met']} threshold(s) met" if verdict.thresholds else ""
        inconclusive = f", {counts['inconclusive']} inconclusive" if counts["inconclusive"] else ""
        count = len(verdict.warnings)
        warned = f"; {count} warning{'' if count == 1 else 's'}" if count else ""  # short: the green line fits 80 columns
        return f"visioneval: exit status 0 (all gates passed{met}{inconclusive}{warned})"
    reasons = _named_reasons(verdict) if listed_above else list(verdict.reasons)
    return f"visioneval: exit status {verdict.exit_status}: " + " | ".join(reasons)


def verdict_lines(verdict: Verdict, width: int | None, *, listed_above: bool = True) -> list[str]:
    """:func:`verdict_line`, wrapped at ``width``."""
    return wrap_line(verdict_line(verdict, listed_above=listed_above), width)


def _named_reasons(verdict: Verdict) -> list[str]:
    """The verdict's reasons with each failed-threshold reason shortened to the thresholds' names.

    A reason is replaced only when it is exactly what :func:`~..results.verdict.decide` wrote
    for those thresholds; anything else stays whole.
    """
    missed = [t for t in verdict.thresholds if t.status == "missed"]
    unproven = [t for t in verdict.thresholds if t.status == "inconclusive" and not t.passed]
    short: dict[str, str] = {}
    for word, results in (("missed", missed), ("inconclusive", unproven)):
        if results:
            head = f"{len(results)} threshold(s) {word}: "
            short[head + "; ".join(t.message for t in results)] = head + ", ".join(_name(t) for t in results)
    return [short.get(reason, reason) for reason in verdict.reasons]


def _name(result: ThresholdResult) -> str:
    """``[model] suite.metric``: a threshold's message up to its first ``": "``."""
    return result.message.partition(": ")[0]


def warning_lines(verdict: Verdict, width: int | None) -> list[str]:
    """The run's warnings, each whole (wrapped at ``width``)."""
    return fit_lines((f"WARNING {warning}" for warning in verdict.warnings), width)


def compact_lines(
    aggregates: Mapping[str, Any],
    benchmarks: Mapping[str, Any],
    width: int | None,
    models: Mapping[str, Mapping[str, Any]] | None = None,
    not_gating: Collection[str] = (),
) -> list[str]:
    """A handful of lines per run: one row per suite, one per protocol; the rest is in -v and the results JSON.

    With several ``models`` (label -> that model's aggregates and benchmarks), each suite and each
    protocol has one row per model, next to each other. Gates named in ``not_gating`` (of graders
    with ``gate: false``) are marked so among the failed gates: they failed no case.
    """
    overall = aggregates["overall"]
    # Columns for the other outcomes only when some case has them (skipped, xfailed, flaky repeats...).
    counts = ["cases", "passed", "failed", "errors", *(k for k in ("skipped", "xfailed", "xpassed", "flaky") if overall.get(k))]
    per_model = list((models or {}).items()) or [("", {"aggregates": aggregates, "benchmarks": benchmarks})]
    model_column = ("model",) if models else ()
    groups: list[tuple[Row, Mapping[str, Any]]] = []  # (suite and model, the numbers of its row)
    suites = sorted({suite for _, section in per_model for suite in section["aggregates"]["suites"]})
    for suite in suites:
        for label, section in per_model:
            summary = section["aggregates"]["suites"].get(suite)
            if summary is not None:
                groups.append(((suite, *((label,) if models else ())), summary))
    if len(suites) > 1:
        groups += [(("all", *((label,) if models else ())), section["aggregates"]["overall"]) for label, section in per_model]
    lines = _suite_rows(("suite", *model_column), counts, groups, width, not_gating)
    skipped = overall.get("skipped_graders", {})
    if skipped:
        graders = sorted({what.partition(":")[0] for what in skipped})
        lines += wrap_line(f"not graded ({sum(skipped.values())} grader-case(s), -v says why): {', '.join(graders)}", width)
    if any(section["benchmarks"] for _, section in per_model):
        lines.append("")
        rows: list[Row] = [("benchmark", *model_column, "compat", "in means", "scores")]
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
        lines += fit_table(rows, width, indent="")
    lines += wrap_line("(every gate, metric, protocol group and tag: -v or --eval-summary=full)", width)
    if models and len(models) > 1:
        lines += wrap_line("(differences with intervals: python -m pytest_visioneval compare RESULTS.json)", width)
    return lines


def _suite_rows(
    names: Row,
    counts: Sequence[str],
    groups: Sequence[tuple[Row, Mapping[str, Any]]],
    width: int | None,
    not_gating: Collection[str] = (),
) -> list[str]:
    """The suites' rows, every failed gate named in each layout.

    A table with a failed-gates column when it fits ``width``; else a table without it and the
    failed gates below; else one wrapped entry per suite.
    """
    failed = ["" if name[0] == "all" else _failed_gates(summary, not_gating) for name, summary in groups]
    rows = [(*name, *(str(summary.get(k, 0)) for k in counts), _rate(summary)) for name, summary in groups]
    header = (*names, *counts, "pass rate")
    cells = ["" if name[0] == "all" else gates or "-" for (name, _), gates in zip(groups, failed, strict=True)]
    widest = left_table([(*header, "failed gates"), *((*row, cell) for row, cell in zip(rows, cells, strict=True))], "")
    if fits(widest, width):
        return widest
    titles = [name[0] + (f" [{name[1]}]" if len(name) > 1 else "") for name, _ in groups]
    narrow = left_table([header, *rows], "")
    if fits(narrow, width):
        return narrow + fit_lines(
            [f"failed gates in {t}: {gates}" for t, gates in zip(titles, failed, strict=True) if gates], width
        )
    entries = []
    for title, (_, summary), gates in zip(titles, groups, failed, strict=True):
        numbers = ", ".join(f"{summary.get(k, 0)} {k}" for k in counts)
        entries.append(f"{title}: {numbers}; pass rate {_rate(summary)}" + (f"; failed gates: {gates}" if gates else ""))
    return fit_lines(entries, width)


def _failed_gates(summary: Mapping[str, Any], not_gating: Collection[str] = ()) -> str:
    """Every gate that failed in some case, most failures first: ``image.size (2), ocr.text (1, not gating)``."""
    failing = sorted(
        ((g["evaluated"] - g["passed"], name) for name, g in summary.get("gates", {}).items() if g["passed"] < g["evaluated"]),
        key=lambda item: (item[1] in not_gating, -item[0], item[1]),
    )
    return ", ".join(f"{name} ({count}{', not gating' if name in not_gating else ''})" for count, name in failing)


def _why_no_scores(result: Mapping[str, Any]) -> str:
    return "- (a grader was skipped: no --judge?)" if result.get("unscored") else "-"


def compact_threshold_lines(verdict: Verdict, listed: int = 8, width: int | None = None) -> list[str]:
    """Every threshold when there are a few; else the missed and inconclusive ones, with the met ones counted."""
    if not verdict.thresholds:
        return []
    counts = _threshold_counts(verdict)
    unmet = tuple(t for t in verdict.thresholds if t.status != "met")
    shown = verdict.thresholds if len(verdict.thresholds) <= listed else unmet
    lines = ["", f"thresholds: {counts['met']} met, {counts['inconclusive']} inconclusive, {counts['missed']} missed"]
    return lines + fit_lines((_threshold_line(result) for result in shown), width)


def mutation_lines(summary: Mapping[str, Any], width: int = 100) -> list[str]:
    """The mutation self-test (see :mod:`.mutation_text`)."""
    from .mutation_text import mutation_lines as lines

    return lines(summary, width)


def _cut(line: str, width: int) -> str:
    return line if len(line) <= width else line[: width - 1] + "\u2026"


def delta_lines(deltas: list[Delta], *, only_changes: bool = False, width: int | None = None) -> list[str]:
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
    return fit_table(rows, width) if len(rows) > 1 else ["  no differences"]


def agreement_lines(agreement: Mapping[str, Any], width: int | None = 100) -> list[str]:
    """The judges against the people's labels (--eval-labels): one entry per labelled name, wrapped at ``width``."""
    lines = [f"judges against the labels in {agreement['labels']}"]
    if agreement.get("error"):
        return fit_lines([*lines, f"  cannot use them: {agreement['error']}"], width)
    for row in agreement["agreement"]:
        stats = "; ".join(f"{name} {_estimate(e)}" for name, e in row["stats"].items())
        raters = f", {row['raters']} raters" if row["raters"] > 1 else ""
        lines.append(f"  {row['name']} ({row['kind']}, n={row['n']}{raters}): {stats}")
        if row.get("ceiling"):
            ceiling = "; ".join(f"{name} {e['value']:.3f}" for name, e in row["ceiling"].items() if e["value"] is not None)
            lines.append(f"    people among themselves (the ceiling): {ceiling}")
    lines += [f"  BELOW FLOOR {line}" for line in agreement["below_floor"]]
    return fit_lines(lines, width)


def _estimate(estimate: Mapping[str, Any]) -> str:
    if estimate.get("value") is None:
        return "-"
    if estimate.get("low") is None or estimate.get("high") is None:
        return f"{estimate['value']:.3f}"
    return f"{estimate['value']:.3f} [{estimate['low']:.3f}, {estimate['high']:.3f}]"
