"""The test server's logprobs, read back through the real openai SDK's typed chat completion."""

from __future__ import annotations

import math
from collections.abc import Iterator

import openai
import pytest

from pytest_visioneval.testing import FakeOpenAIServer
from pytest_visioneval.testing.logprob_replies import NO_YES_NO, yes_no_tokens


@pytest.fixture
def served() -> Iterator[tuple[FakeOpenAIServer, openai.OpenAI]]:
    with FakeOpenAIServer() as server:
        yield server, openai.OpenAI(api_key="sk-test", base_url=server.base_url, max_retries=0)


def ask(client: openai.OpenAI, top: int = 20, logprobs: bool = True) -> object:
    return client.chat.completions.create(
        model="vlm",
        messages=[{"role": "user", "content": "Is it red?"}],
        logprobs=logprobs,
        top_logprobs=top if logprobs else None,
    )


def test_openai_shape_with_top_logprobs_cut_to_the_request(served: tuple[FakeOpenAIServer, openai.OpenAI]) -> None:
    server, client = served
    server.logprobs_for = lambda request: yes_no_tokens(0.8)
    reply = ask(client, top=3)
    choice = reply.choices[0]
    assert choice.message.content == "Yes."
    first = choice.logprobs.content[0]
    assert first.token == "Yes" and first.bytes == list(b"Yes")
    assert [t.token for t in first.top_logprobs] == ["Yes", "No", "yes"]  # most likely first, 3 as asked
    assert math.exp(first.top_logprobs[0].logprob) == pytest.approx(0.95 * 0.8 * 0.9)


def test_vllm_shape_uses_word_marker_tokens(served: tuple[FakeOpenAIServer, openai.OpenAI]) -> None:
    server, client = served
    server.logprobs_for = lambda request: yes_no_tokens(0.3, "vllm")
    first = ask(client).choices[0].logprobs.content[0]
    assert {t.token for t in first.top_logprobs} == {"Yes", "ĠYes", "No", "ĠNo", "The"}
    assert first.token == "No"


def test_none_sends_null_logprobs_and_other_tokens_send_no_yes_no(served: tuple[FakeOpenAIServer, openai.OpenAI]) -> None:
    server, client = served
    server.logprobs_for = lambda request: None
    assert ask(client).choices[0].logprobs is None
    server.logprobs_for = lambda request: dict(NO_YES_NO)
    first = ask(client).choices[0].logprobs.content[0]
    assert [t.token for t in first.top_logprobs] == ["The", "It", "This"]


def test_requests_without_logprobs_are_answered_as_before_and_reset_forgets_the_hook(
    served: tuple[FakeOpenAIServer, openai.OpenAI],
) -> None:
    server, client = served
    server.text_reply = "plain"
    server.logprobs_for = lambda request: yes_no_tokens(0.8)
    reply = ask(client, logprobs=False)
    assert reply.choices[0].message.content == "plain" and reply.choices[0].logprobs is None
    server.reset()
    assert server.logprobs_for is None
