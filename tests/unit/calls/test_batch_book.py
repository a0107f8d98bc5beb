"""The batch book: queue, submit, read ended batches, failures and what is still open."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.calls.batch_book import BatchBook, endpoint_url
from pytest_visioneval.calls.batch_provider import BatchStatus, LineResult, parse_result_lines
from pytest_visioneval.calls.batch_request import Endpoint
from pytest_visioneval.errors import BatchError

HERE = Endpoint("http://127.0.0.1:1/v1", "KEY_ENV")


class ScriptedProvider:
    """Batches that end when told to, answering each line with its body echoed (or a failure)."""

    def __init__(self) -> None:
        self.batches: dict[str, dict[str, Any]] = {}
        self.ids = itertools.count(1)
        self.fail_submit = False
        self.failing: dict[str, int | None] = {}  # custom_id -> status (None: no reply at all)
        self.status_calls = 0

    def submit(self, path: str, lines: Sequence[Mapping[str, Any]]) -> str:
        if self.fail_submit:
            raise ConnectionError("provider down")
        batch_id = f"batch_{next(self.ids)}"
        self.batches[batch_id] = {"path": path, "lines": list(lines), "status": "in_progress"}
        return batch_id

    def status(self, batch_id: str) -> BatchStatus:
        self.status_calls += 1
        batch = self.batches[batch_id]
        return BatchStatus(batch["status"], {"total": len(batch["lines"])}, f"out-{batch_id}", None)

    def results(self, status: BatchStatus) -> Iterator[LineResult]:
        batch = self.batches[status.output_file.removeprefix("out-")]  # type: ignore[union-attr]
        for line in batch["lines"]:
            cid = line["custom_id"]
            if cid in self.failing:
                code = self.failing[cid]
                if code is not None:
                    yield LineResult(cid, code, {"error": {"message": "boom"}}, f"HTTP {code}: boom")
                continue
            yield LineResult(cid, 200, {"echo": line["body"]})


@pytest.fixture
def provider() -> ScriptedProvider:
    return ScriptedProvider()


@pytest.fixture
def book(tmp_path: Path, provider: ScriptedProvider) -> BatchBook:
    return BatchBook(tmp_path / "batches", lambda endpoint: provider)


def _queue(book: BatchBook, key: str, path: str = "/v1/chat/completions", attempt: int = 1) -> None:
    book.enqueue(key, "judge", "openai:j", HERE, path, {"q": key}, attempt)


def test_a_queued_request_is_found_as_queued_then_pending_then_answered(book: BatchBook, provider: ScriptedProvider) -> None:
    assert book.lookup("k1") is None
    _queue(book, "k1")
    assert book.lookup("k1").state == "queued"  # type: ignore[union-attr]
    submitted = book.submit_queue()
    assert [b["requests"] for b in submitted] == [1]
    found = book.lookup("k1")
    assert found is not None and found.state == "pending" and found.data["batch"] == "batch_1"
    provider.batches["batch_1"]["status"] = "completed"
    book.refresh()
    found = book.lookup("k1")
    assert found is not None and found.state == "result" and found.data["body"] == {"echo": {"q": "k1"}}
    book.forget("k1", "result")
    assert book.lookup("k1") is None
    assert book.open_batches() == []


def test_one_batch_per_endpoint_path_split_at_the_limit(tmp_path: Path, provider: ScriptedProvider) -> None:
    book = BatchBook(tmp_path / "b", lambda endpoint: provider, max_requests=2)
    for key in ("a", "b", "c"):
        _queue(book, key)
    _queue(book, "img", path="/v1/images/generations")
    submitted = book.submit_queue()
    assert sorted(b["requests"] for b in submitted) == [1, 1, 2]
    paths = sorted(b["path"] for b in provider.batches.values())
    assert paths == ["/v1/chat/completions", "/v1/chat/completions", "/v1/images/generations"]
    lines = [json.dumps(line) for b in provider.batches.values() for line in b["lines"]]
    assert all('"method": "POST"' in line for line in lines)
    assert not list((tmp_path / "b" / "queue").glob("*.json"))


def test_a_failed_line_and_a_line_without_reply_are_failures(book: BatchBook, provider: ScriptedProvider) -> None:
    for key in ("ok", "bad", "lost"):
        _queue(book, key, attempt=2 if key == "bad" else 1)
    book.submit_queue()
    provider.failing = {"bad": 500, "lost": None}
    provider.batches["batch_1"]["status"] = "expired"
    book.refresh()
    assert book.lookup("ok").state == "result"  # type: ignore[union-attr]
    bad = book.lookup("bad")
    assert bad is not None and bad.state == "failed"
    assert bad.data["status_code"] == 500 and bad.data["attempt"] == 2 and "boom" in bad.data["error"]
    lost = book.lookup("lost")
    assert lost is not None and lost.state == "failed" and lost.data["status_code"] is None
    assert "expired" in lost.data["error"]


def test_a_submission_that_fails_keeps_the_requests_queued(book: BatchBook, provider: ScriptedProvider) -> None:
    _queue(book, "k")
    provider.fail_submit = True
    with pytest.raises(BatchError, match="provider down"):
        book.submit_queue()
    assert book.lookup("k").state == "queued"  # type: ignore[union-attr]
    provider.fail_submit = False
    assert len(book.submit_queue()) == 1


def test_a_second_book_on_the_same_folder_sees_the_first_ones_batches(tmp_path: Path, provider: ScriptedProvider) -> None:
    first = BatchBook(tmp_path / "b", lambda e: provider)
    _queue(first, "k")
    first.submit_queue()
    provider.batches["batch_1"]["status"] = "completed"
    later = BatchBook(tmp_path / "b", lambda e: provider)  # the next run
    assert later.lookup("k").state == "result"  # type: ignore[union-attr]
    assert later.overview()["ended"][0]["id"] == "batch_1"
    calls = provider.status_calls
    later.lookup("k")
    assert provider.status_calls == calls  # refreshed once per process, not per lookup


def test_wait_returns_when_every_batch_ended_or_the_deadline_passed(book: BatchBook, provider: ScriptedProvider) -> None:
    _queue(book, "k")
    book.submit_queue()
    slept: list[float] = []
    assert book.wait(deadline=0.0, poll=5.0, sleep=slept.append) is False  # already past: no sleeping

    def finish(seconds: float) -> None:
        slept.append(seconds)
        provider.batches["batch_1"]["status"] = "completed"

    import time

    assert book.wait(deadline=time.monotonic() + 60, poll=0.5, sleep=finish) is True
    assert slept == [0.5]


def test_result_lines_of_both_files_parse() -> None:
    text = "\n".join(
        [
            json.dumps({"custom_id": "a", "response": {"status_code": 200, "body": {"x": 1}}, "error": None}),
            json.dumps({"custom_id": "b", "response": {"status_code": 429, "body": {"error": {"message": "slow down"}}}}),
            json.dumps({"custom_id": "c", "response": None, "error": {"code": "batch_expired", "message": "too late"}}),
            json.dumps({"custom_id": "d", "response": {"status_code": 200, "body": "<html>a page</html>"}}),
            "not json",
        ]
    )
    lines = list(parse_result_lines(text))
    assert [(x.custom_id, x.status_code, x.succeeded) for x in lines] == [
        ("a", 200, True),
        ("b", 429, False),
        ("c", None, False),
        ("d", 200, False),
    ]
    assert lines[1].error == "HTTP 429: slow down"
    assert lines[2].error == "batch_expired: too late"
    assert lines[3].error == 'the reply body is not a JSON object: "<html>a page</html>"'


def test_a_budget_hold_travels_with_its_request_to_the_result_or_the_failure(book: BatchBook, provider: ScriptedProvider) -> None:
    book.enqueue("paid", "judge", "openai:j", HERE, "/v1/chat/completions", {"q": 1}, 1, hold="hold-paid")
    book.enqueue("lost", "judge", "openai:j", HERE, "/v1/chat/completions", {"q": 2}, 1, hold="hold-lost")
    _queue(book, "free")  # queued without a budget: no hold to carry
    book.submit_queue()
    provider.failing = {"lost": None}
    provider.batches["batch_1"]["status"] = "completed"
    book.refresh()
    assert book.lookup("paid").data["hold"] == "hold-paid"  # type: ignore[union-attr]
    lost = book.lookup("lost")
    assert lost is not None and lost.state == "failed" and lost.data["hold"] == "hold-lost"
    assert "hold" not in book.lookup("free").data  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("base_url", "path", "expected"),
    [
        ("http://h:1/v1", "/v1/images/edits", "http://h:1/v1/images/edits"),
        ("http://h:1/v1/", "/v1/chat/completions", "http://h:1/v1/chat/completions"),
        ("http://h:1", "/v1/images/edits", "http://h:1/v1/images/edits"),
        ("http://h:1/proxy", "/v1/images/edits", "http://h:1/proxy/v1/images/edits"),
        ("http://h:1/v1beta", "/v1/images/edits", "http://h:1/v1beta/v1/images/edits"),
    ],
)
def test_the_endpoint_of_a_batch_says_a_shared_version_prefix_once(base_url: str, path: str, expected: str) -> None:
    assert endpoint_url(base_url, path) == expected


def test_the_batch_summary_names_the_path_the_requests_went_to(book: BatchBook) -> None:
    _queue(book, "k", path="/v1/images/edits")
    [summary] = book.submit_queue()
    assert summary["endpoint"] == "http://127.0.0.1:1/v1/images/edits"
