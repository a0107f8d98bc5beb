"""Pairwise judging (:mod:`pytest_visioneval.results.pairwise`) as one self-contained HTML page.

The ranking, each pair's counts and every verdict with the judge's reasons in
both orders, the outputs as the judge saw them, and a table where a person
says which output is better, to measure the judge against (``agreement``).
The page is ``templates/pairwise.html.j2``, sharing the shell, style, script
and Content-Security-Policy of the report; model names, case ids and the
judge's reasons are escaped by the template.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..results.pairwise import document_id
from ..results.preference import VALUES, pair_name
from .run_pictures import Pictures, RunCases, picture_cell, pictures_of
from .view_html import interval_cell, number_cell, render, write_page


def _rate(block: Mapping[str, Any]) -> list[Any]:
    rate = block["win_rate"]
    if rate is None:
        return [number_cell("-"), number_cell("-"), ""]
    verdict = "better" if block["low"] > 0.5 else "worse" if block["high"] < 0.5 else "unclear"
    return [
        number_cell(f"{100 * rate:.1f}%", rate),
        number_cell(f"[{100 * block['low']:.1f}%, {100 * block['high']:.1f}%]", block["low"]),
        # Drawn around an even split: an interval clear of 50% means one side is preferred.
        interval_cell(block["low"] - 0.5, rate - 0.5, block["high"] - 0.5, verdict),
    ]


def _count_row(pair: Mapping[str, Any], group: str, block: Mapping[str, Any]) -> list[Any]:
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


def _ranking(ranking: Mapping[str, Any]) -> dict[str, Any]:
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
                interval_cell(low, mid, high, verdict),
                number_cell(str(m["wins"]), m["wins"]),
                number_cell(str(m["ties"]), m["ties"]),
                number_cell(str(m["losses"]), m["losses"]),
            ]
        )
    return {"rows": rows, "not_ranked": ranking["not_ranked"], "cases": ranking.get("cases")}


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


def _verdict_rows(pair: Mapping[str, Any]) -> list[list[Any]]:
    return [
        [j["case"], j["suite"], _verdict(pair, j), _answer(j, "a-first"), _answer(j, "b-first"), j.get("error") or ""]
        for j in pair["judgements"]
    ]


PICTURED_VERDICTS = 30  # judgements shown beside the outputs in both orders, per pair of runs
PICTURED_LABELS = 100  # verdicts to label pictured with both outputs, per pair of runs (the rest link to the cards)
# The answers a person gives: (label in the CSV, key, button text).
ANSWERS = (("a", "a", "A better"), ("tie", "t", "tie"), ("b", "b", "B better"))


def _problem(a: RunCases | None, b: RunCases | None) -> str:
    problems = [side.problem for side in (a, b) if side is not None and side.problem]
    return "; ".join(problems) or ("" if a is not None and b is not None else "the runs cannot be read: no pictures")


def _seen(pair: Mapping[str, Any], a: RunCases, b: RunCases, pictures: Mapping[Any, Any], page_folder: Path | None) -> list[Any]:
    """Each verdict beside both outputs, in the order the judge saw them: one row per order asked."""
    names = {id(a): pair["a"], id(b): pair["b"]}
    rows = []
    for j in [j for j in pair["judgements"] if j.get("answers")][:PICTURED_VERDICTS]:
        key = j["case"]
        for answer in j["answers"]:
            first, second = (a, b) if answer["order"] == "a-first" else (b, a)
            cells = [
                picture_cell(pictures[(side.source, key)], f"{names[id(side)]}: {key}", side.link(key, page_folder))
                for side in (first, second)
            ]
            preferred = {"1": names[id(first)], "2": names[id(second)]}.get(str(answer["preference"]), str(answer["preference"]))
            rows.append(
                {
                    "case": key,
                    "order": answer["order"],
                    "verdict": _verdict(pair, j),
                    "first": names[id(first)],
                    "second": names[id(second)],
                    "first_pictures": cells[0],
                    "second_pictures": cells[1],
                    "preferred": preferred,
                    "reason": answer["reason"],
                }
            )
    return rows


def _label_rows(
    pair: Mapping[str, Any], a: RunCases | None, b: RunCases | None, pictures: Mapping[Any, Any], page_folder: Path | None
) -> dict[str, Any]:
    """The decided verdicts of a pair, A's output and B's side by side, for a person to say which is better."""
    decided = [j for j in pair["judgements"] if j["outcome"] in VALUES]
    rows = []
    for index, j in enumerate(decided):
        key = j["case"]
        sides = []
        for side, name in ((a, pair["a"]), (b, pair["b"])):
            link = side.link(key, page_folder) if side is not None else ""
            found = pictures.get((side.source, key)) if side is not None else None
            if found is not None and index < PICTURED_LABELS:
                sides.append(picture_cell(found, f"{name}: {key}", link))
            else:
                sides.append(Pictures([], ["not pictured here: see the case's card"], f"{name}: {key}", link))
        rows.append({"case": key, "judged": j["outcome"], "verdict": _verdict(pair, j), "a": sides[0], "b": sides[1]})
    return {
        "a": pair["a"],
        "b": pair["b"],
        "name": pair_name(str(pair["a"]), str(pair["b"])),
        "rows": rows,
        "unpictured": max(0, len(rows) - PICTURED_LABELS),
    }


def _pairs(document: Mapping[str, Any], page_folder: Path | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per pair of runs: its verdicts and the outputs as the judge saw them; and the verdicts to label."""
    runs = {str(r["name"]): RunCases(r) for r in document["runs"]}
    shown, labelled = [], []
    for pair in document["pairs"]:
        a, b = runs.get(pair["a"]), runs.get(pair["b"])
        problem = _problem(a, b)
        judged = [j for j in pair["judgements"] if j.get("answers")]
        entry = {"a": pair["a"], "b": pair["b"], "verdicts": _verdict_rows(pair), "seen": [], "pictures": {}}
        entry.update(problem=problem if judged else "", seen_cases=min(len(judged), PICTURED_VERDICTS))
        if not problem and a is not None and b is not None:
            wanted = [j["case"] for j in judged[:PICTURED_VERDICTS]]
            wanted += [j["case"] for j in pair["judgements"] if j["outcome"] in VALUES][:PICTURED_LABELS]
            entry["pictures"] = pictures_of([(side, key) for key in dict.fromkeys(wanted) for side in (a, b)])
            entry["seen"] = _seen(pair, a, b, entry["pictures"], page_folder)
        shown.append(entry)
        label = _label_rows(pair, a, b, entry.pop("pictures"), page_folder)
        if label["rows"]:
            labelled.append(label)
    return shown, labelled


def _yes(complete: bool) -> str:
    return "yes" if complete else "NO"


def render_pairwise_html(document: Mapping[str, Any], page_folder: Path | None = None) -> str:
    settings = document["settings"]
    level = f"{100 * settings['confidence']:g}%"
    runs = [
        [
            r["name"],
            r["source"],
            r["model"],
            number_cell(str(r["cases"]), r["cases"]),
            r["run_id"],
            "yes" if r["complete"] else "NO",
        ]
        for r in document["runs"]
    ]
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
    ranking = document.get("ranking")
    counts: list[list[Any]] = []
    for pair in document["pairs"]:
        counts.append(_count_row(pair, "overall", pair["overall"]))
        counts += [_count_row(pair, f"suite {suite}", block) for suite, block in pair["suites"].items()]
    pairs, label_pairs = _pairs(document, page_folder)
    return render(
        "pairwise.html.j2",
        "pytest-visioneval pairwise judging",
        runs=runs,
        method=method,
        level=level,
        ranking=_ranking(ranking) if ranking else None,
        suite_rankings=[(s, _ranking(b)) for s, b in (document.get("suite_rankings") or {}).items() if b["models"]],
        counts=counts,
        pairs=pairs,
        label_pairs=label_pairs,
        answers=ANSWERS,
        document_id=document.get("id") or document_id(document["runs"], document["judge"]),
        judge_usage=(document.get("usage") or {}).get("judge"),
    )


def write_pairwise_html(document: Mapping[str, Any], path: Path) -> None:
    write_page(render_pairwise_html(document, Path(path).parent), path)
