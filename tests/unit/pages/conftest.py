"""Fixtures shared by the page tests (the ``renderer`` fixture is in tests/unit/conftest.py)."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def listener() -> Iterator[tuple[int, list[str]]]:
    """A local HTTP server that records every request it gets (GET or POST): a page must reach none."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()

        do_POST = do_GET

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    yield server.server_address[1], hits
    server.shutdown()
    server.server_close()


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie is dead, only not yet reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def gone(pids: list[int], within_s: float = 5) -> bool:
    """Every one of ``pids`` dead within ``within_s`` seconds."""
    deadline = time.monotonic() + within_s
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
