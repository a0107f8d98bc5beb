"""The top of the report: the run, the exit status, thresholds, benchmark scores and aggregate tables.

Static HTML from the macros of ``templates/summary.html.j2`` (every value
escaped by the template); this module gives them their values. Long parts are
``<details>`` blocks, closed unless they hold a failure, so the case list
starts near the top of the page.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from ..protocols.scoring import describe
from ..results.statistics import DEFAULT_CONFIDENCE
from .html_shell import macros
from .view_html import Cell

COUNTS = ("cases", "passed", "failed", "errors", "skipped", "xfailed", "xpassed")
# A threshold's status -> its word and style, in the order the table lists them.
_STATUS = {"missed": ("FAIL", "fail"), "inconclusive": ("INCONCLUSIVE", "warn"), "met": ("PASS", "pass")}


def _m() -> Any:
    return macros("summary.html.j2")


def _styled(cls: str, text: object, tag: str = "span") -> Cell:
    return Cell(macros("macros.html.j2").styled(cls, text, tag))


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _range(low: float | None, high: float | None, scale: float = 1.0, digits: str = ".4f") -> str:
    """An interval as ``[low, high]`` (``scale`` 100: in percent); ``-`` when there is none."""
    if low is None or high is None:
        return "-"
    return f"[{scale * low:{digits}}, {scale * high:{digits}}]"


def _pct_range(stats: Mapping[str, Any], low: str = "ci_low", high: str = "ci_high") -> str:
    return _range(stats.get(low), stats.get(high), 100, ".1f")


def _ci(aggregates: Mapping[str, Any]) -> str:
    """The heading of an interval column: ``95% CI``."""
    return f"{100 * aggregates.get('confidence', DEFAULT_CONFIDENCE):g}% CI"


def _rate(value: float | None) -> Any:
    return "-" if value is None else _m().rate(value, _pct(value))


def Num(value: object) -> Cell:  # noqa: N802 - reads as the cell kind it makes
    """A right-aligned table cell."""
    return Cell(str(value), numeric=True)


def header(document: Mapping[str, Any]) -> str:
    run = document.get("run", {})
    models = run.get("models")
    fields = [
        ("run id", run.get("id")),
        ("model", ", ".join(models) if isinstance(models, list) and models else run.get("model")),
        ("model params", json.dumps(run["model_params"], sort_keys=True) if run.get("model_params") else None),
        ("merged from", ", ".join(run["merged_from"]) if run.get("merged_from") else None),
        ("started", run.get("started")),
        ("finished", run.get("finished")),
        ("plugin version", run.get("plugin_version")),
        ("pytest / python", " / ".join(filter(None, (run.get("pytest_version"), run.get("python_version")))) or None),
        ("arguments", " ".join(run["argv"]) if run.get("argv") else None),
        ("output dir", run.get("output_dir")),
        *((f"judge {name}", _provenance(fields)) for name, fields in (document.get("judges") or {}).items()),
    ]
    exit_info = document.get("exit", {})
    incomplete = None
    if document.get("complete") is False:
        missing = document.get("incomplete") or {}
        incomplete = {"reason": missing.get("reason", ""), "not_run": len(missing.get("not_run", []))}
    return str(
        _m().header(
            [(k, v) for k, v in fields if v not in (None, "")],
            exit_info.get("status"),
            exit_info.get("reasons", []),
            exit_info.get("warnings") or [],  # e.g. every benchmark score 0: never the status, but said loudly
            incomplete,
            _thresholds(document.get("thresholds", [])),
        )
    )


def _provenance(fields: Mapping[str, Any]) -> str:
    """A judge's provenance in one line: what answered, where, and how it was asked."""

    def values(key: str) -> str:
        found = [str(v) for v in fields.get(key, ()) if v is not None]
        return ", ".join(found) or "-"

    return (
        f"answered by {values('served_by')} at {values('endpoint')}; temperature {values('temperature')}, "
        f"seed {values('seed')}; instructions {values('instructions_sha256')}"
    )


def _status(threshold: Mapping[str, Any]) -> str:
    # A document written before thresholds had a status has only ``passed``.
    return str(threshold.get("status") or ("met" if threshold["passed"] else "missed"))


def _thresholds(thresholds: Sequence[Mapping[str, Any]]) -> Markup:
    ordered = sorted(thresholds, key=lambda t: list(_STATUS).index(_status(t)))
    rows = [
        (
            _styled(_STATUS[_status(t)][1], _STATUS[_status(t)][0]),
            t["message"],
            Num(_num(t.get("observed"))),
            _styled("", t.get("source", ""), "code"),
        )
        for t in ordered
    ]
    missed = sum(1 for t in thresholds if _status(t) == "missed")
    inconclusive = sum(1 for t in thresholds if _status(t) == "inconclusive")
    return _m().thresholds_block(rows, len(thresholds), missed, inconclusive)


def _counts_row(name: str, summary: Mapping[str, Any]) -> list[Any]:
    rate = [Cell(_rate(summary.get("pass_rate"))), Num(_pct_range(summary, "pass_rate_ci_low", "pass_rate_ci_high"))]
    return [name] + [Num(summary.get(k, 0)) for k in COUNTS] + rate


def _suite_details(name: str, summary: Mapping[str, Any], ci: str) -> Markup:
    gates = [
        (g, Num(f"{s['passed']}/{s['evaluated']}"), Cell(_rate(s["pass_rate"])), Num(_pct_range(s)))
        for g, s in summary.get("gates", {}).items()
    ]
    metrics = [
        (
            m,
            Num(_num(s["mean"])),
            Num(_range(s.get("ci_low"), s.get("ci_high"))),
            Num(_num(s["std"])),
            Num(_num(s["min"])),
            Num(_num(s["max"])),
            Num(s["n"]),
        )
        for m, s in summary.get("metrics", {}).items()
    ]
    skipped = list(summary.get("skipped_graders", {}).items())
    failing = bool(summary.get("failed") or summary.get("errors"))
    return _m().suite_details(name, gates, metrics, skipped, ci, failing)


def _compact_rows(groups: Mapping[str, Mapping[str, Any]]) -> list[list[Any]]:
    rows = []
    for name, summary in groups.items():
        means = [(m, s["mean"], s["std"]) for m, s in summary.get("metrics", {}).items()]
        rows.append([*_counts_row(name, summary), Cell(_m().means(means))])
    return rows


def _fmt_score(stats: Mapping[str, Any] | None) -> str:
    if not stats:
        return "-"
    interval = _range(stats.get("ci_low"), stats.get("ci_high"), digits=".3g") if stats.get("ci_low") is not None else ""
    return " ".join(filter(None, (f"{stats['mean']:.4g}", interval, f"(n={stats['n']})")))


def benchmarks(results: Mapping[str, Any]) -> str:
    """Benchmark scores: one row per protocol (its scores, how they were formed), then the groups, folded."""
    if not results:
        return ""
    rows, groups = [], []
    for protocol, result in results.items():
        scores = result.get("scores", {})
        overall = ", ".join(f"{n} {_fmt_score(s)}" for n, s in scores.items()) or "-"
        rows.append(
            [
                _styled("", protocol, "strong"),
                overall,
                _styled("small", describe(result)),
            ]
        )
        names = list(scores)
        by_group = [
            [f"{field}={value}", *(_fmt_score(values_scores.get(n)) for n in names)]
            for field, values in result.get("groups", {}).items()
            for value, values_scores in values.items()
        ]
        if names and by_group:
            groups.append((f"{protocol} by group ({len(by_group)})", ("", *names), by_group))
    return str(_m().benchmarks(rows, groups))


def aggregates(aggregates: Mapping[str, Any]) -> str:
    suites = aggregates.get("suites", {})
    rows = [_counts_row(name, summary) for name, summary in suites.items()]
    classes = [""] * len(rows)
    if "overall" in aggregates:
        rows.append(_counts_row("all cases", aggregates["overall"]))
        classes.append("total")
    ci = _ci(aggregates)
    details = [_suite_details(n, s, ci) for n, s in suites.items()]
    compact = [
        (
            f"{title} ({len(aggregates[key])})",
            ("", *COUNTS, "pass rate", ci, "metrics (mean ± std)"),
            _compact_rows(aggregates[key]),
        )
        for key, title in (("protocols", "By protocol"), ("tags", "By tag"))
        if aggregates.get(key)
    ]
    return str(_m().aggregates(rows, classes, ci, details, compact, COUNTS))


def timings(per_suite: Mapping[str, Any] | None) -> str:
    """How long cases took (not metrics: they measure the machine), in a closed block."""
    rows = [
        [suite, name, Num(f"{s['mean']:.3f}"), Num(f"{s['max']:.3f}"), Num(f"{s['total']:.3f}"), Num(s["n"])]
        for suite, names in (per_suite or {}).items()
        for name, s in names.items()
    ]
    if not rows:
        return ""
    return str(_m().block("Timings (seconds)", _m().table(("suite", "timing", "mean", "max", "total", "n"), rows)))


def mutation(result: Mapping[str, Any] | None) -> str:
    """The mutation self-test: a row per suite, then per suite and property family, then each mutant missed and each
    brittle gate with the parameters that make it again."""
    suites = (result or {}).get("suites", {})
    if not suites:
        return ""
    rows = [[name, Num(s["cases"]), *_mutation_cells(s)[:3]] for name, s in suites.items()]
    family_rows = [
        [name, family, *_mutation_cells(counts)] for name, s in suites.items() for family, counts in s.get("families", {}).items()
    ]
    first = next(iter(suites.values()))
    drawn = f"Seed {first['seed']}, {first['per_family']} mutants per family and case. " if "seed" in first else ""
    items = [
        f"missed: {m['case']}: {m['mutant']} ({m['description']}): the suite cannot see this"
        for s in suites.values()
        for m in s["missed"]
    ]
    items += [
        f"brittle: {b['case']}: {b['mutant']} ({b['description']}) failed {b['failed']}"
        for s in suites.values()
        for b in s["brittle"]
    ]
    return str(_m().mutation(drawn, rows, family_rows, items))


def _mutation_cells(counts: Mapping[str, Any]) -> list[Any]:
    """Broken caught (of those a gate could see), score, legitimate passed, judge-only."""
    seen = counts["broken"] - counts.get("judge_only", 0)
    caught = Num(f"{counts['caught']}/{seen}") if counts["broken"] else Num("-")
    legitimate = Num(f"{counts['legitimate_passed']}/{counts['legitimate']}") if counts["legitimate"] else Num("-")
    judged = Num(counts.get("judge_only", 0)) if counts["broken"] else Num("-")
    return [caught, _pct(counts.get("score")), legitimate, judged]
