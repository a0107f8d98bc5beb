"""One time limit over several steps of a render."""

from __future__ import annotations

import asyncio
import time

import pytest
from playwright.async_api import TimeoutError as PlaywrightTimeout

from pytest_visioneval.pages.deadline import Deadline


def test_each_step_gets_what_is_left_and_none_once_it_is_spent() -> None:
    deadline = Deadline(200)
    assert 0 < deadline.left_ms() <= 200
    time.sleep(0.25)
    assert deadline.remaining_ms() == 0
    with pytest.raises(PlaywrightTimeout, match="over the budget of 200 ms"):
        deadline.left_ms()


def test_a_step_that_never_answers_times_out_with_what_it_asked() -> None:
    async def silent() -> None:
        await asyncio.Event().wait()

    async def run() -> None:
        deadline = Deadline(100)
        assert await deadline.within(asyncio.sleep(0, result="ok")) == "ok"
        await deadline.within(silent(), "Page.captureScreenshot")

    started = time.monotonic()
    with pytest.raises(PlaywrightTimeout, match="did not answer Page.captureScreenshot within 100 ms"):
        asyncio.run(run())
    assert time.monotonic() - started < 2
