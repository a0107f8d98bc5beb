"""Soft vs hard checklists: how much a case's score moves between judgements of the same judge.

Run on demand (not part of the test suite):

    .venv/bin/python benchmarks/soft_vs_hard.py [--cases 30] [--questions 5] [--judge-repeats 5] [--noise 1.0]

A scripted stochastic judge answers through the loopback test server and the
real ``openai`` SDK. Each case has, per question, a latent probability q that
the judge says yes; each judgement (one of ``--judge-repeats``) perturbs it in
logit space, p = sigmoid(logit(q) + N(0, noise)) - the judge's state moving
between calls - and then:

* soft (``checklist`` with ``soft: true``): P(yes) = p, read from the first
  token's ``top_logprobs``; the case's ``soft_score`` is the mean of p;
* hard, greedy: the same replies' yes/no (p > 0.5), the ``score`` the soft
  grader records beside ``soft_score``;
* hard, sampled: the plain ``checklist`` (one JSON reply), each answer drawn
  yes with probability p - a judge sampling at temperature 1.

Every request draws its noise from (case, question, judgement), so the three
rows see the same underlying judge. Printed: per row, the mean over cases of
the spread (population standard deviation) of the case's score across the
judgements (what the grader's ``<score>.std`` metric records with
``--judge-repeats``), and the spread of the suite's mean score across judgements.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.graders import GradeContext
from pytest_visioneval.graders.checklist import ChecklistGrader
from pytest_visioneval.judges import JudgeSettings, create_judges
from pytest_visioneval.testing import FakeOpenAIServer, RecordedRequest
from pytest_visioneval.testing.logprob_replies import yes_no_tokens
from pytest_visioneval.testing.openai_server import default_image


def _rng(*key: object) -> random.Random:
    return random.Random(hashlib.sha256(repr(key).encode()).digest())


class StochasticJudge:
    """The same judge for both kinds of request: p per (case, question, judgement)."""

    def __init__(self, questions: int, noise: float) -> None:
        self.questions = [f"Is element {i} of the prompt shown?" for i in range(1, questions + 1)]
        self.noise = noise

    def latent(self, case: str, question: int) -> float:
        return _rng("latent", case, question).uniform(0.05, 0.95)

    def p(self, case: str, question: int, judgement: int) -> float:
        q = self.latent(case, question)
        logit = math.log(q / (1 - q)) + _rng("noise", case, question, judgement).gauss(0.0, self.noise)
        return 1 / (1 + math.exp(-logit))

    @staticmethod
    def _read(request: RecordedRequest) -> tuple[str, str, int]:
        body = request.json or {}
        text = json.dumps(body["messages"][1]["content"])
        case = text.split("Prompt given to the model:\\n", 1)[1].split("\\n", 1)[0]
        return case, text, int(body.get("seed", 0))  # the judge's seed is the run's seed + the judgement's index

    def logprobs(self, request: RecordedRequest) -> dict[str, float]:
        case, text, judgement = self._read(request)
        number = next(i for i, q in enumerate(self.questions, 1) if f"Question: {q}" in text)
        return yes_no_tokens(self.p(case, number, judgement))

    def json_reply(self, request: RecordedRequest) -> str:
        case, _, judgement = self._read(request)
        answers = []
        for number in range(1, len(self.questions) + 1):
            draw = _rng("sample", case, number, judgement).random()
            yes = draw < self.p(case, number, judgement)
            answers.append({"id": number, "reason": "scripted", "answer": "yes" if yes else "no"})
        return json.dumps({"answers": answers})


def spreads(per_case: list[list[float]]) -> tuple[float, float]:
    """Mean over cases of the spread across judgements; spread of the suite mean across judgements."""
    within = statistics.fmean(statistics.pstdev(values) for values in per_case)
    suite_means = [statistics.fmean(case[j] for case in per_case) for j in range(len(per_case[0]))]
    return within, statistics.pstdev(suite_means)


SOFT, GREEDY, SAMPLED = "soft (mean P(yes))", "hard, greedy (P(yes) > 0.5)", "hard, sampled JSON answers"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--judge-repeats", type=int, default=5)
    parser.add_argument("--noise", type=float, default=1.0, help="standard deviation of the judge's logit noise per judgement")
    args = parser.parse_args()
    judge = StochasticJudge(args.questions, args.noise)
    output = (Artifact("image-0.png", default_image("64x64")),)
    rows: dict[str, list[list[float]]] = {SOFT: [], GREEDY: [], SAMPLED: []}
    os.environ.setdefault("OPENAI_API_KEY", "sk-benchmark")
    soft = ChecklistGrader({"questions": judge.questions, "soft": True, "min_score": 0.0})
    hard = ChecklistGrader({"questions": judge.questions, "min_score": 0.0})
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as server:
        server.logprobs_for = judge.logprobs
        server.text_reply = judge.json_reply
        # One context per judgement (its seed is the judgement's index), so each grade gives one exact value.
        contexts = [
            GradeContext(
                judges=create_judges(
                    ("openai:stochastic",), JudgeSettings(base_url=server.base_url, max_retries=0, reply_retries=0, seed=j)
                )
            )
            for j in range(args.judge_repeats)
        ]
        for c in range(args.cases):
            case = CaseSpec("bench", f"c{c}", "generic", "image_generation", Path(tmp) / "b.eval.yaml", 1, prompt=f"case {c}")
            values: dict[str, list[float]] = {SOFT: [], GREEDY: [], SAMPLED: []}
            for context in contexts:
                soft_metrics = {m.name: m.value for m in soft.grade(case, output, context).metrics}
                values[SOFT].append(soft_metrics["soft_score"])
                values[GREEDY].append(soft_metrics["score"])
                values[SAMPLED].append({m.name: m.value for m in hard.grade(case, output, context).metrics}["score"])
            for name, per_judgement in values.items():
                rows[name].append(per_judgement)
        requests = len(server.requests)
    seconds = time.perf_counter() - started
    print(
        f"{args.cases} cases x {args.questions} questions, {args.judge_repeats} judgements each, "
        f"logit noise {args.noise:g} ({requests} requests in {seconds:.1f} s)"
    )
    print(f"{'scoring':30} {'spread of a case (mean std)':>28} {'spread of the suite mean':>26}")
    for name, per_case in rows.items():
        within, suite = spreads(per_case)
        print(f"{name:30} {within:28.4f} {suite:26.4f}")
    soft_within = spreads(rows[SOFT])[0]
    for name in (GREEDY, SAMPLED):
        ratio = spreads(rows[name])[0] / soft_within if soft_within else math.inf
        print(f"{name}: {ratio:.2f}x the soft score's spread")


if __name__ == "__main__":
    main()
