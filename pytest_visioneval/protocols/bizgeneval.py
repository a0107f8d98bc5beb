"""BizGenEval: commercial images (slides, webpages, charts, posters, scientific figures) checked by 20 yes/no questions.

Each case is a text-to-image prompt with a checklist of 20 questions, ten
marked easy and ten hard. A judge answers all twenty in one call (the
``checklist`` grader); each track then scores ``max(0, 1 - alpha x errors)``
with alpha 0.2 over its ten questions, and the whole checklist with alpha 0.1
over twenty. Scores are reported on the paper's 0-100 scale.

A question counts as answered yes when more than half of the judgements said
yes (its ``checklist.q<N>`` metric is > 0.5); a tie between several judge
passes, a "no", an unsure answer and a missing answer are all errors - the
same majority rule the checklist's own gate uses.

Under ``compat: official`` the judge is set up as microsoft/BizGenEval's
``evaluation/image_evaluation.py`` does it: it sees the image, at its own size,
and the numbered checklist only (not the prompt, not a rationale), and the
system prompt is chosen by the row's ``eval_tag`` (from the user's
``judge_instructions_files``); the published "Average" is the mean of the
group means (``evaluation/summarize.py``), see :meth:`headline_scores`.
``compat: improved`` shows the judge the prompt and the hidden rationale too,
downscales the image like every other judge, and reports the mean over cases.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .base import COMPAT_SCHEMA, ScoreSpec, compat_mode, mean_of_group_means, metric_value, overall_means

if TYPE_CHECKING:
    from ..cases.spec import CaseSpec
    from ..graders.outcome import CaseEvaluation

DOMAINS = ("slides", "webpage", "chart", "poster", "scientific_figure")
DIMENSIONS = ("layout", "attribute", "text", "knowledge")
N_QUESTIONS = 20
TRACK_SIZE = 10
# The implied graders' names; the scores are read back from the checklist's q<N> metrics.
CHECKLIST = "checklist"
IMAGE = "image"
SCORES = ("easy", "hard", "all")
# The implied aspect gate allows this share of the asked ratio either way: an endpoint's nearest supported
# size (3:2 for 4:3 or 16:9, 2:3 for 9:16: 12-19% off) passes; a square for 4:3 (25%) or a picture
# stretched 1.3x or more along one axis (23% or more) fails, which is where circles visibly turn oval.
ASPECT_TOLERANCE = 0.2
_RATIO = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[:/x]\s*(\d+(?:\.\d+)?)\s*$")
# What the official judge is shown (image_evaluation.py, evaluate_item): the checklist as text and the image.
OFFICIAL_VIEW: Mapping[str, Any] = {"prompt": False, "inputs": False, "outputs": "all", "code": False}

FIELDS_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["domain", "dimension", "questions", "easy_qidxs", "hard_qidxs"],
    "properties": {
        "domain": {"enum": list(DOMAINS)},
        "dimension": {"enum": list(DIMENSIONS)},
        "questions": {
            "type": "array",
            "minItems": N_QUESTIONS,
            "maxItems": N_QUESTIONS,
            "items": {"type": "string", "minLength": 1},
        },
        # 1-based question numbers; lengths, overlap and range are checked in case_defaults for clearer messages.
        "easy_qidxs": {"type": "array", "items": {"type": "integer"}},
        "hard_qidxs": {"type": "array", "items": {"type": "integer"}},
        "rationale": {"type": "string"},  # hidden: shown to the judge only
        "aspect_ratio": {"type": "string", "minLength": 1},
        "reference_image_wh": {
            "type": "array",
            "minItems": 2,
            "maxItems": 2,
            "items": {"type": "integer", "minimum": 1},
        },
        "eval_tag": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
        # When set, the checklist fails the case below this share of yes answers; unset, it only scores.
        "gate_min_score": {"type": "number", "minimum": 0, "maximum": 1},
        "judge_instructions_file": {"type": "string", "minLength": 1},  # your judge prompt, next to the case file
        # Your judge prompt per eval_tag ({tag: file}); judge_instructions_file is the fallback for other tags.
        "judge_instructions_files": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {"type": "string", "minLength": 1},
        },
        "compat": COMPAT_SCHEMA,
    },
}


def check_tracks(easy: Sequence[int], hard: Sequence[int]) -> None:
    """Raise ``ValueError`` unless easy and hard are 10 distinct, disjoint question numbers each, within 1..20."""
    for name, track in (("easy_qidxs", easy), ("hard_qidxs", hard)):
        outside = sorted({i for i in track if not 1 <= i <= N_QUESTIONS})
        if outside:
            raise ValueError(f"{name} has {outside}: question numbers are 1-based, within 1..{N_QUESTIONS}")
        repeated = sorted({i for i in track if list(track).count(i) > 1})
        if repeated:
            raise ValueError(f"{name} lists {repeated} more than once")
        if len(track) != TRACK_SIZE:
            raise ValueError(f"{name} must list {TRACK_SIZE} questions, got {len(track)}")
    both = sorted(set(easy) & set(hard))
    if both:
        raise ValueError(f"questions {both} are in both easy_qidxs and hard_qidxs")


def asked_aspect(text: str) -> float:
    """Width / height from an ``aspect_ratio`` such as "16:9" ("4/3" and "3x2" too)."""
    match = _RATIO.match(text)
    if not match or float(match.group(1)) <= 0 or float(match.group(2)) <= 0:
        raise ValueError(f"aspect_ratio {text!r} is not a ratio such as '16:9'")
    return float(match.group(1)) / float(match.group(2))


def _image_options(fields: Mapping[str, Any], case: Mapping[str, Any]) -> dict[str, Any]:
    """The image gate's options: the asked aspect ratio, unless ``params.size`` asks a size (its own gate)."""
    if "aspect_ratio" not in fields or (case.get("params") or {}).get("size"):
        return {}  # the importer leaves the field out where the official row has it empty
    return {"aspect": asked_aspect(str(fields["aspect_ratio"])), "aspect_tolerance": ASPECT_TOLERANCE}


def track_score(errors: int, alpha_percent: int) -> float:
    """``max(0, 1 - alpha x errors)`` in percent; integer arithmetic keeps 1 - 0.2 x 3 at exactly 40."""
    return float(max(0, 100 - alpha_percent * errors))


class BizGenEvalProtocol:
    name: str = "bizgeneval"
    fields_schema: Mapping[str, Any] = FIELDS_SCHEMA
    group_by: tuple[str, ...] = ("domain", "dimension")
    scores: tuple[ScoreSpec, ...] = (
        ScoreSpec("easy", "easy track: max(0, 1 - 0.2 x errors among the 10 easy questions), 0-100", scale=(0, 100)),
        ScoreSpec("hard", "hard track: max(0, 1 - 0.2 x errors among the 10 hard questions), 0-100", scale=(0, 100)),
        ScoreSpec("all", "all 20 questions: max(0, 1 - 0.1 x errors), 0-100", scale=(0, 100)),
    )

    def case_defaults(self, fields: Mapping[str, Any], case: Mapping[str, Any]) -> dict[str, Any]:
        check_tracks(fields["easy_qidxs"], fields["hard_qidxs"])
        task = case.get("task")
        if task not in (None, "image_generation"):
            raise ValueError(f"bizgeneval cases are text-to-image (task image_generation), not {task}")
        official = compat_mode(fields) == "official"
        gate_min_score = fields.get("gate_min_score")
        options: dict[str, Any] = {"questions": list(fields["questions"])}
        if official:
            # The official judge gets the checklist and the full-size image, nothing else.
            options["view"] = dict(OFFICIAL_VIEW)
            options["full_size_images"] = True
        elif fields.get("rationale"):
            options["hidden_rationale"] = fields["rationale"]
        if gate_min_score is not None:
            options["min_score"] = gate_min_score
        instructions = instructions_for(fields)
        if instructions is not None:
            options["instructions_file"] = instructions
        return {
            "task": "image_generation",
            "tags": [fields["domain"], fields["dimension"]],
            "graders": [
                {"use": "image", "name": IMAGE, "options": _image_options(fields, case)},  # decodes, not blank, shape
                # The benchmark is a score, not a pass/fail test: the checklist gates only when asked to.
                {"use": "checklist", "name": CHECKLIST, "gate": gate_min_score is not None, "options": options},
            ],
        }

    def case_scores(self, case: CaseSpec, evaluation: CaseEvaluation) -> dict[str, float] | None:
        if any(name == CHECKLIST for name, _ in evaluation.skipped):
            return None  # no judge configured
        if not any(g.name == CHECKLIST and g.use == "checklist" for g in case.graders):
            return None  # the case replaced the checklist: nothing to score from
        # No q<N> metric (the output held nothing to judge) is an error, like an unanswered question.
        wrong = {i for i in range(1, N_QUESTIONS + 1) if (metric_value(evaluation, f"{CHECKLIST}.q{i}") or 0.0) <= 0.5}
        easy = sum(1 for i in case.fields["easy_qidxs"] if i in wrong)
        hard = sum(1 for i in case.fields["hard_qidxs"] if i in wrong)
        return {"easy": track_score(easy, 20), "hard": track_score(hard, 20), "all": track_score(len(wrong), 10)}

    def headline_scores(self, summary: Mapping[str, Any], compat: str) -> dict[str, float]:
        """The published "Average": under official, the mean of the group means; otherwise the mean over cases.

        evaluation/summarize.py (``_build_grouped_csv``, ``_make_row``) averages the means of the
        groups that have scored cases, in two tables: by domain (the paper's Table 1, here ``easy``,
        ``hard``, ``all``) and by dimension (Table 2, ``<score>_by_dimension``). With every case
        scored the official set has 80 per domain and 100 per dimension, and both equal the mean
        over cases; they differ once cases are left out.
        """
        if compat != "official":
            return overall_means(summary)
        out: dict[str, float] = {}
        for field, order, suffix in (("domain", DOMAINS, ""), ("dimension", DIMENSIONS, "_by_dimension")):
            groups = summary["groups"].get(field, {})
            known = {g: groups[g] for g in order if g in groups}
            for name in SCORES:
                mean = mean_of_group_means(known, name)
                if mean is not None:
                    out[f"{name}{suffix}"] = mean
        return out


def instructions_for(fields: Mapping[str, Any]) -> str | None:
    """The judge prompt file for the case: its eval_tag's in ``judge_instructions_files``, else ``judge_instructions_file``.

    The official harness picks the system prompt by ``eval_tag`` and stops on a tag it has no prompt
    for (image_evaluation.py, ``evaluate_item``); so does this, at collection, when per-tag files
    are given without a fallback.
    """
    per_tag: Mapping[str, str] = fields.get("judge_instructions_files") or {}
    tag = fields.get("eval_tag")
    tags = [tag] if isinstance(tag, str) else list(tag or [])
    chosen = next((per_tag[t] for t in tags if t in per_tag), None)
    if chosen is not None:
        return chosen
    fallback = fields.get("judge_instructions_file")
    if per_tag and fallback is None:
        which = f"eval_tag {tag!r}" if tags else "a case without eval_tag"
        raise ValueError(
            f"judge_instructions_files has no prompt for {which} (it has {', '.join(sorted(per_tag))}) "
            "and there is no judge_instructions_file to fall back on"
        )
    return fallback


PROTOCOL = BizGenEvalProtocol()
