"""``use: rubric`` - a judge fills in a rubric's fields; our rules give the verdict.

Options: ``rubric`` (a built-in: ui_mockup, marketing_flyer, virtual_tryon,
logo_edit) or ``rubric_file`` (your own rubric YAML, next to the case file;
it may point at your own prompt with ``instructions_file``).

Metrics: one per field - a score field's mean over judgements (0..scale), a
pass/fail field's pass fraction (0..1) - and ``failure_tag.<tag>`` (fraction
of judgements that listed the tag) for every declared tag, so the report can
count them. With several judgements, also ``<field>.std``.

Gate ``verdict``: every rule of the rubric holds for the combined values (a
pass/fail field by majority, a score by its mean). The reason names each rule
that failed, with the judge's own reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..artifacts import Artifact
from ..cases.paths import PathEscapeError, resolve_inside
from ..cases.spec import CaseSpec
from ..errors import GraderError
from ..judges import JudgeRequest
from .base import Gate, Grade, GradeContext, Metric
from .judging import NO_JUDGE, ask_all, case_parts, has_output, majority, mean_metrics
from .rubric_spec import BUILTIN_RUBRICS, Rubric, RubricError, builtin_rubric, load_rubric_file


class RubricGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "rubric": {"enum": list(BUILTIN_RUBRICS)},
            "rubric_file": {"type": "string", "minLength": 1},
        },
        "oneOf": [{"required": ["rubric"]}, {"required": ["rubric_file"]}],
    }

    def __init__(self, options: Mapping[str, Any]):
        self.options = dict(options)

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        try:
            _load(case, options)
        except (RubricError, GraderError) as exc:
            return str(exc)
        return None

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        if context is None or not context.judges:
            return Grade(skipped=NO_JUDGE)
        try:
            rubric = _load(case, self.options)
        except RubricError as exc:
            raise GraderError(str(exc)) from exc
        if not has_output(artifacts):
            return Grade(gates=(Gate("verdict", False, "the output holds nothing for the judge to review"),))
        request = JudgeRequest(
            instructions=f"{rubric.instructions.strip()}\n\n{rubric.prompt_text()}",
            parts=tuple(case_parts(case, artifacts)),
            schema=rubric.reply_schema(),
            schema_name=f"rubric_{rubric.name}",
        )
        replies = [call.data for call in ask_all(context, request)]
        return _grade_from_replies(rubric, replies, judge=context.judges[0].name)


def _load(case: CaseSpec, options: Mapping[str, Any]) -> Rubric:
    if "rubric" in options:
        return builtin_rubric(options["rubric"])
    try:
        path = resolve_inside(case.source.parent, options["rubric_file"])
    except PathEscapeError as exc:
        raise RubricError(str(exc)) from None
    return load_rubric_file(path)


def _grade_from_replies(rubric: Rubric, replies: Sequence[Mapping[str, Any]], judge: str) -> Grade:
    metrics: list[Metric] = []
    combined: dict[str, Any] = {}
    for field in rubric.fields:
        values = [float(r["fields"][field.name]["value"]) for r in replies]
        reason = f"{judge}: {replies[0]['fields'][field.name]['reason']}".strip()
        metrics += mean_metrics(field.name, values, reason)
        combined[field.name] = majority([v >= 1.0 for v in values]) if field.kind == "pass_fail" else sum(values) / len(values)
    for tag in rubric.failure_tags:
        share = sum(tag in r["failure_tags"] for r in replies) / len(replies)
        metrics.append(Metric(f"failure_tag.{tag}", share, f"listed in {share:.0%} of judgements", higher_is_better=False))
    failed = []
    for rule in rubric.rules:
        value = combined[rule.field]
        if not rule.check(value):
            shown = ("pass" if value else "fail") if isinstance(value, bool) else f"{value:.3g}"
            why = replies[0]["fields"][rule.field]["reason"]
            failed.append(f"{rule.field} is {shown}, needs {rule.text} (judge: {why})")
    tags = sorted({t for r in replies for t in r["failure_tags"]})
    if failed:
        reason = "; ".join(failed) + (f"; failure tags: {', '.join(tags)}" if tags else "")
    else:
        reason = f"all {len(rubric.rules)} rules of {rubric.name} hold"
    return Grade(gates=(Gate("verdict", not failed, reason),), metrics=tuple(metrics))
