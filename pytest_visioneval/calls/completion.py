"""A chat completion's JSON body, read field by field: the reply's text, the usage, the model that answered.

Judges and the OpenAI model's chat path ask the SDK for the body as plain JSON
(``cast_to=object``), and provider batches hand their reply lines over as JSON,
all read here. Building the SDK's typed reply was most of the CPU of reading
one, and it took any shape: a body whose ``choices`` was a string surfaced as
an ``AttributeError`` deep inside the caller. Here every other shape is an
:class:`UnreadableReply` that says what is wrong and quotes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .layer import UnreadableReply, json_reply, reply_shape_error

WHAT = "a chat completion"


# The path the SDK posts chat completions to, relative to its base URL (which ends in /v1).
CHAT_COMPLETIONS_PATH = "/chat/completions"


def post_chat_completion(client: Any, body: dict[str, Any]) -> Any:
    """POST ``body`` as is to the chat completions endpoint of ``client`` (an ``openai.OpenAI``); the reply as JSON.

    The body is made of plain JSON values, so it is not walked against the SDK's typed parameters
    (``create`` would: about 1 ms per call with an image in it, for an identical body), and the reply
    comes back as plain JSON, for :func:`read_completion`. Authentication, retries (off here), timeouts
    and the client's transport are the SDK's as for ``create``.
    """
    return post_json(client, CHAT_COMPLETIONS_PATH, body, WHAT)


def post_json(client: Any, path: str, body: dict[str, Any], what: str) -> Any:
    """POST ``body`` to ``path`` (relative to the client's base URL) through the SDK; the reply as plain JSON.

    ``what`` names the reply in the error of an answer nested too deeply to read.
    """
    try:
        return client.post(path, body=body, cast_to=object, options={"security": {"bearer_auth": True}})
    except RecursionError:
        # The JSON reader recurses per level: an answer nested ~1,000 deep is broken, not an internal error.
        raise UnreadableReply(_too_deep(what)) from None


def _too_deep(what: str) -> str:
    return f"the endpoint's answer is not {what}: its JSON is nested too deeply to read"


_TOO_DEEP = _too_deep(WHAT)


@dataclass(frozen=True)
class Completion:
    choices: int  # how many choices the reply holds
    text: str | None  # the first choice's message content (None: no choice, or no content)
    usage: dict[str, Any]  # as the server reported it, without null fields
    served_by: str | None  # the model the server says answered
    logprobs: Any = None  # the first choice's ``logprobs`` as sent (None: not asked, or not given)


def read_completion(body: Any) -> Completion:
    try:
        reply = json_reply(body, WHAT, "choices")
    except RecursionError:
        raise UnreadableReply(_TOO_DEEP) from None
    choices = reply["choices"]
    if not isinstance(choices, list):
        raise reply_shape_error(reply, WHAT, "'choices' is not a list")
    text = None
    logprobs = None
    if choices:
        first = choices[0]
        message = first.get("message") if isinstance(first, dict) else None
        if not isinstance(message, dict):
            raise reply_shape_error(reply, WHAT, "its first choice has no message")
        text = message.get("content")
        logprobs = first.get("logprobs")
        if text is not None and not isinstance(text, str):
            raise reply_shape_error(reply, WHAT, "the message's content is not text")
    usage = reply.get("usage")
    if usage is not None and not isinstance(usage, dict):
        raise reply_shape_error(reply, WHAT, "'usage' is not an object")
    model = reply.get("model")
    return Completion(len(choices), text, without_nulls(usage or {}), model if isinstance(model, str) else None, logprobs)


def without_nulls(value: dict[str, Any]) -> dict[str, Any]:
    """The mapping without null fields, at any depth (what the SDK's ``model_dump(exclude_none=True)`` gave)."""
    return {k: without_nulls(v) if isinstance(v, dict) else v for k, v in value.items() if v is not None}
