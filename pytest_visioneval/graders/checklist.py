"""``use: checklist`` - N yes/no questions about the output, answered in one call.

Options: ``questions`` (the list: each a question, or ``{text, depends_on}``
where ``depends_on`` lists the numbers of earlier questions it presupposes -
"is the logo's text red?" presupposes "is there a logo?" - so a question whose
parent was answered "no" scores "no" too, with that reason, and the judge's
answer to it is not counted), ``hidden_rationale`` (background the judge
sees and the model never did, e.g. the facts a knowledge question rests on),
``min_score`` (gate threshold, default 1.0: every answer must be yes),
``instructions_file`` (your own judge prompt, next to the case file), ``view``
(what the judge is shown; see ``judging.VIEW_SCHEMA``), ``full_size_images``
(send the images at their own size instead of downscaling them to
``--judge-max-image-side``, as BizGenEval's official harness does).

An answer the judge leaves out counts as "no"; so does uncertainty (the judge
is told to answer "no" when unsure). Each answer is kept with its reason.

Metrics: ``score`` (fraction answered yes; mean over judgements), ``errors``
(questions not answered yes), and ``q<N>`` per question (fraction of
judgements answering yes), whose reason is the judge's. Gate ``answers``:
the fraction of questions answered yes by majority is >= ``min_score``; the
reason names each question answered "no" or left out.

``soft: true`` asks each question on its own and reads P(yes) from the
judge's first-token logprobs (``soft_checklist.py``; the endpoint must give
``logprobs``, ``top_logprobs`` is how many alternatives to ask for, default
20). It adds ``soft_score`` (mean P(yes), dependent questions multiplied down)
and ``p<N>`` per question; the hard metrics and the gate are still the yes/no
answers (yes: P(yes) > 0.5), unless ``min_probability`` is set: then a question
counts as yes when its mean P(yes) is at least that.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..judges import ImagePart, JudgeRequest, Part
from ..judges.logprobs import DEFAULT_TOP_LOGPROBS, YES_NO_INSTRUCTIONS, YesNoRequest
from .base import Gate, Grade, GradeContext, Metric
from .judging import (
    NO_JUDGE,
    VIEW_SCHEMA,
    ask_all,
    ask_probabilities,
    case_parts,
    check_instructions_file,
    has_output,
    majority,
    mean_metrics,
    read_instructions,
)
from .soft_checklist import hard_answers, joint_probabilities, probability_gate, soft_metrics

DEFAULT_INSTRUCTIONS = """\
You check an image (or page) that a model produced against a list of yes/no
questions. Judge only what is visible in the output. Answer "yes" only when
the output clearly satisfies the question; if you are unsure, or it is only
partly satisfied, answer "no". For each question, give its number, a short
reason pointing at what you see, then the answer."""


class ChecklistGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["questions"],
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "oneOf": [
                        {"type": "string", "minLength": 1},
                        {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["text"],
                            "properties": {
                                "text": {"type": "string", "minLength": 1},
                                "depends_on": {"type": "array", "items": {"type": "integer", "minimum": 1}},
                            },
                        },
                    ]
                },
            },
            "hidden_rationale": {"type": "string"},
            "min_score": {"type": "number", "minimum": 0, "maximum": 1},
            "instructions_file": {"type": "string", "minLength": 1},
            "view": VIEW_SCHEMA,
            "full_size_images": {"type": "boolean"},
            "soft": {"type": "boolean", "default": False},
            "min_probability": {"type": "number", "minimum": 0, "maximum": 1},
            "top_logprobs": {"type": "integer", "minimum": 1, "maximum": 20, "default": DEFAULT_TOP_LOGPROBS},
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        items = list(options["questions"])
        self.questions: list[str] = [q if isinstance(q, str) else q["text"] for q in items]
        # question number -> the numbers of the earlier questions it presupposes
        self.parents: dict[int, tuple[int, ...]] = {
            i: tuple(q.get("depends_on", ())) for i, q in enumerate(items, 1) if isinstance(q, Mapping)
        }
        self.hidden_rationale: str = options.get("hidden_rationale", "")
        self.min_score: float = float(options.get("min_score", 1.0))
        self.instructions_file: str | None = options.get("instructions_file")
        self.view: dict[str, Any] | None = options.get("view")
        self.full_size_images: bool = bool(options.get("full_size_images", False))
        self.soft: bool = bool(options.get("soft", False))
        self.min_probability: float | None = options.get("min_probability")
        self.top_logprobs: int = int(options.get("top_logprobs", DEFAULT_TOP_LOGPROBS))

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        for number, question in enumerate(options.get("questions", ()), 1):
            if isinstance(question, Mapping):
                later = [p for p in question.get("depends_on", ()) if p >= number]
                if later:
                    return f"question {number} depends on {later}: a question may depend only on earlier ones"
        if "min_probability" in options and not options.get("soft"):
            return "min_probability needs soft: true (probabilities are read only in soft mode)"
        return check_instructions_file(case, options.get("instructions_file"))

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        if context is None or not context.judges:
            return Grade(skipped=NO_JUDGE)
        n = len(self.questions)
        if not has_output(artifacts, case, self.view):
            return Grade(
                gates=(Gate("answers", False, "the output holds nothing for the judge to check"),),
                metrics=(Metric("score", 0.0, "no output"), Metric("errors", float(n), "no output", higher_is_better=False)),
            )
        if self.soft:
            return self._grade_soft(case, artifacts, context)
        listed = "\n".join(f"{i}. {q}" for i, q in enumerate(self.questions, 1))
        request = JudgeRequest(
            instructions=read_instructions(case, self.instructions_file, DEFAULT_INSTRUCTIONS),
            parts=self._parts(case, artifacts, f"Questions:\n{listed}"),
            schema=_reply_schema(n),
            schema_name="checklist",
        )
        calls = ask_all(context, request)
        per_call = [_with_dependencies(_answers(call.data, n), self.parents) for call in calls]
        return _grade(self.questions, per_call, self.min_score, calls[0].judge, self.parents)

    def _parts(self, case: CaseSpec, artifacts: Sequence[Artifact], extra: str) -> tuple[Part, ...]:
        """The case's parts for the judge, with the questions (and the checker-only background) after them."""
        if self.hidden_rationale:
            extra += f"\n\nBackground for the checker only (the model did not see it):\n{self.hidden_rationale}"
        parts: list[Part] = case_parts(case, artifacts, extra_text=extra, view=self.view)
        if self.full_size_images:
            parts = [replace(p, full_size=True) if isinstance(p, ImagePart) else p for p in parts]
        return tuple(parts)

    def _grade_soft(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext) -> Grade:
        """One yes/no request per question; P(yes) from the first token (see ``soft_checklist.py``)."""
        per_question: list[list[tuple[str, float]]] = []
        for number, question in enumerate(self.questions, 1):
            extra = f"Question: {question}"
            presupposed = [self.questions[p - 1] for p in self.parents.get(number, ())]
            if presupposed:
                extra += "\nAssume the answer to each of these is yes: " + " / ".join(presupposed)
            request = YesNoRequest(
                instructions=read_instructions(case, self.instructions_file, YES_NO_INSTRUCTIONS),
                parts=self._parts(case, artifacts, extra),
                schema={},
                schema_name="checklist_yes_no",
                top_logprobs=self.top_logprobs,
            )
            per_question.append(ask_probabilities(context, request))
        judge = per_question[0][0][0]
        asked = [[answers[c][1] for answers in per_question] for c in range(len(per_question[0]))]  # per judgement
        joint = [joint_probabilities(ps, self.parents) for ps in asked]
        answers = [_with_dependencies(hard_answers(ps), self.parents) for ps in asked]
        hard = _grade(self.questions, answers, self.min_score, judge, self.parents)
        soft = soft_metrics(self.questions, joint, judge)
        gates = hard.gates
        if self.min_probability is not None:
            means = [sum(ps[i] for ps in joint) / len(joint) for i in range(len(self.questions))]
            gates = (probability_gate(self.questions, means, float(self.min_probability), self.min_score),)
        return Grade(gates=gates, metrics=(*hard.metrics, *soft))


def _reply_schema(n: int) -> dict[str, Any]:
    answer = {
        "type": "object",
        "additionalProperties": False,
        "required": ["id", "reason", "answer"],
        "properties": {
            "id": {"type": "integer", "minimum": 1, "maximum": n},
            "reason": {"type": "string"},
            "answer": {"enum": ["yes", "no"]},
        },
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["answers"],
        "properties": {"answers": {"type": "array", "items": answer}},
    }


def _answers(data: Mapping[str, Any], n: int) -> dict[int, tuple[bool, str]]:
    """Question number -> (yes?, reason); the first answer to a question counts."""
    out: dict[int, tuple[bool, str]] = {}
    for item in data["answers"]:
        out.setdefault(int(item["id"]), (item["answer"] == "yes", item["reason"]))
    return out


def _with_dependencies(answers: dict[int, tuple[bool, str]], parents: Mapping[int, Sequence[int]]) -> dict[int, tuple[bool, str]]:
    """One judgement's answers, each question whose parent was not answered yes turned into a no that says so."""
    out = dict(answers)
    for number in sorted(parents):  # parents come first: a chain of dependencies resolves in order
        failed = [p for p in parents[number] if not out.get(p, (False, ""))[0]]
        if failed:
            listed = ", ".join(f"Q{p}" for p in failed)
            out[number] = (False, f"depends on {listed}, not answered yes")
    return out


def _grade(
    questions: Sequence[str],
    per_call: Sequence[dict[int, tuple[bool, str]]],
    min_score: float,
    judge: str,
    parents: Mapping[int, Sequence[int]] | None = None,
) -> Grade:
    n = len(questions)
    metrics: list[Metric] = []
    scores = [sum(yes for yes, _ in answers.values()) / n for answers in per_call]
    metrics += mean_metrics("score", scores, f"{n} questions")
    metrics += mean_metrics("errors", [n - s * n for s in scores], "questions not answered yes", higher_is_better=False)
    problems = []
    majority_yes = 0
    for i, question in enumerate(questions, 1):
        votes = [answers.get(i, (False, ""))[0] for answers in per_call]
        first = per_call[0].get(i)
        why = "not answered (counts as no)" if first is None else first[1]
        metrics.append(Metric(f"q{i}", sum(votes) / len(votes), f"{question} - {judge}: {why}"))
        if majority(votes):
            majority_yes += 1
        elif first is None:
            problems.append(f"Q{i} was not answered ({question})")
        elif i in (parents or {}) and any(not per_call[0].get(p, (False, ""))[0] for p in (parents or {})[i]):
            problems.append(f"Q{i} counts as no ({question}): {why}")
        else:
            problems.append(f'judge answered "no" to Q{i} ({question}): {why}')
    fraction = majority_yes / n
    passed = fraction >= min_score
    head = f"{majority_yes}/{n} answered yes (needs {min_score:.0%})"
    return Grade(gates=(Gate("answers", passed, "; ".join([head, *problems])),), metrics=tuple(metrics))
