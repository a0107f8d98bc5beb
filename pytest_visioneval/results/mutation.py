"""The mutation self-test per suite, per property family and per class.

Reads the ``mutation`` entry each case record carries under ``--eval-mutants``
(see :mod:`pytest_visioneval.run.mutation`). A broken mutant is caught,
missed or judge-only (no gate of the case can see what it breaks, and no
judge graded it); ``uncaught`` counts the missed ones, ``missed`` lists them.
The mutation score of a suite is the share of its caught
mutants among those caught or missed. A legitimate variant that failed is a
brittle gate. Plain data in, plain data out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

COUNTS = ("broken", "caught", "uncaught", "judge_only", "caught_by_judge", "legitimate", "legitimate_passed")


def mutation_summary(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Per suite: counts, score, per family and class, the mutants missed and the variants failed
    (empty when no case was self-tested)."""
    suites: dict[str, dict[str, Any]] = {}
    for record in records:
        mutation = record.get("mutation")
        if mutation is None:
            continue
        suite = suites.setdefault(record["suite"], _empty())
        suite["cases"] += 1
        if not mutation["baseline_passed"]:
            suite["baselines_failed"].append(record["uid"])
        for m in mutation["mutants"]:
            _count(suite, record["uid"], m)
        suite["not_applicable"].update(n["name"] for n in mutation["not_applicable"])
        for key in ("seed", "per_family"):
            if key in mutation:
                suite[key] = mutation[key]
    for suite in suites.values():
        suite["score"] = score(suite)
        for group in ("families", "classes"):
            suite[group] = {name: {**c, "score": score(c)} for name, c in sorted(suite[group].items())}
        suite["not_applicable"] = dict(sorted(suite["not_applicable"].items()))
    return {"suites": dict(sorted(suites.items()))}


def score(counts: Mapping[str, Any]) -> float | None:
    """Caught among the broken mutants a gate (or a judge) could have caught; None when there were none."""
    seen = counts["caught"] + counts["uncaught"]
    return counts["caught"] / seen if seen else None


def _counts() -> dict[str, int]:
    return dict.fromkeys(COUNTS, 0)


def _empty() -> dict[str, Any]:
    return {
        "cases": 0,
        **_counts(),
        "families": {},
        "classes": {},
        "missed": [],
        "brittle": [],
        "baselines_failed": [],
        "not_applicable": Counter(),
    }


def _count(suite: dict[str, Any], uid: str, mutant: Mapping[str, Any]) -> None:
    status = mutant["status"]
    family = suite["families"].setdefault(mutant["family"], _counts())
    kind = suite["classes"].setdefault(mutant["name"], _counts())
    counted = [suite, family, kind]
    keys = ["broken"] if mutant["broken"] else ["legitimate"]
    if status in ("caught", "caught_by_judge"):
        keys.append("caught")
    if status in ("judge_only", "caught_by_judge"):
        keys.append(status)
    if status == "missed":
        keys.append("uncaught")
    if status == "passed":
        keys.append("legitimate_passed")
    for where in counted:
        for key in keys:
            where[key] += 1
    about = {
        "case": uid,
        "mutant": mutant["label"],
        "family": mutant["family"],
        "class": mutant["class"],
        "params": mutant["params"],
        "description": mutant["description"],
        "folder": mutant["folder"],
    }
    if status == "missed":
        suite["missed"].append(about)
    elif status == "brittle":
        why = mutant["error"] or "; ".join(f"{g['name']}: {g['reason']}" for g in mutant["failed_gates"])
        suite["brittle"].append({**about, "failed": why})
