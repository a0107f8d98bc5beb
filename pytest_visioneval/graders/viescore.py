"""``use: viescore`` - semantic consistency and perceptual quality, VIEScore style.

The judge scores, each 0-10: semantic consistency (for generation:
``prompt_adherence``; for editing: ``instruction_following`` and
``minimal_editing``) and perceptual quality (``naturalness`` and
``artifacts``, where 10 means no artefacts). Per judgement,
``overall = sqrt(min(SC) x min(PQ))``.

Metrics (means over judgements, 0-10): ``sc`` (min of the SC sub-scores),
``pq`` (min of the PQ sub-scores), ``overall``, and each sub-score. Option
``min_overall`` adds the gate ``overall_ok``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..judges import JudgeRequest
from .base import Gate, Grade, GradeContext, Metric
from .judging import NO_JUDGE, ask_all, case_parts, check_instructions_file, mean_metrics, read_instructions

SC_GENERATION = {"prompt_adherence": "How fully the output shows what the prompt asks for."}
SC_EDITING = {
    "instruction_following": "How fully the requested edit was made.",
    "minimal_editing": "How little changed beyond the requested edit (10: nothing else changed).",
}
PQ = {
    "naturalness": "How natural and coherent the image looks (lighting, geometry, proportions).",
    "artifacts": "Absence of artefacts: distortions, smears, broken text, seams (10: none at all).",
}

DEFAULT_INSTRUCTIONS = """\
You rate an image a model produced. Give each sub-score as an integer from 0
to 10, with a short reason first that points at what you see. Semantic
consistency is about matching the request; perceptual quality is about the
image itself, whatever was requested."""


class VieScoreGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "min_overall": {"type": "number", "minimum": 0, "maximum": 10},
            "instructions_file": {"type": "string", "minLength": 1},
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        self.min_overall: float | None = options.get("min_overall")
        self.instructions_file: str | None = options.get("instructions_file")

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        if case.task == "html_generation":
            return "viescore rates images; this case's task is html_generation"
        return check_instructions_file(case, options.get("instructions_file"))

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        if context is None or not context.judges:
            return Grade(skipped=NO_JUDGE)
        sc = SC_EDITING if case.task == "image_editing" else SC_GENERATION
        if not any(a.kind == "image" for a in artifacts):
            reason = "the output holds no image to rate"
            gates: tuple[Gate, ...] = (Gate("overall_ok", False, reason),) if self.min_overall is not None else ()
            return Grade(gates=gates, metrics=tuple(Metric(n, 0.0, reason) for n in ("sc", "pq", "overall")))
        described = "\n".join(f"- {k}: {v}" for k, v in {**sc, **PQ}.items())
        request = JudgeRequest(
            instructions=read_instructions(case, self.instructions_file, DEFAULT_INSTRUCTIONS),
            parts=tuple(case_parts(case, artifacts, extra_text=f"Sub-scores:\n{described}")),
            schema=_reply_schema(list(sc), list(PQ)),
            schema_name="viescore",
        )
        calls = ask_all(context, request)
        judge = calls[0].judge
        sc_mins, pq_mins, overalls = [], [], []
        metrics: list[Metric] = []
        for call in calls:
            sc_values = [call.data["semantic_consistency"][k]["score"] for k in sc]
            pq_values = [call.data["perceptual_quality"][k]["score"] for k in PQ]
            sc_mins.append(float(min(sc_values)))
            pq_mins.append(float(min(pq_values)))
            overalls.append(math.sqrt(min(sc_values) * min(pq_values)))
        for group, names in (("semantic_consistency", sc), ("perceptual_quality", PQ)):
            for k in names:
                values = [float(call.data[group][k]["score"]) for call in calls]
                metrics += mean_metrics(k, values, f"{judge}: {calls[0].data[group][k]['reason']}")
        metrics += mean_metrics("sc", sc_mins, "min of the semantic-consistency sub-scores")
        metrics += mean_metrics("pq", pq_mins, "min of the perceptual-quality sub-scores")
        metrics += mean_metrics("overall", overalls, "sqrt(min SC x min PQ)")
        overall = sum(overalls) / len(overalls)
        gates = ()
        if self.min_overall is not None:
            ok = overall >= self.min_overall
            gates = (Gate("overall_ok", ok, f"overall {overall:.3g} {'>=' if ok else '<'} {self.min_overall:g}"),)
        return Grade(gates=gates, metrics=tuple(metrics))


def _reply_schema(sc: list[str], pq: list[str]) -> dict[str, Any]:
    one = {
        "type": "object",
        "additionalProperties": False,
        "required": ["reason", "score"],
        "properties": {"reason": {"type": "string"}, "score": {"type": "integer", "minimum": 0, "maximum": 10}},
    }

    def group(names: list[str]) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False, "required": names, "properties": {n: one for n in names}}

    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["semantic_consistency", "perceptual_quality"],
        "properties": {"semantic_consistency": group(sc), "perceptual_quality": group(pq)},
    }
