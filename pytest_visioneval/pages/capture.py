"""Screenshots of a rendered page, taken through the page's CDP session.

A capture is the largest step of a page's render. Playwright's own
``page.screenshot`` makes several round trips through its driver for each
one (preparing every frame, waiting for fonts, restoring the frames) and has
Chromium encode the PNG at its default, slow compression. Here a capture is
one wait for the page's fonts and one ``Page.captureScreenshot`` with
``optimizeForSpeed`` (faster PNG encoding; the pixels are the same), sent
straight to the browser on the CDP session the renderer already holds.
``benchmarks/render.py`` measures the difference.

The pixels are Playwright's (``tests/unit/pages/test_capture.py`` compares
them); the PNG files are about twice as large. What Playwright does and
these captures do not: hide the text caret of a focused input.

A capture Chromium refuses ("Unable to capture screenshot") is asked again
twice, after 0.2 and 0.5 s, then taken with Playwright's screenshot, so a
refusal costs time, never the capture.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from .deadline import Deadline

# Chromium refuses a capture now and then while it is busy (seen under load, with several pages at once): the
# capture is asked again after these pauses, then taken with Playwright's screenshot.
_REFUSED_PAUSES_S = (0.2, 0.5)
# Web fonts still loading would be captured as their fallback. Awaited in the page's own world: a page that
# breaks document.fonts only delays its own capture until its time budget ends.
_FONTS_READY = "document.fonts ? document.fonts.ready.then(() => true) : true"


async def _capture(page: Any, cdp: Any, params: dict[str, Any], full_page: bool, deadline: Deadline) -> bytes:
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    try:
        fonts = {"expression": _FONTS_READY, "awaitPromise": True}
        await deadline.within(cdp.send("Runtime.evaluate", fonts), "Runtime.evaluate")
    except PlaywrightTimeout:
        raise
    except PlaywrightError:
        pass  # the document went away meanwhile (a reload): capture what shows
    command = {"format": "png", "optimizeForSpeed": True, **params}
    for pause_s in (*_REFUSED_PAUSES_S, None):
        try:
            reply = await deadline.within(cdp.send("Page.captureScreenshot", command), "Page.captureScreenshot")
            return base64.b64decode(reply["data"])
        except PlaywrightError as exc:
            if "Unable to capture screenshot" not in exc.message:
                raise
        if pause_s is not None and deadline.remaining_ms() > 1000 * pause_s + 1000:
            await asyncio.sleep(pause_s)  # refused while the browser is busy (many pages at once): soon taken
    return bytes(await page.screenshot(full_page=full_page, timeout=max(1.0, deadline.remaining_ms())))


async def viewport_capture(page: Any, cdp: Any, timeout_ms: float) -> bytes:
    """What the viewport shows now, as PNG, within ``timeout_ms``."""
    return await _capture(page, cdp, {}, False, Deadline(timeout_ms))


async def full_page_capture(page: Any, cdp: Any, last_viewport: bytes | None, timeout_ms: float) -> bytes:
    """The whole page as PNG, within ``timeout_ms``; when it fits the viewport, ``last_viewport`` again (the same picture).

    The content size comes from the browser's layout (``Page.getLayoutMetrics``), which the page's
    scripts cannot fake (a page that redefines ``scrollHeight`` is still captured whole).
    """
    deadline = Deadline(timeout_ms)
    metrics = await deadline.within(cdp.send("Page.getLayoutMetrics"), "Page.getLayoutMetrics")
    content, viewport = metrics["cssContentSize"], metrics["cssLayoutViewport"]
    fits = content["width"] <= viewport["clientWidth"] and content["height"] <= viewport["clientHeight"]
    if fits and last_viewport is not None:
        return last_viewport
    clip = {"x": 0, "y": 0, "width": content["width"], "height": content["height"], "scale": 1}
    return await _capture(page, cdp, {"clip": clip, "captureBeyondViewport": True}, True, deadline)
