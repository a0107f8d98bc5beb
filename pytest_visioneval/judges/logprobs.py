"""P(yes) from a chat completion's token log-probabilities (VQAScore, soft checklists).

A yes/no question is asked in plain text with ``logprobs: true`` and
``top_logprobs: N``; the judge is told to begin its answer with Yes or No.
The probability is read from the FIRST answer token's top-N list only: every
entry that spells yes or no - in any case, with a leading space, or with a
tokenizer's word marker (``"ĠYes"`` for byte-level BPE, ``"▁Yes"`` for
SentencePiece) - is summed per side, and P(yes) = yes / (yes + no). The mass
the judge put on other tokens (a "The", a "**") is left out by that
normalisation, as VQAScore does.

A reply without log-probabilities, or whose first token's top list holds no
yes/no variant at all, is a :class:`~pytest_visioneval.errors.JudgeOutputError`
that says which: never a silent 0 or 0.5.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import JudgeOutputError
from .content import JudgeRequest

DEFAULT_TOP_LOGPROBS = 20  # OpenAI's maximum, and vLLM's default --max-logprobs
# Word markers tokenizers put before a word: byte-level BPE (GPT-2, Qwen, Llama 3) and SentencePiece.
_WORD_MARKERS = "Ġ▁"
_SIDES = {"yes": "yes", "no": "no"}

YES_NO_INSTRUCTIONS = """\
You answer a yes/no question about an image (or page) that a model produced.
Judge only what is visible in the output. Begin your reply with the single
word Yes or No; nothing may come before it."""


@dataclass(frozen=True)
class YesNoRequest(JudgeRequest):
    """A yes/no question asked in plain text, its answer read from the first token's ``top_logprobs``."""

    top_logprobs: int = DEFAULT_TOP_LOGPROBS


@dataclass(frozen=True)
class YesNo:
    p_yes: float  # normalised over the yes/no variants found in the first token's top list
    yes_mass: float  # the raw probability of the yes variants, before normalising
    no_mass: float
    first_token: str  # the token the judge actually produced first


def side_of(token: str) -> str | None:
    """``"yes"``, ``"no"``, or None: a token's spelling with word markers, spaces and case set aside."""
    word = token.lstrip(_WORD_MARKERS).strip().lower()
    return _SIDES.get(word)


def first_token_entry(logprobs: Any, judge: str = "judge") -> dict[str, Any]:
    """The first answer token's entry of a choice's ``logprobs`` (OpenAI's and vLLM's chat shape)."""
    if logprobs is None:
        raise JudgeOutputError(
            f"{judge}: the endpoint returned no logprobs: it must support 'logprobs' and 'top_logprobs' for chat completions "
            "(e.g. vLLM with --max-logprobs, or a hosted model that exposes them)"
        )
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(content, list) or not content:
        raise JudgeOutputError(f"{judge}: the endpoint's logprobs hold no token list (logprobs.content is {content!r:.80})")
    first = content[0]
    if not isinstance(first, dict) or not isinstance(first.get("top_logprobs"), list):
        raise JudgeOutputError(f"{judge}: the first answer token has no top_logprobs list: ask with top_logprobs > 0")
    return first


def read_yes_no(logprobs: Any, judge: str = "judge") -> YesNo:
    """P(yes) from the first answer token of a choice's ``logprobs``; :class:`JudgeOutputError` when there is none."""
    first = first_token_entry(logprobs, judge)
    mass = {"yes": 0.0, "no": 0.0}
    seen: set[str] = set()
    tops: Sequence[Any] = first["top_logprobs"]
    for item in tops:
        if not isinstance(item, dict):
            continue
        token, logprob = item.get("token"), item.get("logprob")
        if not isinstance(token, str) or not isinstance(logprob, int | float) or token in seen:
            continue  # vLLM may list the sampled token twice (as sampled and among the top ones)
        seen.add(token)
        side = side_of(token)
        if side is not None:
            mass[side] += math.exp(logprob)
    total = mass["yes"] + mass["no"]
    first_token = str(first.get("token", ""))
    if total <= 0.0:
        listed = ", ".join(repr(str(t.get("token"))) for t in tops[:5] if isinstance(t, dict))
        raise JudgeOutputError(
            f"{judge}: none of the first answer token's {len(tops)} top_logprobs is a yes/no token "
            f"(the judge began with {first_token!r}; top tokens: {listed or 'none'})"
        )
    return YesNo(mass["yes"] / total, mass["yes"], mass["no"], first_token)
