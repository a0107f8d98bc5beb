"""LLM-as-judge plumbing: content building, strict reply parsing, the judge client."""

from .client import RESPONSE_FORMATS, JudgeClient, JudgeReply, JudgeSettings, create_judges
from .content import ImagePart, JudgeRequest, Part, TextPart, image_part
from .parse import ReplyRejected, parse_reply

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
