"""The judge client against a local OpenAI-compatible server, through the real SDK."""

from __future__ import annotations

import base64
import hashlib
import io
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from pytest_visioneval.calls.layer import CallLayer, CallSettings
from pytest_visioneval.calls.usage import usage_scope
from pytest_visioneval.errors import GraderError, JudgeOutputError
from pytest_visioneval.graders import GradeContext
from pytest_visioneval.judges import ImagePart, JudgeRequest, TextPart, content
from pytest_visioneval.testing import FakeOpenAIServer

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["score"],
    "properties": {"score": {"type": "integer", "minimum": 0, "maximum": 5}},
}
REQUEST = JudgeRequest("Rate it.", (TextPart("the prompt"),), SCHEMA, "rating")


def test_valid_reply_is_parsed_and_the_request_asks_for_the_schema(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext]
) -> None:
    server.queue_replies('{"score": 4}')
    (judge,) = judge_context().judges
    reply = judge.ask(REQUEST)
    assert reply.data == {"score": 4} and reply.attempts == 1
    (request,) = server.requests
    body = request.json
    assert body["model"] == "judge-0"
    assert body["messages"][0] == {"role": "system", "content": "Rate it."}
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["temperature"] == 0.0


def test_a_request_may_set_its_own_temperature(server: FakeOpenAIServer, judge_context: Callable[..., GradeContext]) -> None:
    server.queue_replies('{"score": 4}', '{"score": 3}')
    (judge,) = judge_context().judges
    judge.ask(replace(REQUEST, temperature=0.7))
    judge.ask(REQUEST)  # not answered from the cache of the 0.7 question: the temperature is in the key
    assert [r.json["temperature"] for r in server.requests] == [0.7, 0.0]


def test_bad_reply_is_asked_again_with_the_reason(server: FakeOpenAIServer, judge_context: Callable[..., GradeContext]) -> None:
    server.queue_replies('{"score": 4', '{"score": 2}')  # first one cut in half
    (judge,) = judge_context(reply_retries=1).judges
    reply = judge.ask(REQUEST)
    assert reply.data == {"score": 2} and reply.attempts == 2
    second = server.requests[1].json["messages"]
    assert second[2] == {"role": "assistant", "content": '{"score": 4'}
    assert "That reply was rejected: not valid JSON" in second[3]["content"]


def test_a_huge_rejected_reply_goes_back_cut_and_every_ask_is_counted(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext]
) -> None:
    huge = "x" * 5_000_000
    server.queue_replies(huge, '{"score": 3}')
    (judge,) = judge_context(reply_retries=1).judges
    with usage_scope() as usage:
        assert judge.ask(REQUEST).data == {"score": 3}
    first, second = server.requests
    shown = second.json["messages"][2]["content"]
    assert shown.startswith("x" * 2000) and shown.endswith("[... cut: the reply was 5,000,000 characters long]")
    assert len(json.dumps(second.json)) < len(json.dumps(first.json)) + 10_000  # not the 5 MB reply again
    judge_usage = usage.as_dict()["judge"]
    assert (judge_usage["calls"], judge_usage["failed"]) == (2, 1) and len(server.requests) == 2


def test_reply_that_never_parses_is_an_error(server: FakeOpenAIServer, judge_context: Callable[..., GradeContext]) -> None:
    server.text_reply = '{"score": "excellent"}'
    (judge,) = judge_context(reply_retries=2).judges
    with pytest.raises(JudgeOutputError, match="gave no valid reply in 3 attempt") as info:
        judge.ask(REQUEST)
    assert "'excellent' is not of type 'integer'" in str(info.value)
    assert len(server.requests) == 3


def test_api_failure_is_retried_then_reported(server: FakeOpenAIServer, judge_context: Callable[..., GradeContext]) -> None:
    server.fail_next(2, status=503, retry_after="0")
    server.queue_replies('{"score": 5}')
    (judge,) = judge_context(max_retries=2).judges
    assert judge.ask(REQUEST).data == {"score": 5}
    assert len(server.requests) == 3
    server.fail_next(5, status=500, retry_after="0")
    (judge,) = judge_context(max_retries=1).judges
    with pytest.raises(GraderError, match="HTTP 500 from the API after 2 attempt"):
        judge.ask(REQUEST)


@pytest.mark.parametrize(("fmt", "expected"), [("json_object", {"type": "json_object"}), ("none", None)])
def test_response_format_can_be_relaxed_for_servers_without_json_schema(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], fmt: str, expected: dict | None
) -> None:
    server.queue_replies('{"score": 1}')
    (judge,) = judge_context(response_format=fmt).judges
    judge.ask(REQUEST)
    assert server.requests[0].json.get("response_format") == expected


def test_no_key_is_a_clear_error(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(GraderError, match="no API key for the judge: set the environment variable OPENAI_API_KEY"):
        judge_context()


@pytest.mark.parametrize(
    ("content_type", "body", "message"),
    [
        (
            "text/html",
            b"<html>Gateway login</html>",
            "the endpoint answered with text, not a chat completion: '<html>Gateway login</html>'",
        ),
        ("application/json", b"oops", "the endpoint's answer is not JSON (Expecting value): 'oops'"),
        ("application/json", b"[1, 2]", "the endpoint's answer is not a chat completion: '[1, 2]'"),
        (
            "application/json",
            b'{"choices": "oops"}',
            """the endpoint's answer is not a chat completion ('choices' is not a list): '{"choices": "oops"}'""",
        ),
        (
            "application/json",
            b'{"choices": [{"message": null}]}',
            "the endpoint's answer is not a chat completion (its first choice has no message): "
            """'{"choices": [{"message": null}]}'""",
        ),
        (
            "application/json",
            b'{"choices": [{"message": {"content": 5}}]}',
            "the endpoint's answer is not a chat completion (the message's content is not text): "
            """'{"choices": [{"message": {"content": 5}}]}'""",
        ),
        (
            "application/json",
            b'{"choices": [{"message": {"content": "{\\"score\\": 3}"}}], "usage": [1, 2]}',
            "the endpoint's answer is not a chat completion ('usage' is not an object): "
            """'{"choices": [{"message": {"content": "{\\\\"score\\\\": 3}"}}], "usage": [1, 2]}'""",
        ),
    ],
)
def test_a_hostile_answer_is_a_worded_error_of_the_case(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], content_type: str, body: bytes, message: str
) -> None:
    server.raw_reply = lambda request: (content_type, body)
    (judge,) = judge_context().judges
    with usage_scope() as usage, pytest.raises(GraderError) as info:
        judge.ask(REQUEST)
    assert str(info.value) == f"judge openai:judge-0: {message}"
    assert usage.as_dict()["judge"]["calls"] == len(server.requests) == 1


def test_a_cached_judgement_prepares_no_image_and_its_entry_holds_no_image_bytes(
    server: FakeOpenAIServer,
    judge_context: Callable[..., GradeContext],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    layer = CallLayer(CallSettings(cache_dir=tmp_path / "cache", cache_mode="on"))
    png = _noise_png()
    request = JudgeRequest("Rate it.", (TextPart("the prompt"), ImagePart("Output image 1", png)), SCHEMA, "rating")
    server.queue_replies('{"score": 4}')
    (judge,) = judge_context(calls=layer).judges
    assert judge.ask(request).data == {"score": 4}
    (sent,) = server.requests
    assert sent.json["messages"][1]["content"][2]["image_url"]["url"].startswith("data:image/png;base64,")
    stored = "".join(p.read_text(errors="replace") for p in (tmp_path / "cache").rglob("*") if p.is_file())
    assert base64.b64encode(png).decode()[:60] not in stored
    # Asked again (a warm run): answered from the cache, without preparing the image or calling the API.
    monkeypatch.setattr(content, "prepared_image", lambda *a: pytest.fail("a cached judgement prepared an image"))
    monkeypatch.setattr(content, "_prepared", OrderedDict())
    (again,) = judge_context(calls=layer).judges
    assert again.ask(request).data == {"score": 4}
    assert len(server.requests) == 1


def _noise_png() -> bytes:
    out = io.BytesIO()
    Image.frombytes("RGB", (48, 32), bytes(range(256)) * 18).save(out, format="PNG")
    return out.getvalue()


def test_the_model_that_answered_and_the_sampling_settings_are_recorded(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext]
) -> None:
    server.served_model = "judge-0-2026-11-01"
    server.queue_replies('{"score": 4}', '{"score": 3}')
    (judge,) = judge_context(temperature=0.7, seed=11).judges
    with usage_scope() as usage:
        first = judge.ask(REQUEST, repeat=0)
        second = judge.ask(REQUEST, repeat=1)
    assert first.served_by == second.served_by == "judge-0-2026-11-01"
    # Each repeat sends its own seed, so repeats are not byte-identical requests.
    assert [r.json["seed"] for r in server.requests] == [11, 12]
    assert {r.json["temperature"] for r in server.requests} == {0.7}
    (provenances,) = usage.judges().values()
    assert [p["seed"] for p in provenances] == [11, 12]
    assert {p["served_by"] for p in provenances} == {"judge-0-2026-11-01"}
    assert {p["instructions_sha256"] for p in provenances} == {hashlib.sha256(b"Rate it.").hexdigest()[:16]}
    assert {p["endpoint"] for p in provenances} == {server.base_url.rstrip("/")}


@pytest.mark.parametrize("response_format", ["json_schema", "json_object", "none"])
def test_the_body_posted_as_is_is_the_one_the_sdk_create_would_send(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], response_format: str
) -> None:
    """The judge skips the SDK's typed-params walk; what it posts must be exactly what ``create`` would send."""
    from openai._utils import maybe_transform
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    request = JudgeRequest("Rate it.", (TextPart("the prompt"), ImagePart("Output image 1", _noise_png())), SCHEMA, "rating")
    server.queue_replies('{"score": 3}')
    (judge,) = judge_context(response_format=response_format, seed=7).judges
    assert judge.ask(request).data == {"score": 3}
    (sent,) = server.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-judge-test"
    assert sent.json["seed"] == 7 and ("response_format" in sent.json) == (response_format != "none")
    assert maybe_transform(sent.json, CompletionCreateParamsNonStreaming) == sent.json


def test_a_reply_nested_a_million_characters_deep_is_asked_again_then_a_judge_output_error(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext]
) -> None:
    deep = "[" * 500_000 + "]" * 500_000
    server.text_reply = deep
    (judge,) = judge_context(reply_retries=1).judges
    with pytest.raises(JudgeOutputError, match="gave no valid reply in 2 attempt") as info:
        judge.ask(REQUEST)
    assert "attempt 1: nested too deeply to read" in str(info.value)
    assert len(server.requests) == 2  # asked again, not an internal error
    server.text_reply = None
    server.queue_replies(deep, '{"score": 2}')
    (judge,) = judge_context(reply_retries=1).judges
    assert judge.ask(REQUEST).data == {"score": 2}


def test_an_answer_body_nested_too_deeply_is_a_worded_error_of_the_case(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext]
) -> None:
    server.raw_reply = lambda request: ("application/json", b"[" * 200_000 + b"]" * 200_000)
    (judge,) = judge_context().judges
    with pytest.raises(GraderError) as info:
        judge.ask(REQUEST)
    assert (
        str(info.value)
        == "judge openai:judge-0: the endpoint's answer is not a chat completion: its JSON is nested too deeply to read"
    )
