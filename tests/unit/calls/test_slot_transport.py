"""calls/slot_transport.py: the SDK's requests take a slot on the wire, each slot with its own connection."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import openai
import pytest

from pytest_visioneval.calls.concurrency import RunConcurrency
from pytest_visioneval.calls.slot_transport import client_with_slots
from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import run_in_threads


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(latency=0.05) as srv:
        srv.text_reply = "fine"
        yield srv


@contextlib.contextmanager
def sdk(server: FakeOpenAIServer, slots: int) -> Iterator[openai.OpenAI]:
    """The SDK's client on a transport limited to ``slots`` calls at once (closed after the block)."""
    limit = RunConcurrency(slots, None)
    client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0, http_client=client_with_slots(limit, 10.0))
    try:
        yield client
    finally:
        client.close()
        limit.close()


def ask(client: openai.OpenAI, text: str) -> str | None:
    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])
    return reply.choices[0].message.content


def test_calls_one_after_another_keep_one_connection(server: FakeOpenAIServer) -> None:
    with sdk(server, 16) as client:
        assert [ask(client, f"q{i}") for i in range(6)] == ["fine"] * 6
    assert len({r.peer for r in server.requests}) == 1


def test_overlapping_calls_stay_within_the_limit_with_one_connection_per_slot(server: FakeOpenAIServer) -> None:
    answers: list[str | None] = []
    lock = threading.Lock()
    with sdk(server, 3) as client:

        def work(n: int) -> None:
            for i in range(4):
                answer = ask(client, f"w{n}-{i}")
                with lock:
                    answers.append(answer)

        run_in_threads(work, 6)
    assert answers == ["fine"] * 24
    assert server.max_in_flight == 3
    # A connection is never shared by two requests in flight, and each slot keeps its own: as many
    # connections as slots, each reused (24 requests).
    assert len({r.peer for r in server.requests}) == 3


def test_a_failed_request_gives_its_slot_back(server: FakeOpenAIServer) -> None:
    server.fail_next(1, status=400)
    with sdk(server, 1) as client:
        with pytest.raises(openai.BadRequestError):
            ask(client, "refused")
        assert ask(client, "again") == "fine"  # the only slot came back
