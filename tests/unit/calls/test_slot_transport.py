"""calls/slot_transport.py: the SDK's requests take a slot on the wire, each slot with its own connection."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import openai
import pytest

from pytest_visioneval.calls.concurrency import RunConcurrency
from pytest_visioneval.calls.slot_transport import client_with_slots
from pytest_visioneval.testing import FakeOpenAIServer


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(latency=0.05) as srv:
        srv.text_reply = "fine"
        yield srv


def sdk(server: FakeOpenAIServer, limit: RunConcurrency) -> openai.OpenAI:
    return openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0, http_client=client_with_slots(limit, 10.0))


def ask(client: openai.OpenAI, text: str) -> str | None:
    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])
    return reply.choices[0].message.content


def test_calls_one_after_another_keep_one_connection(server: FakeOpenAIServer) -> None:
    limit = RunConcurrency(16, None)
    client = sdk(server, limit)
    assert [ask(client, f"q{i}") for i in range(6)] == ["fine"] * 6
    assert len({r.peer for r in server.requests}) == 1
    client.close()
    limit.close()


def test_overlapping_calls_stay_within_the_limit_with_one_connection_per_slot(server: FakeOpenAIServer) -> None:
    limit = RunConcurrency(3, None)
    client = sdk(server, limit)
    answers: list[str | None] = []
    lock = threading.Lock()

    def work(n: int) -> None:
        for i in range(4):
            answer = ask(client, f"w{n}-{i}")
            with lock:
                answers.append(answer)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert answers == ["fine"] * 24
    assert server.max_in_flight == 3
    # A connection is never shared by two requests in flight, and each slot keeps its own: as many
    # connections as slots, each reused (24 requests).
    assert len({r.peer for r in server.requests}) == 3
    client.close()
    limit.close()


def test_a_failed_request_gives_its_slot_back(server: FakeOpenAIServer) -> None:
    limit = RunConcurrency(1, None)
    client = sdk(server, limit)
    server.fail_next(1, status=400)
    with pytest.raises(openai.BadRequestError):
        ask(client, "refused")
    assert ask(client, "again") == "fine"  # the only slot came back
    client.close()
    limit.close()
