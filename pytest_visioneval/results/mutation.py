"""The mutation self-test per suite: mutants caught, mutants missed, legitimate variants failed.

Reads the ``mutation`` entry each case record carries under ``--eval-mutants``
(see :mod:`pytest_visioneval.run.mutation`). The mutation score of a suite is
the share of its broken mutants that some gate caught; a legitimate variant
that failed is a brittle gate. Plain data in, plain data out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any


def mutation_summary(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Per suite: counts, score, and the mutants missed and variants failed (empty when no case was self-tested)."""
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
    for suite in suites.values():
        suite["score"] = suite["caught"] / suite["broken"] if suite["broken"] else None
        suite["not_applicable"] = dict(sorted(suite["not_applicable"].items()))
    return {"suites": dict(sorted(suites.items()))}


def _empty() -> dict[str, Any]:
    return {
        "cases": 0,
        "broken": 0,
        "caught": 0,
        "legitimate": 0,
        "legitimate_passed": 0,
        "missed": [],
        "brittle": [],
        "baselines_failed": [],
        "not_applicable": Counter(),
    }


def _count(suite: dict[str, Any], uid: str, mutant: Mapping[str, Any]) -> None:
    if mutant["broken"]:
        suite["broken"] += 1
        if mutant["caught"]:
            suite["caught"] += 1
        else:
            suite["missed"].append({"case": uid, "mutant": mutant["name"], "description": mutant["description"]})
        return
    suite["legitimate"] += 1
    if not mutant["caught"]:
        suite["legitimate_passed"] += 1
    else:
        why = mutant["error"] or "; ".join(f"{g['name']}: {g['reason']}" for g in mutant["failed_gates"])
        suite["brittle"].append({"case": uid, "mutant": mutant["name"], "description": mutant["description"], "failed": why})
