"""One time limit over several steps of a page's render, spent as the steps go.

A page's steps run against the browser, and a page whose main thread is busy
answers none of them: each step gets what is left of the limit, and running
out is a Playwright ``TimeoutError``, which the renderer turns into a stopped
page and a worded error of the case.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class Deadline:
    def __init__(self, limit_ms: float):
        self.limit_ms = limit_ms
        self.at = time.monotonic() + limit_ms / 1000

    def remaining_ms(self) -> float:
        """What is left, at least 0."""
        return max(0.0, (self.at - time.monotonic()) * 1000)

    def left_ms(self) -> float:
        """What is left for the next step; Playwright's ``TimeoutError`` when nothing is."""
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        remaining = self.remaining_ms()
        if remaining <= 0:
            raise PlaywrightTimeout(f"over the budget of {self.limit_ms:g} ms")
        return remaining

    async def within(self, step: Awaitable[T], what: str = "") -> T:
        """Await ``step`` in what is left (a CDP command has no timeout of its own)."""
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        try:
            return await asyncio.wait_for(step, self.remaining_ms() / 1000)
        except TimeoutError:
            asked = f" {what}" if what else ""
            raise PlaywrightTimeout(f"the page did not answer{asked} within {self.limit_ms:.0f} ms") from None
