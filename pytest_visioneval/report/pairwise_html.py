"""Pairwise judging (:mod:`pytest_visioneval.results.pairwise`) as one self-contained HTML page.

The ranking, each pair's counts and every verdict with the judge's reasons in
both orders. Shares the style, sorting script and Content-Security-Policy of
the ``compare`` page; model names, case ids and the judge's reasons are
escaped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .run_pictures import RunCases, picture_cell, pictures_of
from .view_html import escaped, html_table, interval_svg, markup_cell, number_cell, page, write_page


def _rate(block: Mapping[str, Any]) -> list[str]:
    rate = block["win_rate"]
    if rate is None:
        return [number_cell("-"), number_cell("-"), ""]
    verdict = "better" if block["low"] > 0.5 else "worse" if block["high"] < 0.5 else "unclear"
    return [
        number_cell(f"{100 * rate:.1f}%", rate),
        number_cell(f"[{100 * block['low']:.1f}%, {100 * block['high']:.1f}%]", block["low"]),
        # Drawn around an even split: an interval clear of 50% means one side is preferred.
        markup_cell(interval_svg(block["low"] - 0.5, rate - 0.5, block["high"] - 0.5, verdict)),
    ]


def _count_row(pair: Mapping[str, Any], group: str, block: Mapping[str, Any]) -> list[str]:
    return [
        f"{pair['a']} vs {pair['b']}",
        group,
        number_cell(str(block["cases"]), block["cases"]),
        number_cell(str(block["wins"]), block["wins"]),
        number_cell(str(block["ties"]), block["ties"]),
        number_cell(str(block["inconsistent"]), block["inconsistent"]),
        number_cell(str(block["losses"]), block["losses"]),
        number_cell(str(block["errors"]), block["errors"]),
        *_rate(block),
    ]


def _ranking(ranking: Mapping[str, Any], level: str) -> str:
    rows = []
    for m in ranking["models"]:
        low, mid, high = (math.log(m[k]) for k in ("low", "strength", "high"))
        verdict = "better" if low > 0 else "worse" if high < 0 else "unclear"
        rows.append(
            [
                number_cell(str(m["rank"]), m["rank"]),
                m["model"],
                number_cell(f"{m['strength']:.3g}", m["strength"]),
                number_cell(f"[{m['low']:.3g}, {m['high']:.3g}]", m["low"]),
                markup_cell(interval_svg(low, mid, high, verdict)),
                number_cell(str(m["wins"]), m["wins"]),
                number_cell(str(m["ties"]), m["ties"]),
                number_cell(str(m["losses"]), m["losses"]),
            ]
        )
    table = html_table(["rank", "model", "strength", f"{level} interval", "", "wins", "ties", "losses"], rows)
    note = f'<p class="small">Not ranked (no judged comparison): {escaped(", ".join(ranking["not_ranked"]))}.</p>'
    return table + (note if ranking["not_ranked"] else "")


def _verdict(pair: Mapping[str, Any], judgement: Mapping[str, Any]) -> str:
    outcome = judgement["outcome"]
    if outcome in ("a", "b"):
        return f"{pair[outcome]} preferred"
    if outcome == "tie" and judgement.get("inconsistent"):
        return "tie (the orders disagree)"
    return str(outcome)


def _answer(judgement: Mapping[str, Any], order: str) -> str:
    found = next((a for a in judgement.get("answers") or () if a["order"] == order), None)
    if found is None:
        return ""
    return f"{found['preference']}: {found['reason']}"


def _judgements(pair: Mapping[str, Any]) -> str:
    rows = [
        [
            j["case"],
            j["suite"],
            _verdict(pair, j),
            _answer(j, "a-first"),
            _answer(j, "b-first"),
            j.get("error") or "",
        ]
        for j in pair["judgements"]
    ]
    header = ["case", "suite", "verdict", f"{pair['a']} shown first", f"{pair['b']} shown first", "error"]
    summary = f"{escaped(pair['a'])} vs {escaped(pair['b'])}: {len(rows)} verdict(s)"
    return f"<details><summary>{summary}</summary>{html_table(header, rows)}</details>"


PICTURED_VERDICTS = 30  # judgements shown beside the outputs, per pair of runs


def _side_by_side(pair: Mapping[str, Any], runs: Mapping[str, RunCases], page_folder: Path | None) -> str:
    """Each verdict beside both outputs, in the order the judge saw them: one row per order asked."""
    a, b = runs.get(pair["a"]), runs.get(pair["b"])
    judgements = [j for j in pair["judgements"] if j.get("answers")][:PICTURED_VERDICTS]
    if not judgements:
        return ""
    problems = [side.problem for side in (a, b) if side is not None and side.problem]
    if a is None or b is None or problems:
        return f'<p class="small">{escaped("; ".join(problems) or "the runs cannot be read: no pictures")}</p>'
    pictures = pictures_of([(side, j["case"]) for j in judgements for side in (a, b)])
    rows = []
    for j in judgements:
        key = j["case"]
        for answer in j["answers"]:
            first, second = (a, b) if answer["order"] == "a-first" else (b, a)
            names = {id(a): pair["a"], id(b): pair["b"]}
            cells = [
                picture_cell(pictures[(side.source, key)], f"{names[id(side)]}: {key}", side.link(key, page_folder))
                for side in (first, second)
            ]
            preferred = {"1": names[id(first)], "2": names[id(second)]}.get(str(answer["preference"]), str(answer["preference"]))
            rows.append(
                f'<tr data-case="{escaped(key)}" data-order="{escaped(answer["order"])}"><td>{escaped(key)}<br>'
                f'<span class="small">{escaped(_verdict(pair, j))}</span></td>'
                f'<td class="small">1st: {escaped(names[id(first)])}<br>2nd: {escaped(names[id(second)])}</td>{"".join(cells)}'
                f'<td class="why"><b>{escaped(preferred)}</b>: {escaped(answer["reason"])}</td></tr>'
            )
    head = (
        "<tr><th>case, verdict</th><th>order shown</th><th>shown first</th><th>shown second</th><th>the judge's answer</th></tr>"
    )
    summary = f"{escaped(pair['a'])} vs {escaped(pair['b'])}: the outputs as the judge saw them ({len(judgements)} case(s))"
    table = f'<table class="side-by-side"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'
    return f"<details open><summary>{summary}</summary>{table}</details>"


def render_pairwise_html(document: Mapping[str, Any], page_folder: Path | None = None) -> str:
    settings = document["settings"]
    level = f"{100 * settings['confidence']:g}%"
    runs = html_table(
        ["name", "file", "model", "cases", "run id", "complete"],
        (
            [
                r["name"],
                r["source"],
                r["model"],
                number_cell(str(r["cases"]), r["cases"]),
                r["run_id"],
                "yes" if r["complete"] else "NO",
            ]
            for r in document["runs"]
        ),
    )
    instructions = document["judge"]["instructions"]
    method = (
        f"Judge {document['judge']['name']} (instructions: {instructions['source']}). Every case two runs share was "
        "judged twice, with the outputs shown in both orders; a run wins a case only when both orders prefer it, and "
        "any disagreement is a tie, counted as inconsistent. Errors are never ties. Win rate: (wins + ties/2) / "
        f"(wins + ties + losses), with {level} percentile bootstrap intervals over cases ({settings['resamples']} "
        f"resamples, seed {settings['seed']}). Bradley-Terry strengths by the MM algorithm, a tie half a win each way, "
        f"plus {settings['prior']:g} virtual tie(s) per pair; scaled to a geometric mean of 1, so s_i / (s_i + s_j) is "
        "the chance that i is preferred to j."
    )
    parts = ["<h1>Pairwise judging</h1>", runs, f'<p class="small">{escaped(method)}</p>']
    ranking = document.get("ranking")
    if ranking:
        parts += [f"<h2>Ranking ({ranking['cases']} cases)</h2>", _ranking(ranking, level)]
        for suite, block in document.get("suite_rankings", {}).items():
            if block["models"]:
                parts.append(f"<details><summary>suite {escaped(suite)}</summary>{_ranking(block, level)}</details>")
    rows = []
    for pair in document["pairs"]:
        rows.append(_count_row(pair, "overall", pair["overall"]))
        rows += [_count_row(pair, f"suite {suite}", block) for suite, block in pair["suites"].items()]
    header = ["A vs B", "group", "n", "A wins", "ties", "inconsistent", "B wins", "errors", "A win rate", f"{level} interval", ""]
    parts += ["<h2>Pairs</h2>", html_table(header, rows)]
    parts += ["<h2>Verdicts</h2>", *(_judgements(pair) for pair in document["pairs"])]
    run_cases = {str(r["name"]): RunCases(r) for r in document["runs"]}
    parts += [_side_by_side(pair, run_cases, page_folder) for pair in document["pairs"]]
    judge_usage = (document.get("usage") or {}).get("judge")
    if judge_usage:
        parts.append(
            f'<p class="small">Judge requests: {judge_usage["calls"]} made, {judge_usage["cached"]} from the cache, '
            f"{judge_usage['failed']} failed.</p>"
        )
    return page("pytest-visioneval pairwise judging", parts)


def write_pairwise_html(document: Mapping[str, Any], path: Path) -> None:
    write_page(render_pairwise_html(document, Path(path).parent), path)
