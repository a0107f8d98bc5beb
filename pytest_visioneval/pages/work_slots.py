"""How many pages may work at once in one browser, pages back from a pause first.

A page is "working" while it loads, captures and is measured; between its
timed screenshots (``interval_ms`` apart) it only waits, and gives its slot
back so another page can work meanwhile. When the pause is over it asks again,
ahead of pages that have not started: its next screenshot should come as close
to the interval as the machine allows, not after a queue of new pages.

Used on the renderer's one event-loop thread only, so it needs no lock.
"""

from __future__ import annotations

import asyncio
from collections import deque


class WorkSlots:
    """At most ``limit`` holders at once; waiters that come back from a pause are served before new ones."""

    def __init__(self, limit: int):
        if limit < 1:
            raise ValueError(f"the limit must be at least 1, not {limit}")
        self._free = limit
        self._returning: deque[asyncio.Future[None]] = deque()
        self._new: deque[asyncio.Future[None]] = deque()

    async def take(self, returning: bool = False) -> None:
        """Wait for a slot. ``returning``: the caller held one before its pause, and goes first."""
        if self._free and not self._returning and (returning or not self._new):
            self._free -= 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._returning if returning else self._new
        queue.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.give()  # handed a slot just as it was cancelled: pass it on
            elif waiter in queue:  # give() drops cancelled waiters as it meets them
                queue.remove(waiter)
            raise

    def give(self) -> None:
        """Give a slot back: to the first returning waiter, else the first new one, else to the pool."""
        for queue in (self._returning, self._new):
            while queue:
                waiter = queue.popleft()
                if not waiter.done():
                    waiter.set_result(None)
                    return
        self._free += 1
