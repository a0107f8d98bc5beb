"""A comparison (:mod:`pytest_visioneval.results.compare`) as one self-contained HTML page.

Tables of differences with each interval drawn around zero, the flipped cases
and the largest changes; columns sort on a click. Case names and reasons come
from case files, models and judges, so all text is escaped, and a
Content-Security-Policy allows only the page's own style and script.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .run_pictures import RunCases, picture_cell, pictures_of
from .view_html import Cell, escaped, html_table, interval_svg, markup_cell, number_cell, page, write_page
from .view_text import pct, signed

_VERDICTS = {
    "better": '<span class="better">better</span>',
    "worse": '<span class="worse">worse</span>',
    "too few": '<span class="small">too few cases</span>',
}


def _verdict_cell(verdict: str) -> Cell:
    return markup_cell(_VERDICTS.get(verdict, ""))


def _rate_row(name: str, block: Mapping[str, Any] | None, alpha: float) -> list[str]:
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
        markup_cell(interval_svg(block["low"], block["diff"], block["high"], verdict)),
        number_cell(f"{block['p_value']:.3g}", block["p_value"]),
        number_cell(f"{block['a_only_passed']} / {block['b_only_passed']}", block["b_only_passed"] - block["a_only_passed"]),
        _verdict_cell(verdict),
    ]


def _score_row(name: str, block: Mapping[str, Any]) -> list[str]:
    return [
        name,
        number_cell(str(block["n"]), block["n"]),
        number_cell(f"{block['only_a']} / {block['only_b']}", block["only_a"] + block["only_b"]),
        number_cell(f"{block['mean_a']:.4g}", block["mean_a"]),
        number_cell(f"{block['mean_b']:.4g}", block["mean_b"]),
        number_cell(signed(block["diff"]), block["diff"]),
        number_cell(f"[{signed(block['low'])}, {signed(block['high'])}]", block["low"]),
        markup_cell(interval_svg(block["low"], block["diff"], block["high"], block["verdict"])),
        _verdict_cell(block["verdict"]),
    ]


def _pair(comparison: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    level = f"{100 * settings['confidence']:g}%"
    cases = comparison["cases"]
    parts = [
        f"<h2>B {escaped(comparison['b'])} vs A {escaped(comparison['a'])}</h2>",
        f"<p>{cases['paired']} cases paired; {len(cases['only_a'])} only in A, {len(cases['only_b'])} only in B.</p>",
    ]
    if cases["only_a"] or cases["only_b"]:
        listing = [f"only in A: {', '.join(cases['only_a'])}" if cases["only_a"] else "",
                   f"only in B: {', '.join(cases['only_b'])}" if cases["only_b"] else ""]  # fmt: skip
        unpaired = escaped(" | ".join(x for x in listing if x))
        parts.append(f'<details><summary>unpaired cases</summary><p class="small">{unpaired}</p></details>')
    parts.append(f'<div class="verdict {"bad" if comparison["regressions"] else "ok"}">')
    if comparison["regressions"]:
        parts.append("<strong>significant regressions</strong><ul>")
        parts += [f"<li>{escaped(reason)}</li>" for reason in comparison["regressions"]]
        parts.append("</ul>")
    else:
        parts.append("no significant regression")
    parts.append("</div>")

    parts.append("<h3>Pass rates</h3>")
    alpha = settings["alpha"]
    rate_rows = [_rate_row("overall", comparison["overall"], alpha)]
    rate_rows += [_rate_row(f"suite {suite}", result["pass_rate"], alpha) for suite, result in comparison["suites"].items()]
    header = ["group", "n", "A", "B", "B-A", f"{level} interval", "", "McNemar p", "A-only / B-only passes", ""]
    parts.append(html_table(header, rate_rows))

    score_header = ["score", "n", "unpaired A / B", "mean A", "mean B", "B-A", f"{level} interval", "", ""]
    score_rows = [
        _score_row(f"{protocol}.{name}", block)
        for protocol, result in comparison["protocols"].items()
        for name, block in result["scores"].items()
    ]
    if score_rows:
        parts += ["<h3>Benchmark scores</h3>", html_table(score_header, score_rows)]
    metric_rows = [
        _score_row(f"{suite}: {name}", block)
        for suite, result in comparison["suites"].items()
        for name, block in result["metrics"].items()
        if block["verdict"] != "unchanged"
    ]
    same = [
        f"{suite}: {name}"
        for suite, result in comparison["suites"].items()
        for name, block in result["metrics"].items()
        if block["verdict"] == "unchanged"
    ]
    if metric_rows or same:
        parts.append("<h3>Metrics per suite</h3>")
    if metric_rows:
        parts.append(html_table(["suite: metric", *score_header[1:]], metric_rows))
    if same:
        parts.append(f'<p class="small">Identical on every paired case: {escaped(", ".join(same))}.</p>')

    flips = comparison["flips"]
    parts.append(f"<h3>Flips ({len(flips)})</h3>")
    if flips:
        parts.append(
            html_table(
                ["flip", "case", "suite", "A", "B", "why"],
                ([f["kind"], f["case"], f["suite"], f["a"], f["b"], f["why"]] for f in flips),
            )
        )
    else:
        parts.append("<p>No case changed between pass, fail and error.</p>")

    if comparison["changes"]:
        parts.append("<h3>Largest changes per metric</h3>")
        for name, rows in comparison["changes"].items():
            table = html_table(
                ["case", "A", "B", "B-A", ""],
                (
                    [
                        r["case"],
                        number_cell(f"{r['a']:.4g}", r["a"]),
                        number_cell(f"{r['b']:.4g}", r["b"]),
                        number_cell(signed(r["delta"]), r["delta"]),
                        _verdict_cell("worse" if r["worse"] else "better"),
                    ]  # fmt: skip
                    for r in rows
                ),
            )
            parts.append(f"<details open><summary>{escaped(name)}</summary>{table}</details>")
    return "\n".join(parts)


PICTURED_CASES = 40  # flipped cases shown with their outputs, per pair of runs


def _pictures(comparison: Mapping[str, Any], runs: Mapping[str, RunCases], page_folder: Path | None) -> str:
    """The flipped cases (a case's status, or one of its gates) with both runs' outputs side by side."""
    a, b = runs.get(comparison["a"]), runs.get(comparison["b"])
    keys: dict[str, list[tuple[str, bool]]] = {}  # case -> (what flipped, whether it got worse)
    for flip in comparison["flips"]:
        keys.setdefault(flip["case"], []).append((f"{flip['kind']}: {flip['why']}", not flip["kind"].endswith("->pass")))
    for flip in comparison.get("gate_flips") or ():
        what = f"gate {flip['gate']} {flip['kind']}: {flip['why']}"
        keys.setdefault(flip["case"], []).append((what, not flip["kind"].endswith("->pass")))
    if not keys:
        return ""
    problems = [side.problem for side in (a, b) if side is not None and side.problem]
    if a is None or b is None or problems:
        return f'<p class="small">{escaped("; ".join(problems) or "the runs cannot be read: no pictures")}</p>'
    shown = list(keys)[:PICTURED_CASES]
    pictures = pictures_of([(side, key) for key in shown for side in (a, b)])
    rows = []
    for key in shown:
        cells = [picture_cell(pictures[(side.source, key)], key, side.link(key, page_folder)) for side in (a, b)]
        why = "".join(f'<li class="{"flipped" if worse else "fixed"}">{escaped(w)}</li>' for w, worse in keys[key])
        rows.append(f'<tr data-case="{escaped(key)}"><td>{escaped(key)}<ul class="small">{why}</ul></td>{"".join(cells)}</tr>')
    more = f'<p class="small">{len(keys) - len(shown)} more flipped case(s) not pictured.</p>' if len(keys) > len(shown) else ""
    head = f"<tr><th>case</th><th>A {escaped(comparison['a'])}</th><th>B {escaped(comparison['b'])}</th></tr>"
    return (
        f"<h3>Flipped cases side by side ({len(keys)})</h3>"
        f'<table class="side-by-side"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>{more}'
    )


def render_compare_html(document: Mapping[str, Any], page_folder: Path | None = None) -> str:
    settings = document["settings"]
    level = f"{100 * settings['confidence']:g}%"
    runs = html_table(
        ["", "run", "model", "cases", "run id", "file", "complete"],
        (
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
        ),
    )
    method = (
        f"Differences are B - A over the cases both runs have, with {level} paired bootstrap intervals "
        f"({settings['resamples']} resamples, seed {settings['seed']}); pass rates are tested with McNemar's exact test "
        f"(alpha {settings['alpha']:g}). A score is marked better or worse when its whole interval lies on one side of 0 "
        f"and at least {settings['min_pairs']} cases are paired. Timings are left out."
    )
    run_cases = {str(r["label"]): RunCases(r) for r in document["runs"]}
    body = "\n".join(_pair(c, settings) + _pictures(c, run_cases, page_folder) for c in document["comparisons"])
    return page(
        "pytest-visioneval comparison",
        ["<h1>Comparison</h1>", runs, f'<p class="small">{escaped(method)}</p>', body],
    )


def write_compare_html(document: Mapping[str, Any], path: Path) -> None:
    write_page(render_compare_html(document, Path(path).parent), path)
