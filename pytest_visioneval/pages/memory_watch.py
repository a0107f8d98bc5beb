"""A memory limit per rendered page: a watchdog over this process's Chromium renderers.

The JavaScript heap is capped by a Chromium flag, but a page can also take
memory outside it (canvas backing stores, decoded images, WebAssembly). While
at least one page renders, :class:`MemoryWatch` reads the resident memory of
every renderer process below this Python process (playwright's driver starts
the browser as our descendant) from ``/proc`` and kills a renderer that
passes the limit. Playwright then reports that page as crashed, which the
renderer turns into a render error of that case; the browser and the other
pages go on.

Several pages may be open at once, each in its own browser context and so
its own renderer process, so there is also a limit on all of them together
(``total_limit_mb``): past it, the largest renderer is stopped. A kill is
recorded with its time and reason; a page that crashed while a renderer was
killed learns why from :attr:`WatchedPage.stopped`. The same sweep lowers the
priority of a renderer that keeps the CPU busy (:mod:`cpu_share`). Linux only
(``/proc``); elsewhere it watches nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from .cpu_share import BusyRenderers
from .process_tree import PROC, command_line, descendants, read_proc

_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_MB = 1024 * 1024


@dataclass(frozen=True)
class Kill:
    """A renderer stopped: its resident size, and the total of all renderers when that limit was the reason."""

    at: float  # monotonic time
    resident_mb: int
    total_mb: int | None = None  # set when the renderers together passed the total limit


@dataclass(frozen=True)
class WatchedPage:
    """One page's view of the watch: what was stopped since the page started."""

    watch: MemoryWatch
    started: float

    @property
    def stopped(self) -> Kill | None:
        """The largest renderer stopped since this page started, if any."""
        return self.watch.stopped_since(self.started)


class MemoryWatch:
    """Kills any renderer of ours over the limit, while at least one page is being watched.

    The sweeping thread runs only while pages are watched, and exits when the last one is done.
    """

    def __init__(self, interval_s: float = 0.1, total_limit_mb: int | None = None):
        self.interval_s = interval_s
        self.total_limit_mb = total_limit_mb  # all renderers together; None: no such limit
        self._lock = threading.Lock()
        self._limits: list[int | None] = []  # the limit (MB) of each page watched now
        self._kills: list[Kill] = []
        self._thread: threading.Thread | None = None
        self.busy = BusyRenderers()  # the same sweep lowers the priority of renderers that keep the CPU busy

    @contextlib.contextmanager
    def page(self, limit_mb: int | None) -> Iterator[WatchedPage]:
        """Watch the renderers while the block runs, with ``limit_mb`` per page (None: no limit per page)."""
        watched = WatchedPage(self, time.monotonic())
        if (limit_mb is None and self.total_limit_mb is None) or not PROC.is_dir():
            yield watched
            return
        with self._lock:
            self._limits.append(limit_mb)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="visioneval-memory-watch", daemon=True)
                self._thread.start()
        try:
            yield watched
        finally:
            with self._lock:
                self._limits.remove(limit_mb)

    def stopped_since(self, since: float) -> Kill | None:
        with self._lock:
            return max((kill for kill in self._kills if kill.at >= since), key=lambda k: k.resident_mb, default=None)

    def _run(self) -> None:
        root = os.getpid()
        while True:
            time.sleep(self.interval_s)
            with self._lock:
                if not self._limits:
                    self._thread = None  # a page watched later starts a new sweeper
                    return
                limits = [limit for limit in self._limits if limit is not None]
            # All pages of one renderer share a limit in practice; the smallest is kept.
            renderers = renderers_below(root)
            self._sweep(renderers, min(limits) * _MB if limits else None)
            self.busy.sweep([pid for pid, _ in renderers])

    def _sweep(self, renderers: list[tuple[int, int]], page_limit: int | None) -> None:
        left = []
        for pid, resident in renderers:
            if page_limit is not None and resident > page_limit:
                self._kill(pid, Kill(time.monotonic(), resident // _MB))
            else:
                left.append((pid, resident))
        if self.total_limit_mb is None:
            return
        total = sum(resident for _, resident in left)
        # Largest first, until the rest fit: the page most likely to be the cause is stopped.
        for pid, resident in sorted(left, key=lambda item: item[1], reverse=True):
            if total <= self.total_limit_mb * _MB:
                break
            self._kill(pid, Kill(time.monotonic(), resident // _MB, total // _MB))
            total -= resident

    def _kill(self, pid: int, kill: Kill) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
        with self._lock:
            self._kills.append(kill)


def renderers_below(root: int) -> list[tuple[int, int]]:
    """``(pid, resident bytes)`` of each Chromium renderer process descended from ``root``."""
    found: list[tuple[int, int]] = []
    for pid in descendants(root):
        if b"--type=renderer" not in (command_line(pid) or b""):
            continue
        try:
            resident_pages = int((read_proc(pid, "statm", 256) or b"").split()[1])
        except (ValueError, IndexError):
            continue  # gone meanwhile
        found.append((pid, resident_pages * _PAGE_SIZE))
    return found
