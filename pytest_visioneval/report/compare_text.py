"""The terminal view of a comparison (:mod:`pytest_visioneval.results.compare`): aligned lines, widest first cut."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .view_text import clip, pct, short_name, signed, text_table


def compare_lines(document: Mapping[str, Any], *, flips_shown: int = 20) -> list[str]:
    """Every comparison in ``document``, one block each; at most ``flips_shown`` flips listed per pair."""
    settings = document["settings"]
    lines = ["runs:"]
    for index, run in enumerate(document["runs"]):
        note = "" if run.get("complete", True) else "  INCOMPLETE run"
        role = "baseline" if index == 0 and document.get("pairs") == "baseline" else f"run {index}"
        lines.append(f"  [{role}] {run['label']}: model {run['model'] or '?'}, {run['cases']} cases{note}")
    level = f"{100 * settings['confidence']:g}%"
    lines.append(
        f"differences are B - A with {level} paired bootstrap intervals ({settings['resamples']} resamples, "
        f"seed {settings['seed']}); pass rates with McNemar's exact test"
    )
    for comparison in document["comparisons"]:
        lines += [""] + pair_lines(comparison, settings, flips_shown=flips_shown)
    return lines


def pair_lines(comparison: Mapping[str, Any], settings: Mapping[str, Any], *, flips_shown: int = 20) -> list[str]:
    """One comparison: pass rates, benchmark scores, metrics per suite, flips, largest changes."""
    level = f"{100 * settings['confidence']:g}%"
    alpha = settings["alpha"]
    a, b = comparison["a"], comparison["b"]
    cases = comparison["cases"]
    lines = [
        f"== {b} (B)  vs  {a} (A) ==",
        f"cases: {cases['paired']} paired, {len(cases['only_a'])} only in A, {len(cases['only_b'])} only in B",
    ]
    # A changed judge first: differences below may be the judge's, not the model's.
    lines += [f"JUDGE CHANGED: {change}" for change in comparison.get("judge_changes", ())]
    rates: list[list[str]] = [["pass rate", "n", "A", "B", "B-A", f"{level} interval", "McNemar"]]
    if comparison["overall"]:
        rates.append(_rate_row("overall", comparison["overall"], alpha))
    for suite, result in comparison["suites"].items():
        if result["pass_rate"]:
            rates.append(_rate_row(suite, result["pass_rate"], alpha))
    lines += [""] + text_table(rates)
    scores: list[list[str]] = [["benchmark score", "n", "A", "B", "B-A", f"{level} interval", ""]]
    for protocol, result in comparison["protocols"].items():
        scores += [_score_row(f"{protocol}.{name}", block) for name, block in result["scores"].items()]
    few = any(row[-1] == "few" for row in scores)
    if len(scores) > 1:
        lines += [""] + text_table(scores)
    metrics: list[list[str]] = [["metrics per suite", "n", "A", "B", "B-A", f"{level} interval", ""]]
    for suite, result in comparison["suites"].items():
        changed = {name: block for name, block in result["metrics"].items() if block["verdict"] != "unchanged"}
        if not result["metrics"]:
            continue
        same = len(result["metrics"]) - len(changed)
        metrics.append([f"{suite}" + (f"  ({same} metric(s) identical on every case, not shown)" if same else "")])
        metrics += [_score_row(f"  {name}", block) for name, block in changed.items()]
    few = few or any(row[-1] == "few" for row in metrics)
    if len(metrics) > 1:
        lines += [""] + text_table(metrics)
    if few:
        lines.append(f"few: fewer than {settings['min_pairs']} paired cases, too few for a verdict (--min-pairs)")
    lines += [""] + _flip_lines(comparison["flips"], flips_shown)
    lines += _gate_flip_lines(comparison.get("gate_flips", ()), flips_shown)
    lines += _change_lines(comparison["changes"])
    return lines


def _rate_row(name: str, block: Mapping[str, Any], alpha: float) -> list[str]:
    significant = block["p_value"] < alpha and block["diff"] != 0
    verdict = (" WORSE" if block["diff"] < 0 else " better") if significant else ""
    return [
        short_name(name),
        str(block["n"]),
        pct(block["a"]),
        pct(block["b"]),
        f"{100 * block['diff']:+.1f}%",
        f"[{100 * block['low']:+.1f}%, {100 * block['high']:+.1f}%]",
        f"p={block['p_value']:.3g} ({block['a_only_passed']} A-only, {block['b_only_passed']} B-only passes){verdict}",
    ]


def _score_row(name: str, block: Mapping[str, Any]) -> list[str]:
    unpaired = block["only_a"] + block["only_b"]
    n = f"{block['n']}" + (f" (+{unpaired} unpaired)" if unpaired else "")
    verdict = {"better": "better", "worse": "WORSE", "too few": "few"}.get(block["verdict"], "")
    return [
        short_name(name),
        n,
        _num(block["mean_a"]),
        _num(block["mean_b"]),
        signed(block["diff"]),
        f"[{signed(block['low'])}, {signed(block['high'])}]",
        verdict,
    ]


def _flip_lines(flips: Sequence[Mapping[str, Any]], shown: int) -> list[str]:
    if not flips:
        return ["flips: none (no case changed between pass, fail and error)"]
    counts: dict[str, int] = {}
    for flip in flips:
        counts[flip["kind"]] = counts.get(flip["kind"], 0) + 1
    lines = [f"flips ({len(flips)}): " + ", ".join(f"{n} {kind}" for kind, n in counts.items())]
    width = max(len(f["case"]) for f in flips[:shown])
    for flip in flips[:shown]:
        why = f"  {clip(flip['why'], 80)}" if flip["why"] else ""
        lines.append(f"  {flip['kind']:<11} {flip['case']:<{width}}{why}")
    if len(flips) > shown:
        lines.append(f"  ... {len(flips) - shown} more (--json or --html list them all)")
    return lines


def _gate_flip_lines(flips: Sequence[Mapping[str, Any]], shown: int) -> list[str]:
    """Gates that flipped, inside cases that may have kept their outcome."""
    if not flips:
        return ["gate flips: none"]
    worse = sum(1 for f in flips if f["kind"] == "pass->fail")
    lines = [f"gate flips ({len(flips)}): {worse} pass->fail, {len(flips) - worse} fail->pass"]
    wheres = [f"{f['case']} {f['gate']}" + ("" if f["gating"] else " (not gating)") for f in flips[:shown]]
    width = max(map(len, wheres))
    for flip, where in zip(flips[:shown], wheres, strict=True):
        why = f"  {clip(flip['why'], 80)}" if flip["why"] else ""
        # The case and gate first: a line here never reads like a case flip's ("  pass->fail  suite/case").
        lines.append(f"  {where:<{width}}  {flip['kind']:<10}{why}".rstrip())
    if len(flips) > shown:
        lines.append(f"  ... {len(flips) - shown} more (--json lists them all)")
    return lines


def _change_lines(changes: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[str]:
    if not changes:
        return []
    lines = ["", "largest changes per metric (B - A):"]
    for name, rows in changes.items():
        lines.append(f"  {name}:")
        width = max(len(r["case"]) for r in rows)
        for row in rows:
            mark = "worse" if row["worse"] else "better"
            lines.append(f"    {row['case']:<{width}}  {_num(row['a'])} -> {_num(row['b'])}  ({signed(row['delta'])}, {mark})")
    return lines


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"
