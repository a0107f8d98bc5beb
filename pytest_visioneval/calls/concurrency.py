"""A limit on simultaneous API calls that holds across threads and xdist workers.

Each process first takes a thread semaphore of the same size (so at most N of
its threads ever compete), then one of N slot files in a folder every worker
of the run shares, locked with ``flock``. The kernel drops a dead process's
locks, so a killed worker never leaks a slot.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

_POLL_START = 0.002
_POLL_MAX = 0.005


class RunConcurrency:
    def __init__(self, limit: int, folder: Path | None):
        if limit < 1:
            raise ValueError("the concurrency limit must be at least 1")
        self.limit = limit
        self.folder = folder
        self._threads = threading.BoundedSemaphore(limit)
        self._local_lock = threading.Lock()
        self._fds: list[int] = []
        self._free: list[int] = list(range(limit))  # slot indexes no thread of this process holds
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            self._fds = [os.open(folder / f"slot-{i}.lock", os.O_RDWR | os.O_CREAT, 0o666) for i in range(limit)]

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        with self._threads:
            if not self._fds:
                yield
                return
            index = self._take_file_slot()
            try:
                yield
            finally:
                fcntl.flock(self._fds[index], fcntl.LOCK_UN)
                with self._local_lock:
                    self._free.append(index)

    def _take_file_slot(self) -> int:
        delay = _POLL_START
        while True:
            with self._local_lock:
                # Start from a per-process offset so workers do not all contend for slot 0.
                candidates = sorted(self._free, key=lambda i: (i - os.getpid()) % self.limit)
                for index in candidates:
                    try:
                        fcntl.flock(self._fds[index], fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        continue
                    self._free.remove(index)
                    return index
            time.sleep(delay)
            delay = min(delay * 2, _POLL_MAX)

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []
