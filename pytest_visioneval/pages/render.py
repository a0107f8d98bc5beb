"""Render model-written HTML in Chromium, sandboxed, and capture it.

One browser per worker process, launched on first use and reused; a fresh
browser context (cookies, storage, cache, renderer process) per page, and a
few pages in flight at once. Driven by the
``playwright`` package against Debian's ``chromium`` (``executable_path``);
``playwright install`` is never needed.

The page is untrusted, so:

* it is served from an origin that does not exist (``PAGE_ORIGIN``) by a
  route handler that only answers with files from the page's own folder
  and, for URLs of public CDNs, with files of the local CDN mirror
  (:mod:`cdn_mirror`: pinned npm packages fetched at set-up); every other
  request is aborted and counted, and a CDN URL the mirror cannot answer is
  also reported with the reason (``cdn_missing``); a script or module
  request that gets no script (no such file, blocked, not in the mirror) is
  recorded in ``failed_scripts``, a page error. As a second wall, the browser
  resolves no host names and sends everything else to a dead proxy, so even
  requests the route cannot see (WebSockets) go nowhere;
* WebRTC (UDP the route cannot see) is refused in every frame and counted as a
  blocked request (``webrtc:...``);
* downloads are refused, popups are closed, dialogs dismissed;
* a page whose scripts never finish is stopped (``Runtime.terminateExecution``
  through a CDP session attached before navigation) and reported as a
  :class:`RenderError`: an error of the case, never a blank screenshot;
* after the captures the page's own scripts are paused
  (``Emulation.setScriptExecutionDisabled``, after a timed check that the
  page still answers), so no timer or observer can start a loop while the
  DOM is read and measured;
* what the page rendered (its images, the visibility of ``<html>`` and
  ``<body>``, which text a person sees and why the rest is not seen:
  :mod:`seen_text`, looked at first, right after the captures) is measured in an isolated world
  (``Page.createIsolatedWorld``): the page's scripts cannot redefine what
  the measuring code calls (``Array.prototype.map``,
  ``HTMLImageElement.prototype.naturalWidth``). A measurement that fails is
  recorded as ``measure_error``, which the graders fail on, never pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import mimetypes
import os
import shutil
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import unquote, urlsplit

from ..cases.paths import PathEscapeError, resolve_inside
from ..errors import VisionEvalError
from ..graders.rendered import capture_names
from .browser_env import browser_environment
from .capture import full_page_capture, viewport_capture
from .cpu_share import BusyRenderers
from .deadline import Deadline
from .memory_watch import Kill, MemoryWatch
from .navigation_hold import hold_navigations
from .process_tree import kill_tagged
from .sandbox_choice import sandbox_choice
from .seen_text import seen_text_call, take_seen_text
from .work_slots import WorkSlots

if TYPE_CHECKING:  # the CDN mirror (urllib, tarfile, ...) loads with the first page rendered
    from .cdn_mirror import CdnMirror

PAGE_ORIGIN = "http://page.visioneval.invalid"
CHROMIUM_ENV = "VISIONEVAL_CHROMIUM"
# The headless shell first: Chromium's old headless mode, a far smaller browser than the full one (no
# profile services per context); it takes about a third of the CPU per page. Playwright's own
# headless default is the same shell. The full browser is the fallback.
_CHROMIUM_NAMES = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "chrome")
_HEAP_MB = 1024
MAX_PAGE_BYTES = 10 * 1024 * 1024  # a page file larger than this is not rendered (its outputs are judged by size alone)
# Chromium's own sandbox is used where the machine allows it (sandbox_choice); else this switch is added.
_NO_SANDBOX = "--no-sandbox"
_ARGS = [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    # A page's JavaScript heap is capped: a page that allocates gigabytes crashes its renderer (a
    # RenderError of that case) instead of taking the machine's memory.
    f"--js-flags=--max-old-space-size={_HEAP_MB}",
]
# A page's renderer may hold this much resident memory (JS heap, canvases, images...) before it is stopped.
PAGE_MEMORY_MB = 2048
# All open pages' renderers together may hold this much; past it the largest is stopped (several pages are
# open at once, so the limit per page alone would let them take PAGES_OPEN times as much).
PAGES_MEMORY_MB = 2 * PAGE_MEMORY_MB
# Pages working at once per browser (loading, capturing, being measured), each in its own context: one
# page's loading and captures overlap another's (benchmarks/render.py measures it). A page waiting between
# its timed screenshots gives its turn to another, so more pages than that are open: at most PAGES_OPEN,
# which bounds the browser's memory (each page may hold up to its memory limit).
PAGES_IN_FLIGHT = 4
PAGES_OPEN = 8
# Playwright's timeouts (run by its driver) bound a page's loading and captures, but not opening or closing
# its context: a browser that stops answering there would hold the case forever. A page still not done this
# long after its budget ran out means the browser is stuck: it is killed, and the next page starts a new one.
STUCK_AFTER_S = 10.0
_SETTLE_S = 5.0  # after the kill, how long the page's own task gets to end before it is cancelled
_DEAD_PROXY = {"server": "http://127.0.0.1:9"}  # the discard port: nothing answers
_MAX_IMAGES = 2000  # <img> recorded per page; more is reported (images_total) and fails the image gates
_MAX_TEXT = 1_000_000  # characters of visible text recorded
_MAX_SRC = 300  # characters of an <img> src / URL recorded (data: URIs can be megabytes)
_IMAGE_WAIT_MS = 3000  # at most this long for <img> still loading when measuring
_WORLD = "visioneval-measure"
_MAX_CDN_RECORDS = 500  # served / missing CDN requests recorded per page (the counts are exact)
_MAX_NAVIGATIONS_RECORDED = 20  # URLs of stopped navigations kept per page (the count is exact)


class RenderError(VisionEvalError):
    """The page could not be rendered (no browser, a script that never ends, a crash)."""


@dataclass
class _PageProgress:
    """Where a page's render is, for the guard that ends it if the browser stops answering."""

    deadline: float  # loop time past which the browser is taken to be stuck
    step: str = "opening its browser context"


@dataclass(frozen=True)
class RenderOptions:
    width: int = 1280
    height: int = 800
    full_page: bool = True
    screenshots: int = 1  # viewport screenshots, interval_ms apart (ArtifactsBench takes 3)
    interval_ms: int = 1000
    timeout_ms: int = 10_000  # for the whole render: load, captures, measuring (the intervals come on top)

    @classmethod
    def from_mapping(cls, data: dict[str, Any] | None) -> RenderOptions:
        return cls(**(data or {}))

    @property
    def budget_ms(self) -> int:
        """One budget for the whole render, so dialogs, slow loads and captures cannot add up past it."""
        return self.timeout_ms + max(0, self.screenshots - 1) * self.interval_ms


@dataclass
class RenderResult:
    screenshots: list[bytes] = field(default_factory=list)
    full_page: bytes | None = None
    dom: str = ""
    console: list[dict[str, str]] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    webrtc_attempts: int = 0  # RTCPeerConnections the page tried to make (refused: see _NO_WEBRTC)
    missing: list[str] = field(default_factory=list)  # files the page asked for that its folder lacks
    cdn_mirror: str | None = None  # the mirror folder CDN requests were answered from
    cdn_served: list[dict[str, Any]] = field(default_factory=list)  # CDN requests answered by the mirror
    cdn_missing: list[dict[str, Any]] = field(default_factory=list)  # CDN requests it could not answer, and why
    # Exact counts (the lists stop at _MAX_CDN_RECORDS); stand_in: served by another version than asked for.
    cdn_counts: dict[str, int] = field(default_factory=lambda: {"served": 0, "stand_in": 0, "missing": 0})
    popups: int = 0
    downloads: int = 0
    dialogs: int = 0
    # Navigations of the page's own tab after its first (reloads, redirects by script or meta refresh): stopped.
    navigations_stopped: int = 0
    navigations_stopped_to: list[str] = field(default_factory=list)  # their URLs, the first _MAX_NAVIGATIONS_RECORDED
    seconds: float = 0.0
    entry: str = ""
    sandbox: str = ""  # Chromium's own sandbox: "on", or "off: why" (see sandbox_choice)
    # Measured after the captures (see measure_page); None with measure_error set when that failed.
    images: list[dict[str, Any]] | None = None
    images_total: int = 0
    visibility: dict[str, Any] | None = None
    visible_text: str | None = None
    text: dict[str, Any] | None = None  # what text a person sees and why the rest is not seen (see seen_text)
    # Drawn pictures (svg, canvas, video) that take room: {"laid_out": n, "shown": m, "unseen": [labels]}.
    graphics: dict[str, Any] | None = None
    # The page's width against its viewport's: {"page": px, "viewport": px, "scrolls": whether a person can scroll sideways}.
    width: dict[str, Any] | None = None
    # When the protocol captures the page: the last viewport screenshot, (screenshots - 1) intervals after the load
    # event (fixed by the options, so reasons that name it read the same in every run); and when it was looked at.
    capture_after_load_s: float | None = None
    measured_after_load_s: float | None = None
    # Scripts and modules that did not load (a missing file, a blocked URL, a CDN file the mirror lacks), with why.
    failed_scripts: list[str] = field(default_factory=list)
    measure_error: str | None = None

    @property
    def console_errors(self) -> list[str]:
        return [c["text"] for c in self.console if c["type"] == "error"]

    def report(self) -> dict[str, Any]:
        return {
            "console": self.console,
            "page_errors": self.page_errors,
            "blocked_requests": self.blocked,
            "webrtc_attempts": self.webrtc_attempts,
            "missing_files": self.missing,
            "cdn_mirror": self.cdn_mirror,
            "cdn_served": self.cdn_served,
            "cdn_missing": self.cdn_missing,
            "cdn_counts": self.cdn_counts,
            "popups_closed": self.popups,
            "downloads_refused": self.downloads,
            "dialogs_dismissed": self.dialogs,
            "navigations_stopped": self.navigations_stopped,
            "navigations_stopped_to": self.navigations_stopped_to,
            "seconds": round(self.seconds, 3),
            "entry": self.entry,
            "chromium_sandbox": self.sandbox,
            "captures": capture_names(len(self.screenshots), self.full_page is not None),
            "images": self.images,
            "images_total": self.images_total,
            "graphics": self.graphics,
            "width": self.width,
            "visibility": self.visibility,
            "visible_text": self.visible_text,
            "text": self.text,
            "capture_after_load_s": self.capture_after_load_s,
            "measured_after_load_s": self.measured_after_load_s,
            "failed_scripts": self.failed_scripts,
            "measure_error": self.measure_error,
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
        "no Chromium found to render HTML: install Debian's 'chromium-headless-shell' (or 'chromium') package "
        "(scripts/setup.sh does), "
        f"or point {CHROMIUM_ENV} at a Chromium binary"
    )


class Renderer:
    """One Chromium per instance, started on first use; use one per worker process.

    Any thread may call :meth:`render`: the browser is driven by playwright's
    async API on an event loop of its own thread, and up to
    ``pages_in_flight`` pages work at once, each in a fresh browser context,
    so one page's loading and captures overlap another's; a page waiting
    between timed screenshots lets another work, up to ``pages_open`` pages
    open (default: :data:`PAGES_OPEN`). ``cdn_dir`` is the
    CDN mirror's folder (default: ``cdn_fetch.default_mirror_dir()``), read on
    the first render.
    """

    def __init__(
        self,
        executable: str | None = None,
        cdn_dir: Path | str | None = None,
        memory_limit_mb: int | None = PAGE_MEMORY_MB,
        pages_in_flight: int | None = None,
        pages_open: int | None = None,
        stuck_after_s: float = STUCK_AFTER_S,
    ):
        pages_in_flight = PAGES_IN_FLIGHT if pages_in_flight is None else pages_in_flight
        pages_open = max(PAGES_OPEN, pages_in_flight) if pages_open is None else pages_open
        if not 1 <= pages_in_flight <= pages_open:
            raise ValueError(
                f"pages_in_flight must be at least 1 and at most pages_open, not {pages_in_flight} (pages_open {pages_open})"
            )
        self.executable = executable
        self.cdn_dir = cdn_dir
        self.memory_limit_mb = memory_limit_mb  # resident memory of a page's renderer; None: unwatched
        self.pages_in_flight = pages_in_flight
        self.pages_open = pages_open
        self.stuck_after_s = stuck_after_s  # past a page's budget: the browser is killed (see STUCK_AFTER_S)
        self._mirror: CdnMirror | None = None
        self._watch = MemoryWatch(total_limit_mb=PAGES_MEMORY_MB)
        self._loop_lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        # Made and used on the loop's thread only.
        self._playwright: Any = None
        self._browser: Any = None
        # On the browser's command line (Chromium ignores switches it does not know): finds its processes to kill.
        self._browser_tag = ""
        self.sandbox = "not started"  # Chromium's own sandbox: "on", or "off: why" (in each page's render.json)
        self._killed_tags: set[str] = set()  # browsers killed as stuck
        self._launching: asyncio.Lock | None = None
        self._open: asyncio.Semaphore | None = None
        self._working: WorkSlots | None = None

    @property
    def busy(self) -> BusyRenderers:
        """What is done to renderers that keep the CPU busy, and which were found (see :mod:`cpu_share`)."""
        return self._watch.busy

    @property
    def mirror(self) -> CdnMirror:
        if self._mirror is None:
            from .cdn_mirror import CdnMirror

            self._mirror = CdnMirror(Path(self.cdn_dir) if self.cdn_dir is not None else None)
        return self._mirror

    @mirror.setter
    def mirror(self, mirror: CdnMirror) -> None:
        """Answer CDN requests from another mirror from the next page on (the browser keeps running)."""
        self._mirror = mirror

    def render(self, folder: Path, entry: str, options: RenderOptions | None = None) -> RenderResult:
        """Load ``folder/entry`` and capture it; raise :class:`RenderError` if it cannot finish."""
        options = options or RenderOptions()
        _check_size(folder / entry)
        loop = self._event_loop()
        if threading.current_thread() is self._thread:
            raise RuntimeError("Renderer.render was called from its own event loop's thread")
        return asyncio.run_coroutine_threadsafe(self._render(folder, entry, options), loop).result()

    def close(self) -> None:
        """Close the browser and stop the loop's thread; a later render starts them again."""
        with self._loop_lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._close_browser(), loop).result()
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()

    def _event_loop(self) -> asyncio.AbstractEventLoop:
        with self._loop_lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                # A daemon: an interpreter that exits without close() is not held up by an idle loop.
                thread = threading.Thread(target=loop.run_forever, name="visioneval-render", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
                self._launching, self._open, self._working = None, None, None  # bound to the loop that makes them
            return self._loop

    async def _close_browser(self) -> None:
        try:
            if self._browser is not None:
                try:
                    await asyncio.wait_for(self._browser.close(), self.stuck_after_s)
                except asyncio.TimeoutError:
                    self._kill_browser(self._browser_tag)
        finally:
            self._browser = None
            if self._playwright is not None:
                await self._playwright.stop()
                self._playwright = None

    def _kill_browser(self, tag: str) -> None:
        """Kill the browser launched with ``tag`` and its processes; pages still on it fail at once."""
        kill_tagged(os.getpid(), tag)
        self._killed_tags.add(tag)
        if self._browser_tag == tag:
            self._browser = None  # the next page launches a new one

    async def _ensure_browser(self) -> tuple[Any, str]:
        """The browser, launched if none is running, and its tag."""
        if self._launching is None:
            self._launching = asyncio.Lock()
        async with self._launching:  # pages that start together launch one browser
            if self._browser is not None and self._browser.is_connected():
                return self._browser, self._browser_tag
            from playwright.async_api import Error as PlaywrightError
            from playwright.async_api import async_playwright

            executable = find_chromium(self.executable)
            if self._playwright is None:
                self._playwright = await async_playwright().start()
            tag = f"--visioneval-browser={uuid.uuid4().hex}"
            sandboxed, self.sandbox = sandbox_choice()
            try:
                try:
                    self._browser = await self._launch(executable, tag, sandboxed)
                except PlaywrightError as exc:
                    if not sandboxed:
                        raise
                    first = exc.message.splitlines()[0] if exc.message else "no message"
                    self.sandbox = f"off: Chromium did not start with its sandbox ({first[:200]})"
                    self._browser = await self._launch(executable, tag, False)
                self._browser_tag = tag
            except PlaywrightError as exc:
                raise RenderError(f"Chromium ({executable}) did not start: {exc.message.splitlines()[0]}") from exc
            return self._browser, tag

    async def _launch(self, executable: str, tag: str, sandboxed: bool) -> Any:
        return await self._playwright.chromium.launch(
            executable_path=executable,
            args=[*_ARGS, tag] if sandboxed else [_NO_SANDBOX, *_ARGS, tag],
            chromium_sandbox=sandboxed,
            proxy=_DEAD_PROXY,
            env=browser_environment(),  # an allowlist: API keys in the run's environment never reach the browser
        )

    async def _render(self, folder: Path, entry: str, options: RenderOptions) -> RenderResult:
        if self._open is None or self._working is None:
            self._open, self._working = asyncio.Semaphore(self.pages_open), WorkSlots(self.pages_in_flight)
        working = self._working
        loop = asyncio.get_running_loop()
        progress = _PageProgress(deadline=math.inf)
        async with self._open:
            await working.take()
            holding = True

            async def pause(seconds: float) -> None:
                """Wait between timed screenshots, letting another page work meanwhile."""
                nonlocal holding
                working.give()
                holding = False
                await asyncio.sleep(seconds)
                asked = loop.time()
                await working.take(returning=True)
                holding = True
                progress.deadline += loop.time() - asked  # waiting for a turn is not the browser's doing

            try:
                browser, tag = await self._ensure_browser()
                progress.deadline = loop.time() + options.budget_ms / 1000 + self.stuck_after_s
                return await self._guarded(self._render_page(browser, folder, entry, options, pause, progress), progress, tag)
            finally:
                if holding:
                    working.give()

    async def _guarded(self, rendering: Coroutine[Any, Any, RenderResult], progress: _PageProgress, tag: str) -> RenderResult:
        """Await the page's render; if the browser stops answering, kill it and fail the page with a reason."""
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(rendering)
        try:
            # The deadline moves on while the page waits for a turn to work (see pause in _render).
            while not task.done() and (left := progress.deadline - loop.time()) > 0:
                await asyncio.wait({task}, timeout=left)
            if task.done():
                error = task.exception()
                if isinstance(error, RenderError) and tag in self._killed_tags:
                    raise RenderError(
                        f"{error} (the browser stopped answering: another page on it passed its time limit first, "
                        "so the browser was killed; it is started again for the next page)"
                    ) from error
                return task.result()
            step = progress.step
            self._kill_browser(tag)
            await asyncio.wait({task}, timeout=_SETTLE_S)  # the page's calls fail now that the browser is gone
            raise RenderError(
                f"the browser stopped answering while the page was {step}: {self.stuck_after_s:g} s past "
                "the page's time budget it had not finished; the browser was killed and is started again for the next page"
            )
        finally:
            if not task.done():
                task.cancel()
            elif not task.cancelled():
                task.exception()  # retrieved: an abandoned page's error is in the RenderError above

    async def _render_page(
        self,
        browser: Any,
        folder: Path,
        entry: str,
        options: RenderOptions,
        pause: Callable[[float], Awaitable[None]],
        progress: _PageProgress,
    ) -> RenderResult:
        from playwright.async_api import Error as PlaywrightError
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        mirror = self.mirror
        result = RenderResult(entry=entry, cdn_mirror=str(mirror.folder), sandbox=self.sandbox)
        result.capture_after_load_s = max(0, options.screenshots - 1) * options.interval_ms / 1000
        started = time.monotonic()
        context = await browser.new_context(
            viewport={"width": options.width, "height": options.height},
            accept_downloads=False,
            service_workers="block",
        )
        crashed: list[bool] = []
        try:
            site = folder.resolve()
            navigation = _FirstNavigationOnly(result)

            async def serve(route: Any) -> None:
                if navigation.stops(route.request):
                    await route.abort("aborted")  # cancels the navigation: the page stays as it is, no error page
                    return
                await _serve(route, site, result, mirror)

            await context.route("**/*", serve)
            await _refuse_webrtc(context, result)
            await hold_navigations(context, result, _MAX_SRC)  # those started while parsing, which the route cannot stop
            page = navigation.page = await context.new_page()
            page.on("crash", lambda _page: crashed.append(True))
            # Attached before the page runs anything: the only way to stop a busy script later.
            cdp = await context.new_cdp_session(page)
            _watch(page, context, result)
            progress.step = "loading the page"
            budget = options.budget_ms
            left = Deadline(budget).left_ms

            # Entered for the page's life: loading, captures, measuring.
            with self._watch.page(self.memory_limit_mb) as watch:
                try:
                    await page.goto(f"{PAGE_ORIGIN}/{entry}", wait_until="load", timeout=left())
                    loaded = time.monotonic()
                    for index in range(options.screenshots):
                        if index:
                            await pause(min(options.interval_ms, left()) / 1000)
                        progress.step = f"taking screenshot {index + 1}"
                        result.screenshots.append(await viewport_capture(page, cdp, left()))
                    if options.full_page:
                        progress.step = "taking the full-page screenshot"
                        last = result.screenshots[-1] if result.screenshots else None
                        result.full_page = await full_page_capture(page, cdp, last, left())
                    progress.step = "reading the DOM"
                    world = await freeze_page(cdp, left())
                    result.measured_after_load_s = round(time.monotonic() - loaded, 2)
                    result.dom = await page.content()
                    progress.step = "measuring the rendered page"
                    await measure_page(cdp, world, result, min(_IMAGE_WAIT_MS, left()))
                except PlaywrightTimeout:
                    # Closing the page stops a busy script and a flood of dialogs alike, at once; asking the
                    # page's runtime to stop waits behind every dialog still coming.
                    with contextlib.suppress(PlaywrightError):
                        await page.close(run_before_unload=False)
                    if crashed and (kill := watch.stopped) is not None:
                        raise self._over_memory(kill, progress.step) from None
                    errors = f"; console errors: {result.console_errors[:3]}" if result.console_errors else ""
                    raise RenderError(
                        f"the page did not finish {progress.step} within its time budget of {budget / 1000:g} s "
                        f"(timeout_ms plus the intervals between screenshots; a script that never ends?); it was stopped{errors}"
                    ) from None
                except PlaywrightError as exc:
                    await asyncio.sleep(0)  # lets a crash event that came with the error be counted
                    if crashed and (kill := watch.stopped) is not None:
                        raise self._over_memory(kill, progress.step) from None
                    raise RenderError(f"rendering failed while {progress.step}: {exc.message.splitlines()[0]}") from exc
        finally:
            result.seconds = time.monotonic() - started
            progress.step = "closing its browser context"
            with contextlib.suppress(PlaywrightError):  # a browser killed as stuck has closed it already
                await context.close()
        return result

    def _over_memory(self, kill: Kill, step: str) -> RenderError:
        """The error of a page whose renderer :class:`MemoryWatch` stopped (its crash is the symptom)."""
        if kill.total_mb is not None:
            return RenderError(
                f"the pages open at once used more memory than their limit of {self._watch.total_limit_mb} MB "
                f"together ({kill.total_mb} MB) while {step}; this page's renderer was the largest "
                f"({kill.resident_mb} MB resident) and was stopped"
            )
        return RenderError(
            f"the page used more memory than its limit of {self.memory_limit_mb} MB while {step} "
            f"({kill.resident_mb} MB resident): its renderer was stopped"
        )


def _check_size(entry: Path) -> None:
    try:
        size = entry.stat().st_size
    except OSError:
        return  # the route reports a missing page
    if size > MAX_PAGE_BYTES:
        raise RenderError(
            f"the page is {size / 1e6:.1f} MB, over the {MAX_PAGE_BYTES / 1e6:.1f} MB a page may have to be rendered"
        )


# Both run in an isolated world: the page's scripts share the DOM but not these globals, so redefined
# builtins or prototypes cannot fool them. Document properties are read through Document.prototype,
# because named elements clobber them on the document itself (<img name="images">). Both are
# synchronous: the page's scripts are paused by then, and with them every timer and promise.
_DOC = """
  const docGet = (key) => Reflect.apply(Object.getOwnPropertyDescriptor(Document.prototype, key).get, document, []);
  const all = (selector) => Array.from(Reflect.apply(Document.prototype.querySelectorAll, document, [selector]));
"""
# Lazy <img> off-screen are never requested: load them eagerly. Returns how many are still loading.
_LOAD_JS = (
    "(() => {"
    + _DOC
    + """
  const pending = all('img').filter((img) => !img.complete);
  for (const img of pending) if (img.loading === 'lazy') img.loading = 'eager';
  return pending.length;
})()"""
)
_MEASURE_JS = (
    "((maxImages) => {"
    + _DOC
    + """
  const seen = (el) => el.checkVisibility({opacityProperty: true, visibilityProperty: true});
  const imgs = all('img');
  const images = imgs.slice(0, maxImages).map((img) => {
    const r = img.getBoundingClientRect();
    return {
      src: img.getAttribute('src'), url: img.currentSrc, complete: img.complete,
      natural_width: img.naturalWidth, natural_height: img.naturalHeight,
      box: {x: r.x, y: r.y, width: r.width, height: r.height},
      visible: seen(img) && r.width > 0 && r.height > 0,
    };
  });
  const style = (el) => {
    if (!el) return null;
    const cs = getComputedStyle(el);
    return {display: cs.display, visibility: cs.visibility, opacity: Number(cs.opacity),
            content_visibility: cs.contentVisibility};
  };
  // Drawn pictures (<svg> not inside another, <canvas>, <video>; the first maxImages) that take room in the
  // layout (16 px or more each way): how many, and how many a person sees. display:none leaves no room, so a sprite sheet or an
  // off-screen canvas is not counted; visibility:hidden or an opacity under 0.1 keeps the room, unseen.
  const faded = (el) => {
    let o = 1;
    for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
    return o < 0.1;
  };
  const drawn = all('svg:not(svg svg), canvas, video').slice(0, maxImages).filter((el) => {
    const r = el.getBoundingClientRect();
    return r.width >= 16 && r.height >= 16;
  });
  const drawnShown = new Set(drawn.filter((el) => seen(el) && !faded(el)));
  const root = docGet('documentElement');
  const body = docGet('body');
  // How wide the page is against its viewport, and whether a person can scroll sideways to the rest (the
  // viewport takes overflow-x from <html>, or from <body> when <html>'s is visible).
  const scroller = docGet('compatMode') === 'CSS1Compat' ? root : (body || root);
  const overflowFrom = getComputedStyle(root).overflowX !== 'visible' || !body ? root : body;
  const width = {page: Math.max(root.scrollWidth, body ? body.scrollWidth : 0), viewport: scroller.clientWidth || innerWidth,
                 scrolls: !['hidden', 'clip'].includes(getComputedStyle(overflowFrom).overflowX)};
  return {images, images_total: imgs.length, visibility: {html: style(root), body: style(body)}, width,
          graphics: {laid_out: drawn.length, shown: drawnShown.size,
                     unseen: drawn.filter((el) => !drawnShown.has(el)).slice(0, 5).map((el) => el.tagName.toLowerCase()
                       + (el.id ? '#' + el.id.slice(0, 40) : ''))}};
})"""
)


class MeasureError(Exception):
    """The page could not be measured; the message says why."""


async def freeze_page(cdp: Any, timeout_ms: float) -> int:
    """Pause the page's own scripts, so none can start a loop while the DOM is read and measured.

    First the isolated world the page is measured in is made, with a time limit: making it is
    a round trip to the page's main thread, so a script already looping fails it with a timeout,
    which the caller turns into a stopped page and a :class:`RenderError`. Returns the world.
    """

    async def make_world() -> int:
        frame = (await cdp.send("Page.getFrameTree"))["frameTree"]["frame"]["id"]
        made = await cdp.send("Page.createIsolatedWorld", {"frameId": frame, "worldName": _WORLD})
        return int(made["executionContextId"])

    world = await Deadline(timeout_ms).within(make_world())
    await cdp.send("Emulation.setScriptExecutionDisabled", {"value": True})
    return world


async def measure_page(cdp: Any, world: int, result: RenderResult, wait_ms: float) -> None:
    """Record the page's images, visibility and visible text; on failure, ``measure_error`` (never a pass).

    Call after :func:`freeze_page`. A Playwright timeout is passed on (a page that stopped answering).
    """
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    try:
        # The text first, as it is at the capture: CSS animations go on while images are waited for.
        seen = await _evaluate(cdp, world, seen_text_call(_MAX_TEXT))
        await _wait_for_images(cdp, world, wait_ms)
        value = await _evaluate(cdp, world, f"{_MEASURE_JS}({_MAX_IMAGES})")
        _take_measurement(value, seen, result)
    except PlaywrightTimeout:
        raise
    except PlaywrightError as exc:
        result.measure_error = f"the browser did not answer: {exc.message.splitlines()[0] if exc.message else 'no reason'}"
    except MeasureError as exc:
        result.measure_error = str(exc)
    except (KeyError, TypeError, ValueError) as exc:
        result.measure_error = f"the measurement was malformed: {exc!r}"


async def _wait_for_images(cdp: Any, world: int, wait_ms: float) -> None:
    # Polled from here: with the page's scripts paused, a promise in the page would never settle.
    deadline = time.monotonic() + wait_ms / 1000
    while await _evaluate(cdp, world, _LOAD_JS) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)  # the route handler serves the images meanwhile


async def _evaluate(cdp: Any, world: int, expression: str) -> Any:
    reply = await cdp.send("Runtime.evaluate", {"expression": expression, "contextId": world, "returnByValue": True})
    if "exceptionDetails" in reply:
        details = reply["exceptionDetails"]
        text = details.get("exception", {}).get("description") or details.get("text") or "an exception"
        raise MeasureError(f"the measuring script failed: {str(text).splitlines()[0][:200]}")
    return reply["result"].get("value")


def _take_measurement(value: Any, seen: Any, result: RenderResult) -> None:
    """Copy the measured values into ``result``, with types checked and sizes bounded."""
    images = [_image_record(item) for item in value["images"]]
    visibility = {key: _style_record(value["visibility"][key]) for key in ("html", "body")}
    text, record = take_seen_text(seen)
    result.images, result.images_total = images, int(value["images_total"])
    width = value["width"]
    result.width = {"page": int(width["page"]), "viewport": int(width["viewport"]), "scrolls": bool(width["scrolls"])}
    graphics = value["graphics"]
    result.graphics = {
        "laid_out": int(graphics["laid_out"]),
        "shown": int(graphics["shown"]),
        "unseen": [str(label)[:60] for label in graphics["unseen"][:5]],
    }
    result.visibility, result.visible_text, result.text = visibility, text[:_MAX_TEXT], record


def _image_record(item: dict[str, Any]) -> dict[str, Any]:
    src, url = item["src"], str(item["url"] or "")
    box = {key: round(float(item["box"][key]), 1) for key in ("x", "y", "width", "height")}
    return {
        "src": None if src is None else str(src)[:_MAX_SRC],
        "url": url[:_MAX_SRC],
        "file": _page_file(url),
        "complete": bool(item["complete"]),
        "natural_width": int(item["natural_width"]),
        "natural_height": int(item["natural_height"]),
        "box": box,
        "visible": bool(item["visible"]),
    }


def _style_record(style: dict[str, Any] | None) -> dict[str, Any] | None:
    if style is None:
        return None
    return {
        "display": str(style["display"]),
        "visibility": str(style["visibility"]),
        "opacity": float(style["opacity"]),
        "content_visibility": str(style["content_visibility"]),
    }


def _page_file(url: str) -> str | None:
    """The file of the page's folder that ``url`` names (as the route serves it), or None for any other URL."""
    if not url.startswith(PAGE_ORIGIN + "/"):
        return None
    return unquote(urlsplit(url).path).lstrip("/") or None


class _FirstNavigationOnly:
    """Lets the page's tab navigate once, to its entry file, and stops every later navigation of that tab.

    A page that reloads itself, sets ``location`` or has a meta refresh would otherwise be captured,
    read or measured in the middle of a navigation, or on another page: the verdict would depend on
    timing. Stopped, the page stays on the document it loaded (ERR_ABORTED commits no error page);
    each stop is counted in the report. Frames inside the page and popups (closed anyway) navigate freely.
    """

    def __init__(self, result: RenderResult) -> None:
        self.page: Any = None  # set as soon as the page exists; no request of its can come before
        self._result = result
        self._first_seen = False

    def stops(self, request: Any) -> bool:
        from playwright.async_api import Error as PlaywrightError

        if self.page is None or not request.is_navigation_request():
            return False
        try:
            frame = request.frame
        except PlaywrightError:  # a request of no frame (a service worker's): not a navigation of the tab
            return False
        if frame is not self.page.main_frame:
            return False
        if not self._first_seen:
            self._first_seen = True
            return False
        self._result.navigations_stopped += 1
        if len(self._result.navigations_stopped_to) < _MAX_NAVIGATIONS_RECORDED:
            self._result.navigations_stopped_to.append(request.url[:_MAX_SRC])
        return True


async def _serve(route: Any, folder: Path, result: RenderResult, mirror: CdnMirror | None = None) -> None:
    url = route.request.url
    if not url.startswith(PAGE_ORIGIN + "/"):
        answer = mirror.answer(url) if mirror is not None and route.request.method in ("GET", "HEAD") else None
        if answer is not None and answer.served:
            _count_cdn(result, "served", answer.record)
            await route.fulfill(status=200, body=answer.body, content_type=answer.content_type, headers=answer.headers)
            return
        if answer is not None:
            _count_cdn(result, "missing", answer.record)
            _script_failed(route, result, f"a CDN file the mirror does not have: {answer.record.get('reason', 'no reason')}")
        else:
            _script_failed(route, result, "blocked: only files of the page's folder and of the CDN mirror load")
        result.blocked.append(url)
        await route.abort("blockedbyclient")
        return
    relative = unquote(urlsplit(url).path).lstrip("/") or "index.html"
    try:
        path = resolve_inside(folder, relative)
    except PathEscapeError:
        _script_failed(route, result, "blocked: outside the page's folder")
        result.blocked.append(url)
        await route.abort("accessdenied")
        return
    if not path.is_file():
        result.missing.append(relative)
        _script_failed(route, result, "404: the output has no such file")
        await route.fulfill(status=404, body="not found", content_type="text/plain")
        return
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    await route.fulfill(status=200, body=path.read_bytes(), content_type=mime)


def _script_failed(route: Any, result: RenderResult, why: str) -> None:
    """Record a script or module request that gets no script (a module import of it fails, a <script src> runs nothing)."""
    if route.request.resource_type == "script" and len(result.failed_scripts) < _MAX_CDN_RECORDS:
        result.failed_scripts.append(f"{route.request.url[:_MAX_SRC]} ({why})")


def _count_cdn(result: RenderResult, kind: str, record: dict[str, Any]) -> None:
    result.cdn_counts[kind] += 1
    result.cdn_counts["stand_in"] += bool(record.get("stand_in"))
    records = result.cdn_served if kind == "served" else result.cdn_missing
    if len(records) < _MAX_CDN_RECORDS:
        records.append(record)


# WebRTC sends UDP (STUN) that neither the route handler nor the dead proxy sees: even with
# --force-webrtc-ip-handling-policy a page reached a local UDP port. So the constructors are
# replaced, before any page script runs and in every frame, by ones that refuse and report.
# The report function is taken from the binding and the binding deleted, so a page can
# neither silence nor fake the count.
_WEBRTC_BINDING = "__visionevalWebRTC"
_NO_WEBRTC = f"""
(() => {{
  const report = window.{_WEBRTC_BINDING};
  try {{ delete window.{_WEBRTC_BINDING}; }} catch (e) {{}}
  const refuse = function (what) {{
    return function () {{
      try {{ report(what); }} catch (e) {{}}
      throw new DOMException('WebRTC is disabled in the visioneval sandbox', 'NotSupportedError');
    }};
  }};
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'mozRTCPeerConnection']) {{
    try {{ Object.defineProperty(window, name, {{value: refuse(name), writable: false, configurable: false}}); }} catch (e) {{}}
  }}
}})();
"""


async def _refuse_webrtc(context: Any, result: RenderResult) -> None:
    def attempted(source: Any, what: str) -> None:
        result.webrtc_attempts += 1
        result.blocked.append(f"webrtc:{what}")

    await context.expose_binding(_WEBRTC_BINDING, attempted)
    await context.add_init_script(_NO_WEBRTC)


def _watch(page: Any, context: Any, result: RenderResult) -> None:
    from playwright.async_api import Error as PlaywrightError

    # Each answer may come after the page is gone (a flood of dialogs stopped by closing it).
    async def on_dialog(dialog: Any) -> None:
        result.dialogs += 1
        with contextlib.suppress(PlaywrightError):
            await dialog.dismiss()

    async def on_download(download: Any) -> None:
        result.downloads += 1
        with contextlib.suppress(PlaywrightError):
            await download.cancel()

    async def on_popup(popup: Any) -> None:
        result.popups += 1
        with contextlib.suppress(PlaywrightError):
            await popup.close()

    page.on("console", lambda message: result.console.append({"type": message.type, "text": message.text}))
    page.on("pageerror", lambda error: result.page_errors.append(str(error)))
    page.on("dialog", on_dialog)
    page.on("download", on_download)
    context.on("page", on_popup)


class PageRenderer(Protocol):
    """What :mod:`pages` needs: a :class:`Renderer` (or a stand-in in tests)."""

    def render(self, folder: Path, entry: str, options: RenderOptions | None = None) -> RenderResult: ...
