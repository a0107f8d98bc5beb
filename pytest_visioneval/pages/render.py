"""Render model-written HTML in Chromium, sandboxed, and capture it.

One browser per worker process, launched on first use and reused; a fresh
browser context (cookies, storage, cache) per page. Driven by the
``playwright`` package against Debian's ``chromium`` (``executable_path``);
``playwright install`` is never needed.

The page is untrusted, so:

* it is served from an origin that does not exist (``PAGE_ORIGIN``) by a
  route handler that only answers with files from the page's own folder;
  every other request is aborted and counted. As a second wall, the browser
  resolves no host names and sends everything else to a dead proxy, so even
  requests the route cannot see (WebSockets) go nowhere;
* downloads are refused, popups are closed, dialogs dismissed;
* a page whose scripts never finish is stopped (``Runtime.terminateExecution``
  through a CDP session attached before navigation) and reported as a
  :class:`RenderError`: an error of the case, never a blank screenshot.
"""

from __future__ import annotations

import mimetypes
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

from ..cases.paths import PathEscapeError, resolve_inside
from ..errors import VisionEvalError

PAGE_ORIGIN = "http://page.visioneval.invalid"
CHROMIUM_ENV = "VISIONEVAL_CHROMIUM"
_CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")
_ARGS = [
    "--no-sandbox",  # CI runs as root; the page is contained by the network and file rules instead
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
]
_DEAD_PROXY = {"server": "http://127.0.0.1:9"}  # the discard port: nothing answers


class RenderError(VisionEvalError):
    """The page could not be rendered (no browser, a script that never ends, a crash)."""


@dataclass(frozen=True)
class RenderOptions:
    width: int = 1280
    height: int = 800
    full_page: bool = True
    screenshots: int = 1  # viewport screenshots, interval_ms apart (ArtifactsBench takes 3)
    interval_ms: int = 1000
    timeout_ms: int = 10_000  # for loading, and for each capture step

    @classmethod
    def from_mapping(cls, data: dict[str, Any] | None) -> RenderOptions:
        return cls(**(data or {}))


@dataclass
class RenderResult:
    screenshots: list[bytes] = field(default_factory=list)
    full_page: bytes | None = None
    dom: str = ""
    console: list[dict[str, str]] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # files the page asked for that its folder lacks
    popups: int = 0
    downloads: int = 0
    dialogs: int = 0
    seconds: float = 0.0

    @property
    def console_errors(self) -> list[str]:
        return [c["text"] for c in self.console if c["type"] == "error"]

    def report(self) -> dict[str, Any]:
        return {
            "console": self.console,
            "page_errors": self.page_errors,
            "blocked_requests": self.blocked,
            "missing_files": self.missing,
            "popups_closed": self.popups,
            "downloads_refused": self.downloads,
            "dialogs_dismissed": self.dialogs,
            "seconds": round(self.seconds, 3),
        }


def find_chromium(explicit: str | None = None) -> str:
    """The browser to drive: the one named (option, then environment), else the first on PATH."""
    named = explicit or os.environ.get(CHROMIUM_ENV)
    for candidate in (named,) if named else _CHROMIUM_NAMES:
        if candidate and (path := shutil.which(candidate) or (candidate if Path(candidate).is_file() else None)):
            return path
    if named:
        raise RenderError(f"the Chromium named for rendering was not found: {named!r}")
    raise RenderError(
        "no Chromium found to render HTML: install Debian's 'chromium' package (scripts/setup.sh does), "
        f"or point {CHROMIUM_ENV} at a Chromium binary"
    )


class Renderer:
    """One Chromium per instance, started on first use; use one per worker process."""

    def __init__(self, executable: str | None = None):
        self.executable = executable
        self._playwright: Any = None
        self._browser: Any = None

    def _ensure_browser(self) -> Any:
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright

        executable = find_chromium(self.executable)
        if self._playwright is None:
            self._playwright = sync_playwright().start()
        try:
            self._browser = self._playwright.chromium.launch(executable_path=executable, args=_ARGS, proxy=_DEAD_PROXY)
        except PlaywrightError as exc:
            raise RenderError(f"Chromium ({executable}) did not start: {exc.message.splitlines()[0]}") from exc
        return self._browser

    def close(self) -> None:
        try:
            if self._browser is not None:
                self._browser.close()
        finally:
            self._browser = None
            if self._playwright is not None:
                self._playwright.stop()
                self._playwright = None

    def render(self, folder: Path, entry: str, options: RenderOptions | None = None) -> RenderResult:
        """Load ``folder/entry`` and capture it; raise :class:`RenderError` if it cannot finish."""
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        options = options or RenderOptions()
        browser = self._ensure_browser()
        result = RenderResult()
        started = time.monotonic()
        context = browser.new_context(
            viewport={"width": options.width, "height": options.height},
            accept_downloads=False,
            service_workers="block",
        )
        try:
            context.route("**/*", lambda route: _serve(route, folder.resolve(), result))
            page = context.new_page()
            # Attached before the page runs anything: the only way to stop a busy script later.
            cdp = context.new_cdp_session(page)
            _watch(page, context, result)
            step = "loading the page"
            try:
                page.goto(f"{PAGE_ORIGIN}/{entry}", wait_until="load", timeout=options.timeout_ms)
                for index in range(options.screenshots):
                    if index:
                        page.wait_for_timeout(options.interval_ms)
                    step = f"taking screenshot {index + 1}"
                    result.screenshots.append(page.screenshot(timeout=options.timeout_ms))
                if options.full_page:
                    step = "taking the full-page screenshot"
                    result.full_page = page.screenshot(full_page=True, timeout=options.timeout_ms)
                step = "reading the DOM"
                result.dom = page.content()
            except PlaywrightTimeout:
                cdp.send("Runtime.terminateExecution")
                errors = f"; console errors: {result.console_errors[:3]}" if result.console_errors else ""
                raise RenderError(
                    f"the page did not finish {step} within {options.timeout_ms / 1000:g} s "
                    f"(a script that never ends?); it was stopped{errors}"
                ) from None
            except PlaywrightError as exc:
                raise RenderError(f"rendering failed while {step}: {exc.message.splitlines()[0]}") from exc
        finally:
            result.seconds = time.monotonic() - started
            context.close()
        return result


def _serve(route: Any, folder: Path, result: RenderResult) -> None:
    url = route.request.url
    if not url.startswith(PAGE_ORIGIN + "/"):
        result.blocked.append(url)
        route.abort("blockedbyclient")
        return
    relative = unquote(urlsplit(url).path).lstrip("/") or "index.html"
    try:
        path = resolve_inside(folder, relative)
    except PathEscapeError:
        result.blocked.append(url)
        route.abort("accessdenied")
        return
    if not path.is_file():
        result.missing.append(relative)
        route.fulfill(status=404, body="not found", content_type="text/plain")
        return
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    route.fulfill(status=200, body=path.read_bytes(), content_type=mime)


def _watch(page: Any, context: Any, result: RenderResult) -> None:
    def on_dialog(dialog: Any) -> None:
        result.dialogs += 1
        dialog.dismiss()

    def on_download(download: Any) -> None:
        result.downloads += 1
        download.cancel()

    def on_popup(popup: Any) -> None:
        result.popups += 1
        popup.close()

    page.on("console", lambda message: result.console.append({"type": message.type, "text": message.text}))
    page.on("pageerror", lambda error: result.page_errors.append(str(error)))
    page.on("dialog", on_dialog)
    page.on("download", on_download)
    context.on("page", on_popup)


class PageRenderer(Protocol):
    """What :mod:`pages` needs: a :class:`Renderer` or a :class:`RenderService`."""

    def render(self, folder: Path, entry: str, options: RenderOptions | None = None) -> RenderResult: ...


class RenderService:
    """A :class:`Renderer` that any thread may call: every use runs on one thread that owns the browser.

    Playwright's sync API is bound to the thread that started it; the case
    pipeline evaluates cases in background threads, so renders are handed to
    this one thread and run one at a time (Chromium is the CPU-bound part).
    """

    def __init__(self, executable: str | None = None):
        from concurrent.futures import ThreadPoolExecutor

        self._renderer = Renderer(executable)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="visioneval-render")

    def render(self, folder: Path, entry: str, options: RenderOptions | None = None) -> RenderResult:
        return self._thread.submit(self._renderer.render, folder, entry, options).result()

    def close(self) -> None:
        try:
            self._thread.submit(self._renderer.close).result()
        finally:
            self._thread.shutdown(wait=True)
