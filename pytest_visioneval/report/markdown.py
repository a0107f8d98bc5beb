"""The Markdown summary a reviewer reads in a pull request: for ``$GITHUB_STEP_SUMMARY`` and a PR comment.

Made from plain data only: a results JSON document (a run's, or ``merge``'s), the baseline's
:class:`~pytest_visioneval.results.baseline.Delta` list (a run's ``--eval-baseline``, or ``diff``), or a
``compare`` document. Tables are GitHub-flavoured; every cell is escaped, so a pipe, a newline or markup in a
case id, a message or a judge's reason cannot break the table or inject HTML. A PR comment holds at most 65,536
characters: long tables are cut by whole rows, with a note saying how many were left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..results.baseline import Delta, format_value

COMMENT_LIMIT = 65_536  # GitHub refuses a comment body longer than this (characters)
CELL_WIDTH = 300  # the longest text a cell keeps; a message runs on in the HTML report and the results JSON
_ROWS_TRIED = (None, 200, 100, 50, 20, 10, 5, 1)  # rows per table, fewest last, until the document fits

# A "<" that would open HTML or an autolink (a tag name, "/", "!", "?"); "0.5 < 1" stays as it is.
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")

_VERDICT_ORDER = {"REGRESSED": 0, "gone": 1, "noise": 2, "new": 3, "improved": 4, "same": 5}
_VERDICT_MARK = {"REGRESSED": "🔴", "gone": "⚪", "noise": "⚪", "new": "🆕", "improved": "🟢", "same": ""}


def _one_line(value: Any, width: int) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def cell(value: Any, width: int = CELL_WIDTH) -> str:
    """``value`` as the text of one table cell: on one line, pipes escaped, no HTML, at most ``width`` characters."""
    # Backslashes first, so an escaped pipe cannot be undone by a backslash the text already had.
    text = _one_line(value, width).replace("\\", "\\\\").replace("|", "\\|")
    return _TAG_START.sub("&lt;", text)


def code(value: Any) -> str:
    """``value`` as inline code (names, ids). Inside code, markup and entities are literal; a table still needs its
    pipes escaped, and a backtick would end the code early, so it becomes a quote."""
    text = _one_line(value, CELL_WIDTH).replace("`", "'").replace("|", "\\|")
    return f"`{text}`" if text else ""


@dataclass(frozen=True)
class Table:
    """A GitHub-flavoured table; ``what`` names its rows in the note when some are cut ("cases", "thresholds")."""

    header: Sequence[str]
    rows: Sequence[Sequence[str]]
    what: str = "rows"

    def lines(self, shown: int | None = None) -> list[str]:
        kept = self.rows if shown is None else self.rows[:shown]
        out = ["| " + " | ".join(self.header) + " |", "|" + "---|" * len(self.header)]
        out += ["| " + " | ".join(row) + " |" for row in kept]
        if len(kept) < len(self.rows):
            out += ["", f"_… {len(self.rows) - len(kept)} more {self.what} not shown (the results JSON has them all)._"]
        return out


Block = str | Table


def fit(blocks: Iterable[Block], limit: int = COMMENT_LIMIT) -> str:
    """The blocks as one document of at most ``limit`` characters.

    Tables lose rows first (the same number each, from the end: each table is sorted worst first), then, when
    the text alone is too long, whole lines go from the end with a note. A row is never cut in the middle.
    """
    blocks = list(blocks)
    for shown in _ROWS_TRIED:
        text = _join(blocks, shown)
        if len(text) <= limit:
            return text
    note = "\n\n_… the summary was cut here to fit a comment; the results JSON has it all._\n"
    kept: list[str] = []
    size = len(note)
    for line in _join(blocks, _ROWS_TRIED[-1]).splitlines():
        if size + len(line) + 1 > limit:
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join(kept) + note


def _join(blocks: Sequence[Block], shown: int | None) -> str:
    lines: list[str] = []
    for block in blocks:
        lines += block.lines(shown) if isinstance(block, Table) else [block]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


# -- a run (its results JSON; merge's too) -----------------------------------------------------------------


def run_summary(
    document: Mapping[str, Any],
    deltas: Sequence[Delta] = (),
    baseline: str | None = None,
    *,
    title: str = "visioneval",
    limit: int = COMMENT_LIMIT,
) -> str:
    """The summary of a run: verdict and reasons, thresholds (missed first), suites, the before/after table
    against ``baseline`` (regressions first; unchanged values left out), then the failed and errored cases."""
    blocks: list[Block] = [*verdict_blocks(document, title)]
    thresholds = document.get("thresholds") or []
    if thresholds:
        blocks += ["### Thresholds", threshold_table(thresholds)]
    blocks += ["### Suites", suite_table(document)]
    if baseline is not None:
        blocks += [f"### Against the baseline {code(baseline)}", *delta_blocks(deltas)]
    cases = [c for c in document.get("cases") or [] if c.get("status") in ("failed", "error")]
    if cases:
        blocks += ["### Failed cases", case_table(cases)]
    return fit(blocks, limit)


def verdict_blocks(document: Mapping[str, Any], title: str = "visioneval") -> list[Block]:
    """The verdict line (exit status first), one line of counts, and the reasons and warnings as lists."""
    exit_ = document.get("exit") or {}
    status = int(exit_.get("status", 0))
    if status == 0:
        verdict = "✅ passed"
    elif status == 6:  # cases not evaluated (provider batches, budget): neither a pass nor a failure
        verdict = "⏸️ not evaluated in full"
    else:
        verdict = "❌ failed"
    blocks: list[Block] = [f"## {cell(title)}: {verdict} (exit status {status})"]
    overall = (document.get("aggregates") or {}).get("overall") or {}
    run = document.get("run") or {}
    facts = [
        f"**{overall.get('cases', len(document.get('cases') or []))} cases**: {overall.get('passed', 0)} passed, "
        f"{overall.get('failed', 0)} failed, {overall.get('errors', 0)} errors"
    ]
    if run.get("model"):
        facts.append(f"model {code(run['model'])}")
    if run.get("id"):
        facts.append(f"run {code(run['id'])}")
    if run.get("merged_from"):
        facts.append(f"merged from {len(run['merged_from'])} results")
    blocks.append(" · ".join(facts))
    reasons = [f"- {cell(r, 1000)}" for r in exit_.get("reasons") or []]
    warnings = [f"- ⚠️ {cell(w, 1000)}" for w in exit_.get("warnings") or []]
    if reasons or warnings:
        blocks.append("\n".join(reasons + warnings))
    return blocks


def threshold_table(thresholds: Sequence[Mapping[str, Any]]) -> Table:
    """One row per threshold; missed first, then inconclusive, then met."""

    def rank(t: Mapping[str, Any]) -> int:
        return 0 if not t.get("passed") else 1 if t.get("status") == "inconclusive" else 2

    rows = []
    for t in sorted(thresholds, key=rank):
        result = "❌ missed" if not t.get("passed") else "⚠️ inconclusive" if t.get("status") == "inconclusive" else "✅ met"
        name = f"{t['suite']}.{t['metric']}" + (f" [{t['model']}]" if t.get("model") else "")
        bound = " and ".join(part for part in (_bound(">=", t.get("min")), _bound("<=", t.get("max"))) if part)
        rows.append((result, code(name), cell(bound), cell(format_value(t.get("observed"))), cell(t.get("message") or "")))
    return Table(("", "threshold", "bound", "observed", "why"), rows, "thresholds")


def _bound(sign: str, value: Any) -> str:
    return "" if value is None else f"{sign} {value:g}" if isinstance(value, (int, float)) else f"{sign} {value}"


def suite_table(document: Mapping[str, Any]) -> Table:
    """Cases per suite (per suite and model in a run of several models), pass rate and the gates that failed."""
    models = document.get("models") or {}
    parts = [(label, section.get("aggregates") or {}) for label, section in models.items()] or [
        (None, document.get("aggregates") or {})
    ]
    rows = []
    for label, aggregates in parts:
        for suite, summary in sorted((aggregates.get("suites") or {}).items()):
            failed_gates = [
                f"{name} ({g['evaluated'] - g['passed']})"
                for name, g in sorted((summary.get("gates") or {}).items())
                if g.get("passed", 0) < g.get("evaluated", 0)
            ]
            rate = summary.get("pass_rate")
            rows.append(
                (
                    "✅" if not summary.get("failed") and not summary.get("errors") else "❌",
                    code(suite),
                    *((code(label),) if models else ()),
                    str(summary.get("cases", 0)),
                    str(summary.get("passed", 0)),
                    str(summary.get("failed", 0)),
                    str(summary.get("errors", 0)),
                    "-" if rate is None else f"{100 * rate:.1f}%",
                    cell(", ".join(failed_gates) or "-"),
                )
            )
    rows.sort(key=lambda row: row[0] != "❌")  # suites with failures first, stable otherwise
    header = ("", "suite", *(("model",) if models else ()), "cases", "passed", "failed", "errors", "pass rate", "failed gates")
    return Table(header, rows, "suites")


def case_table(cases: Sequence[Mapping[str, Any]]) -> Table:
    """The cases that failed or errored, errors last, each with why: its failed gates' reasons, or its error."""
    several = len({c.get("model") for c in cases}) > 1
    rows = []
    for case in sorted(cases, key=lambda c: (c.get("status") == "error", c.get("uid", ""))):
        why = [f"{g['name']}: {g.get('reason', '')}" for g in case.get("gates") or [] if not g.get("passed", True)]
        if not why:
            why = [case.get("error") or case.get("message") or ""]
        rows.append(
            (
                code(case.get("uid", case.get("nodeid", "?"))),
                *((code(case.get("model") or ""),) if several else ()),
                "💥 error" if case.get("status") == "error" else "❌ failed",
                cell("; ".join(why)),
            )
        )
    return Table(("case", *(("model",) if several else ()), "status", "why"), rows, "cases")


# -- before/after: a run against its baseline, and diff ------------------------------------------------------


def delta_blocks(deltas: Sequence[Delta]) -> list[Block]:
    """The regression count, then the before/after table of what changed: regressions first, unchanged left out."""
    changed = sorted((d for d in deltas if d.verdict != "same"), key=lambda d: _VERDICT_ORDER[d.verdict])
    regressed = sum(1 for d in deltas if d.regressed)
    line = f"**{regressed} regression(s)**" if regressed else "**no regressions**"
    line += f" · {len(changed)} of {len(deltas)} values changed past their tolerance or were added or removed"
    if not changed:
        return [line]
    return [line, delta_table(changed)]


def delta_table(deltas: Sequence[Delta]) -> Table:
    several = any(d.model is not None for d in deltas)
    rows = []
    for d in deltas:
        interval = "" if d.interval is None else f"[{d.interval[0]:+.4g}, {d.interval[1]:+.4g}] over {d.paired} cases"
        rows.append(
            (
                f"{_VERDICT_MARK[d.verdict]} {d.verdict}".strip(),
                code(d.suite),
                *((code(d.model or ""),) if several else ()),
                code(d.name),
                format_value(d.before),
                format_value(d.after),
                "-" if d.change is None else f"{d.change:+.4g}",
                f"{d.tolerance:g} ({'higher' if d.higher_is_better else 'lower'} is better)",
                cell(interval or "-"),
            )
        )
    header = ("", "suite", *(("model",) if several else ()), "name", "before", "after", "change", "tolerance", "paired interval")
    return Table(header, rows, "values")


def diff_summary(
    deltas: Sequence[Delta], before: str, after: str, notes: Sequence[str] = (), *, limit: int = COMMENT_LIMIT
) -> str:
    """``diff BEFORE AFTER``: the verdict, the notes (models compared or left out), the before/after table."""
    regressed = sum(1 for d in deltas if d.regressed)
    verdict = f"❌ {regressed} regression(s)" if regressed else "✅ no regressions"
    blocks: list[Block] = [f"## visioneval diff: {verdict}", f"{code(before)} → {code(after)}"]
    if notes:
        blocks.append("\n".join(f"- {cell(n)}" for n in notes))
    return fit([*blocks, *delta_blocks(deltas)], limit)


# -- compare ---------------------------------------------------------------------------------------------------


def compare_summary(comparison: Mapping[str, Any], *, limit: int = COMMENT_LIMIT) -> str:
    """``compare``: the significant regressions first, then per pair the pass rates, the metrics that moved
    (worse first) and the cases that flipped."""
    found = comparison.get("regressions") or []
    verdict = f"❌ {len(found)} significant regression(s)" if found else "✅ no significant regression"
    level = f"{100 * comparison['settings']['confidence']:g}%"
    blocks: list[Block] = [
        f"## visioneval compare: {verdict}",
        f"differences are B - A with {level} paired bootstrap intervals; pass rates with McNemar's exact test",
    ]
    if found:
        blocks.append("\n".join(f"- {cell(r, 1000)}" for r in found))
    for pair in comparison.get("comparisons") or []:
        blocks += _pair_blocks(pair)
    return fit(blocks, limit)


def _pair_blocks(pair: Mapping[str, Any]) -> list[Block]:
    cases = pair["cases"]
    blocks: list[Block] = [
        f"### {code(pair['b'])} (B) vs {code(pair['a'])} (A)",
        f"{cases['paired']} cases paired, {len(cases['only_a'])} only in A, {len(cases['only_b'])} only in B",
    ]
    rates = [("overall", pair["overall"])] + [(s, r["pass_rate"]) for s, r in sorted(pair["suites"].items())]
    rows = [
        (code(where), str(b["n"]), _pct(b["a"]), _pct(b["b"]), _pct_signed(b["diff"]), f"p={b['p_value']:.3g}")
        for where, b in rates
        if b
    ]
    blocks.append(Table(("pass rate", "n", "A", "B", "B-A", "McNemar"), rows, "suites"))
    order = {"worse": 0, "unclear": 1, "better": 2}
    metrics = [
        (suite, name, block)
        for suite, result in pair["suites"].items()
        for name, block in result["metrics"].items()
        if block.get("diff")
    ]
    metrics.sort(key=lambda m: (order.get(m[2].get("verdict", ""), 1), m[0], m[1]))
    if metrics:
        mark = {"worse": "🔴 worse", "better": "🟢 better"}
        rows = [
            (
                mark.get(b.get("verdict", ""), b.get("verdict", "")),
                code(suite),
                code(name),
                str(b["n"]),
                format_value(b["mean_a"]),
                format_value(b["mean_b"]),
                f"{b['diff']:+.4g}",
                f"[{b['low']:+.4g}, {b['high']:+.4g}]",
            )
            for suite, name, b in metrics
        ]
        blocks.append(Table(("", "suite", "metric", "n", "A", "B", "B-A", "interval"), rows, "metrics"))
    flips = pair.get("flips") or []
    if flips:
        rows = [(code(f["case"]), cell(f["kind"]), cell(f.get("why") or "")) for f in flips]
        blocks += ["cases that flipped:", Table(("case", "flip", "why"), rows, "flips")]
    return blocks


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _pct_signed(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f}%"
