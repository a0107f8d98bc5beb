"""Which case params each OpenAI request kind takes.

A suite's ``defaults`` often hold image params (``size: 1024x1024``) that
also reach its HTML case, whose request is a chat completion: a real endpoint
may reject ``size`` there, and a chat param such as ``temperature`` means
nothing to ``images.generate``. Each request gets the params that are not
known to belong only to another kind; a name this table does not know (a
server's own field, such as vLLM's ``guidance_scale``) is always sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

REQUEST_KINDS = ("images.generate", "images.edit", "chat.completions", "responses")

# Params of the Images API that no text request takes.
_IMAGE_ONLY = frozenset(
    {"size", "quality", "background", "output_format", "output_compression", "moderation", "style", "input_fidelity",
     "partial_images"}
)  # fmt: skip
# Of images.generate alone (images.edit has no moderation or style), and of images.edit alone.
_GENERATE_ONLY = frozenset({"moderation", "style"})
_EDIT_ONLY = frozenset({"input_fidelity"})
# Params of the text APIs (chat completions, responses) that no images request takes.
_TEXT_ONLY = frozenset(
    {"temperature", "top_p", "max_tokens", "max_completion_tokens", "max_output_tokens", "seed", "stop", "presence_penalty",
     "frequency_penalty", "logit_bias", "logprobs", "top_logprobs", "reasoning_effort", "reasoning", "verbosity", "tools",
     "tool_choice", "instructions", "text", "modalities"}
)  # fmt: skip


def belongs_elsewhere(kind: str, name: str, value: Any) -> str:
    """Which request kind(s) ``name`` belongs to when it is not ``kind``'s; "" when ``kind`` takes it."""
    text = kind in ("chat.completions", "responses")
    if name == "response_format":
        # The images API's is a word (b64_json, url); the chat API's a JSON object.
        if isinstance(value, str):
            return "the images API" if text else ""
        return "" if text else "the text APIs"
    if text:
        return "the images API" if name in _IMAGE_ONLY else ""
    if name in _TEXT_ONLY:
        return "the text APIs"
    if kind == "images.edit" and name in _GENERATE_ONLY:
        return "images.generate"
    if kind == "images.generate" and name in _EDIT_ONLY:
        return "images.edit"
    return ""


def params_for(kind: str, params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """(the params ``kind`` is sent, each left-out param -> the request kind it belongs to)."""
    if kind not in REQUEST_KINDS:
        raise ValueError(f"unknown request kind {kind!r}; known: {', '.join(REQUEST_KINDS)}")
    sent: dict[str, Any] = {}
    left_out: dict[str, str] = {}
    for name, value in params.items():
        elsewhere = belongs_elsewhere(kind, name, value)
        if elsewhere:
            left_out[name] = elsewhere
        else:
            sent[name] = value
    return sent, left_out


def left_out_message(model: str, case_uid: str, kind: str, left_out: Mapping[str, str]) -> str:
    """``openai:m: case ui/page: not sent to chat.completions: size (a param of the images API)``."""
    names = ", ".join(f"{name} (a param of {where})" for name, where in sorted(left_out.items()))
    return f"{model}: case {case_uid}: not sent to {kind}: {names}"
