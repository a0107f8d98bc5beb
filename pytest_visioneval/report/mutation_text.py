"""The mutation self-test in the terminal: a row per suite and per family, then each mutant missed and each brittle gate."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

HEADER = ("suite", "family", "cases", "broken caught", "score", "legitimate passed", "judge-only")


def mutation_lines(summary: Mapping[str, Any], width: int = 100) -> list[str]:
    """The self-test of each suite: its totals, then one row per property family; missed and brittle listed after."""
    suites = summary.get("suites", {})
    if not suites:
        return []
    first = next(iter(suites.values()))
    drawn = f"seed {first['seed']}, {first['per_family']} per family and case; " if "seed" in first else ""
    lines = [
        f"mutation self-test (the known-good output of each case and its mutants; {drawn}deterministic gates decide, "
        "judge-only: no gate of the case can see what the mutant breaks)"
    ]
    rows: list[tuple[str, ...]] = [HEADER]
    for name, s in suites.items():
        rows.append(_row(name, "all", s, str(s["cases"])))
        rows += [_row("", family, f, "") for family, f in s.get("families", {}).items()]
    lines += _aligned(rows)
    for name, s in suites.items():
        notes = [f"{name}: known-good output fails its own gates: {uid}" for uid in s["baselines_failed"]]
        notes += [f"MISSED {m['case']}: {m['mutant']} ({m['description']})" for m in s["missed"]]
        notes += [f"BRITTLE {b['case']}: {b['mutant']} failed {b['failed']}" for b in s["brittle"]]
        for note in notes:  # wrapped, never cut: the parameters are what makes a miss again
            lines += textwrap.wrap(note, width, initial_indent="  ", subsequent_indent="      ", break_on_hyphens=False)
    return lines


def _row(suite: str, family: str, counts: Mapping[str, Any], cases: str) -> tuple[str, ...]:
    seen = counts["caught"] + counts["uncaught"]
    caught = f"{counts['caught']}/{seen}" if counts["broken"] else "-"
    legitimate = f"{counts['legitimate_passed']}/{counts['legitimate']}" if counts["legitimate"] else "-"
    judged = str(counts["judge_only"]) if counts["broken"] else "-"
    return (suite, family, cases, caught, _pct(counts.get("score")), legitimate, judged)


def _aligned(rows: list[tuple[str, ...]], indent: str = "  ") -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"
