"""calls/layer.py: retries, timeouts, the cache and the concurrency limit, through the real openai SDK and a local server."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import openai
import pytest

from pytest_visioneval.calls.layer import CallLayer, CallResult, CallSettings, case_repeat, endpoint_label, retry_after
from pytest_visioneval.calls.usage import CaseUsage, Prices, taking_over, usage_scope
from pytest_visioneval.calls.waiting import WouldWait, without_waiting
from pytest_visioneval.errors import ModelError
from pytest_visioneval.testing import FakeOpenAIServer

MODEL = "openai:local-chat"


def client_for(srv: FakeOpenAIServer, timeout: float = 10.0) -> openai.OpenAI:
    # As the adapters build theirs: the SDK does not retry, the call layer does.
    return openai.OpenAI(api_key="sk-calls-test", base_url=srv.base_url, max_retries=0, timeout=timeout)


def chat(client: openai.OpenAI, prompt: str = "hello") -> Callable[[], CallResult]:
    def run() -> CallResult:
        reply = client.chat.completions.create(model="local-chat", messages=[{"role": "user", "content": prompt}])
        usage = reply.usage.model_dump(exclude_none=True) if reply.usage else {}
        return CallResult(reply.choices[0].message.content, usage)

    return run


def layer(**settings: Any) -> CallLayer:
    settings.setdefault("backoff", 0.01)
    return CallLayer(CallSettings(**settings))


def call(calls: CallLayer, run: Callable[[], CallResult], prompt: str = "hello", **kwargs: Any) -> CallResult:
    return calls.call("model", MODEL, {"endpoint": "chat.completions", "prompt": prompt}, run, **kwargs)


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def in_threads(count: int, target: Callable[[int], None]) -> None:
    errors: list[BaseException] = []

    def wrapped(i: int) -> None:
        try:
            target(i)
        except BaseException as exc:  # noqa: B036 - re-raised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=wrapped, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    if errors:
        raise errors[0]


@pytest.fixture(scope="module")
def slow_module_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(latency=0.2, text_reply="slow") as srv:
        yield srv


@pytest.fixture
def slow_server(slow_module_server: FakeOpenAIServer) -> FakeOpenAIServer:
    slow_module_server.reset()
    return slow_module_server


# -- pure helpers ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://api.openai.com/v1", "https://api.openai.com/v1"),
        ("https://api.openai.com/v1/", "https://api.openai.com/v1"),
        ("https://user:sk-secret@proxy.example:8443/v1?api-key=sk-2#frag", "https://proxy.example:8443/v1"),
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
    ],
)
def test_endpoint_label_keeps_no_credentials(url: str, expected: str) -> None:
    assert endpoint_label(url) == expected


def failure(headers: dict[str, str] | None) -> SimpleNamespace:
    return SimpleNamespace(response=None if headers is None else SimpleNamespace(headers=headers))


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, None),
        ({"retry-after": "100000"}, 120.0),
        ({"retry-after": "-4"}, 0.0),
        ({}, None),
        (None, None),
    ],
)
def test_retry_after(headers: dict[str, str] | None, seconds: float | None) -> None:
    assert retry_after(failure(headers)) == seconds  # type: ignore[arg-type]


# -- retries ----------------------------------------------------------------------------
@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503])
def test_retryable_statuses_are_retried(server: FakeOpenAIServer, status: int) -> None:
    server.fail_next(1, status)
    with usage_scope() as usage:
        result = call(layer(max_attempts=3), chat(client_for(server)))
    assert result.value == "{}"
    assert len(server.requests) == 2
    model = usage.as_dict()["model"]
    # every request the server saw is a call: the failed one too
    assert (model["calls"], model["failed"], model["retries"], model["cached"]) == (2, 1, 1, 0)


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (400, openai.BadRequestError),
        (401, openai.AuthenticationError),
        (403, openai.PermissionDeniedError),
        (404, openai.NotFoundError),
        (422, openai.UnprocessableEntityError),
    ],
)
def test_other_statuses_are_not_retried(server: FakeOpenAIServer, status: int, error: type[Exception]) -> None:
    server.fail_next(1, status)
    with usage_scope() as usage, pytest.raises(error):
        call(layer(max_attempts=5), chat(client_for(server)))
    assert len(server.requests) == 1
    model = usage.as_dict()["model"]  # the request was made: it counts, with no tokens
    assert (model["calls"], model["failed"], model["retries"], model["input_tokens"]) == (1, 1, 0, 0)


def test_429_waits_as_long_as_retry_after_asks(server: FakeOpenAIServer) -> None:
    server.fail_next(1, 429, retry_after="1")
    started = time.perf_counter()
    result = call(layer(max_attempts=2, backoff=0.0), chat(client_for(server)))
    elapsed = time.perf_counter() - started
    assert result.value == "{}"
    assert len(server.requests) == 2
    assert 1.0 <= elapsed < 10.0


def test_no_slot_is_held_while_waiting_to_retry(server: FakeOpenAIServer, tmp_path: Path) -> None:
    calls = layer(max_attempts=2, concurrency=1, slots_dir=tmp_path / "slots")
    client = client_for(server)
    server.fail_next(1, 429, retry_after="1.5")
    finished: dict[str, float] = {}
    started = time.perf_counter()

    def first() -> None:
        call(calls, chat(client, "first"), "first")
        finished["first"] = time.perf_counter() - started

    waiting = threading.Thread(target=first)
    waiting.start()
    deadline = time.monotonic() + 10
    while not server.requests:  # the first call got its 429 and is backing off
        assert time.monotonic() < deadline
        time.sleep(0.01)
    call(calls, chat(client, "second"), "second")  # the only slot is free meanwhile
    finished["second"] = time.perf_counter() - started
    waiting.join(10)
    assert finished["second"] < 1.0 <= 1.5 <= finished["first"]
    assert [r.json["messages"][0]["content"] for r in server.requests if r.json] == ["first", "second", "first"]
    calls.close()


def test_5xx_beyond_max_attempts_propagate(server: FakeOpenAIServer) -> None:
    server.fail_next(5, 500)
    with usage_scope() as usage, pytest.raises(openai.InternalServerError):
        call(layer(max_attempts=3), chat(client_for(server)))
    assert len(server.requests) == 3
    assert usage.as_dict()["model"]["retries"] == 2
    assert usage.as_dict()["model"]["calls"] == usage.as_dict()["model"]["failed"] == 3  # as many as the server saw


def test_attempts_of_the_adapter_override_the_settings(server: FakeOpenAIServer) -> None:
    server.fail_next(5, 503)
    with pytest.raises(openai.InternalServerError):
        call(layer(max_attempts=4), chat(client_for(server)), attempts=2)
    assert len(server.requests) == 2


def test_timeouts_are_retried_then_raised() -> None:
    with FakeOpenAIServer(latency=0.6) as slow:
        started = time.perf_counter()
        with usage_scope() as usage, pytest.raises(openai.APITimeoutError):
            call(layer(max_attempts=2), chat(client_for(slow, timeout=0.15)))
        elapsed = time.perf_counter() - started
        assert len(slow.requests) == 2
    assert elapsed >= 0.3
    assert usage.as_dict()["model"]["retries"] == 1


def test_connection_failures_are_retried(tmp_path: Path) -> None:
    with FakeOpenAIServer() as gone:
        url = gone.base_url
    client = openai.OpenAI(api_key="sk", base_url=url, max_retries=0, timeout=2)  # nothing listens there now
    with usage_scope() as usage, pytest.raises(openai.APIConnectionError):
        call(layer(max_attempts=3), chat(client))
    assert usage.as_dict()["model"]["retries"] == 2


# -- the cache -------------------------------------------------------------------------------
def test_a_cache_hit_makes_no_request_and_is_booked_as_cached(server: FakeOpenAIServer, tmp_path: Path) -> None:
    prices = Prices({MODEL: {"input_per_million": 1_000_000.0, "output_per_million": 0.0}})
    calls = layer(cache_dir=tmp_path, cache_mode="on", prices=prices)
    with usage_scope() as first:
        made = call(calls, chat(client_for(server)))
    assert len(server.requests) == 1
    with usage_scope() as second:
        again = call(calls, chat(client_for(server)))
    assert len(server.requests) == 1
    assert again == made
    assert made.usage["prompt_tokens"] == 12
    assert first.as_dict()["model"]["calls"] == 1 and first.as_dict()["model"]["cost"] == 12.0
    booked = second.as_dict()["model"]
    assert (booked["calls"], booked["cached"], booked["input_tokens"], booked["cost"]) == (0, 1, 0, 0.0)


def test_a_hit_a_dead_worker_of_this_run_paid_for_is_booked_as_paid_when_its_case_is_taken_over(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    prices = Prices({MODEL: {"input_per_million": 1_000_000.0, "output_per_million": 0.0}})
    calls = layer(cache_dir=tmp_path, cache_mode="on", prices=prices)
    with usage_scope():
        call(calls, chat(client_for(server)))  # made and cached by this process, as a worker that then dies
    [entry] = tmp_path.rglob("*.json")
    assert json.loads(entry.read_text())["value"]["paid_by"] == {"pid": os.getpid()}
    with taking_over(os.getpid()), usage_scope() as taken_over:  # the case taken over from that worker
        call(calls, chat(client_for(server)))
    with taking_over(dead_pid()), usage_scope() as elsewhere:  # taken over from another dead worker
        call(calls, chat(client_for(server)))
    assert len(server.requests) == 1
    paid = taken_over.as_dict()["model"]
    assert (paid["calls"], paid["cached"], paid["input_tokens"], paid["cost"]) == (1, 0, 12, 12.0)
    assert (elsewhere.as_dict()["model"]["calls"], elsewhere.as_dict()["model"]["cached"]) == (0, 1)


def test_where_waiting_is_forbidden_a_hit_is_answered_and_a_miss_stops_before_any_request(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    """The warm-case attempt of the pipeline: a miss raises WouldWait before the slot, the lock or the request."""
    calls = layer(cache_dir=tmp_path, cache_mode="on")
    made = call(calls, chat(client_for(server)))
    with without_waiting():
        assert call(calls, chat(client_for(server))) == made
        with pytest.raises(WouldWait, match="a model call the cache does not hold"):
            call(calls, chat(client_for(server)), prompt="not asked before")
        with pytest.raises(WouldWait, match=r"a model call \(no cache\)"):
            call(layer(), chat(client_for(server)))
    assert len(server.requests) == 1
    assert call(calls, chat(client_for(server)), prompt="not asked before").value  # allowed again outside
    assert len(server.requests) == 2


def test_repeats_are_distinct_cache_entries(server: FakeOpenAIServer, tmp_path: Path) -> None:
    calls = layer(cache_dir=tmp_path, cache_mode="on")
    client = client_for(server)
    call(calls, chat(client))
    call(calls, chat(client), repeat=1)
    with case_repeat(1):
        call(calls, chat(client))
        call(calls, chat(client))  # a hit
    call(calls, chat(client), "other prompt")
    call(calls, chat(client))  # a hit
    assert len(server.requests) == 4
    assert len(list(tmp_path.rglob("*.json"))) == 4


def test_an_error_inside_the_call_is_not_cached(tmp_path: Path) -> None:
    calls = layer(cache_dir=tmp_path, cache_mode="on", max_attempts=3)
    runs = 0

    def run() -> CallResult:
        nonlocal runs
        runs += 1
        if runs == 1:
            raise ModelError("the reply held no image")
        return CallResult({"ok": runs})

    with pytest.raises(ModelError):
        call(calls, run)
    assert runs == 1  # not retryable
    assert list(tmp_path.rglob("*.json")) == []
    assert call(calls, run).value == {"ok": 2}
    assert call(calls, run).value == {"ok": 2}
    assert runs == 2


def test_an_http_error_is_not_cached(server: FakeOpenAIServer, tmp_path: Path) -> None:
    calls = layer(cache_dir=tmp_path, cache_mode="on")
    server.fail_next(1, 400)
    with pytest.raises(openai.BadRequestError):
        call(calls, chat(client_for(server)))
    assert call(calls, chat(client_for(server))).value == "{}"
    assert len(server.requests) == 2


@pytest.mark.parametrize(("mode", "requests", "stored"), [("write", 2, 1), ("read", 2, 0), ("off", 2, 0), ("on", 1, 1)])
def test_cache_modes_through_the_layer(server: FakeOpenAIServer, tmp_path: Path, mode: str, requests: int, stored: int) -> None:
    calls = layer(cache_dir=tmp_path, cache_mode=mode)
    call(calls, chat(client_for(server)))
    call(calls, chat(client_for(server)))
    assert len(server.requests) == requests
    assert len(list(tmp_path.rglob("*.json"))) == stored


def test_identical_calls_in_two_threads_run_once(slow_server: FakeOpenAIServer, tmp_path: Path) -> None:
    calls = layer(cache_dir=tmp_path, cache_mode="on", concurrency=4)
    client = client_for(slow_server)
    books = [CaseUsage(), CaseUsage()]
    values: list[Any] = [None, None]

    def one(i: int) -> None:
        with usage_scope(books[i]):
            values[i] = call(calls, chat(client)).value

    in_threads(2, one)
    assert values == ["slow", "slow"]
    assert len(slow_server.requests) == 1
    booked = sorted((b.as_dict()["model"]["calls"], b.as_dict()["model"]["cached"]) for b in books)
    assert booked == [(0, 1), (1, 0)]


# -- the concurrency limit -------------------------------------------------------------------
def test_concurrency_limit_holds_at_the_server(slow_server: FakeOpenAIServer, tmp_path: Path) -> None:
    calls = layer(concurrency=2, slots_dir=tmp_path / "slots")
    client = client_for(slow_server)
    in_threads(8, lambda i: call(calls, chat(client, f"prompt {i}"), f"prompt {i}"))
    calls.close()
    assert len(slow_server.requests) == 8
    assert slow_server.max_in_flight == 2
    assert slow_server.in_flight == 0


def test_without_a_limit_one_call_at_a_time(slow_server: FakeOpenAIServer) -> None:
    calls = layer()
    client = client_for(slow_server)
    in_threads(3, lambda i: call(calls, chat(client, f"prompt {i}"), f"prompt {i}"))
    assert len(slow_server.requests) == 3
    assert slow_server.max_in_flight == 1


def test_the_server_counts_requests_in_flight(slow_server: FakeOpenAIServer) -> None:
    """The control for the two tests above: unthrottled threads do overlap at the server."""
    client = client_for(slow_server)
    in_threads(4, lambda i: chat(client, f"prompt {i}")())
    assert slow_server.max_in_flight >= 3


# -- usage ------------------------------------------------------------------------------------
def test_usage_books_tokens_seconds_and_cost(server: FakeOpenAIServer) -> None:
    prices = Prices({MODEL: {"input_per_million": 2.0, "output_per_million": 10.0, "per_call": 0.5}})
    with usage_scope() as usage:
        call(layer(prices=prices), chat(client_for(server)))
        call(layer(prices=prices), chat(client_for(server)), "again")
    booked = usage.as_dict()["model"]
    assert (booked["calls"], booked["input_tokens"], booked["output_tokens"]) == (2, 24, 68)
    assert booked["cost"] == pytest.approx(2 * (12 * 2.0 / 1e6 + 34 * 10.0 / 1e6 + 0.5))
    assert booked["unpriced"] == []
    assert booked["seconds"] > 0
