"""Captures through the CDP session, against Playwright's own screenshots of the same page (real Chromium)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import numpy as np
import pytest
from PIL import Image
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout
from playwright.async_api import async_playwright

from pytest_visioneval.pages.capture import full_page_capture, viewport_capture
from pytest_visioneval.pages.render import find_chromium

T = TypeVar("T")
PAGE = """<body style="margin:0;font-family:sans-serif"><h1>Checkout</h1><button>Place Order</button>
<div style="height:HEIGHTpx;background:linear-gradient(#c33,#33c)"></div><canvas id=c width=90 height=40></canvas>
<script>c.getContext('2d').fillRect(5, 5, 60, 20);</script></body>"""


def with_page(html: str, work: Callable[[Any, Any], Awaitable[T]]) -> T:
    """Run ``work(page, cdp)`` on a 320x240 page of ``html`` in a browser of its own."""

    async def run() -> T:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=find_chromium(), args=["--disable-gpu"])
            try:
                context = await browser.new_context(viewport={"width": 320, "height": 240})
                page = await context.new_page()
                cdp = await context.new_cdp_session(page)
                await page.set_content(html)
                return await work(page, cdp)
            finally:
                await browser.close()

    return asyncio.run(run())


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@pytest.mark.parametrize("height", [50, 900], ids=["fits", "tall"])
def test_captures_have_playwrights_pixels(height: int) -> None:
    async def both(page: Any, cdp: Any) -> tuple[bytes, ...]:
        ours = await viewport_capture(page, cdp, 5000)
        whole = await full_page_capture(page, cdp, ours, 5000)
        return ours, whole, await page.screenshot(), await page.screenshot(full_page=True)

    ours, whole, theirs, theirs_whole = with_page(PAGE.replace("HEIGHT", str(height)), both)
    assert np.array_equal(pixels(ours), pixels(theirs))
    assert np.array_equal(pixels(whole), pixels(theirs_whole))
    assert (whole is ours) is (height == 50)  # a page that fits is not captured twice
    assert Image.open(io.BytesIO(whole)).size == ((320, 240) if height == 50 else (320, pixels(theirs_whole).shape[0]))


class Refusing:
    """The page's CDP session, except that Chromium refuses every capture."""

    def __init__(self, cdp: Any, message: str):
        self.cdp, self.message = cdp, message

    async def send(self, method: str, params: Any = None) -> Any:
        if method == "Page.captureScreenshot":
            raise PlaywrightError(self.message)
        return await self.cdp.send(method, params)


def test_a_refused_capture_is_taken_with_playwrights_screenshot() -> None:
    async def refused(page: Any, cdp: Any) -> tuple[bytes, bytes]:
        refusing = Refusing(cdp, "Protocol error (Page.captureScreenshot): Unable to capture screenshot")
        return await viewport_capture(page, refusing, 5000), await page.screenshot()

    ours, theirs = with_page(PAGE.replace("HEIGHT", "50"), refused)
    assert np.array_equal(pixels(ours), pixels(theirs))


class RefusingAtFirst(Refusing):
    """Chromium refuses the first ``times`` captures, then takes them (busy, then not)."""

    def __init__(self, cdp: Any, times: int):
        super().__init__(cdp, "Protocol error (Page.captureScreenshot): Unable to capture screenshot")
        self.left = times
        self.asked = 0

    async def send(self, method: str, params: Any = None) -> Any:
        if method == "Page.captureScreenshot":
            self.asked += 1
            if self.left:
                self.left -= 1
                raise PlaywrightError(self.message)
        return await self.cdp.send(method, params)


def test_a_capture_refused_while_the_browser_is_busy_is_asked_again() -> None:
    async def busy(page: Any, cdp: Any) -> tuple[bytes, bytes, int]:
        refusing = RefusingAtFirst(cdp, 2)
        return await viewport_capture(page, refusing, 5000), await page.screenshot(), refusing.asked

    ours, theirs, asked = with_page(PAGE.replace("HEIGHT", "50"), busy)
    assert asked == 3  # refused twice, then taken on the session (Playwright's screenshot was not needed)
    assert np.array_equal(pixels(ours), pixels(theirs))


def test_other_capture_errors_are_passed_on() -> None:
    async def closed(page: Any, cdp: Any) -> bytes:
        return await viewport_capture(page, Refusing(cdp, "Target page, context or browser has been closed"), 5000)

    with pytest.raises(PlaywrightError, match="has been closed"):
        with_page(PAGE.replace("HEIGHT", "50"), closed)


def test_a_page_whose_fonts_never_get_ready_fails_its_capture_in_time() -> None:
    stuck = "<p>x</p><script>Object.defineProperty(document, 'fonts', {get: () => ({ready: new Promise(() => {})})});</script>"

    async def capture(page: Any, cdp: Any) -> bytes:
        return await viewport_capture(page, cdp, 300)

    with pytest.raises(PlaywrightTimeout, match="did not answer Runtime.evaluate within 300 ms"):
        with_page(stuck, capture)


class Slow:
    """The page's CDP session, every command answered 200 ms late."""

    def __init__(self, cdp: Any):
        self.cdp = cdp

    async def send(self, method: str, params: Any = None) -> Any:
        await asyncio.sleep(0.2)
        return await self.cdp.send(method, params)


def test_one_time_limit_covers_all_the_commands_of_a_capture() -> None:
    async def capture(page: Any, cdp: Any) -> bytes:
        return await viewport_capture(page, Slow(cdp), 300)  # the fonts wait fits in 300 ms, the capture no longer

    with pytest.raises(PlaywrightTimeout, match="did not answer Page.captureScreenshot within 300 ms"):
        with_page(PAGE.replace("HEIGHT", "50"), capture)


class GoneDocument:
    """The page's CDP session, except that the fonts wait finds its document gone (a reload meanwhile)."""

    def __init__(self, cdp: Any):
        self.cdp = cdp

    async def send(self, method: str, params: Any = None) -> Any:
        if method == "Runtime.evaluate":
            raise PlaywrightError("Protocol error (Runtime.evaluate): Execution context was destroyed.")
        return await self.cdp.send(method, params)


def test_a_fonts_wait_whose_document_went_away_still_captures() -> None:
    async def capture(page: Any, cdp: Any) -> tuple[bytes, bytes]:
        return await viewport_capture(page, GoneDocument(cdp), 5000), await page.screenshot()

    ours, theirs = with_page(PAGE.replace("HEIGHT", "50"), capture)
    assert np.array_equal(pixels(ours), pixels(theirs))
