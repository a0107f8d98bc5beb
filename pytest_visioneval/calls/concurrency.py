"""A limit on simultaneous API calls that holds across threads and xdist workers.

Each process first takes a thread semaphore of the same size (so at most N of
its threads ever compete), then a run-wide slot:

* under xdist, from the controller's :class:`~.slot_server.SlotServer` (first
  asked, first served; a waiting thread sleeps until its grant arrives);
* otherwise, where a folder is given, one of N slot files every process
  sharing the folder locks with ``flock`` (polled; the kernel drops a dead
  process's locks, so a killed process never leaks a slot);
* with neither, the semaphore alone is the limit (one process: a run without
  xdist, whose run lock keeps other processes out of its run folder).

A slot taken is known in this process by an index below N, which no other
call in flight in this process holds meanwhile: the HTTP transport keeps one
connection per index (:mod:`slot_transport`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from .interrupt import count_request, refuse_if_stopped
from .slot_server import SlotClient

_POLL_START = 0.002
_POLL_MAX = 0.005


class RunConcurrency:
    def __init__(self, limit: int, folder: Path | None, server: str | None = None):
        """``server``: the address of the run's slot server (preferred over ``folder`` when given)."""
        if limit < 1:
            raise ValueError("the concurrency limit must be at least 1")
        self.limit = limit
        self.folder = folder
        self._threads = threading.BoundedSemaphore(limit)
        self._local_lock = threading.Lock()
        self._fds: list[int] = []
        self._free: list[int] = list(range(limit))  # slot files no thread of this process holds
        # This process's slot indexes not in use; the last one freed is reused first, so few
        # indexes (and so few connections) are used when few calls overlap.
        self._unused: list[int] = list(range(limit - 1, -1, -1))
        self._client: SlotClient | None = None
        if server is not None:
            self.share_through(server)

    def _open_slot_files(self) -> list[int]:
        """The slot files, opened on the first slot taken (hold ``_local_lock``): a run that never takes
        one from the files - a cached run, or slots from a server - never makes them."""
        if not self._fds and self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._fds = [os.open(self.folder / f"slot-{i}.lock", os.O_RDWR | os.O_CREAT, 0o666) for i in range(self.limit)]
        return self._fds

    def share_through(self, server: str) -> None:
        """Take slots from the slot server at ``server`` from now on (before any slot is taken)."""
        self.close()
        self.folder = None
        self._client = SlotClient(server)

    @contextlib.contextmanager
    def slot(self) -> Iterator[int]:
        """Hold a run-wide slot for the block; yields its index in this process (0 to N-1).

        After a Ctrl-C (:mod:`interrupt`) no slot is given: :class:`CallsStopped` is raised
        instead, also to a request that was waiting for one when the signal came.
        """
        refuse_if_stopped()
        with self._threads:
            with self._local_lock:
                index = self._unused.pop()
            try:
                with self._run_wide():
                    refuse_if_stopped()
                    count_request()
                    yield index
            finally:
                with self._local_lock:
                    self._unused.append(index)

    @contextlib.contextmanager
    def _run_wide(self) -> Iterator[None]:
        """The run-wide part of a slot: the server's, a slot file, or nothing (this process is the run)."""
        client = self._client
        if client is not None:
            client.acquire()
            try:
                yield
            finally:
                client.release()
            return
        if self.folder is None:
            yield
            return
        file_index = self._take_file_slot()
        try:
            yield
        finally:
            fcntl.flock(self._fds[file_index], fcntl.LOCK_UN)
            with self._local_lock:
                self._free.append(file_index)

    def _take_file_slot(self) -> int:
        delay = _POLL_START
        while True:
            with self._local_lock:
                fds = self._open_slot_files()
                # Start from a per-process offset so workers do not all contend for slot 0.
                candidates = sorted(self._free, key=lambda i: (i - os.getpid()) % self.limit)
                for index in candidates:
                    try:
                        fcntl.flock(fds[index], fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        continue
                    self._free.remove(index)
                    return index
            time.sleep(delay)
            delay = min(delay * 2, _POLL_MAX)

    def close(self) -> None:
        with self._local_lock:
            for fd in self._fds:
                os.close(fd)
            self._fds = []
        if self._client is not None:
            self._client.close()
            self._client = None
