"""Token log-probabilities for the test server's chat replies, in the shapes real servers send.

A first-token distribution (token -> probability) becomes a choice's
``logprobs``: ``{"content": [{"token", "logprob", "bytes", "top_logprobs":
[{"token", "logprob", "bytes"}, ...]}, ...]}`` - OpenAI's chat format, which
vLLM's OpenAI-compatible server copies. The top list is cut to the request's
``top_logprobs``, most likely first, so a yes/no token outside the top N is
really absent. Byte-level BPE spellings (``"ĠYes"``, vLLM serving Qwen or
Llama) come from :func:`yes_no_tokens` with ``style="vllm"``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

# A distribution with no yes/no token in it: the judge began with something else.
NO_YES_NO: Mapping[str, float] = {"The": 0.6, "It": 0.25, "This": 0.15}


def yes_no_tokens(p_yes: float, style: str = "openai") -> dict[str, float]:
    """A first-token distribution whose yes/no variants give P(yes) = ``p_yes`` (5% of the mass elsewhere).

    ``openai``: ``Yes``/``yes``/``No``/``no``; ``vllm``: byte-level BPE tokens with a word marker too
    (``ĠYes``, ``Yes``, ``ĠNo``, ``No``), as vLLM returns them for Qwen2.5-VL.
    """
    spread = {"openai": (("Yes", "yes"), ("No", "no")), "vllm": (("Yes", "ĠYes"), ("No", "ĠNo"))}[style]
    (yes_main, yes_other), (no_main, no_other) = spread
    kept = 0.95  # the rest goes to a token that is neither: the reader must normalise it away
    out = {
        yes_main: kept * p_yes * 0.9,
        yes_other: kept * p_yes * 0.1,
        no_main: kept * (1 - p_yes) * 0.9,
        no_other: kept * (1 - p_yes) * 0.1,
        "The": 1 - kept,
    }
    return {token: p for token, p in out.items() if p > 0}


def _entry(token: str, probability: float) -> dict[str, Any]:
    return {"token": token, "logprob": math.log(probability), "bytes": list(token.encode("utf-8"))}


def chat_logprobs(distribution: Mapping[str, float], top_logprobs: int) -> tuple[str, dict[str, Any]]:
    """The reply text (the most likely first token, then a full stop) and the choice's ``logprobs``."""
    ranked = sorted(distribution.items(), key=lambda item: -item[1])
    first_token, p_first = ranked[0]
    first = {**_entry(first_token, p_first), "top_logprobs": [_entry(t, p) for t, p in ranked[: max(0, top_logprobs)]]}
    stop = {**_entry(".", 1.0), "top_logprobs": [_entry(".", 1.0)][: max(0, top_logprobs)]}
    text = first_token.lstrip("Ġ▁") + "."
    return text, {"content": [first, stop], "refusal": None}
