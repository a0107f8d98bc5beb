"""The top of the report: the run, the exit status, thresholds, benchmark scores and aggregate tables.

Static HTML built here (every value escaped); long parts are ``<details>``
blocks, closed unless they hold a failure, so the case list starts near the
top of the page.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from ..protocols.scoring import describe
from ..results.statistics import DEFAULT_CONFIDENCE

COUNTS = ("cases", "passed", "failed", "errors", "skipped", "xfailed", "xpassed")
# A threshold's status -> its word and style, in the order the table lists them.
_STATUS = {"missed": ("FAIL", "fail"), "inconclusive": ("INCONCLUSIVE", "warn"), "met": ("PASS", "pass")}


def e(value: object) -> str:
    return escape(str(value), quote=True)


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


def _rate(value: float | None) -> str:
    if value is None:
        return "-"
    meter = f'<meter min="0" max="1" low="0.5" high="0.95" optimum="1" value="{value:.4f}"></meter>'
    return f'<span class="rate">{meter}{_pct(value)}</span>'


class Num(str):
    """A table cell that is right-aligned."""


def table(header: Sequence[str], rows: Iterable[Sequence[str]], row_classes: Sequence[str] = ()) -> str:
    """Cells are already HTML; :class:`Num` cells are right-aligned."""
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = []
    for index, row in enumerate(rows):
        cells = "".join(f'<td class="num">{c}</td>' if isinstance(c, Num) else f"<td>{c}</td>" for c in row)
        cls = f' class="{row_classes[index]}"' if index < len(row_classes) and row_classes[index] else ""
        body.append(f"<tr{cls}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _block(title: str, body: str, *, open_: bool = False, ident: str = "") -> str:
    attrs = (f' id="{e(ident)}"' if ident else "") + (" open" if open_ else "")
    return f'<details class="block"{attrs}><summary>{title}</summary>{body}</details>'


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
    parts = ['<dl class="run">']
    parts += [f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in fields if v not in (None, "")]
    parts.append("</dl>")

    exit_info = document.get("exit", {})
    status = exit_info.get("status")
    reasons = exit_info.get("reasons", [])
    ok = status == 0
    parts.append(f'<div class="exit {"ok" if ok else "bad"}"><strong>exit status {e(status)}</strong>')
    if reasons:
        parts.append("<ul>" + "".join(f"<li>{e(r)}</li>" for r in reasons) + "</ul>")
    elif ok:
        parts.append(" &mdash; all gates passed")
    parts.append("</div>")
    warnings = exit_info.get("warnings") or []  # e.g. every benchmark score 0: never the status, but said loudly
    if warnings:
        parts.append('<div class="exit warn"><ul>' + "".join(f"<li>{e(w)}</li>" for w in warnings) + "</ul></div>")
    if document.get("complete") is False:
        incomplete = document.get("incomplete") or {}
        parts.append(
            f'<div class="exit bad"><strong>incomplete run</strong>: {e(incomplete.get("reason", ""))}; '
            f"{len(incomplete.get('not_run', []))} case(s) did not run</div>"
        )
    parts.append(_thresholds(document.get("thresholds", [])))
    return "\n".join(parts)


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


def _status_cell(threshold: Mapping[str, Any]) -> str:
    word, style = _STATUS[_status(threshold)]
    return f'<span class="{style}">{word}</span>'


def _thresholds(thresholds: Sequence[Mapping[str, Any]]) -> str:
    if not thresholds:
        return '<p class="small">no thresholds were checked</p>'
    missed = sum(1 for t in thresholds if _status(t) == "missed")
    inconclusive = sum(1 for t in thresholds if _status(t) == "inconclusive")
    rows = [
        (
            _status_cell(t),
            e(t["message"]),
            Num(_num(t.get("observed"))),
            f"<code>{e(t.get('source', ''))}</code>",
        )
        for t in sorted(thresholds, key=lambda t: list(_STATUS).index(_status(t)))
    ]
    counts = [f'<span class="fail">{missed} missed</span>' if missed else ""]
    counts.append(f'<span class="warn">{inconclusive} inconclusive</span>' if inconclusive else "")
    title = f"Thresholds: {len(thresholds)} checked, " + (", ".join(filter(None, counts)) or "all met")
    unmet = bool(missed or inconclusive)
    return _block(title, table(("result", "threshold", "observed", "source"), rows), open_=unmet, ident="thresholds")


def _counts_row(name: str, summary: Mapping[str, Any]) -> list[str]:
    rate = [_rate(summary.get("pass_rate")), Num(_pct_range(summary, "pass_rate_ci_low", "pass_rate_ci_high"))]
    return [e(name)] + [Num(e(summary.get(k, 0))) for k in COUNTS] + rate


def _suite_details(name: str, summary: Mapping[str, Any], ci: str) -> str:
    parts = ['<div class="grid">']
    gates = summary.get("gates", {})
    if gates:
        gate_rows = [
            (e(g), Num(f"{s['passed']}/{s['evaluated']}"), _rate(s["pass_rate"]), Num(_pct_range(s))) for g, s in gates.items()
        ]
        parts.append("<div>" + table(("gate", "passed", "pass rate", ci), gate_rows) + "</div>")
    metrics = summary.get("metrics", {})
    if metrics:
        rows = [
            (
                e(m),
                Num(_num(s["mean"])),
                Num(_range(s.get("ci_low"), s.get("ci_high"))),
                Num(_num(s["std"])),
                Num(_num(s["min"])),
                Num(_num(s["max"])),
                Num(s["n"]),
            )
            for m, s in metrics.items()
        ]
        parts.append("<div>" + table(("metric", "mean", ci, "std", "min", "max", "n"), rows) + "</div>")
    parts.append("</div>")
    skipped = summary.get("skipped_graders", {})
    if skipped:
        items = "".join(f"<li>{e(what)} &mdash; {count} case(s)</li>" for what, count in skipped.items())
        parts.append(f'<div class="small">not graded:<ul>{items}</ul></div>')
    failing = bool(summary.get("failed") or summary.get("errors"))
    return f'<details class="block suite"{" open" if failing else ""}><summary>{e(name)}</summary>{"".join(parts)}</details>'


def _compact_table(groups: Mapping[str, Mapping[str, Any]], ci: str) -> str:
    rows = []
    for name, summary in groups.items():
        means = ", ".join(
            f'<span class="nowrap">{e(m)} {s["mean"]:.4f}&plusmn;{s["std"]:.4f}</span>'
            for m, s in summary.get("metrics", {}).items()
        )
        rows.append([*_counts_row(name, summary), f'<span class="small">{means}</span>'])
    return table(("", *COUNTS, "pass rate", ci, "metrics (mean ± std)"), rows)


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
        rows.append([f"<strong>{e(protocol)}</strong>", e(overall), f'<span class="small">{e(describe(result))}</span>'])
        names = list(scores)
        by_group = [
            [e(f"{field}={value}"), *(_fmt_score(values_scores.get(n)) for n in names)]
            for field, values in result.get("groups", {}).items()
            for value, values_scores in values.items()
        ]
        if names and by_group:
            groups.append(_block(f"{e(protocol)} by group ({len(by_group)})", table(("", *names), by_group)))
    return '<h2 id="scores">Benchmark scores</h2>' + table(("protocol", "scores", "how"), rows) + "".join(groups)


def aggregates(aggregates: Mapping[str, Any]) -> str:
    suites = aggregates.get("suites", {})
    rows = [_counts_row(name, summary) for name, summary in suites.items()]
    classes = [""] * len(rows)
    if "overall" in aggregates:
        rows.append(_counts_row("all cases", aggregates["overall"]))
        classes.append("total")
    ci = _ci(aggregates)
    parts = ['<h2 id="suites">Suites</h2>', table(("suite", *COUNTS, "pass rate", ci), rows, classes)]
    if suites:
        parts.append(
            _block(
                f"gates and metrics per suite ({len(suites)})",
                "".join(_suite_details(n, s, ci) for n, s in suites.items()),
                open_=False,
            )
        )
    for key, title in (("protocols", "By protocol"), ("tags", "By tag")):
        if aggregates.get(key):
            parts.append(_block(f"{title} ({len(aggregates[key])})", _compact_table(aggregates[key], ci)))
    return "\n".join(parts)


def timings(per_suite: Mapping[str, Any] | None) -> str:
    """How long cases took (not metrics: they measure the machine), in a closed block."""
    rows = [
        [e(suite), e(name), Num(f"{s['mean']:.3f}"), Num(f"{s['max']:.3f}"), Num(f"{s['total']:.3f}"), Num(s["n"])]
        for suite, names in (per_suite or {}).items()
        for name, s in names.items()
    ]
    return _block("Timings (seconds)", table(("suite", "timing", "mean", "max", "total", "n"), rows)) if rows else ""


def mutation(result: Mapping[str, Any] | None) -> str:
    """The mutation self-test: a row per suite, then per suite and property family, then each mutant missed and each
    brittle gate with the parameters that make it again."""
    suites = (result or {}).get("suites", {})
    if not suites:
        return ""
    rows = [[e(name), Num(s["cases"]), *_mutation_cells(s)[:3]] for name, s in suites.items()]
    family_rows = [
        [e(name), e(family), *_mutation_cells(counts)]
        for name, s in suites.items()
        for family, counts in s.get("families", {}).items()
    ]
    first = next(iter(suites.values()))
    drawn = f"Seed {e(first['seed'])}, {e(first['per_family'])} mutants per family and case. " if "seed" in first else ""
    note = f"<p>{drawn}Judge-only: no deterministic gate of the case can see what the mutant breaks; not counted.</p>"
    parts = ["<h2>Mutation self-test</h2>", note, table(("suite", "cases", "broken caught", "score", "legitimate passed"), rows)]
    if family_rows:
        header = ("suite", "family", "broken caught", "score", "legitimate passed", "judge-only")
        parts += ["<h3>Per property family</h3>", table(header, family_rows)]
    items = [
        f"<li>missed: {e(m['case'])}: {e(m['mutant'])} ({e(m['description'])}): the suite cannot see this</li>"
        for s in suites.values()
        for m in s["missed"]
    ]
    items += [
        f"<li>brittle: {e(b['case'])}: {e(b['mutant'])} ({e(b['description'])}) failed {e(b['failed'])}</li>"
        for s in suites.values()
        for b in s["brittle"]
    ]
    if items:
        parts.append("<ul>" + "".join(items) + "</ul>")
    return "\n".join(parts)


def _mutation_cells(counts: Mapping[str, Any]) -> list[str]:
    """Broken caught (of those a gate could see), score, legitimate passed, judge-only."""
    seen = counts["broken"] - counts.get("judge_only", 0)
    caught = Num(f"{counts['caught']}/{seen}") if counts["broken"] else Num("-")
    legitimate = Num(f"{counts['legitimate_passed']}/{counts['legitimate']}") if counts["legitimate"] else Num("-")
    judged = Num(counts.get("judge_only", 0)) if counts["broken"] else Num("-")
    return [caught, _pct(counts.get("score")), legitimate, judged]
