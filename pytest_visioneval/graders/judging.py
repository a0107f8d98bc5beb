"""Shared machinery of the judge graders.

* :func:`case_parts` - what the judge sees, always in this order: the prompt
  and criteria text, the input images, the mask, the output image(s), the
  code; a grader's ``view`` option (:data:`VIEW_SCHEMA`) leaves parts out.
* :func:`ask_all` - every configured judge, ``judge_repeats`` times each;
  :func:`ask_probabilities` - the same for a yes/no question read from token
  probabilities (``judges/logprobs.py``): P(yes) per call.
* :func:`mean_metrics` / :func:`majority_gate` - combine those calls: numbers
  by their mean (plus ``.std`` across calls when there is more than one),
  pass/fail by majority (a tie fails).
"""

from __future__ import annotations

import fnmatch
import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..artifacts import Artifact
from ..cases.paths import PathEscapeError, resolve_inside
from ..cases.spec import CaseSpec
from ..errors import GraderError
from ..judges import ImagePart, JudgeRequest, Part, TextPart
from .base import Gate, GradeContext, Metric

NO_JUDGE = "no judge configured: judge graders need --judge=openai:MODEL"
MAX_CODE_CHARS = 60_000  # of an output page's code sent to a judge


@dataclass(frozen=True)
class JudgeCall:
    judge: str
    repeat: int
    data: dict[str, Any]


def case_parts(
    case: CaseSpec, artifacts: Sequence[Artifact], *, extra_text: str = "", view: Mapping[str, Any] | None = None
) -> list[Part]:
    """What the judge sees; ``view`` (a grader's ``view`` option, see :data:`VIEW_SCHEMA`) narrows it."""
    view = view or {}
    text = []
    if view.get("prompt", True):
        text.append(f"Prompt given to the model:\n{case.prompt or '(none)'}")
        if case.criteria:
            text.append(f"Criteria the output must meet:\n{case.criteria}")
    if extra_text:
        text.append(extra_text)
    parts: list[Part] = [TextPart("\n\n".join(text))] if text else []
    if view.get("inputs", True):
        parts += [ImagePart(f"Input image {i}", p.read_bytes()) for i, p in enumerate(case.images, 1)]
        if case.mask is not None:
            parts.append(ImagePart("Edit mask (transparent or white areas may change)", case.mask.read_bytes()))
    outputs = select_outputs(case, artifacts, view.get("outputs", "all"))
    parts += [ImagePart(f"Output image {i} ({a.name})", a.data) for i, a in enumerate(outputs, 1)]
    # The page's code when there is one; a bare text reply only when there is not
    # (the reply, DOM snapshot and render report would repeat the page).
    code = [a for a in artifacts if a.kind in ("html", "svg")] or [a for a in artifacts if a.kind == "text"]
    if not view.get("code", True):
        code = []
    for a in code:
        body = a.data.decode("utf-8", errors="replace")
        if len(body) > MAX_CODE_CHARS:  # say so, rather than let a huge page crowd out the rest
            body = body[:MAX_CODE_CHARS] + f"\n[... cut: {len(body) - MAX_CODE_CHARS} more characters not shown]"
        parts.append(TextPart(f"Output file {a.name}:\n{body}"))
    return parts


def has_output(artifacts: Sequence[Artifact], case: CaseSpec | None = None, view: Mapping[str, Any] | None = None) -> bool:
    """Whether there is anything for the judge to look at (within ``view``, when one is given)."""
    if not view:
        return any(a.kind in ("image", "html", "svg") or (a.kind == "text" and a.data.strip()) for a in artifacts)
    code = view.get("code", True) and any(a.kind in ("html", "svg") or (a.kind == "text" and a.data.strip()) for a in artifacts)
    return bool(code or (case is not None and select_outputs(case, artifacts, view.get("outputs", "all"))))


# The ``view`` option of judge graders: which parts of a case the judge is shown. Every key is
# optional and defaults to showing everything, so a grader without ``view`` sees what it always did.
VIEW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "prompt": {"type": "boolean"},  # the prompt and criteria text
        "inputs": {"type": "boolean"},  # the case's input images and mask
        "outputs": {  # output images: a selection below, or file-name patterns (fnmatch)
            "oneOf": [
                {"enum": ["all", "none", "generated", "captures"]},
                {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
            ]
        },
        "code": {"type": "boolean"},  # the page's (or reply's) code
    },
}
# Names pages.py gives the captures of a rendered page.
_CAPTURE = re.compile(r"^(screenshot-\d+|fullpage)\.png$")


def select_outputs(case: CaseSpec, artifacts: Sequence[Artifact], which: str | Sequence[str] = "all") -> list[Artifact]:
    """Output images by ``view.outputs``: ``all``; ``none``; ``captures`` (screenshots of a rendered page);
    ``generated`` (images the model made: not captures, not byte copies of an input image); or name patterns."""
    images = [a for a in artifacts if a.kind == "image"]
    if which == "all":
        return images
    if which == "none":
        return []
    if which == "captures":
        return [a for a in images if _CAPTURE.match(a.name)]
    if which == "generated":
        inputs = {hashlib.sha256(p.read_bytes()).hexdigest() for p in case.images}
        return [a for a in images if not _CAPTURE.match(a.name) and a.sha256 not in inputs]
    if isinstance(which, str):
        raise GraderError(f"unknown output selection {which!r}")
    return [a for a in images if any(fnmatch.fnmatchcase(a.name, pattern) for pattern in which)]


def ask_all(context: GradeContext, request: JudgeRequest) -> list[JudgeCall]:
    calls = []
    for judge in context.judges:
        for repeat in range(max(1, context.judge_repeats)):
            calls.append(JudgeCall(judge.name, repeat, judge.ask(request, repeat).data))
    return calls


def ask_probabilities(context: GradeContext, request: JudgeRequest) -> list[tuple[str, float]]:
    """P(yes) to a yes/no question (a ``judges.logprobs.YesNoRequest``) from every judge, ``judge_repeats`` times each."""
    return [(call.judge, float(call.data["p_yes"])) for call in ask_all(context, request)]


def _fmt(value: float) -> str:
    return f"{value:g}" if float(value).is_integer() else f"{value:.3g}"


def mean_metrics(name: str, values: Sequence[float], reason: str, *, higher_is_better: bool = True) -> list[Metric]:
    """The mean over calls, and its spread when several calls were made."""
    mean = math.fsum(values) / len(values)
    detail = f"{_fmt(mean)} (mean of {len(values)}: {', '.join(_fmt(v) for v in values)})" if len(values) > 1 else _fmt(mean)
    metrics = [Metric(name, mean, f"{detail}; {reason}" if reason else detail, higher_is_better)]
    if len(values) > 1:
        std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
        metrics.append(Metric(f"{name}.std", std, f"spread of {name} across {len(values)} judgements", higher_is_better=False))
    return metrics


def majority(votes: Sequence[bool]) -> bool:
    """More than half; a tie fails."""
    return sum(votes) * 2 > len(votes)


def majority_gate(name: str, votes: Sequence[bool], reason: str) -> Gate:
    passed = majority(votes)
    tally = f"{sum(votes)}/{len(votes)} judgements pass" if len(votes) > 1 else ("judge: pass" if passed else "judge: fail")
    return Gate(name, passed, f"{tally}; {reason}" if reason else tally)


def first_reason(calls: Sequence[JudgeCall], pick: Any) -> str:
    """The reason given in the first call (``pick`` extracts it), labelled with its judge."""
    if not calls:
        return ""
    text = str(pick(calls[0].data) or "").strip()
    return f"{calls[0].judge}: {text}" if text else ""


def check_instructions_file(case: CaseSpec, name: str | None) -> str | None:
    if name is None:
        return None
    try:
        path = resolve_inside(case.source.parent, name)
    except PathEscapeError as exc:
        return str(exc)
    return None if path.is_file() else f"instructions_file not found: {name!r}"


def read_instructions(case: CaseSpec, name: str | None, default: str) -> str:
    """The user's prompt file when one is named, else our default instructions."""
    if name is None:
        return default
    try:
        return resolve_inside(case.source.parent, name).read_text(encoding="utf-8")
    except (OSError, PathEscapeError) as exc:
        raise GraderError(f"cannot read instructions_file {name!r}: {exc}") from exc
