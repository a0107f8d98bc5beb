"""Shared machinery of the judge graders.

* :func:`case_parts` - what the judge sees, always in this order: the prompt
  and criteria text, the input images, the mask, the output image(s).
* :func:`ask_all` - every configured judge, ``judge_repeats`` times each.
* :func:`mean_metrics` / :func:`majority_gate` - combine those calls: numbers
  by their mean (plus ``.std`` across calls when there is more than one),
  pass/fail by majority (a tie fails).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
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


def case_parts(case: CaseSpec, artifacts: Sequence[Artifact], *, extra_text: str = "") -> list[Part]:
    text = [f"Prompt given to the model:\n{case.prompt or '(none)'}"]
    if case.criteria:
        text.append(f"Criteria the output must meet:\n{case.criteria}")
    if extra_text:
        text.append(extra_text)
    parts: list[Part] = [TextPart("\n\n".join(text))]
    parts += [ImagePart(f"Input image {i}", p.read_bytes()) for i, p in enumerate(case.images, 1)]
    if case.mask is not None:
        parts.append(ImagePart("Edit mask (transparent or white areas may change)", case.mask.read_bytes()))
    outputs = [a for a in artifacts if a.kind == "image"]
    parts += [ImagePart(f"Output image {i} ({a.name})", a.data) for i, a in enumerate(outputs, 1)]
    # The page's code when there is one; a bare text reply only when there is not
    # (the reply, DOM snapshot and render report would repeat the page).
    code = [a for a in artifacts if a.kind in ("html", "svg")] or [a for a in artifacts if a.kind == "text"]
    for a in code:
        body = a.data.decode("utf-8", errors="replace")
        if len(body) > MAX_CODE_CHARS:  # say so, rather than let a huge page crowd out the rest
            body = body[:MAX_CODE_CHARS] + f"\n[... cut: {len(body) - MAX_CODE_CHARS} more characters not shown]"
        parts.append(TextPart(f"Output file {a.name}:\n{body}"))
    return parts


def has_output(artifacts: Sequence[Artifact]) -> bool:
    return any(a.kind in ("image", "html", "svg") or (a.kind == "text" and a.data.strip()) for a in artifacts)


def ask_all(context: GradeContext, request: JudgeRequest) -> list[JudgeCall]:
    calls = []
    for judge in context.judges:
        for repeat in range(max(1, context.judge_repeats)):
            calls.append(JudgeCall(judge.name, repeat, judge.ask(request).data))
    return calls


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
