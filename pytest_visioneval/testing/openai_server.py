"""A small OpenAI-compatible HTTP server on loopback, for tests and benchmarks.

It speaks the endpoints the model adapters use (images generations and
edits, chat completions, responses), records every request it receives, and
can inject faults (status codes with ``retry-after``, latency), so adapters
are tested through the real ``openai`` SDK and its real HTTP stack.
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import io
import json
import threading
import time
from collections import deque
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
    * ``latency`` seconds are slept before every reply.
    * ``image_as_url`` answers image calls with a URL instead of base64.
    """

    def __init__(
        self,
        *,
        latency: float = 0.0,
        text_reply: str | Callable[[RecordedRequest], str] = "<html><body><h1>Hello</h1></body></html>",
    ):
        self.latency = latency
        self.text_reply = text_reply
        self._scripted: deque[str] = deque()
        self.image_factory: Callable[[RecordedRequest], bytes] = self._image_for
        self.image_as_url = False
        self.requests: list[RecordedRequest] = []
        self._faults: deque[tuple[int, str | None]] = deque()
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

    def reset(self) -> None:
        """Forget recorded requests, scripted replies and pending faults."""
        with self._lock:
            self.requests.clear()
            self._scripted.clear()
            self._faults.clear()

    def queue_replies(self, *replies: str) -> None:
        """The next text replies, in order; after them, ``text_reply`` again."""
        with self._lock:
            self._scripted.extend(replies)

    def _text_for(self, request: RecordedRequest) -> str:
        with self._lock:
            if self._scripted:
                return self._scripted.popleft()
        return self.text_reply(request) if callable(self.text_reply) else self.text_reply

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

    def _next_fault(self) -> tuple[int, str | None] | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

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
                "model": (request.json or {}).get("model", "local"),
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
                    server.requests.append(request)
                if server.latency:
                    time.sleep(server.latency)
                fault = server._next_fault()
                if fault is not None:
                    status, retry_after = fault
                    payload: dict[str, Any] = {"error": {"message": f"injected fault {status}", "type": "server_error"}}
                    self._send(status, payload, {"retry-after": retry_after} if retry_after else {})
                    return
                status, payload = server._reply(request)
                self._send(status, payload, {})

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
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
