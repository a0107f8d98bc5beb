"""Pairwise verdicts -> win/tie/loss counts per pair and suite, and a Bradley-Terry ranking.

Input: one :class:`Judgement` per case and pair of runs (made by
:mod:`pytest_visioneval.graders.pairwise`, whose ``outcome`` is ``"a"``,
``"b"``, ``"tie"`` or ``"error"``). Counts are from side A's point of view:
``ties`` includes the ``inconsistent`` ones (the two orders disagreed), and
errors are counted apart, never as ties. The win rate is
``(wins + ties / 2) / (wins + ties + losses)`` with a bootstrap interval over
cases. With three or more runs, a Bradley-Terry ranking
(:mod:`.bradley_terry`) overall and per suite. The result is plain JSON data.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

import numpy as np

from .bradley_terry import DEFAULT_PRIOR, case_bootstrap
from .statistics import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED, paired_bootstrap

SCHEMA_NAME = "pytest-visioneval/pairwise"
SCHEMA_VERSION = 1
OUTCOMES = ("a", "b", "tie", "error")
# A ranking needs this many runs: with two, the pair's win rate says it all.
MIN_RANKED = 3


@dataclass(frozen=True)
class Settings:
    confidence: float = DEFAULT_CONFIDENCE
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    prior: float = DEFAULT_PRIOR

    def as_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "method": (
                "each case judged twice with the outputs in both orders, a win only when both orders agree; "
                "Bradley-Terry strengths by the MM algorithm (a tie is half a win each way, plus `prior` virtual "
                "ties per pair), percentile bootstrap intervals over cases"
            ),
        }


@dataclass(frozen=True)
class Judgement:
    """The verdict on one case between runs ``a`` and ``b`` (indices into the run names)."""

    a: int
    b: int
    case: str
    suite: str
    verdict: Mapping[str, Any]  # PairVerdict.as_dict(): outcome, inconsistent, answers, error


def document_id(runs: Sequence[Mapping[str, Any]], judge: Mapping[str, Any]) -> str:
    """A pairwise document's id: the same runs judged by the same judge and instructions give the same id.

    People's labels of the verdicts are kept under it in their browser, so judging the same runs again
    keeps them, and another comparison starts afresh.
    """
    instructions = judge.get("instructions") or {}
    identity = {
        "runs": [[r.get("name"), r.get("run_id"), r.get("model"), r.get("cases")] for r in runs],
        "judge": [judge.get("name"), instructions.get("sha256") or instructions.get("source")],
    }
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode("utf-8")).hexdigest()
    return f"pairwise-{digest[:16]}"


def summarize(names: Sequence[str], judgements: Sequence[Judgement], settings: Settings = Settings()) -> dict[str, Any]:
    """Counts per pair (overall and per suite) and, for three or more runs, the rankings."""
    if len(names) < 2:
        raise ValueError("pairwise judging needs at least two runs")
    for j in judgements:
        if j.verdict["outcome"] not in OUTCOMES:
            raise ValueError(f"unknown outcome {j.verdict['outcome']!r} for case {j.case}")
    by_pair: dict[tuple[int, int], list[Judgement]] = defaultdict(list)
    for j in judgements:
        by_pair[(j.a, j.b)].append(j)
    pairs = []
    for a, b in combinations(range(len(names)), 2):
        found = sorted(by_pair.get((a, b), []), key=lambda j: j.case)
        suites: dict[str, list[Judgement]] = defaultdict(list)
        for j in found:
            suites[j.suite].append(j)
        pairs.append(
            {
                "a": names[a],
                "b": names[b],
                "overall": counts(found, settings),
                "suites": {suite: counts(rows, settings) for suite, rows in sorted(suites.items())},
                "judgements": [{"case": j.case, "suite": j.suite, **j.verdict} for j in found],
            }
        )
    ranked = len(names) >= MIN_RANKED
    suite_names = sorted({j.suite for j in judgements})
    return {
        "schema": SCHEMA_NAME,
        "schema_version": SCHEMA_VERSION,
        "settings": settings.as_dict(),
        "pairs": pairs,
        "ranking": ranking(names, judgements, settings) if ranked else None,
        "suite_rankings": (
            {suite: ranking(names, [j for j in judgements if j.suite == suite], settings) for suite in suite_names}
            if ranked
            else {}
        ),
        "errors": sum(1 for j in judgements if j.verdict["outcome"] == "error"),
    }


def counts(judgements: Sequence[Judgement], settings: Settings) -> dict[str, Any]:
    """Wins, ties (inconsistent ones included), losses and errors of side A, its win rate and that rate's interval."""
    outcome = [j.verdict["outcome"] for j in judgements]
    wins, losses, ties = outcome.count("a"), outcome.count("b"), outcome.count("tie")
    scores = [1.0 if o == "a" else 0.0 if o == "b" else 0.5 for o in outcome if o != "error"]
    # The bootstrap of a mean is the paired bootstrap of the scores against zero.
    interval = paired_bootstrap(
        [0.0] * len(scores), scores, confidence=settings.confidence, resamples=settings.resamples, seed=settings.seed
    )
    return {
        "cases": len(judgements),
        "wins": wins,
        "ties": ties,
        "losses": losses,
        "inconsistent": sum(1 for j in judgements if j.verdict["outcome"] == "tie" and j.verdict.get("inconsistent")),
        "errors": outcome.count("error"),
        "win_rate": interval.diff if interval else None,
        "low": interval.low if interval else None,
        "high": interval.high if interval else None,
    }


def ranking(names: Sequence[str], judgements: Sequence[Judgement], settings: Settings) -> dict[str, Any]:
    """Bradley-Terry strengths with intervals, strongest first; runs without a decided comparison are listed apart.

    The bootstrap draws cases: a case brings its verdicts for every pair of runs.
    """
    decided = [j for j in judgements if j.verdict["outcome"] != "error"]
    present = sorted({j.a for j in decided} | {j.b for j in decided})
    left_out = [names[i] for i in range(len(names)) if i not in present]
    if len(present) < 2:
        return {"models": [], "not_ranked": left_out, "cases": 0}
    slot = {run: k for k, run in enumerate(present)}
    case_keys = sorted({j.case for j in decided})
    row = {case: k for k, case in enumerate(case_keys)}
    m = len(present)
    case_wins = np.zeros((len(case_keys), m, m))
    tally = np.zeros((m, 3), dtype=int)  # wins, ties, losses against every opponent
    for j in decided:
        a, b, k = slot[j.a], slot[j.b], row[j.case]
        outcome = j.verdict["outcome"]
        if outcome == "tie":
            case_wins[k, a, b] += 0.5
            case_wins[k, b, a] += 0.5
            tally[[a, b], 1] += 1
        else:
            winner, loser = (a, b) if outcome == "a" else (b, a)
            case_wins[k, winner, loser] += 1
            tally[winner, 0] += 1
            tally[loser, 2] += 1
    fitted = case_bootstrap(
        case_wins, prior=settings.prior, confidence=settings.confidence, resamples=settings.resamples, seed=settings.seed
    )
    assert fitted.low is not None and fitted.high is not None
    order = sorted(range(m), key=lambda k: (-fitted.strength[k], names[present[k]]))
    models = [
        {
            "rank": place,
            "model": names[present[k]],
            "strength": float(fitted.strength[k]),
            "low": float(fitted.low[k]),
            "high": float(fitted.high[k]),
            "wins": int(tally[k, 0]),
            "ties": int(tally[k, 1]),
            "losses": int(tally[k, 2]),
        }
        for place, k in enumerate(order, 1)
    ]
    return {"models": models, "not_ranked": left_out, "cases": len(case_keys)}
