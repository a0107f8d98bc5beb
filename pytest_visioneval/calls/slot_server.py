"""A run-wide concurrency limit served by the xdist controller over a Unix socket.

The controller runs a :class:`SlotServer`; every process of the run (each
worker, and the controller itself) talks to it through one
:class:`SlotClient`. The protocol is one byte per message: the client sends
``A`` to ask for a slot and ``R`` to give one back; the server answers each
``A`` with ``G`` when a slot is free. Requests are granted in the order they
reach the server, whichever process sent them, so no worker starves and no
thread polls: a waiting thread sleeps until its grant arrives.

A process that dies closes its connection; the server then takes back every
slot it held and drops its queued requests, so a killed worker never leaks a
slot.
"""

from __future__ import annotations

import collections
import contextlib
import os
import selectors
import shutil
import socket
import tempfile
import threading

ASK, RETURN, GRANT = b"A", b"R", b"G"


class SlotServerGone(RuntimeError):
    """The controller's slot server closed the connection: no slot can be had any more."""


class SlotServer:
    """Hands out ``limit`` slots, first asked first served, to any number of connected processes."""

    def __init__(self, limit: int):
        if limit < 1:
            raise ValueError("the concurrency limit must be at least 1")
        self.limit = limit
        # A fresh short folder: a Unix socket's path must stay under about 100 bytes, run folders may not.
        self._folder = tempfile.mkdtemp(prefix="visioneval-slots-")
        self.address = os.path.join(self._folder, "slots.sock")
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(self.address)
        self._listener.listen(256)
        self._stop_reader, self._stop_writer = socket.socketpair()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ)
        self._selector.register(self._stop_reader, selectors.EVENT_READ)
        self._free = limit
        self._queue: collections.deque[socket.socket] = collections.deque()  # one entry per pending ask
        self._held: dict[socket.socket, int] = {}
        self._thread = threading.Thread(target=self._serve, name="visioneval-slot-server", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        try:
            while True:
                for key, _ in self._selector.select():
                    if key.fileobj is self._stop_reader:
                        return
                    if key.fileobj is self._listener:
                        self._accept()
                    else:
                        self._read(key.fileobj)  # type: ignore[arg-type]
                self._grant()
        finally:
            for conn in list(self._held):
                self._drop(conn)
            self._selector.close()

    def _accept(self) -> None:
        conn, _ = self._listener.accept()
        self._held[conn] = 0
        self._selector.register(conn, selectors.EVENT_READ)

    def _read(self, conn: socket.socket) -> None:
        try:
            data = conn.recv(4096)
        except OSError:
            data = b""
        if not data:  # the process closed the connection or died
            self._drop(conn)
            return
        for byte in data:
            if byte == ASK[0]:
                self._queue.append(conn)
            elif byte == RETURN[0] and self._held[conn] > 0:
                self._held[conn] -= 1
                self._free += 1
            else:  # not our protocol: whatever it held goes back
                self._drop(conn)
                return

    def _grant(self) -> None:
        while self._free and self._queue:
            conn = self._queue.popleft()
            self._free -= 1
            self._held[conn] += 1
            try:
                conn.sendall(GRANT)
            except OSError:
                self._drop(conn)

    def _drop(self, conn: socket.socket) -> None:
        if conn not in self._held:
            return
        self._free += self._held.pop(conn)
        self._queue = collections.deque(c for c in self._queue if c is not conn)
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(conn)
        conn.close()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._stop_writer.send(b"x")
        self._thread.join(5)
        for sock in (self._listener, self._stop_reader, self._stop_writer):
            sock.close()
        shutil.rmtree(self._folder, ignore_errors=True)


class _Waiter:
    __slots__ = ("event", "granted")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.granted = False


class SlotClient:
    """One process's connection to the :class:`SlotServer`; its threads share it."""

    def __init__(self, address: str):
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.connect(address)
        self._lock = threading.Lock()  # keeps "append to the queue" and "send the ask" in one order
        self._waiting: collections.deque[_Waiter] = collections.deque()
        self._gone: str | None = None
        self._reader = threading.Thread(target=self._read_grants, name="visioneval-slot-client", daemon=True)
        self._reader.start()

    def acquire(self) -> None:
        waiter = _Waiter()
        with self._lock:
            if self._gone is not None:
                raise SlotServerGone(self._gone)
            self._waiting.append(waiter)
            self._sock.sendall(ASK)
        waiter.event.wait()
        if not waiter.granted:
            raise SlotServerGone(self._gone or "the run's slot server closed the connection")

    def release(self) -> None:
        with self._lock:
            if self._gone is None:
                with contextlib.suppress(OSError):
                    self._sock.sendall(RETURN)

    def _read_grants(self) -> None:
        # Grants come back in the order this process asked, so the oldest waiter gets each one.
        reason = "the run's slot server (the xdist controller) closed the connection"
        try:
            while True:
                data = self._sock.recv(4096)
                if not data:
                    break
                with self._lock:
                    for _ in range(data.count(GRANT)):
                        waiter = self._waiting.popleft()
                        waiter.granted = True
                        waiter.event.set()
        except OSError as exc:
            reason = f"lost the run's slot server: {exc}"
        with self._lock:
            self._gone = reason
            while self._waiting:
                self._waiting.popleft().event.set()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._reader.join(5)
