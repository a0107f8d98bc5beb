"""testing/openai_server.py: the Files and Batches endpoints, driven through the real openai SDK."""

from __future__ import annotations

import base64
import io
import json
import time
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai.types import Batch, FileObject
from openai.types.chat import ChatCompletion
from PIL import Image

from pytest_visioneval.testing import FakeOpenAIServer

CHAT = "/v1/chat/completions"
IMAGES = "/v1/images/generations"


@pytest.fixture(scope="module")
def module_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:  # one for the module: stopping a server takes a poll interval
        yield srv


@pytest.fixture
def server(module_server: FakeOpenAIServer) -> FakeOpenAIServer:
    """The shared server, reset; files and batches of earlier tests remain (their ids never repeat)."""
    module_server.reset()
    module_server.text_reply = "plain reply"
    module_server.batch_delay = 0.0
    return module_server


@pytest.fixture
def client(server: FakeOpenAIServer) -> openai.OpenAI:
    return openai.OpenAI(api_key="x", base_url=server.base_url, max_retries=0)


def chat_line(custom_id: str, prompt: str, url: str = CHAT) -> dict[str, Any]:
    body = {"model": "local-chat", "messages": [{"role": "user", "content": prompt}]}
    return {"custom_id": custom_id, "method": "POST", "url": url, "body": body}


def jsonl(lines: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def submit(client: openai.OpenAI, lines: list[dict[str, Any]], endpoint: str = CHAT) -> Batch:
    uploaded = client.files.create(file=("in.jsonl", jsonl(lines)), purpose="batch")
    return client.batches.create(input_file_id=uploaded.id, endpoint=endpoint, completion_window="24h")  # type: ignore[arg-type]


def rows(client: openai.OpenAI, file_id: str | None) -> list[dict[str, Any]]:
    assert file_id is not None
    return [json.loads(line) for line in client.files.content(file_id).text.splitlines()]


def test_an_uploaded_file_can_be_retrieved_with_its_content(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    data = jsonl([chat_line("a", "hi")])
    uploaded = client.files.create(file=("in.jsonl", data), purpose="batch")
    assert isinstance(uploaded, FileObject)
    assert uploaded.id.startswith("file-")
    assert (uploaded.filename, uploaded.purpose, uploaded.bytes, uploaded.status) == ("in.jsonl", "batch", len(data), "processed")
    again = client.files.retrieve(uploaded.id)
    assert again.model_dump() == uploaded.model_dump()
    assert client.files.content(uploaded.id).content == data
    assert server.files[uploaded.id] == data


def test_an_unknown_file_is_a_404_with_an_error_body(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as raised:
        client.files.retrieve("file-missing")
    assert "file-missing" in raised.value.message
    with pytest.raises(openai.NotFoundError):
        client.files.content("file-missing")
    with pytest.raises(openai.NotFoundError) as raised:
        client.batches.create(input_file_id="file-missing", endpoint=CHAT, completion_window="24h")  # type: ignore[arg-type]
    assert isinstance(raised.value.body, dict) and "file-missing" in raised.value.body["message"]


def test_a_chat_batch_completes_with_one_output_line_per_request(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.text_reply = lambda request: "echo: " + request.json["messages"][0]["content"]  # type: ignore[index]
    batch = submit(client, [chat_line(f"case-{i}", f"prompt {i}") for i in range(3)])
    assert batch.status == "in_progress"
    assert batch.request_counts is not None and batch.request_counts.total == 3

    done = client.batches.retrieve(batch.id)
    assert done.status == "completed"
    assert done.completed_at is not None and done.error_file_id is None
    assert done.request_counts is not None
    assert (done.request_counts.total, done.request_counts.completed, done.request_counts.failed) == (3, 3, 0)
    assert client.files.retrieve(done.output_file_id or "").purpose == "batch_output"

    output = rows(client, done.output_file_id)
    assert [row["custom_id"] for row in output] == ["case-0", "case-1", "case-2"]
    for i, row in enumerate(output):
        assert row["error"] is None and row["id"].startswith("batch_req_")
        assert row["response"]["status_code"] == 200 and row["response"]["request_id"].startswith("req_")
        completion = ChatCompletion.model_validate(row["response"]["body"])
        assert completion.choices[0].message.content == f"echo: prompt {i}"
        assert completion.model == "local-chat"


def test_an_images_batch_returns_base64_images(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    line = {
        "custom_id": "img",
        "method": "POST",
        "url": IMAGES,
        "body": {"model": "local-image", "prompt": "a cat", "size": "64x32"},
    }
    batch = submit(client, [line], endpoint=IMAGES)
    done = client.batches.retrieve(batch.id)
    assert done.status == "completed"
    [row] = rows(client, done.output_file_id)
    image = Image.open(io.BytesIO(base64.b64decode(row["response"]["body"]["data"][0]["b64_json"])))
    assert image.size == (64, 32)
    assert [r.path for r in server.batch_lines] == [IMAGES]


def test_batch_delay_keeps_a_batch_in_progress_until_it_has_passed(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.batch_delay = 0.4
    batch = submit(client, [chat_line("a", "hi")])
    assert client.batches.retrieve(batch.id).status == "in_progress"
    assert server.batch_lines == []
    time.sleep(0.5)
    done = client.batches.retrieve(batch.id)
    assert done.status == "completed"
    assert rows(client, done.output_file_id)[0]["custom_id"] == "a"


def test_held_batches_stay_in_progress_until_released(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.hold_batches()
    batch = submit(client, [chat_line("a", "hi")])
    for _ in range(3):
        assert client.batches.retrieve(batch.id).status == "in_progress"
    assert server.batches[batch.id].status == "in_progress" and server.batch_lines == []
    server.release_batches()
    assert client.batches.retrieve(batch.id).status == "completed"
    assert len(server.batch_lines) == 1
    # Completion happens once: later retrieves answer nothing again.
    assert client.batches.retrieve(batch.id).status == "completed"
    assert len(server.batch_lines) == 1


def test_batch_fail_when_sends_a_line_to_the_error_file(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    seen: list[dict[str, Any]] = []

    def broken(line: dict[str, Any]) -> bool:
        seen.append(line)
        return line["custom_id"] == "bad"

    server.batch_fail_when(broken, status=503)
    done = client.batches.retrieve(submit(client, [chat_line("good", "a"), chat_line("bad", "b")]).id)
    assert done.status == "completed"
    assert done.request_counts is not None
    assert (done.request_counts.completed, done.request_counts.failed) == (1, 1)
    assert [line["custom_id"] for line in seen] == ["good", "bad"] and seen[1]["url"] == CHAT and "body" in seen[1]
    assert [row["custom_id"] for row in rows(client, done.output_file_id)] == ["good"]
    [error] = rows(client, done.error_file_id)
    assert error["custom_id"] == "bad" and error["error"] is None
    assert error["response"]["status_code"] == 503
    assert error["response"]["body"]["error"]["message"] and error["response"]["body"]["error"]["type"]

    server.batch_fail_when(None)
    again = client.batches.retrieve(submit(client, [chat_line("bad", "b")]).id)
    assert again.error_file_id is None and again.request_counts is not None and again.request_counts.completed == 1


def test_http_faults_do_not_touch_batch_lines(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    batch = submit(client, [chat_line("a", "hi"), chat_line("b", "ho")])
    server.fail_when(lambda request: request.method == "POST")  # would fail any direct chat call
    done = client.batches.retrieve(batch.id)
    assert done.request_counts is not None and done.request_counts.completed == 2


def test_a_line_with_the_wrong_url_fails_the_batch(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    lines = [chat_line("a", "hi"), chat_line("b", "ho", url="/v1/responses"), chat_line("a", "dup")]
    batch = submit(client, lines)
    assert batch.status == "failed" and batch.failed_at is not None
    assert batch.errors is not None and batch.errors.object == "list" and batch.errors.data is not None
    by_line = {error.line: error for error in batch.errors.data}
    assert set(by_line) == {2, 3}
    assert by_line[2].code and by_line[2].message and "/v1/responses" in by_line[2].message
    assert by_line[3].code == "duplicate_custom_id"
    assert client.batches.retrieve(batch.id).status == "failed"
    assert server.batch_lines == [] and batch.output_file_id is None


def test_a_cancelled_batch_answers_no_line(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.hold_batches()
    batch = submit(client, [chat_line("a", "hi")])
    cancelled = client.batches.cancel(batch.id)
    assert cancelled.status == "cancelled" and cancelled.cancelled_at is not None
    server.release_batches()
    again = client.batches.retrieve(batch.id)
    assert again.status == "cancelled" and again.output_file_id is None
    assert server.batch_lines == []
    with pytest.raises(openai.APIStatusError):
        client.batches.cancel(batch.id)


def test_expired_batches_list_every_line_as_expired(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.hold_batches()
    batch = submit(client, [chat_line("a", "hi"), chat_line("b", "ho")])
    assert batch.id in server.expire_batches()
    server.release_batches()
    expired = client.batches.retrieve(batch.id)
    assert expired.status == "expired" and expired.expired_at is not None and expired.output_file_id is None
    errors = rows(client, expired.error_file_id)
    assert [row["custom_id"] for row in errors] == ["a", "b"]
    for row in errors:
        assert row["response"] is None and row["error"]["code"] == "batch_expired" and row["error"]["message"]
    assert server.batch_lines == []


def test_requests_hold_the_http_calls_and_batch_lines_the_answered_lines(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    batch = submit(client, [chat_line("a", "one"), chat_line("b", "two")])
    done = client.batches.retrieve(batch.id)
    client.files.content(done.output_file_id or "")
    listed = client.batches.list()
    assert listed.data[0].id == batch.id and listed.data[0].status == "completed"  # newest first
    assert [(r.method, r.path.split("?")[0]) for r in server.requests] == [
        ("POST", "/v1/files"),
        ("POST", "/v1/batches"),
        ("GET", f"/v1/batches/{batch.id}"),
        ("GET", f"/v1/files/{done.output_file_id}/content"),
        ("GET", "/v1/batches"),
    ]
    assert all(r.json is None for r in server.requests if r.method == "GET")
    assert server.calls_to(CHAT) == []
    assert [r.path for r in server.batch_lines] == [CHAT, CHAT]
    assert [r.json["messages"][0]["content"] for r in server.batch_lines] == ["one", "two"]  # type: ignore[index]
    assert [r.status for r in server.batch_lines] == [200, 200]


def test_batch_lines_honour_queue_replies(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.queue_replies('{"score": 1}', '{"score": 2}')
    done = client.batches.retrieve(submit(client, [chat_line(c, c) for c in "abc"]).id)
    texts = [row["response"]["body"]["choices"][0]["message"]["content"] for row in rows(client, done.output_file_id)]
    assert texts == ['{"score": 1}', '{"score": 2}', "plain reply"]


def test_reset_keeps_files_and_batches_but_drops_batch_faults(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.hold_batches()
    server.batch_fail_when(lambda line: True)
    batch = submit(client, [chat_line("a", "hi")])
    server.reset()
    assert server.requests == [] and batch.id in server.batches and batch.input_file_id in server.files
    done = client.batches.retrieve(batch.id)  # the hold went with the reset
    assert done.status == "completed" and done.request_counts is not None and done.request_counts.completed == 1
