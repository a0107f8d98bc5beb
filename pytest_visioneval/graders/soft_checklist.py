"""The soft side of ``checklist`` (``soft: true``): P(yes) per question, from token probabilities.

Each question is its own plain-text request (``judges.logprobs.YesNoRequest``)
whose first answer token's ``top_logprobs`` give P(yes), as soft-TIFA and
GenEval 2 do; one request per question keeps each probability about one
question, where a single JSON reply would put the later answers' tokens after
the judge's earlier reasons.

A question with ``depends_on`` is asked as presupposing its parents, so its
P(yes) reads as conditional, and the recorded probability is the joint one:
P(Q and its ancestors) = P(Q | ancestors) x the product of each ancestor's
own P(yes | its ancestors) - a chain Q1 <- Q2 <- Q3 gives p3 * p2 * p1, each
ancestor counted once however many paths lead to it.

The hard answers are derived from the same replies (yes when P(yes) > 0.5,
what a greedy judge answering only yes or no would say), so the ``score`` /
``q<N>`` metrics and the default gate stay hard, as the benchmarks score them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .base import Gate, Metric
from .judging import mean_metrics


def ancestors(number: int, parents: Mapping[int, Sequence[int]]) -> set[int]:
    """Every question ``number`` presupposes, directly or through its parents."""
    seen: set[int] = set()
    stack = list(parents.get(number, ()))
    while stack:
        parent = stack.pop()
        if parent not in seen:
            seen.add(parent)
            stack.extend(parents.get(parent, ()))
    return seen


def joint_probabilities(asked: Sequence[float], parents: Mapping[int, Sequence[int]]) -> list[float]:
    """Per question (numbered from 1), its P(yes) times its ancestors' (see the module's note)."""
    return [p * math.prod(asked[a - 1] for a in ancestors(i, parents)) for i, p in enumerate(asked, 1)]


def hard_answers(asked: Sequence[float]) -> dict[int, tuple[bool, str]]:
    """The yes/no a greedy judge gives: yes when P(yes) > 0.5; the reason quotes the probability."""
    return {i: (p > 0.5, f"P(yes) {p:.2f}") for i, p in enumerate(asked, 1)}


def soft_metrics(questions: Sequence[str], per_call: Sequence[Sequence[float]], judge: str) -> list[Metric]:
    """``soft_score`` (mean joint P(yes); ``.std`` across judgements) and ``p<N>`` per question."""
    n = len(questions)
    metrics = mean_metrics("soft_score", [math.fsum(ps) / n for ps in per_call], f"mean P(yes) of {n} questions ({judge})")
    for i, question in enumerate(questions, 1):
        values = [ps[i - 1] for ps in per_call]
        metrics.append(Metric(f"p{i}", math.fsum(values) / len(values), f"P(yes): {question}"))
    return metrics


def probability_gate(questions: Sequence[str], means: Sequence[float], min_probability: float, min_score: float) -> Gate:
    """A question counts as yes when its mean joint P(yes) is >= ``min_probability``."""
    n = len(questions)
    low = [(i, p) for i, p in enumerate(means, 1) if p < min_probability]
    passed_count = n - len(low)
    passed = passed_count / n >= min_score
    head = f"{passed_count}/{n} with P(yes) >= {min_probability:g} (needs {min_score:.0%})"
    problems = [f"Q{i} P(yes) {p:.2f} ({questions[i - 1]})" for i, p in low]
    return Gate("answers", passed, "; ".join([head, *problems]))
