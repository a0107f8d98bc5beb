"""``use: vqascore`` - the judge's probability of "Yes" to "Does this image show {prompt}?".

VQAScore (Lin et al. 2024, t2v_metrics): the question is asked in plain text
with ``logprobs`` and ``top_logprobs`` (no JSON schema: the first answer
token must be free to be Yes or No, and the judge is told to begin with it);
P(yes) is read from that first token's distribution, normalised over its
yes/no variants (``judges/logprobs.py``).

Options: ``question`` (one question; ``{prompt}`` is replaced by the case's
prompt) or ``questions`` (several, each asked on its own; the score is their
mean); by default the question is built from the case's prompt. ``min``
makes a gate on the mean P(yes); ``top_logprobs`` (1-20, default 20) is how
many alternatives the endpoint is asked for; ``view`` (what the judge is
shown; by default the output images only, see ``judging.VIEW_SCHEMA``).

Metrics: ``p_yes`` (mean over questions and judgements, in [0, 1]), with
``p_yes.std`` across judgements when there are several, and ``p<N>`` per
question when there is more than one. Gate ``p_yes`` only when ``min`` is
set. An endpoint that returns no logprobs, or a first token whose top list
holds no yes/no token, is an error of the case (``JudgeOutputError``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..judges.logprobs import DEFAULT_TOP_LOGPROBS, YES_NO_INSTRUCTIONS, YesNoRequest
from .base import Gate, Grade, GradeContext, Metric
from .judging import NO_JUDGE, VIEW_SCHEMA, ask_probabilities, case_parts, has_output, mean_metrics

# VQAScore's own template (t2v_metrics), with the answer's form spelled out for chat judges.
DEFAULT_QUESTION = "Does this figure show '{prompt}'? Please answer yes or no."
# The judge sees the question and the output, not the prompt block nor the input images, unless ``view`` says so.
DEFAULT_VIEW: dict[str, Any] = {"prompt": False, "inputs": False}


class VqaScoreGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "not": {"required": ["question", "questions"]},
        "properties": {
            "question": {"type": "string", "minLength": 1},
            "questions": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
            "min": {"type": "number", "minimum": 0, "maximum": 1},
            "top_logprobs": {"type": "integer", "minimum": 1, "maximum": 20, "default": DEFAULT_TOP_LOGPROBS},
            "view": VIEW_SCHEMA,
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        if "questions" in options:
            self.templates: list[str] = list(options["questions"])
        else:
            self.templates = [options.get("question", DEFAULT_QUESTION)]
        self.min: float | None = None if options.get("min") is None else float(options["min"])
        self.top_logprobs: int = int(options.get("top_logprobs", DEFAULT_TOP_LOGPROBS))
        self.view: dict[str, Any] = {**DEFAULT_VIEW, **(options.get("view") or {})}

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        templates = options.get("questions") or [options.get("question", DEFAULT_QUESTION)]
        if any("{prompt}" in t for t in templates) and not (case.prompt or "").strip():
            return "vqascore asks about the case's prompt ({prompt}), and this case has none: give a question"
        return None

    def questions(self, case: CaseSpec) -> list[str]:
        # replace, not format: a question may hold other braces
        return [t.replace("{prompt}", (case.prompt or "").strip()) for t in self.templates]

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        if context is None or not context.judges:
            return Grade(skipped=NO_JUDGE)
        questions = self.questions(case)
        if not has_output(artifacts, case, self.view):
            metrics = (Metric("p_yes", 0.0, "no output"),)
            gates = (Gate("p_yes", False, "the output holds nothing for the judge to look at"),) if self.min is not None else ()
            return Grade(gates=gates, metrics=metrics)
        per_question: list[list[tuple[str, float]]] = []
        for question in questions:
            request = YesNoRequest(
                instructions=YES_NO_INSTRUCTIONS,
                parts=tuple(case_parts(case, artifacts, extra_text=f"Question: {question}", view=self.view)),
                schema={},
                schema_name="yes_no",
                top_logprobs=self.top_logprobs,
            )
            per_question.append(ask_probabilities(context, request))
        # One value per judgement: the mean over the questions that judgement answered.
        calls = len(per_question[0])
        per_call = [sum(answers[i][1] for answers in per_question) / len(questions) for i in range(calls)]
        judge = per_question[0][0][0]
        metrics = mean_metrics("p_yes", per_call, f"P(yes) from {judge}'s first-token logprobs, {len(questions)} question(s)")
        if len(questions) > 1:
            for n, (question, answers) in enumerate(zip(questions, per_question, strict=True), 1):
                metrics.append(Metric(f"p{n}", sum(p for _, p in answers) / calls, question))
        gates: tuple[Gate, ...] = ()
        if self.min is not None:
            mean = metrics[0].value
            verdict = ">=" if mean >= self.min else "<"
            gates = (Gate("p_yes", mean >= self.min, f"P(yes) {mean:.3f} {verdict} min {self.min:g} ({judge})"),)
        return Grade(gates=gates, metrics=tuple(metrics))
