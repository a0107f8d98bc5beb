"""calls/images_reply.py: an images reply read from its JSON, every other shape a worded error."""

from __future__ import annotations

import pytest

from pytest_visioneval.calls.images_reply import ImagesReply, kind_of, read_images_reply
from pytest_visioneval.calls.layer import UnreadableReply


def test_a_reply_gives_its_images_format_and_usage_without_nulls() -> None:
    body = {
        "created": 1,
        "data": [{"b64_json": "aGk=", "revised_prompt": None}],
        "output_format": "webp",
        "usage": {"input_tokens": 3, "output_tokens": 7, "input_tokens_details": {"text_tokens": 3, "image_tokens": None}},
    }
    assert read_images_reply(body) == ImagesReply(
        [{"b64_json": "aGk=", "revised_prompt": None}],
        "webp",
        {"input_tokens": 3, "output_tokens": 7, "input_tokens_details": {"text_tokens": 3}},
    )


def test_a_reply_without_format_or_usage_or_images() -> None:
    assert read_images_reply({"data": None}) == ImagesReply([], None, {})  # the adapter says "returned no images"
    assert read_images_reply('{"data": [], "output_format": 5}') == ImagesReply([], None, {})  # text read as JSON


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([1, 2], "the endpoint's answer is not an images reply: '[1, 2]'"),
        ({"error": "busy"}, 'the endpoint\'s answer is not an images reply: \'{"error": "busy"}\''),
        ({"data": "oops"}, "the endpoint's answer is not an images reply: its data is a JSON string, not a list"),
        ({"data": {"b64_json": "aGk="}}, "the endpoint's answer is not an images reply: its data is a JSON object, not a list"),
        (
            {"data": [], "usage": 12},
            "the endpoint's answer is not an images reply ('usage' is not an object): '{\"data\": [], \"usage\": 12}'",
        ),
        ("<html>Sign in</html>", "the endpoint answered with text, not an images reply: '<html>Sign in</html>'"),
    ],
    ids=["a-list", "no-data", "data-text", "data-object", "usage-a-number", "a-web-page"],
)
def test_a_reply_of_another_shape_is_unreadable_and_says_why(body: object, message: str) -> None:
    with pytest.raises(UnreadableReply) as info:
        read_images_reply(body)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("value", "kind"),
    [({}, "a JSON object"), ([], "a JSON list"), ("x", "a JSON string"), (None, "null"), (3, "the int 3"), (b"", "a bytes")],
)
def test_kind_of_names_a_fields_type(value: object, kind: str) -> None:
    assert kind_of(value) == kind
