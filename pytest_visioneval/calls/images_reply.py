"""An image generation posted as plain JSON, and its JSON reply read field by field.

``client.images.generate`` walks its parameters against the SDK's types and
builds a typed reply from the body: about 0.35 ms of CPU per call on this
machine for a reply of one small image (1.2 ms against 0.86 ms for the same
request posted as JSON; ``benchmarks/throughput_profile.py`` measures a run of
them). The body posted here is the one a provider batch line carries
(``{"model", "prompt", **params}``), which is what the typed call sent: the
params it knows as keywords and the rest as ``extra_body``, merged into one
JSON object. Any other shape of reply is an :class:`UnreadableReply` that
says what is wrong, as for chat completions (:mod:`completion`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .completion import post_json, without_nulls
from .layer import UnreadableReply, json_reply, reply_shape_error

WHAT = "an images reply"

# Relative to the SDK client's base URL (which ends in /v1), as the SDK posts it.
IMAGES_GENERATIONS_PATH = "/images/generations"


def post_image_generation(client: Any, body: dict[str, Any]) -> Any:
    """POST ``body`` as is to the image generations endpoint of ``client`` (an ``openai.OpenAI``); the reply as JSON."""
    return post_json(client, IMAGES_GENERATIONS_PATH, body, WHAT)


@dataclass(frozen=True)
class ImagesReply:
    items: list[Any]  # the reply's ``data``, each as sent (read by the adapter, which words its own errors)
    output_format: str | None  # ``png``, ``jpeg``, ``webp``; None: not said
    usage: dict[str, Any]  # as the server reported it, without null fields


def read_images_reply(body: Any) -> ImagesReply:
    """The reply's images, format and usage; an :class:`UnreadableReply` for any other shape."""
    reply = json_reply(body, WHAT, "data")
    items = reply["data"]
    if items is None:
        items = []  # as the SDK read it: no images (the adapter says so)
    if not isinstance(items, list):
        raise UnreadableReply(f"the endpoint's answer is not {WHAT}: its data is {kind_of(items)}, not a list")
    usage = reply.get("usage")
    if usage is not None and not isinstance(usage, dict):
        raise reply_shape_error(reply, WHAT, "'usage' is not an object")
    fmt = reply.get("output_format")
    return ImagesReply(items, fmt if isinstance(fmt, str) else None, without_nulls(usage or {}))


def kind_of(value: Any) -> str:
    """What a reply's field is, for an error message (the field's type, not its possibly huge value)."""
    if isinstance(value, (dict, list, str)):
        return f"a JSON {type(value).__name__.replace('dict', 'object').replace('str', 'string')}"
    if value is None:
        return "null"
    if isinstance(value, (bool, int, float)):
        return f"the {type(value).__name__} {value!r}"
    return f"a {type(value).__name__}"
