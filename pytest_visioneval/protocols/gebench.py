"""GEBench: image models as GUI environments (next GUI states and trajectories, judged on 5 dimensions).

Each case is one GEBench sample. Its ``fields`` say which of the five task
types it is, what the user does (``instruction``), the subset (``language``,
``platform``) and, for grounding, where the action happens (``point`` or
``box`` in coordinates normalized to 0-1000). The reference GUI screenshot is
the case's ``images[0]``; a fiction-app sample has none.

Implied graders: ``image`` (gate: exactly ``frames`` images came back), for
the trajectory task types ``trajectory`` (each step differs from the one
before, no screen repeats, no frame is the input again, in the order of the
reference trajectory when the case has one, every frame in the palette of the
input screen or the first frame), for single_step and grounding
``screen_match`` named ``screen`` (the next screen keeps the input's
orientation, scale, sharpness, palette and most of its content) and a judge named ``judge``
scoring GOAL, LOGIC, CONS, UI and QUAL from 0 to 5 - the ``score`` grader,
or, for grounding under ``compat: improved``, ``marked_score``, which also
shows the judge a copy of the screenshot with the target drawn on it.

Per case: ``ge_score`` = sum of the 5 dimensions / 25 x 100, and each
dimension x 20 (0-100). A trajectory with the wrong number of frames, or
frames that do not decode, scores 0.

``compat: official`` (the default) follows the official harness
(github.com/stepfun-ai/GEBench, ``gui_agent/``): the judge runs at
temperature 0.7, grounding caps GOAL and CONS at 2, the grounding judge is
not shown a marked copy, the judge's wording does not depend on the
platform, a case scoring 0 is left out of the means, and the headline
GE-Score is the mean of the task-type means. ``compat: improved`` keeps our
stricter choices; docs/protocols/gebench.md lists each difference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .base import COMPAT_SCHEMA, ScoreSpec, compat_mode, gate_passed, mean_of_group_means, metric_value, overall_means

if TYPE_CHECKING:
    from ..cases.spec import CaseSpec
    from ..graders.outcome import CaseEvaluation

TASK_TYPES = ("single_step", "multi_step", "fiction_app", "real_app", "grounding")
DIMENSIONS = ("goal", "logic", "cons", "ui", "qual")
SCALE = 5
COORDINATE_SCALE = 1000  # GEBench's normalized coordinate grid
JUDGE = "judge"  # the name of the implied judge grader; case_scores reads its metrics
TRAJECTORY_GRADER = "trajectory"
FRAMES_GRADER = "image"
SCREEN_GRADER = "screen"  # single-image task types: the next screen against the input screen

# Output images per task type: one next state, or a trajectory. For fiction_app and
# real_app the official harness reads frame0..frame5 (an opening screen plus five steps).
DEFAULT_FRAMES = {"single_step": 1, "grounding": 1, "multi_step": 5, "fiction_app": 6, "real_app": 6}
NEEDS_SCREENSHOT = ("single_step", "multi_step", "grounding")
TRAJECTORIES = ("multi_step", "fiction_app", "real_app")
MAX_FRAMES = 11  # with the reference screenshot, within the judge's default limit of 12 images

# Official harness facts (github.com/stepfun-ai/GEBench):
# the judge request's temperature - gui_agent/evaluation/providers.py, GPT4oProvider._call_api (line 82);
OFFICIAL_JUDGE_TEMPERATURE = 0.7
# grounding: a wrong screen caps GOAL, large unrelated changes cap CONS - gui_agent/evaluation/prompts.py,
# TYPE5_EVAL_PROMPT (lines 154 and 158). Under ``improved`` we cap both at 1.
OFFICIAL_GROUNDING_CAP = 2
IMPROVED_GROUNDING_CAP = 1

FIELDS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["task_type", "instruction", "language", "platform"],
    "properties": {
        "task_type": {"enum": list(TASK_TYPES)},
        "instruction": {"type": "string", "minLength": 1},
        "language": {"enum": ["zh", "en"]},
        "platform": {"enum": ["phone", "computer"]},
        "point": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
        "box": {"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 4},
        "frames": {"type": "integer", "minimum": 1, "maximum": MAX_FRAMES},
        "expected": {"type": "string", "minLength": 1},
        "sample": {"type": "string", "minLength": 1},
        "judge_instructions_file": {"type": "string", "minLength": 1},  # every task type (the fallback)
        # per task type, e.g. {grounding: type5-prompt.txt}; paths relative to the case file
        "judge_instructions_files": {
            "type": "object",
            "minProperties": 1,
            "propertyNames": {"enum": list(TASK_TYPES)},
            "additionalProperties": {"type": "string", "minLength": 1},
        },
        "compat": COMPAT_SCHEMA,
    },
}

_SURFACE = {"phone": "a real mobile app", "computer": "a real desktop or web application"}

# Our own wording of the five GE-Score dimensions, per task type. ``{cap}`` is the grounding cap.
_GOAL = {
    "single_step": "Goal achievement: the output screen shows the result of exactly the requested action "
    "on the starting screen (input image 1): the right element changed, in the right way, completely.",
    "multi_step": "Goal achievement: read in order, the output frames take the starting screen (input image 1) "
    "to the stated goal, and the last frame shows the goal reached.",
    "app": "Goal achievement: the frames show the app and the flow the instruction describes, step by step, "
    "and end in the state it asks for.",
    "grounding": "Goal achievement: the change happens at the marked target (the red mark on the marked copy of "
    "input image 1) and is what acting on the element there should do. Score at most {cap} if the output shows a "
    "different screen, or if the change is away from the target.",
    # official: no marked copy (the official judge sees the screenshot and the output only), and the cap
    # is about the screen or state reached, as in TYPE5_EVAL_PROMPT
    "grounding_official": "Goal achievement: the output shows the effect of acting on the element at the given "
    "coordinates of input image 1, as the expected result describes. Score at most {cap} if it shows a different "
    "screen or state than the one expected.",
}
_LOGIC = {
    "single": "Interaction logic: a real user action on the starting screen could produce this new state; "
    "the change follows how such interfaces behave (menus open from their trigger, toggles flip, pages navigate).",
    "trajectory": "Interaction logic: each frame follows from the one before by one plausible user action; "
    "no step is skipped, repeated without reason, or impossible.",
    "grounding_official": "Interaction logic: the change starts at the element under the given coordinates "
    "(or in what that element plausibly controls), not in unrelated far-away places.",
}
_CONS = {
    "single_step": "Consistency: everything the action should not touch (status bar, other controls, text, "
    "layout, colours) is unchanged from the starting screen.",
    "multi_step": "Consistency: what persists across screens (bars, app identity, data entered earlier) stays "
    "stable from frame to frame and with the starting screen; no drift.",
    "app": "Consistency: the app keeps one visual identity, navigation and data across all frames.",
    "grounding": "Consistency: regions away from the target are unchanged from the starting screen. Score at "
    "most {cap} if large unrelated regions changed or the screen was replaced by another one.",
    "grounding_official": "Consistency: regions away from the target are unchanged from the starting screen. "
    "Score at most {cap} if large unrelated regions changed without a clear reason.",
}
_UI = "UI plausibility: the screens look like {surface}: structurally coherent, native-looking components, no invented or physically impossible widgets."  # noqa: E501
_QUAL = "Visual quality: text is legible and correctly spelled, icons are crisp, and there is no blur, distortion or rendering artifact."  # noqa: E501
# The official judge prompt is one per task type, whatever the language or platform
# (gui_agent/evaluation/prompts.py, get_eval_prompt ignores lang_device, lines 164-172).
_NEUTRAL_SURFACE = "a real application"


def dimension_texts(task_type: str, platform: str, compat: str = "official") -> dict[str, str]:
    """The five dimensions, worded for this task type (and, under ``improved``, the platform), as the judge reads them."""
    kind = "app" if task_type in ("fiction_app", "real_app") else task_type
    official = compat == "official"
    if task_type == "grounding" and official:
        cap = OFFICIAL_GROUNDING_CAP
        goal, logic, cons = _GOAL["grounding_official"], _LOGIC["grounding_official"], _CONS["grounding_official"]
    else:
        cap = IMPROVED_GROUNDING_CAP
        goal, cons = _GOAL[kind], _CONS[kind]
        logic = _LOGIC["trajectory" if task_type in TRAJECTORIES else "single"]
    return {
        "goal": goal.format(cap=cap),
        "logic": logic,
        "cons": cons.format(cap=cap),
        "ui": _UI.format(surface=_NEUTRAL_SURFACE if official else _SURFACE[platform]),
        "qual": _QUAL,
    }


def instructions_file(fields: Mapping[str, Any]) -> str | None:
    """The judge prompt file for this case: its task type's entry in ``judge_instructions_files``, else the fallback."""
    per_type = fields.get("judge_instructions_files") or {}
    return per_type.get(fields["task_type"]) or fields.get("judge_instructions_file")


def judge_temperature(compat: str) -> dict[str, float]:
    """``{"temperature": 0.7}`` under ``official`` (the judge's own grader option), else ``{}`` (the run's setting, 0)."""
    return {"temperature": OFFICIAL_JUDGE_TEMPERATURE} if compat == "official" else {}


def _coordinates(name: str, values: Sequence[float]) -> list[float]:
    shown = "[" + ", ".join(f"{v:g}" for v in values) + "]"
    if any(not 0 <= v <= COORDINATE_SCALE for v in values):
        raise ValueError(f"{name} {shown} is outside the normalized range 0-{COORDINATE_SCALE}")
    if name == "box" and not (values[0] < values[2] and values[1] < values[3]):
        raise ValueError(f"box {shown} must be [x1, y1, x2, y2] with x1 < x2 and y1 < y2")
    return [float(v) for v in values]


def _target_text(fields: Mapping[str, Any]) -> str:
    if "point" in fields:
        x, y = fields["point"]
        return f"at the point ({x:g}, {y:g})"
    x1, y1, x2, y2 = fields["box"]
    return f"inside the box from ({x1:g}, {y1:g}) to ({x2:g}, {y2:g})"


def _prompt(task_type: str, fields: Mapping[str, Any], frames: int) -> str:
    instruction = str(fields["instruction"]).strip()
    if task_type == "grounding":
        return (
            f"{instruction}\n\nThe user acts on the element {_target_text(fields)} of the screenshot, in coordinates "
            f"normalized to 0-{COORDINATE_SCALE} (x from the left edge, y from the top). Show the screen right after."
        )
    if task_type in TRAJECTORIES:
        return f"{instruction}\n\nShow the interaction as {frames} consecutive screens, one image per step, in order."
    return instruction


class GEBenchProtocol:
    name = "gebench"
    fields_schema: Mapping[str, Any] = FIELDS_SCHEMA
    group_by = ("task_type", "language", "platform")
    scores = (
        ScoreSpec("ge_score", "GE-Score of the case: sum of the 5 judge dimensions / 25 x 100 (0-100)", scale=(0, 100)),
        ScoreSpec("goal", "goal achievement x 20 (0-100)", scale=(0, 100)),
        ScoreSpec("logic", "interaction logic x 20 (0-100)", scale=(0, 100)),
        ScoreSpec("cons", "consistency x 20 (0-100)", scale=(0, 100)),
        ScoreSpec("ui", "UI plausibility x 20 (0-100)", scale=(0, 100)),
        ScoreSpec("qual", "visual quality x 20 (0-100)", scale=(0, 100)),
    )

    def case_defaults(self, fields: Mapping[str, Any], case: Mapping[str, Any]) -> dict[str, Any]:
        task_type = fields["task_type"]
        has_screenshot = bool(case.get("images"))
        if task_type in NEEDS_SCREENSHOT and not has_screenshot:
            raise ValueError(f"a {task_type} case needs the reference GUI screenshot as images[0]")
        if task_type == "fiction_app" and has_screenshot:
            raise ValueError("a fiction_app case has no reference screenshot; remove 'images'")
        has_target = [key for key in ("point", "box") if key in fields]
        if task_type == "grounding" and len(has_target) != 1:
            raise ValueError("a grounding case needs exactly one of 'point' [x, y] or 'box' [x1, y1, x2, y2]")
        if task_type != "grounding" and has_target:
            raise ValueError(f"'{has_target[0]}' is for grounding cases, not {task_type}")
        target = {key: _coordinates(key, fields[key]) for key in has_target}
        frames = fields.get("frames", DEFAULT_FRAMES[task_type])
        if task_type not in TRAJECTORIES and frames != 1:
            raise ValueError(f"a {task_type} case produces one image; 'frames' is for multi_step, fiction_app and real_app")

        compat = compat_mode(fields)
        judge_options: dict[str, Any] = {"dimensions": dimension_texts(task_type, fields["platform"], compat), "scale": SCALE}
        instructions = instructions_file(fields)
        if instructions is not None:
            judge_options["instructions_file"] = instructions
        judge_options.update(judge_temperature(compat))
        # improved: the grounding judge also sees the target drawn on a copy of the screenshot; the official
        # judge gets the screenshot and the output only (gui_agent/evaluation/type5.py, lines 73-80)
        marked = task_type == "grounding" and compat == "improved"
        if marked:
            judge_options.update(target)
        implied: dict[str, Any] = {
            "task": "image_editing" if has_screenshot else "image_generation",
            "prompt": _prompt(task_type, {**fields, **target}, frames),
            "tags": [task_type, fields["language"], fields["platform"]],
            "graders": [
                {"use": "image", "name": FRAMES_GRADER, "options": {"count": frames}},
                {"use": "marked_score" if marked else "score", "name": JUDGE, "options": judge_options},
            ],
        }
        if task_type in TRAJECTORIES:
            # Steps that differ, no repeated screen, none the input again; in the reference's order when there is one.
            implied["graders"].insert(1, {"use": "trajectory", "name": TRAJECTORY_GRADER, "options": {}})
        else:
            # One next screen: the input's look kept (orientation, scale, sharpness, palette, most content).
            implied["graders"].insert(1, {"use": "screen_match", "name": SCREEN_GRADER, "options": {}})
        if "expected" in fields:
            implied["criteria"] = fields["expected"]
        return implied

    def case_scores(self, case: CaseSpec, evaluation: CaseEvaluation) -> dict[str, float] | None:
        values = {dim: metric_value(evaluation, f"{JUDGE}.{dim}") for dim in DIMENSIONS}
        if any(v is None for v in values.values()):
            return None  # the judge did not run (no --judge): unscored, not zero
        dims = {dim: float(v) for dim, v in values.items() if v is not None}
        # Not a valid output at all: wrong number of frames, or frames that do not decode.
        if (
            gate_passed(evaluation, f"{FRAMES_GRADER}.count") is False
            or gate_passed(evaluation, f"{FRAMES_GRADER}.decodes") is False
        ):
            dims = dict.fromkeys(DIMENSIONS, 0.0)
        scores = {"ge_score": sum(dims.values()) / (SCALE * len(DIMENSIONS)) * 100}
        scores.update({dim: value * 100 / SCALE for dim, value in dims.items()})
        return scores

    def excluded_from_mean(self, values: Mapping[str, float], compat: str) -> bool:
        """Official: a case scoring 0 is left out of the means.

        scripts/evaluate.py line 91 averages ``r.overall`` over the results whose ``overall`` is truthy
        (and gui_agent/evaluation_workflow.py line 167 keeps ``overall_score > 0``), so a sample judged 0
        on every dimension - or one whose frames were missing - does not pull the mean down.
        """
        return compat == "official" and values.get("ge_score") == 0.0

    def headline_scores(self, summary: Mapping[str, Any], compat: str) -> dict[str, float]:
        """Official: each score as the mean of its task-type means (the README's GE Score column); else the overall mean.

        In the official README tables, GE Score equals the plain mean of the five task-type columns in 22
        of 24 rows (the two GPT-image-1.5 rows differ). Run one language at a time to compare with a row.
        """
        overall = overall_means(summary)
        by_type = summary.get("groups", {}).get("task_type", {})
        if compat != "official" or not by_type:
            return overall
        means = {name: mean_of_group_means(by_type, name) for name in overall}
        return {name: mean for name, mean in means.items() if mean is not None}


PROTOCOL = GEBenchProtocol()
