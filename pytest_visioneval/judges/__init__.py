"""LLM-as-judge plumbing: content building, strict reply parsing, the judge client."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import lazy_exports

if TYPE_CHECKING:
    from .client import JudgeClient, JudgeReply, create_judges
    from .content import ImagePart, JudgeRequest, Part, TextPart, image_part
    from .parse import ReplyRejected, parse_reply
    from .settings import RESPONSE_FORMATS, JudgeSettings

# Each name is imported from its module on first use (see lazy_exports).
_EXPORTS = {
    "RESPONSE_FORMATS": ".settings",
    "JudgeClient": ".client",
    "JudgeReply": ".client",
    "JudgeSettings": ".settings",
    "create_judges": ".client",
    "ImagePart": ".content",
    "JudgeRequest": ".content",
    "Part": ".content",
    "TextPart": ".content",
    "image_part": ".content",
    "ReplyRejected": ".parse",
    "parse_reply": ".parse",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "RESPONSE_FORMATS",
    "ImagePart",
    "JudgeClient",
    "JudgeReply",
    "JudgeRequest",
    "JudgeSettings",
    "Part",
    "ReplyRejected",
    "TextPart",
    "create_judges",
    "image_part",
    "parse_reply",
]
