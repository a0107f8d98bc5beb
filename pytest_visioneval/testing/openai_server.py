"""A small OpenAI-compatible HTTP server on loopback, for tests and benchmarks.

It speaks the endpoints the model adapters use (images generations and
edits, chat completions, responses), records every request it receives, and
can inject faults (status codes with ``retry-after``, latency, replies cut
short), so adapters are tested through the real ``openai`` SDK and its real
HTTP stack.
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import io
import json
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from PIL import Image, ImageDraw


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
      requests fail with ``status``.
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
    * ``in_flight`` / ``max_in_flight``: requests being answered now, and the most at once.

    Faults are checked after the latency, ``fail_next`` first, then
    ``fail_every``, then ``fail_when``. Every request is recorded in
    ``requests`` (a :class:`RecordedRequest` with its arrival ``number``, its
    ``received`` and ``answered`` times and the reply's ``status``);
    ``counts()`` gives the requests per path. ``reset()`` forgets requests,
    counters and every fault and truncation (not ``latency``, ``text_reply``
    or ``image_factory``).
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
        # The model id replies name (a provider answering with a dated snapshot); None: the one asked for.
        self.served_model: str | None = None
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
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
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
        """Forget recorded requests, counters, scripted replies, pending faults, truncation and raw replies."""
        with self._lock:
            self.raw_reply = None
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

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                request = RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()})
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
                    payload: dict[str, Any] = {"error": {"message": f"injected fault {status}", "type": "server_error"}}
                    return status, payload, {"retry-after": retry_after} if retry_after else {}
                raw = server.raw_reply(request) if server.raw_reply is not None else None
                if raw is not None:
                    return 200, {"raw": raw}, {}
                status, payload = server._reply(request)
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
