"""The vision-eval harness cookbook: workflow evals with gates, 0-5 quality metrics and verdict rules.

A case names its ``use_case`` (UI mockup, marketing flyer, virtual try-on,
logo edit); the protocol then adds the graders that workflow needs: the
built-in rubric of that use case (a judge fills in pass/fail fields and 0-5
scores; *our* rules turn them into the verdict), the exact-text check by OCR
when ``required_text`` lists the copy, pixel locality for a masked edit and a
ground-truth comparison where a canonical result exists.

Per-case scores:

* ``verdict`` - 1 when every verdict rule of the use case's rubric holds, else
  0 (the rubric grader's ``verdict`` gate: computed from the fields, never from
  the judge's own words);
* ``quality`` - the mean of the rubric's score fields (0-5), e.g. layout and
  hierarchy, UI affordance for a mockup.

Both come from the rubric, so without ``--judge`` the case is unscored. The
deterministic gates (text, locality, ground truth) still decide whether the
pytest case passes; they are kept beside the judge's view, not folded into it.
A case without fields - the shape of suites written before the protocol - gets
no implied graders; its scores are read from whatever rubric grader it lists.

The exact-text check follows the case's ``compat``: under ``official`` it is the
cookbook's own (its coffee-flyer example: the extracted lines as a set against
the required set, case and symbols exact, nothing missing and nothing extra; the
OCR grader's ``exact_lines``); under ``improved`` it is ours (``normalized``:
case, dash and quote variants forgiven, each line read exactly once). Either
way, ``text_order: listed`` also asks for the lines in the order
``required_text`` lists them (the text grader's ``in_order`` gate).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .base import COMPAT_SCHEMA, ScoreSpec, compat_mode, gate_passed, metric_value

if TYPE_CHECKING:
    from ..cases.spec import CaseSpec, GraderSpec
    from ..graders.outcome import CaseEvaluation
    from ..graders.rubric_spec import Rubric

# The implied graders' names (a case grader with the same name replaces one).
IMAGE = "image"
RUBRIC = "rubric"
TEXT = "text"
LOCALITY = "locality"
GROUND_TRUTH = "ground_truth"


@dataclass(frozen=True)
class UseCase:
    task: str
    editing_only: bool  # compares with the input image(s): an edit or nothing
    input_images: int | None = None  # exactly this many inputs, when set


USE_CASES: Mapping[str, UseCase] = {
    "ui_mockup": UseCase("image_generation", editing_only=False),
    "marketing_flyer": UseCase("image_generation", editing_only=False),
    # Input image 1 is the person, input image 2 the garment (the rubric tells the judge so).
    "virtual_tryon": UseCase("image_editing", editing_only=True, input_images=2),
    "logo_edit": UseCase("image_editing", editing_only=True),
}

FIELDS_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "use_case": {"enum": list(USE_CASES)},
        "required_text": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": "\\S"}},
        # normalized: ours; exact: word for word within a read line; exact_lines: the cookbook's whole-line equality.
        "text_match": {"enum": ["normalized", "exact", "exact_lines"]},
        # The cookbook passes the text check only when nothing is missing and nothing extra was read.
        "allow_extra_text": {"type": "boolean"},
        # How often each line may be read; default: at_least_once under official (the cookbook compares sets),
        # under improved exactly_once, or at_least_once with allow_extra_text.
        "text_times": {"enum": ["at_least_once", "exactly_once"]},
        # listed: the lines must be read in the order required_text lists them (the text grader's order option);
        # unset, the grader's default (any), as the cookbook's own check compares sets.
        "text_order": {"enum": ["listed", "any"]},
        # true: compare with the case's reference as a canonical result; a number also gates at that score.
        "ground_truth": {"oneOf": [{"type": "boolean"}, {"type": "number", "minimum": 0, "maximum": 1}]},
        "compat": COMPAT_SCHEMA,
    },
}


class CookbookProtocol:
    name: str = "cookbook"
    fields_schema: Mapping[str, Any] = FIELDS_SCHEMA
    # "sweep" is set by the case file's parameter sweep (one value per combination), so each combination
    # gets its own row; a case outside a sweep has none.
    group_by: tuple[str, ...] = ("use_case", "sweep")
    scores: tuple[ScoreSpec, ...] = (
        ScoreSpec("verdict", "1 when every verdict rule of the use case's rubric holds, else 0"),
        ScoreSpec("quality", "mean of the rubric's 0-5 quality scores (layout, style, fidelity...)", scale=(0, 5)),
    )

    def case_defaults(self, fields: Mapping[str, Any], case: Mapping[str, Any]) -> dict[str, Any]:
        graders: list[dict[str, Any]] = []
        implied: dict[str, Any] = {}
        use_case = fields.get("use_case")
        task = case.get("task")
        if use_case is not None:
            spec = USE_CASES[use_case]
            task = task or spec.task
            implied["task"] = spec.task
            _check_use_case(use_case, spec, task, case)
            editing = task == "image_editing"
            graders.append({"use": "image", "name": IMAGE, "options": {"differs_from_input": True} if editing else {}})
            graders.append({"use": "rubric", "name": RUBRIC, "options": {"rubric": use_case}})
            if editing and case.get("mask"):
                graders.append({"use": "locality", "name": LOCALITY})
        graders += _text_graders(fields)
        graders += _ground_truth(fields, use_case, case)
        if graders:
            implied["graders"] = graders
        return implied

    def case_scores(self, case: CaseSpec, evaluation: CaseEvaluation) -> dict[str, float] | None:
        grader = rubric_grader(case)
        if grader is None or any(name == grader.name for name, _ in evaluation.skipped):
            return None  # nothing judged the case (no rubric, or no --judge)
        passed = gate_passed(evaluation, f"{grader.name}.verdict")
        if passed is None:
            return None
        scores = {"verdict": 1.0 if passed else 0.0}
        fields = [f.name for f in load_rubric(case, grader).fields if f.kind == "score"]
        if fields:
            values = [metric_value(evaluation, f"{grader.name}.{name}") for name in fields]
            # No field metrics: the output held nothing to judge, which scores as the worst.
            present = [v for v in values if v is not None]
            scores["quality"] = math.fsum(present) / len(fields) if len(present) == len(fields) else 0.0
        return scores


def _check_use_case(use_case: str, spec: UseCase, task: str, case: Mapping[str, Any]) -> None:
    if spec.editing_only and task != "image_editing":
        raise ValueError(f"use_case {use_case} is an edit of its input image(s): task must be image_editing, not {task}")
    images = case.get("images") or []
    if spec.input_images is not None and len(images) != spec.input_images:
        raise ValueError(
            f"use_case {use_case} needs {spec.input_images} input images (the person, then the garment), got {len(images)}"
        )


def _text_graders(fields: Mapping[str, Any]) -> list[dict[str, Any]]:
    lines = fields.get("required_text")
    if not lines:
        stray = [key for key in ("text_match", "allow_extra_text", "text_times", "text_order") if key in fields]
        if stray:
            raise ValueError(f"{' and '.join(stray)} only apply with required_text")
        return []
    allow_extra = fields.get("allow_extra_text", False)
    if compat_mode(fields) == "official":
        # The seed's check: missing = required - read, extra = read - required, as sets of whole lines.
        match, times = "exact_lines", "at_least_once"
    else:
        # Ours forbids text no required line accounts for, and a second copy of a line is such text:
        # one required line accounts for one reading of it.
        match, times = "normalized", "at_least_once" if allow_extra else "exactly_once"
    options = {
        "required": list(lines),
        "match": fields.get("text_match", match),
        "times": fields.get("text_times", times),
        "forbid_extra": not allow_extra,
    }
    if "text_order" in fields:
        options["order"] = fields["text_order"]
    return [{"use": "text", "name": TEXT, "options": options}]


def _ground_truth(fields: Mapping[str, Any], use_case: str | None, case: Mapping[str, Any]) -> list[dict[str, Any]]:
    # A logo edit's reference is the canonical result; for the other use cases it is only an example output.
    wanted = fields.get("ground_truth", use_case == "logo_edit" and bool(case.get("reference")))
    if wanted is False:
        return []
    if not case.get("reference"):
        raise ValueError("ground_truth compares with the case's 'reference', which this case lacks")
    options = {} if wanted is True else {"min_score": wanted}
    return [{"use": "similarity", "name": GROUND_TRUTH, "options": options}]


def rubric_grader(case: CaseSpec) -> GraderSpec | None:
    """The rubric grader the scores come from: the one named ``rubric``, else the first ``use: rubric``."""
    rubrics = [g for g in case.graders if g.use == "rubric"]
    named = [g for g in rubrics if g.name == RUBRIC]
    return next(iter(named or rubrics), None)


def load_rubric(case: CaseSpec, grader: GraderSpec) -> Rubric:
    from ..cases.paths import resolve_inside
    from ..graders.rubric_spec import builtin_rubric, load_rubric_file

    if "rubric" in grader.options:
        return builtin_rubric(grader.options["rubric"])
    return load_rubric_file(resolve_inside(case.source.parent, grader.options["rubric_file"]))


PROTOCOL = CookbookProtocol()
