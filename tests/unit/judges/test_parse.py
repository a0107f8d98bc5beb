from __future__ import annotations

import pytest

from pytest_visioneval.judges import ReplyRejected, parse_reply

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["score"],
    "properties": {"score": {"type": "integer", "minimum": 0, "maximum": 5}},
}


def test_plain_and_fenced_json_are_read() -> None:
    assert parse_reply('{"score": 3}', SCHEMA) == {"score": 3}
    assert parse_reply('```json\n{"score": 4}\n```', SCHEMA) == {"score": 4}


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        (None, "empty"),
        ('{"score": 3', "not valid JSON"),  # a reply cut in half
        ("The score is 3.", "not valid JSON"),
        ("[3]", "expected a JSON object"),
        ('{"score": 9}', "at score: 9 is greater than the maximum of 5"),
        ('{"score": "high"}', "at score: 'high' is not of type 'integer'"),
        ('{"score": 3, "verdict": "PASS"}', "Additional properties are not allowed"),
        ("{}", "'score' is a required property"),
        ('Sure! ```json\n{"score": 3}\n```', "not valid JSON"),  # prose around the fence is not accepted
    ],
)
def test_bad_replies_are_rejected_with_the_reason(text: str | None, why: str) -> None:
    with pytest.raises(ReplyRejected, match=why.replace("(", r"\(").replace(")", r"\)")):
        parse_reply(text, SCHEMA)
