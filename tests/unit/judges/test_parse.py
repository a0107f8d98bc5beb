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


def test_a_reply_nested_past_what_json_can_read_is_rejected_with_the_reason() -> None:
    deep = "[" * 500_000 + "]" * 500_000  # 1 MB: Python's JSON reader gives up near 1,000 levels
    with pytest.raises(ReplyRejected, match=r"nested too deeply to read \(a 1,000,000-character reply; at most 64 levels"):
        parse_reply(deep, SCHEMA)


def test_a_reply_readable_but_nested_past_the_limit_is_rejected_and_one_within_it_is_not() -> None:
    nested = '{"score": 3, "notes": ' + "[" * 70 + "]" * 70 + "}"
    with pytest.raises(ReplyRejected, match="nested 71 levels deep, over the limit of 64"):
        parse_reply(nested, {"type": "object"})
    within = '{"score": 3, "notes": ' + "[" * 10 + "]" * 10 + "}"
    assert parse_reply(within, {"type": "object"})["score"] == 3


def test_nesting_depth_counts_objects_and_arrays() -> None:
    from pytest_visioneval.judges.parse import nesting_depth

    assert nesting_depth(3) == 0
    assert nesting_depth({"a": [1, {"b": []}]}) == 4
    assert nesting_depth([[[]], []]) == 3
