"""calls/completion.py: a chat completion's JSON body, read field by field."""

from __future__ import annotations

import pytest

from pytest_visioneval.calls.completion import read_completion
from pytest_visioneval.calls.layer import UnreadableReply


def test_text_usage_and_model_are_read() -> None:
    body = {
        "id": "c1",
        "model": "judge-7",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": '{"score": 3}'}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 4, "completion_tokens_details": {"reasoning_tokens": None, "x": 1}},
    }
    completion = read_completion(body)
    assert completion.text == '{"score": 3}'
    assert completion.served_by == "judge-7"
    # Null fields are left out at any depth, as the SDK's model_dump(exclude_none=True) did.
    assert completion.usage == {"prompt_tokens": 10, "completion_tokens": 4, "completion_tokens_details": {"x": 1}}


def test_no_choice_or_no_content_is_no_text_and_no_usage_is_empty() -> None:
    assert read_completion({"choices": []}).text is None
    assert read_completion({"choices": [{"message": {"content": None}}]}).text is None
    assert read_completion({"choices": []}).usage == {}
    assert read_completion({"choices": [], "usage": None}).usage == {}


def test_a_model_name_that_is_not_text_is_not_kept() -> None:
    assert read_completion({"choices": [], "model": ["a", "b"]}).served_by is None


def test_json_sent_as_text_is_read_as_json() -> None:
    # A server that labels its JSON text/plain: the SDK hands the text over, and it is read all the same.
    assert read_completion('{"choices": [{"message": {"content": "hi"}}]}').text == "hi"


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("<html>login</html>", "the endpoint answered with text, not a chat completion: '<html>login</html>'"),
        ({"id": "x"}, """the endpoint's answer is not a chat completion: '{"id": "x"}'"""),
        ({"choices": {"0": 1}}, "'choices' is not a list"),
        ({"choices": ["text"]}, "its first choice has no message"),
        ({"choices": [{"message": {"content": ["part"]}}]}, "the message's content is not text"),
        ({"choices": [], "usage": 3}, "'usage' is not an object"),
    ],
)
def test_any_other_shape_is_unreadable_and_says_why(body: object, problem: str) -> None:
    with pytest.raises(UnreadableReply) as info:
        read_completion(body)
    assert problem in str(info.value)
