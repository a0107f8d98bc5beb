"""A small OpenAI-compatible HTTP server on loopback, for tests and benchmarks.

It speaks the endpoints the model adapters use (images generations and
edits, chat completions, responses) plus the Files and Batches endpoints,
records every request it receives, and can inject faults (status codes with
``retry-after``, latency, replies cut short), so adapters are tested through
the real ``openai`` SDK and its real HTTP stack.
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import io
import json
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from PIL import Image, ImageDraw

from .logprob_replies import chat_logprobs


class _Server(ThreadingHTTPServer):
    # The standard library listens with a backlog of 5: a client that opens a hundred connections at
    # once (an async client at high concurrency) would see resets. Real servers queue 2048 or more.
    request_queue_size = 1024


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    json: dict[str, Any] | None = None
    # multipart fields: name -> list of (filename or None, bytes)
    files: dict[str, list[tuple[str | None, bytes]]] = field(default_factory=dict)
    number: int = 0  # 1-based arrival order since the server started or was reset
    received: float = 0.0  # time.monotonic() when the request had been read
    answered: float | None = None  # time.monotonic() when its reply was ready to send (None: not yet)
    status: int | None = None  # status of the reply (an injected fault's, or 200)
    truncated: bool = False  # the reply's text was cut in half (``truncate_replies``)
    method: str = "POST"  # the HTTP method ("POST" for the lines of a batch)
    peer: tuple[str, int] | None = None  # the client's address and port: one per TCP connection (None: a batch line)


# The batch endpoints this server can answer (a subset of the ones the real API takes).
BATCH_ENDPOINTS = ("/v1/chat/completions", "/v1/responses", "/v1/images/generations", "/v1/images/edits")
BATCH_EXPIRED_MESSAGE = "This request could not be executed before the completion window expired."


@dataclass
class BatchState:
    """One batch as the server keeps it: ``body`` is the batch object it serves."""

    body: dict[str, Any]  # status, file ids, request_counts, timestamps... (what ``GET /v1/batches/{id}`` returns)
    lines: list[dict[str, Any]]  # the parsed input lines (empty when validation failed)
    started: float  # time.monotonic() at creation, the start of ``batch_delay``

    @property
    def id(self) -> str:
        return str(self.body["id"])

    @property
    def status(self) -> str:
        return str(self.body["status"])


def default_image(size: str | None, color: tuple[int, int, int] = (200, 60, 40)) -> bytes:
    """A non-blank PNG of the requested ``WxH`` size (256x256 if absent or 'auto')."""
    try:
        width, height = (int(v) for v in str(size).split("x"))
    except ValueError:
        width, height = 256, 256
    img = Image.new("RGB", (width, height), "white")
    ImageDraw.Draw(img).rectangle((width // 4, height // 4, 3 * width // 4, 3 * height // 4), fill=color)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


class FakeOpenAIServer:
    """Use as a context manager; ``base_url`` ends in ``/v1``.

    * ``image_factory(request) -> bytes`` makes the image of each reply.
    * ``text_reply`` is the assistant text of chat/responses replies: a string,
      or a function of the request returning one; ``queue_replies(...)``
      scripts the next replies one by one (for judges).
    * ``fail_next(count, status, retry_after)`` makes the next ``count``
      requests fail with ``status``; ``fault_message(request, status)``, when
      set, words their error (a server echoing the request's headers).
    * ``fail_every(n, status, retry_after)`` makes every ``n``-th request
      (counted from the call, or from ``reset``) fail; ``fail_every(0)`` stops.
    * ``fail_when(predicate, status, retry_after)`` makes every request for
      which ``predicate(request)`` is true fail (a permanently broken case);
      ``fail_when(None)`` stops.
    * ``truncate_replies(count=None, when=None)`` cuts the text of chat and
      responses replies in half (invalid JSON for a judge): the next ``count``
      replies to requests matching ``when`` (``None``: every reply, to any
      request); ``truncate_replies(0)`` stops.
    * ``latency`` seconds are slept before every reply: a number, or a function
      of the request returning one (slow replies for some requests only).
    * ``image_as_url`` answers image calls with a URL instead of base64.
    * ``logprobs_for(request) -> {token: probability} | None`` answers chat
      requests that ask ``logprobs: true``: the first token's distribution
      (see :mod:`.logprob_replies`), sent as OpenAI/vLLM ``logprobs`` cut to
      the request's ``top_logprobs``, the text being its most likely token;
      None sends ``"logprobs": null`` (an endpoint that gives none).
    * ``in_flight`` / ``max_in_flight``: requests being answered now, and the most at once.

    Faults are checked after the latency, ``fail_next`` first, then
    ``fail_every``, then ``fail_when``. Every HTTP request (GET ones too, with
    ``json=None``) is recorded in ``requests`` (a :class:`RecordedRequest`
    with its ``method``, arrival ``number``, its ``received`` and ``answered``
    times and the reply's ``status``); ``counts()`` gives the requests per
    path. ``reset()`` forgets requests, counters and every fault and
    truncation (not ``latency``, ``text_reply`` or ``image_factory``).

    Files and batches, as the real API serves them:

    * ``POST /v1/files`` (multipart ``file`` and ``purpose``), ``GET
      /v1/files``, ``GET /v1/files/{id}``, ``GET /v1/files/{id}/content`` and
      ``DELETE /v1/files/{id}``; ``files`` maps each id to its bytes.
    * ``POST /v1/batches`` validates the input file (each line JSON with a
      unique ``custom_id``, ``method`` POST and ``url`` equal to the batch's
      endpoint; a bad file makes a ``failed`` batch whose ``errors`` name the
      lines; an unknown file is a 404), ``GET /v1/batches[/{id}]`` and
      ``POST /v1/batches/{id}/cancel``; ``batches`` maps each id to its
      :class:`BatchState`.
    * A batch stays ``in_progress`` until ``batch_delay`` seconds (default 0)
      have passed since its creation while ``hold_batches()`` is not in force
      (``release_batches()`` ends it); it then completes at the next GET that
      shows it (retrieve or list): every line is answered, once, by the same
      logic as a direct request (``text_reply``, ``queue_replies``,
      ``image_factory``, ``served_model``, ``truncate_replies`` apply; not
      ``raw_reply``), without HTTP. These lines go to ``batch_lines``, never
      to ``requests``; successes go to an output file (purpose
      ``batch_output``, only when there is one), failures to an error file
      (only when there is one).
    * ``fail_next``, ``fail_every``, ``fail_when`` and ``latency`` apply to
      HTTP requests only (the files and batches endpoints included), never to
      the lines of a batch: ``batch_fail_when(predicate, status)`` fails the
      lines (their parsed JSON) for which ``predicate`` is true.
    * ``cancel`` and ``expire_batches()`` act on batches not yet completed
      (a due batch that nobody has retrieved yet still counts as unfinished):
      their lines are never answered; an expired batch lists each line in its
      error file with ``"response": null`` and the ``batch_expired`` error.
    * ``reset()`` keeps ``files``, ``batches`` and ``batch_delay`` (a resumed
      run needs them) but forgets ``batch_lines``, ``batch_fail_when`` and
      the hold.
    """

    def __init__(
        self,
        *,
        latency: float | Callable[[RecordedRequest], float] = 0.0,
        text_reply: str | Callable[[RecordedRequest], str] = "<html><body><h1>Hello</h1></body></html>",
    ):
        self.latency = latency
        self.text_reply = text_reply
        self._scripted: deque[str] = deque()
        self.image_factory: Callable[[RecordedRequest], bytes] = self._image_for
        self.image_as_url = False
        # A hostile endpoint: (content type, body) sent with status 200 instead of the API's JSON, or None.
        self.raw_reply: Callable[[RecordedRequest], tuple[str, bytes] | None] | None = None
        # The message of an injected fault's error, from the request and the status (None: "injected fault N").
        self.fault_message: Callable[[RecordedRequest, int], str] | None = None
        # The model id replies name (a provider answering with a dated snapshot); None: the one asked for.
        self.served_model: str | None = None
        self.logprobs_for: Callable[[RecordedRequest], dict[str, float] | None] | None = None
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._faults: deque[tuple[int, str | None]] = deque()
        self._every: tuple[int, int, str | None] = (0, 500, None)  # (n, status, retry_after)
        self._every_start = 0  # the request number when fail_every was called
        self._when: tuple[Callable[[RecordedRequest], bool], int, str | None] | None = None
        self._truncate: tuple[int | None, Callable[[RecordedRequest], bool] | None] = (0, None)  # (count left, predicate)
        self._received = 0
        self._lock = threading.Lock()
        # Files and batches. Their state is guarded by ``_batch_lock``, which is taken before ``_lock``
        # (never the other way round): answering the lines of a batch needs ``_lock`` for the scripted replies.
        self.batch_delay = 0.0  # seconds a batch stays in progress after its creation
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, BatchState] = {}
        self.batch_lines: list[RecordedRequest] = []  # the lines of batches answered so far (never in ``requests``)
        self._file_objects: dict[str, dict[str, Any]] = {}
        self._batch_when: tuple[Callable[[dict[str, Any]], bool], int] | None = None
        self._held = False
        self._ids = 0  # numbers file, batch and batch request ids
        self._batch_lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # -- lifecycle ---------------------------------------------------------
    @property
    def base_url(self) -> str:
        address = self._server.server_address
        return f"http://127.0.0.1:{address[1]}/v1"

    def __enter__(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # -- behaviour ---------------------------------------------------------
    def fail_next(self, count: int, status: int = 500, retry_after: str | None = None) -> None:
        with self._lock:
            self._faults.extend([(status, retry_after)] * count)

    def fail_every(self, n: int, status: int = 500, retry_after: str | None = None) -> None:
        """Every ``n``-th request from now on fails with ``status`` (``n`` = 0: none)."""
        if n < 0:
            raise ValueError("n must not be negative")
        with self._lock:
            self._every = (n, status, retry_after)
            self._every_start = self._received

    def fail_when(
        self, predicate: Callable[[RecordedRequest], bool] | None, status: int = 500, retry_after: str | None = None
    ) -> None:
        """Every request for which ``predicate`` is true fails with ``status`` (``None``: none)."""
        with self._lock:
            self._when = (predicate, status, retry_after) if predicate is not None else None

    def truncate_replies(self, count: int | None = None, when: Callable[[RecordedRequest], bool] | None = None) -> None:
        """Cut the next ``count`` text replies (``None``: all) to requests matching ``when`` (``None``: any) in half."""
        with self._lock:
            self._truncate = (count, when)

    def counts(self) -> Counter[str]:
        """Requests received per path (``/v1/chat/completions``...) since the start or the last ``reset``."""
        with self._lock:
            return Counter(r.path for r in self.requests)

    def reset(self) -> None:
        """Forget recorded requests, counters, scripted replies, pending faults, truncation and raw replies.

        Files and batches are kept (a resumed run fetches them again), and so is ``batch_delay``;
        ``batch_lines``, ``batch_fail_when`` and ``hold_batches`` are forgotten.
        """
        with self._batch_lock:
            self.batch_lines.clear()
            self._batch_when = None
            self._held = False
        with self._lock:
            self.raw_reply = None
            self.logprobs_for = None
            self.fault_message = None
            self.requests.clear()
            self._scripted.clear()
            self._faults.clear()
            self._every = (0, 500, None)
            self._every_start = 0
            self._when = None
            self._truncate = (0, None)
            self._received = 0
            self.max_in_flight = self.in_flight

    def queue_replies(self, *replies: str) -> None:
        """The next text replies, in order; after them, ``text_reply`` again."""
        with self._lock:
            self._scripted.extend(replies)

    # -- batches: controls for tests ----------------------------------------
    def batch_fail_when(self, predicate: Callable[[dict[str, Any]], bool] | None, status: int = 500) -> None:
        """Lines of a batch (their parsed JSON) for which ``predicate`` is true fail with ``status`` (``None``: none)."""
        with self._batch_lock:
            self._batch_when = (predicate, status) if predicate is not None else None

    def hold_batches(self) -> None:
        """Keep every batch in progress, whatever ``batch_delay`` says, until ``release_batches()``."""
        with self._batch_lock:
            self._held = True

    def release_batches(self) -> None:
        """Let batches complete again (at their next retrieve, once ``batch_delay`` has passed)."""
        with self._batch_lock:
            self._held = False

    def expire_batches(self) -> list[str]:
        """Mark every unfinished batch ``expired``; returns their ids.

        Their lines are not answered: each is written to the batch's error file with
        ``"response": null`` and a ``batch_expired`` error, as the real API reports them.
        """
        expired = []
        with self._batch_lock:
            for batch in self.batches.values():
                if batch.status != "in_progress":
                    continue
                now = int(time.time())
                errors = [
                    {
                        "id": self._next_id("batch_req_"),
                        "custom_id": line["custom_id"],
                        "response": None,
                        "error": {"code": "batch_expired", "message": BATCH_EXPIRED_MESSAGE},
                    }
                    for line in batch.lines
                ]
                batch.body.update(
                    status="expired",
                    expired_at=now,
                    request_counts={"total": len(batch.lines), "completed": 0, "failed": len(batch.lines)},
                    error_file_id=self._store_jsonl(errors, f"{batch.id}_error.jsonl"),
                )
                expired.append(batch.id)
        return expired

    # -- files and batches: the endpoints -----------------------------------
    def _next_id(self, prefix: str) -> str:
        # Callers hold ``_batch_lock``.
        self._ids += 1
        return f"{prefix}{self._ids}"

    def _store_file(self, data: bytes, filename: str, purpose: str) -> dict[str, Any]:
        # Callers hold ``_batch_lock``.
        file_id = self._next_id("file-")
        obj = {
            "id": file_id,
            "object": "file",
            "bytes": len(data),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
        }
        self.files[file_id] = data
        self._file_objects[file_id] = obj
        return obj

    def _store_jsonl(self, rows: list[dict[str, Any]], filename: str) -> str | None:
        """Store ``rows`` as a ``batch_output`` JSONL file and return its id (``None``, storing nothing, if empty)."""
        if not rows:
            return None
        data = "".join(json.dumps(row) + "\n" for row in rows).encode()
        return str(self._store_file(data, filename, "batch_output")["id"])

    @staticmethod
    def _error(
        status: int, message: str, kind: str = "invalid_request_error", param: str | None = None
    ) -> tuple[int, dict[str, Any]]:
        return status, {"error": {"message": message, "type": kind, "param": param, "code": None}}

    def _route(self, request: RecordedRequest) -> tuple[int, dict[str, Any]]:
        """Answer one HTTP request whose faults and latency have been dealt with."""
        url = urlsplit(request.path)
        path, query = url.path, parse_qs(url.query)
        method = request.method
        if match := re.fullmatch(r".*/files", path):
            if method == "POST":
                return self._create_file(request)
            if method == "GET":
                return self._list_files(query.get("purpose", [None])[0])
        elif match := re.fullmatch(r".*/files/([^/]+)", path):
            if method in ("GET", "DELETE"):
                return self._file(match.group(1), delete=method == "DELETE")
        elif match := re.fullmatch(r".*/files/([^/]+)/content", path):
            if method == "GET":
                return self._file_content(match.group(1))
        elif re.fullmatch(r".*/batches", path):
            if method == "POST":
                return self._create_batch(request.json or {})
            if method == "GET":
                return self._list_batches()
        elif match := re.fullmatch(r".*/batches/([^/]+)", path):
            if method == "GET":
                return self._retrieve_batch(match.group(1))
        elif match := re.fullmatch(r".*/batches/([^/]+)/cancel", path):
            if method == "POST":
                return self._cancel_batch(match.group(1))
        elif method == "POST":
            return self._reply(request)
        return self._error(404, f"no route {method} {path}", "not_found")

    def _create_file(self, request: RecordedRequest) -> tuple[int, dict[str, Any]]:
        uploads = request.files.get("file") or []
        purposes = request.files.get("purpose") or []
        if not uploads:
            return self._error(400, "Missing required parameter: 'file'.", param="file")
        if not purposes:
            return self._error(400, "Missing required parameter: 'purpose'.", param="purpose")
        filename, data = uploads[0]
        with self._batch_lock:
            return 200, self._store_file(data, filename or "upload", purposes[0][1].decode())

    def _list_files(self, purpose: str | None) -> tuple[int, dict[str, Any]]:
        with self._batch_lock:
            data = [dict(obj) for obj in self._file_objects.values() if purpose is None or obj["purpose"] == purpose]
        return 200, {"object": "list", "data": data[::-1], "has_more": False}

    def _file(self, file_id: str, delete: bool = False) -> tuple[int, dict[str, Any]]:
        with self._batch_lock:
            obj = self._file_objects.get(file_id)
            if obj is None:
                return self._error(404, f"No such File object: {file_id}", param="id")
            if delete:
                del self._file_objects[file_id], self.files[file_id]
                return 200, {"id": file_id, "object": "file", "deleted": True}
            return 200, dict(obj)

    def _file_content(self, file_id: str) -> tuple[int, dict[str, Any]]:
        with self._batch_lock:
            data = self.files.get(file_id)
        if data is None:
            return self._error(404, f"No such File object: {file_id}", param="id")
        return 200, {"raw": ("application/octet-stream", data)}

    def _create_batch(self, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        for name in ("input_file_id", "endpoint", "completion_window"):
            if not params.get(name):
                return self._error(400, f"Missing required parameter: '{name}'.", param=name)
        endpoint = params["endpoint"]
        if endpoint not in BATCH_ENDPOINTS:
            return self._error(
                400, f"Unsupported endpoint {endpoint!r} (this server answers {', '.join(BATCH_ENDPOINTS)}).", param="endpoint"
            )
        if params["completion_window"] != "24h":
            return self._error(400, "Invalid completion_window: only '24h' is supported.", param="completion_window")
        with self._batch_lock:
            data = self.files.get(params["input_file_id"])
            if data is None:
                return self._error(404, f"No such File object: {params['input_file_id']}", param="input_file_id")
            lines, errors = _parse_batch_input(data, endpoint)
            now = int(time.time())
            body: dict[str, Any] = {
                "id": self._next_id("batch_"),
                "object": "batch",
                "endpoint": endpoint,
                "errors": None,
                "input_file_id": params["input_file_id"],
                "completion_window": "24h",
                "status": "in_progress",
                "output_file_id": None,
                "error_file_id": None,
                "created_at": now,
                "in_progress_at": now,
                "expires_at": now + 24 * 3600,
                "finalizing_at": None,
                "completed_at": None,
                "failed_at": None,
                "expired_at": None,
                "cancelling_at": None,
                "cancelled_at": None,
                "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                "metadata": params.get("metadata"),
            }
            if errors:
                # As the real API: a file that does not validate fails the whole batch; no line is run.
                lines = []
                body.update(
                    status="failed",
                    in_progress_at=None,
                    failed_at=now,
                    errors={"object": "list", "data": errors},
                    request_counts={"total": 0, "completed": 0, "failed": 0},
                )
            batch = BatchState(body, lines, time.monotonic())
            self.batches[batch.id] = batch
            return 200, dict(body)

    def _settle(self, batch: BatchState) -> None:
        """Complete ``batch`` if it is due: answer each of its lines, write the output and error files."""
        # Callers hold ``_batch_lock``.
        if batch.status != "in_progress" or self._held or time.monotonic() - batch.started < self.batch_delay:
            return
        outputs: list[dict[str, Any]] = []
        failures: list[dict[str, Any]] = []
        for line in batch.lines:
            status, reply = self._answer_line(line)
            row_id, request_id = self._next_id("batch_req_"), self._next_id("req_")
            row = {
                "id": row_id,
                "custom_id": line["custom_id"],
                "response": {"status_code": status, "request_id": request_id, "body": reply},
                "error": None,
            }
            (outputs if status == 200 else failures).append(row)
        now = int(time.time())
        batch.body.update(
            status="completed",
            finalizing_at=now,
            completed_at=now,
            request_counts={"total": len(batch.lines), "completed": len(outputs), "failed": len(failures)},
            output_file_id=self._store_jsonl(outputs, f"{batch.id}_output.jsonl"),
            error_file_id=self._store_jsonl(failures, f"{batch.id}_error.jsonl"),
        )

    def _answer_line(self, line: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The status and body of one batch line, recorded in ``batch_lines`` (HTTP faults and latency do not apply)."""
        # Callers hold ``_batch_lock``.
        request = RecordedRequest(line["url"], {}, json=line["body"], received=time.monotonic())
        request.number = len(self.batch_lines) + 1
        self.batch_lines.append(request)
        when = self._batch_when
        if when is not None and when[0](line):
            status, reply = self._error(when[1], f"injected batch fault {when[1]}", "server_error")
        else:
            try:
                status, reply = self._reply(request)
            except Exception as exc:  # a broken factory or text_reply: the line fails, the batch goes on
                status, reply = self._error(500, f"{type(exc).__name__}: {exc}", "server_error")
        request.status, request.answered = status, time.monotonic()
        return status, reply

    def _retrieve_batch(self, batch_id: str) -> tuple[int, dict[str, Any]]:
        with self._batch_lock:
            batch = self.batches.get(batch_id)
            if batch is None:
                return self._error(404, f"No such Batch object: {batch_id}", param="batch_id")
            self._settle(batch)
            return 200, dict(batch.body)

    def _list_batches(self) -> tuple[int, dict[str, Any]]:
        with self._batch_lock:
            for batch in self.batches.values():
                self._settle(batch)
            data = [dict(batch.body) for batch in reversed(self.batches.values())]  # newest first, as the API lists them
        return 200, {
            "object": "list",
            "data": data,
            "first_id": data[0]["id"] if data else None,
            "last_id": data[-1]["id"] if data else None,
            "has_more": False,
        }

    def _cancel_batch(self, batch_id: str) -> tuple[int, dict[str, Any]]:
        with self._batch_lock:
            batch = self.batches.get(batch_id)
            if batch is None:
                return self._error(404, f"No such Batch object: {batch_id}", param="batch_id")
            if batch.status != "in_progress":
                return self._error(409, f"Cannot cancel a batch with status '{batch.status}'.")
            now = int(time.time())
            batch.body.update(status="cancelled", cancelling_at=now, cancelled_at=now)
            return 200, dict(batch.body)

    def _text_for(self, request: RecordedRequest) -> str:
        with self._lock:
            text = self._scripted.popleft() if self._scripted else None
        if text is None:
            text = self.text_reply(request) if callable(self.text_reply) else self.text_reply
        if self._cut(request):
            request.truncated = True
            return text[: len(text) // 2]
        return text

    def _cut(self, request: RecordedRequest) -> bool:
        with self._lock:
            count, when = self._truncate
        if count == 0 or (when is not None and not when(request)):
            return False
        with self._lock:
            count, when = self._truncate
            if count == 0:
                return False
            if count is not None:
                self._truncate = (count - 1, when)
            return True

    def calls_to(self, suffix: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith(suffix)]

    @staticmethod
    def _image_for(request: RecordedRequest) -> bytes:
        size = None
        if request.json is not None:
            size = request.json.get("size")
        elif "size" in request.files:
            size = request.files["size"][0][1].decode()
        return default_image(size)

    def _next_fault(self, request: RecordedRequest) -> tuple[int, str | None] | None:
        with self._lock:
            if self._faults:
                return self._faults.popleft()
            n, status, retry_after = self._every
            if n and request.number > self._every_start and (request.number - self._every_start) % n == 0:
                return status, retry_after
            when = self._when
        if when is not None and when[0](request):
            return when[1], when[2]
        return None

    def _latency(self, request: RecordedRequest) -> float:
        return float(self.latency(request) if callable(self.latency) else self.latency)

    def _reply(self, request: RecordedRequest) -> tuple[int, dict[str, Any]]:
        now = int(time.time())
        if request.path.endswith("/images/generations") or request.path.endswith("/images/edits"):
            data = self.image_factory(request)
            if self.image_as_url:
                return 200, {"created": now, "data": [{"url": "http://127.0.0.1:9/never-fetched.png"}]}
            n = int((request.json or {}).get("n") or 1)
            item = {"b64_json": base64.b64encode(data).decode()}
            return 200, {
                "created": now,
                "data": [item] * n,
                "usage": {"input_tokens": 10, "output_tokens": 100, "total_tokens": 110},
            }
        if request.path.endswith("/chat/completions"):
            body = request.json or {}
            if body.get("logprobs") and self.logprobs_for is not None:
                distribution = self.logprobs_for(request)
                top = int(body.get("top_logprobs") or 0)
                text, logprobs = chat_logprobs(distribution, top) if distribution else ("Yes.", None)
                choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
                return 200, {**self._chat_reply(request, now), "choices": [{**choice, "logprobs": logprobs}]}
            return 200, {
                "id": "chatcmpl-local",
                "object": "chat.completion",
                "created": now,
                "model": self.served_model or (request.json or {}).get("model", "local"),
                "choices": [
                    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": self._text_for(request)}}
                ],
                "usage": {"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46},
            }
        if request.path.endswith("/responses"):
            return 200, {
                "id": "resp-local",
                "object": "response",
                "created_at": now,
                "model": (request.json or {}).get("model", "local"),
                "status": "completed",
                "output": [
                    {
                        "type": "message",
                        "id": "msg-local",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": self._text_for(request), "annotations": []}],
                    }
                ],
                "parallel_tool_calls": False,
                "tool_choice": "auto",
                "tools": [],
                "usage": {
                    "input_tokens": 12,
                    "output_tokens": 34,
                    "total_tokens": 46,
                    "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens_details": {"reasoning_tokens": 0},
                },
            }
        return 404, {"error": {"message": f"no route {request.path}", "type": "not_found"}}

    def _chat_reply(self, request: RecordedRequest, now: int) -> dict[str, Any]:
        """A chat completion's fields besides its choices."""
        return {
            "id": "chatcmpl-local",
            "object": "chat.completion",
            "created": now,
            "model": self.served_model or (request.json or {}).get("model", "local"),
            "usage": {"prompt_tokens": 12, "completion_tokens": 2, "total_tokens": 14},
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # The status line, headers and body leave in separate writes; with Nagle's algorithm on, the
            # later ones wait for the client's delayed ACK (about 40 ms per reply). Real servers set this too.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                self._handle("POST")

            def do_GET(self) -> None:
                self._handle("GET")

            def do_DELETE(self) -> None:
                self._handle("DELETE")

            def _handle(self, method: str) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                host, port = self.client_address[:2]
                request = RecordedRequest(self.path, headers, method=method, peer=(str(host), int(port)))
                ctype = self.headers.get("content-type", "")
                if ctype.startswith("multipart/form-data"):
                    request.files = _parse_multipart(ctype, body)
                elif body:
                    request.json = json.loads(body)
                with server._lock:
                    server._received += 1
                    request.number = server._received
                    request.received = time.monotonic()
                    server.requests.append(request)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    status, payload, headers = self._answer(request)
                finally:
                    # Counted out before the reply is sent: a client that saw it can never overlap this request.
                    with server._lock:
                        server.in_flight -= 1
                request.status, request.answered = status, time.monotonic()
                try:
                    self._send(status, payload, headers)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout): nobody to tell
                    self.close_connection = True

            def _answer(self, request: RecordedRequest) -> tuple[int, dict[str, Any], dict[str, str]]:
                delay = server._latency(request)
                if delay > 0:
                    time.sleep(delay)
                fault = server._next_fault(request)
                if fault is not None:
                    status, retry_after = fault
                    message = server.fault_message(request, status) if server.fault_message else f"injected fault {status}"
                    payload: dict[str, Any] = {"error": {"message": message, "type": "server_error"}}
                    return status, payload, {"retry-after": retry_after} if retry_after else {}
                raw = server.raw_reply(request) if server.raw_reply is not None else None
                if raw is not None:
                    return 200, {"raw": raw}, {}
                status, payload = server._route(request)
                return status, payload, {}

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
                content_type, data = payload["raw"] if "raw" in payload else ("application/json", json.dumps(payload).encode())
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _parse_multipart(content_type: str, body: bytes) -> dict[str, list[tuple[str | None, bytes]]]:
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    fields: dict[str, list[tuple[str | None, bytes]]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            payload = b""
        fields.setdefault(str(name), []).append((part.get_filename(), payload))
    return fields


def _parse_batch_input(data: bytes, endpoint: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The lines of a batch input file, and the errors that fail the batch (``line`` is 1-based; blank lines are skipped)."""
    lines: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    seen: set[str] = set()

    def bad(code: str, message: str, number: int | None, param: str | None = None) -> None:
        errors.append({"code": code, "message": message, "param": param, "line": number})

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        bad("invalid_file", "The input file is not UTF-8 text.", None)
        return [], errors
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except json.JSONDecodeError:
            line = None
        if not isinstance(line, dict):
            bad("invalid_json_line", f"Line {number} is not a JSON object.", number)
            continue
        custom_id = line.get("custom_id")
        if not isinstance(custom_id, str) or not custom_id:
            bad("missing_required_parameter", f"Line {number} has no custom_id.", number, "custom_id")
            continue
        if custom_id in seen:
            bad("duplicate_custom_id", f"The custom_id {custom_id!r} of line {number} is used twice.", number, "custom_id")
            continue
        seen.add(custom_id)
        if line.get("method") != "POST":
            bad("invalid_method", f"Line {number}: method must be 'POST'.", number, "method")
            continue
        if line.get("url") != endpoint:
            message = f"Line {number}: url {line.get('url')!r} does not match the batch endpoint {endpoint!r}."
            bad("mismatched_endpoint", message, number, "url")
            continue
        if not isinstance(line.get("body"), dict):
            bad("invalid_body", f"Line {number}: body must be a JSON object.", number, "body")
            continue
        lines.append(line)
    if not lines and not errors:
        bad("empty_file", "The input file has no requests.", None)
    return lines, errors
