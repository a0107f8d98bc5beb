"""A comparison (:mod:`pytest_visioneval.results.compare`) as one self-contained HTML page.

Tables of differences with each interval drawn around zero, the flipped cases
(with both runs' outputs side by side) and the largest changes; columns sort on
a click. The page is ``templates/compare.html.j2``, which escapes every value
(case names and reasons come from case files, models and judges); a
Content-Security-Policy allows only the page's own style, script and images.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .html_shell import macros
from .run_pictures import RunCases, picture_cell, pictures_of
from .view_html import Cell, interval_cell, markup_cell, number_cell, render, write_page
from .view_text import pct, signed

_VERDICTS = {"better": ("better", "better"), "worse": ("worse", "worse"), "too few": ("small", "too few cases")}


def _verdict_cell(verdict: str) -> Cell:
    """The word for a verdict, coloured; empty for an unclear or unchanged one."""
    if verdict not in _VERDICTS:
        return Cell("")
    return markup_cell(macros("macros.html.j2").styled(*_VERDICTS[verdict]))


def _rate_row(name: str, block: Mapping[str, Any] | None, alpha: float) -> list[Any]:
    if not block:
        return [name, number_cell("0"), "-", "-", "-", "-", "", "-", "", ""]
    # A pass rate is judged by McNemar's test; its interval is drawn for scale.
    verdict = "unclear" if block["p_value"] >= alpha or block["diff"] == 0 else "better" if block["diff"] > 0 else "worse"
    return [
        name,
        number_cell(str(block["n"]), block["n"]),
        number_cell(pct(block["a"]), block["a"]),
        number_cell(pct(block["b"]), block["b"]),
        number_cell(f"{100 * block['diff']:+.1f}%", block["diff"]),
        number_cell(f"[{100 * block['low']:+.1f}%, {100 * block['high']:+.1f}%]", block["low"]),
        interval_cell(block["low"], block["diff"], block["high"], verdict),
        number_cell(f"{block['p_value']:.3g}", block["p_value"]),
        number_cell(f"{block['a_only_passed']} / {block['b_only_passed']}", block["b_only_passed"] - block["a_only_passed"]),
        _verdict_cell(verdict),
    ]


def _score_row(name: str, block: Mapping[str, Any]) -> list[Any]:
    return [
        name,
        number_cell(str(block["n"]), block["n"]),
        number_cell(f"{block['only_a']} / {block['only_b']}", block["only_a"] + block["only_b"]),
        number_cell(f"{block['mean_a']:.4g}", block["mean_a"]),
        number_cell(f"{block['mean_b']:.4g}", block["mean_b"]),
        number_cell(signed(block["diff"]), block["diff"]),
        number_cell(f"[{signed(block['low'])}, {signed(block['high'])}]", block["low"]),
        interval_cell(block["low"], block["diff"], block["high"], block["verdict"]),
        _verdict_cell(block["verdict"]),
    ]


def _pair(comparison: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
    """One pair of runs' tables, as the template's values."""
    cases = comparison["cases"]
    listing = [f"only in A: {', '.join(cases['only_a'])}" if cases["only_a"] else "",
               f"only in B: {', '.join(cases['only_b'])}" if cases["only_b"] else ""]  # fmt: skip
    alpha = settings["alpha"]
    rates = [_rate_row("overall", comparison["overall"], alpha)]
    rates += [_rate_row(f"suite {suite}", result["pass_rate"], alpha) for suite, result in comparison["suites"].items()]
    suites = comparison["suites"].items()
    return {
        "a": comparison["a"],
        "b": comparison["b"],
        "paired": cases["paired"],
        "only_a": cases["only_a"],
        "only_b": cases["only_b"],
        "unpaired": " | ".join(x for x in listing if x),
        "regressions": comparison["regressions"],
        "rates": rates,
        "scores": [
            _score_row(f"{protocol}.{name}", block)
            for protocol, result in comparison["protocols"].items()
            for name, block in result["scores"].items()
        ],
        "metrics": [
            _score_row(f"{suite}: {name}", block)
            for suite, result in suites
            for name, block in result["metrics"].items()
            if block["verdict"] != "unchanged"
        ],
        "same": [
            f"{suite}: {name}"
            for suite, result in suites
            for name, block in result["metrics"].items()
            if block["verdict"] == "unchanged"
        ],
        "flips": [[f["kind"], f["case"], f["suite"], f["a"], f["b"], f["why"]] for f in comparison["flips"]],
        "changes": [
            (
                name,
                [
                    [
                        r["case"],
                        number_cell(f"{r['a']:.4g}", r["a"]),
                        number_cell(f"{r['b']:.4g}", r["b"]),
                        number_cell(signed(r["delta"]), r["delta"]),
                        _verdict_cell("worse" if r["worse"] else "better"),
                    ]  # fmt: skip
                    for r in rows
                ],
            )
            for name, rows in comparison["changes"].items()
        ],
    }


PICTURED_CASES = 40  # flipped cases shown with their outputs, per pair of runs


def _pictures(comparison: Mapping[str, Any], runs: Mapping[str, RunCases], page_folder: Path | None) -> dict[str, Any]:
    """The flipped cases (a case's status, or one of its gates) with both runs' outputs side by side."""
    a, b = runs.get(comparison["a"]), runs.get(comparison["b"])
    keys: dict[str, list[tuple[str, bool]]] = {}  # case -> (what flipped, whether it got worse)
    for flip in comparison["flips"]:
        keys.setdefault(flip["case"], []).append((f"{flip['kind']}: {flip['why']}", not flip["kind"].endswith("->pass")))
    for flip in comparison.get("gate_flips") or ():
        what = f"gate {flip['gate']} {flip['kind']}: {flip['why']}"
        keys.setdefault(flip["case"], []).append((what, not flip["kind"].endswith("->pass")))
    found: dict[str, Any] = {"flipped_count": len(keys), "pictured": [], "problem": ""}
    if not keys:
        return found
    problems = [side.problem for side in (a, b) if side is not None and side.problem]
    if a is None or b is None or problems:
        found["problem"] = "; ".join(problems) or "the runs cannot be read: no pictures"
        return found
    shown = list(keys)[:PICTURED_CASES]
    pictures = pictures_of([(side, key) for key in shown for side in (a, b)])
    found["pictured"] = [
        {
            "case": key,
            "why": keys[key],
            "a": picture_cell(pictures[(a.source, key)], key, a.link(key, page_folder)),
            "b": picture_cell(pictures[(b.source, key)], key, b.link(key, page_folder)),
        }
        for key in shown
    ]
    return found


def render_compare_html(document: Mapping[str, Any], page_folder: Path | None = None) -> str:
    settings = document["settings"]
    level = f"{100 * settings['confidence']:g}%"
    runs = [
        [
            "baseline" if i == 0 and document.get("pairs") == "baseline" else str(i),
            r["label"],
            r["model"],
            number_cell(str(r["cases"]), r["cases"]),
            r["run_id"],
            r["source"],
            "yes" if r["complete"] else "NO",
        ]  # fmt: skip
        for i, r in enumerate(document["runs"])
    ]
    method = (
        f"Differences are B - A over the cases both runs have, with {level} paired bootstrap intervals "
        f"({settings['resamples']} resamples, seed {settings['seed']}); pass rates are tested with McNemar's exact test "
        f"(alpha {settings['alpha']:g}). A score is marked better or worse when its whole interval lies on one side of 0 "
        f"and at least {settings['min_pairs']} cases are paired. Timings are left out."
    )
    run_cases = {str(r["label"]): RunCases(r) for r in document["runs"]}
    pairs = [{**_pair(c, settings), **_pictures(c, run_cases, page_folder)} for c in document["comparisons"]]
    score_header = ["score", "n", "unpaired A / B", "mean A", "mean B", "B-A", f"{level} interval", "", ""]
    return render(
        "compare.html.j2",
        "pytest-visioneval comparison",
        runs=runs,
        method=method,
        level=level,
        pairs=pairs,
        score_header=score_header,
    )


def write_compare_html(document: Mapping[str, Any], path: Path) -> None:
    write_page(render_compare_html(document, Path(path).parent), path)
