"""Rendering untrusted HTML in real Chromium (Debian's package, driven by playwright)."""

from __future__ import annotations

import asyncio
import io
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Error as PlaywrightError

from pytest_visioneval.pages.memory_watch import renderers_below
from pytest_visioneval.pages.process_tree import command_line, descendants
from pytest_visioneval.pages.render import (
    MAX_PAGE_BYTES,
    PAGE_MEMORY_MB,
    Renderer,
    RenderError,
    RenderOptions,
    RenderResult,
    find_chromium,
    freeze_page,
    measure_page,
)
from tests.unit.pages.conftest import gone

SMALL = RenderOptions(width=320, height=240, full_page=False, timeout_ms=5000)


def page(folder: Path, html: str, name: str = "page.html") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(html)
    return folder


def test_animation_gives_different_frames_over_time(renderer: Renderer, tmp_path: Path) -> None:
    site = page(
        tmp_path,
        """<body style="margin:0"><div id=b style="position:absolute;width:60px;height:60px;background:red"></div>
        <script>const t0 = performance.now();
        (function move(){ b.style.left = ((performance.now() - t0) / 4) + 'px'; requestAnimationFrame(move); })();</script>""",
    )
    result = renderer.render(
        site, "page.html", RenderOptions(width=320, height=120, screenshots=3, interval_ms=250, full_page=False)
    )
    assert len(result.screenshots) == 3
    assert len(set(result.screenshots)) == 3  # the box moved between every capture


def test_page_makes_zero_outbound_requests(renderer: Renderer, tmp_path: Path, listener: tuple[int, list[str]]) -> None:
    port, hits = listener
    base = f"http://127.0.0.1:{port}"
    site = page(
        tmp_path,
        f"""<img src="{base}/pixel.png"><img src="http://example.com/logo.png">
        <script>
          fetch('{base}/api').catch(() => console.log('fetch refused'));
          fetch('http://example.com/').catch(() => {{}});
          try {{ new WebSocket('ws://127.0.0.1:{port}/socket'); }} catch (e) {{}}
          navigator.sendBeacon('{base}/beacon', 'x');
        </script>""",
    )
    result = renderer.render(site, "page.html", SMALL)
    assert hits == []
    assert f"{base}/pixel.png" in result.blocked and "http://example.com/logo.png" in result.blocked
    assert f"{base}/api" in result.blocked and "http://example.com/" in result.blocked
    assert len(result.blocked) >= 4


STUN_PAGE = """<script>
  const report = (what) => { document.title = what; };
  try {
    const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:127.0.0.1:PORT'}]});
    pc.createDataChannel('x');
    pc.onicecandidate = () => {};
    pc.createOffer().then((offer) => pc.setLocalDescription(offer)).catch((e) => report('offer failed'));
    report('created');
  } catch (e) { report('refused: ' + e.message); }
  try { new webkitRTCPeerConnection({iceServers: [{urls: 'stun:127.0.0.1:PORT'}]}); } catch (e) {}
</script><p>stun</p>"""


def test_webrtc_sends_nothing_and_is_counted(renderer: Renderer, tmp_path: Path) -> None:
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.settimeout(0.2)
    port = udp.getsockname()[1]
    site = page(tmp_path, STUN_PAGE.replace("PORT", str(port)))
    result = renderer.render(site, "page.html", RenderOptions(width=200, height=100, screenshots=2, interval_ms=1500))
    packets = []
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        try:
            packets.append(udp.recvfrom(2048))
        except TimeoutError:
            pass
    udp.close()
    assert packets == []  # no STUN binding request left the sandbox
    assert result.webrtc_attempts >= 2
    assert any(b.startswith("webrtc:") for b in result.blocked)
    assert result.report()["webrtc_attempts"] == result.webrtc_attempts


def test_files_outside_the_pages_folder_cannot_be_read(renderer: Renderer, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("TOP-SECRET-TOKEN")
    site = page(
        tmp_path / "site",
        """<img src="file:///etc/hostname">
        <script>
          const show = (url) => fetch(url).then(r => r.text())
            .then(t => console.log('got ' + t)).catch(() => console.log('refused'));
          show('/..%2fsecret.txt');
          show('file:///etc/hostname');
        </script>""",
    )
    result = renderer.render(site, "page.html", SMALL)
    texts = " ".join(c["text"] for c in result.console)
    assert "TOP-SECRET-TOKEN" not in texts and "TOP-SECRET-TOKEN" not in result.dom
    assert any(url.endswith("/..%2fsecret.txt") for url in result.blocked)
    assert texts.count("refused") == 2


def test_endless_script_is_stopped_and_reported(renderer: Renderer, tmp_path: Path) -> None:
    site = page(tmp_path, "<script>console.error('spinning'); while (true) {}</script>")
    with pytest.raises(RenderError, match=r"did not finish loading the page within its time budget of 1\.5 s.*stopped.*spinning"):
        renderer.render(site, "page.html", RenderOptions(timeout_ms=1500, full_page=False))
    # The shared browser is still usable afterwards.
    ok = renderer.render(page(tmp_path / "ok", "<p>fine</p>"), "page.html", SMALL)
    assert "fine" in ok.dom


def test_page_that_throws_is_reported_with_its_console(renderer: Renderer, tmp_path: Path) -> None:
    site = page(tmp_path, "<script>console.log('starting'); console.error('bad thing'); null.value;</script>")
    result = renderer.render(site, "page.html", SMALL)
    assert any("Cannot read properties of null" in e for e in result.page_errors)
    assert {"type": "log", "text": "starting"} in result.console
    assert "bad thing" in result.console_errors


def test_popups_downloads_and_dialogs_are_refused(renderer: Renderer, tmp_path: Path) -> None:
    site = page(
        tmp_path,
        """<body><script>
          alert('hello');
          const a = document.createElement('a'); a.href = 'data:text/plain,hi'; a.download = 'x.txt';
          document.body.appendChild(a); a.click();
          window.open('other.html');
        </script></body>""",
    )
    (site / "other.html").write_text("<p>a popup</p>")
    # Popup and download events arrive asynchronously: a second capture gives them time to land.
    result = renderer.render(
        site, "page.html", RenderOptions(width=320, height=240, full_page=False, screenshots=2, interval_ms=500)
    )
    assert (result.popups, result.downloads, result.dialogs) == (1, 1, 1)


_STAYS = "<h1>the page as loaded</h1>"


@pytest.mark.parametrize(
    "script",
    [
        "<script>addEventListener('load', () => setTimeout(() => location.reload(), 30))</script>",
        "<script>addEventListener('load', () => setTimeout(() => { location.href = 'page.html?again' }, 30))</script>",
        "<script>addEventListener('load', () => setTimeout(() => { location.href = 'other.html' }, 30))</script>",
        "<script>setInterval(() => location.reload(), 5)</script>",  # from before the load event on
        "<meta http-equiv=refresh content='0.05; url=other.html'>",
    ],
    ids=["reload", "same-page", "other-page", "reload-loop", "meta-refresh"],
)
def test_a_page_that_navigates_itself_stays_as_loaded(renderer: Renderer, tmp_path: Path, script: str) -> None:
    # Before navigations were stopped, these failed at random points (a capture, reading the DOM, measuring),
    # or were captured on another page: the verdict depended on timing.
    site = page(tmp_path, f"<body>{_STAYS}{script}</body>")
    (site / "other.html").write_text("<h1>another page</h1>")
    options = RenderOptions(width=320, height=240, screenshots=2, interval_ms=300, full_page=True, timeout_ms=5000)
    result = renderer.render(site, "page.html", options)
    assert len(result.screenshots) == 2 and result.full_page is not None
    assert result.measure_error is None and result.visible_text == "the page as loaded"
    assert "the page as loaded" in result.dom and "another page" not in result.dom
    assert result.navigations_stopped >= 1
    assert result.report()["navigations_stopped"] == result.navigations_stopped
    assert result.navigations_stopped_to[0].startswith("http://page.visioneval.invalid/")


def test_frames_inside_the_page_still_navigate(renderer: Renderer, tmp_path: Path) -> None:
    # The frame's second document is missing from the folder: its request reaching the folder proves it was let through.
    site = page(
        tmp_path,
        """<body><iframe id=f src="first.html"></iframe>
        <script>addEventListener('load', () => { f.src = 'second.html'; })</script></body>""",
    )
    (site / "first.html").write_text("<p>first</p>")
    options = RenderOptions(width=320, height=240, screenshots=2, interval_ms=300, full_page=False, timeout_ms=5000)
    result = renderer.render(site, "page.html", options)
    assert result.navigations_stopped == 0
    assert result.missing == ["second.html"]


def test_local_images_next_to_the_page_are_shown(renderer: Renderer, tmp_path: Path) -> None:
    site = page(tmp_path, '<body style="margin:0"><img src="showcase-1.png" alt="green" style="width:100px;height:100px"></body>')
    Image.new("RGB", (10, 10), (0, 180, 0)).save(site / "showcase-1.png")
    result = renderer.render(site, "page.html", RenderOptions(width=200, height=200, full_page=True))
    shot = Image.open(io.BytesIO(result.screenshots[0])).convert("RGB")
    assert shot.getpixel((50, 50)) == (0, 180, 0)
    assert shot.getpixel((150, 150)) == (255, 255, 255)
    assert result.full_page is not None and result.missing == []


def image_size(png: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(png)).size


TALL = "<div style='height:2000px;background:linear-gradient(red,blue)'>tall</div>"
# Page scripts that report a tiny document: the size must come from the browser's layout, not from them.
LIAR = (
    TALL
    + """<script>
  for (const proto of [Element.prototype, HTMLElement.prototype])
    for (const key of ['scrollHeight', 'offsetHeight', 'clientHeight'])
      Object.defineProperty(proto, key, {get() { return 10; }});
</script>"""
)


@pytest.mark.parametrize(
    ("html", "captured_again", "size"),
    [
        ("<p>short</p>", False, (320, 240)),  # fits: the full page is the viewport capture, not captured again
        (TALL, True, (320, 2016)),
        ("<div style='width:900px;height:20px'>wide</div>", True, (908, 240)),
        (LIAR, True, (320, 2016)),
    ],
    ids=["fits", "tall", "wide", "lying-page"],
)
def test_the_full_page_is_captured_only_when_it_is_larger_than_the_viewport(
    renderer: Renderer, tmp_path: Path, html: str, captured_again: bool, size: tuple[int, int]
) -> None:
    site = page(tmp_path, html)
    result = renderer.render(site, "page.html", RenderOptions(width=320, height=240, full_page=True))
    assert result.full_page is not None and len(result.screenshots) == 1
    assert (result.full_page != result.screenshots[0]) is captured_again
    assert image_size(result.full_page) == size


def test_without_viewport_captures_the_full_page_is_captured(renderer: Renderer, tmp_path: Path) -> None:
    result = renderer.render(page(tmp_path, "<p>short</p>"), "page.html", RenderOptions(width=320, height=240, screenshots=0))
    assert result.screenshots == [] and result.full_page is not None and image_size(result.full_page) == (320, 240)


def test_missing_local_file_is_listed(renderer: Renderer, tmp_path: Path) -> None:
    result = renderer.render(page(tmp_path, '<img src="not-generated.png" alt="x">'), "page.html", SMALL)
    assert result.missing == ["not-generated.png"]


def test_without_chromium_the_error_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("VISIONEVAL_CHROMIUM", raising=False)
    with pytest.raises(RenderError, match="install Debian's 'chromium-headless-shell' \\(or 'chromium'\\) package"):
        find_chromium()
    with pytest.raises(RenderError, match="not found: '/no/such/chrome'"):
        find_chromium("/no/such/chrome")


def test_the_headless_shell_is_preferred_to_the_full_browser(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("chromium", "chromium-headless-shell"):
        (tmp_path / name).write_text("#!/bin/sh\n")
        (tmp_path / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("VISIONEVAL_CHROMIUM", raising=False)
    assert find_chromium() == str(tmp_path / "chromium-headless-shell")
    (tmp_path / "chromium-headless-shell").unlink()
    assert find_chromium() == str(tmp_path / "chromium")


# -- what is measured in the rendered page (render.json) ------------------------
def by_src(result: RenderResult) -> dict[str, dict[str, Any]]:
    assert result.images is not None, result.measure_error
    return {str(image["src"]): image for image in reversed(result.images)}  # the first of a src wins


def test_images_are_measured_after_load(renderer: Renderer, tmp_path: Path) -> None:
    site = page(
        tmp_path,
        """<body style="margin:0"><img src="ok.png" alt="ok" style="width:40px;height:30px">
        <img src="page.html" alt="the page"><img src="gone.png" alt="missing"><img alt="no src">
        <img src="ok.png" alt="hidden" style="display:none">
        <img src="far.png" alt="lazy, far below" loading="lazy" style="display:block;margin-top:5000px"></body>""",
    )
    Image.new("RGB", (20, 15), "red").save(site / "ok.png")
    Image.new("RGB", (8, 8), "blue").save(site / "far.png")
    result = renderer.render(site, "page.html", SMALL)
    images = by_src(result)
    assert result.images_total == 6 and result.measure_error is None
    assert images["ok.png"] == {
        "src": "ok.png",
        "url": "http://page.visioneval.invalid/ok.png",
        "file": "ok.png",
        "complete": True,
        "natural_width": 20,
        "natural_height": 15,
        "box": {"x": 0.0, "y": 0.0, "width": 40.0, "height": 30.0},
        "visible": True,
    }
    assert (images["page.html"]["natural_width"], images["page.html"]["file"]) == (0, "page.html")
    assert images["gone.png"]["natural_width"] == 0 and result.missing == ["gone.png"]
    assert images["None"]["url"] == "" and images["None"]["natural_width"] == 0
    assert result.images[4]["visible"] is False  # display: none
    assert images["far.png"]["natural_width"] == 8  # a lazy image off-screen is loaded before measuring
    report = result.report()
    assert report["images"] == result.images and report["entry"] == "page.html"
    assert report["captures"] == ["screenshot-1.png"]


def test_visible_text_applies_css(renderer: Renderer, tmp_path: Path) -> None:
    site = page(
        tmp_path,
        """<head><title>title words</title><style>.gone{display:none}</style></head><body>
        <h1>Shown <b>headline</b></h1><p class="gone">display none</p><p style="visibility:hidden">invisible</p>
        <div style="opacity:0"><p>transparent</p></div><input type="submit" value="Buy now"><input placeholder="Email">
        <script>document.body.insertAdjacentHTML('beforeend', '<p>added by script</p>')</script></body>""",
    )
    text = renderer.render(site, "page.html", SMALL).visible_text or ""
    assert "Shown" in text and "headline" in text and "added by script" in text and "Buy now" in text and "Email" in text
    for hidden in ("title words", "display none", "invisible", "transparent", "insertAdjacentHTML"):
        assert hidden not in text


def test_visibility_of_html_and_body_is_recorded(renderer: Renderer, tmp_path: Path) -> None:
    hidden = renderer.render(page(tmp_path / "a", "<style>body{display:none}</style><p>x</p>"), "page.html", SMALL)
    assert hidden.visibility is not None and hidden.visibility["body"]["display"] == "none"
    faded = renderer.render(page(tmp_path / "b", '<html style="opacity:0"><p>x</p></html>'), "page.html", SMALL)
    assert faded.visibility is not None and faded.visibility["html"]["opacity"] == 0.0
    assert faded.visibility["body"] == {
        "display": "block",
        "visibility": "visible",
        "opacity": 1.0,
        "content_visibility": "visible",
    }


def test_a_hostile_page_cannot_fake_the_measurement(renderer: Renderer, tmp_path: Path) -> None:
    site = page(
        tmp_path,
        """<body><img name="images" src="page.html" alt="x"><img name="querySelectorAll" src="nothing.png" alt="y">
        <p style="display:none">secret</p><form name="body"></form><script>
          for (const key of ['naturalWidth', 'naturalHeight']) {
            Object.defineProperty(HTMLImageElement.prototype, key, {get() { return 640; }});
          }
          Object.defineProperty(HTMLImageElement.prototype, 'complete', {get() { return true; }});
          Element.prototype.checkVisibility = () => true;
          window.getComputedStyle = () => ({display: 'block', visibility: 'visible', opacity: '1'});
          Array.prototype.map = () => { throw new Error('map is gone'); };
          Array.from = () => [];
          Promise.race = () => new Promise(() => {});
          JSON.stringify = () => '{}';
          Object.getOwnPropertyDescriptor = () => undefined;
        </script></body>""",
    )
    result = renderer.render(site, "page.html", SMALL)
    assert result.page_errors == [] and result.measure_error is None
    assert [(i["src"], i["natural_width"]) for i in result.images or ()] == [("page.html", 0), ("nothing.png", 0)]
    assert "secret" not in (result.visible_text or "")


class FakeCdp:
    """A CDP session whose measuring call answers ``reply`` (the image-loading poll answers 0 pending)."""

    def __init__(self, reply: Any):
        self.reply = reply

    async def send(self, method: str, params: Any = None) -> Any:
        if method == "Page.getFrameTree":
            return {"frameTree": {"frame": {"id": "F"}}}
        if method == "Page.createIsolatedWorld":
            return {"executionContextId": 7}
        if "maxImages" not in params["expression"]:
            return {"result": {"value": 0}}
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (PlaywrightError("Target closed"), "the browser did not answer: Target closed"),
        (
            {"exceptionDetails": {"exception": {"description": "TypeError: boom\n  at x"}}},
            "the measuring script failed: TypeError",
        ),
        ({"result": {"value": {"images": "lots"}}}, "the measurement was malformed"),
        ({"result": {"value": None}}, "the measurement was malformed"),
    ],
    ids=["cdp-error", "script-error", "malformed", "nothing"],
)
def test_a_failed_measurement_is_recorded_not_passed(reply: Any, error: str) -> None:
    result = RenderResult()
    asyncio.run(measure_page(FakeCdp(reply), 7, result, 100))
    assert result.measure_error is not None and result.measure_error.startswith(error)
    assert result.images is None and result.visible_text is None
    assert result.report()["measure_error"] == result.measure_error


class SilentCdp:
    """A CDP session to a page whose main thread never answers (a script looping)."""

    async def send(self, method: str, params: Any = None) -> Any:
        if method == "Page.getFrameTree":
            return {"frameTree": {"frame": {"id": "F"}}}
        await asyncio.Event().wait()  # never set


def test_freezing_a_page_that_never_answers_times_out() -> None:
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    started = time.monotonic()
    with pytest.raises(PlaywrightTimeout, match="did not answer within 200 ms"):
        asyncio.run(freeze_page(SilentCdp(), 200))
    assert time.monotonic() - started < 5


def render_in_thread(site: Path, options: RenderOptions, seconds: float) -> RenderResult | RenderError:
    """Render with a browser of its own on another thread; fail the test, not hang it, if it never returns."""
    outcome: list[RenderResult | RenderError] = []

    def work() -> None:
        own = Renderer()
        try:
            outcome.append(own.render(site, "page.html", options))
        except RenderError as exc:
            outcome.append(exc)
        finally:
            own.close()

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"rendering did not return within {seconds} s"
    return outcome[0]


def test_the_page_cannot_start_a_loop_while_it_is_measured(tmp_path: Path) -> None:
    # Measuring touches the DOM (lazy images are switched to eager); the page's observer would then loop forever.
    site = page(
        tmp_path,
        """<body><p>hello</p><img src="far.png" alt="far" loading="lazy" style="display:block;margin-top:5000px">
        <script>new MutationObserver(() => { while (true) {} }).observe(document.body, {attributes: true, subtree: true});
        setInterval(() => { document.title = 'ticking'; }, 10);</script></body>""",
    )
    Image.new("RGB", (8, 8), "blue").save(site / "far.png")
    result = render_in_thread(site, RenderOptions(width=320, height=240, full_page=False, timeout_ms=3000), 30)
    assert isinstance(result, RenderResult) and result.measure_error is None
    assert result.images is not None and result.images[0]["natural_width"] == 8


# -- limits that hold: time, size, memory; the next page still renders ------------------------
def test_a_flood_of_dialogs_is_stopped_within_the_budget(renderer: Renderer, tmp_path: Path) -> None:
    site = page(tmp_path, "<script>for (let i = 0; i < 1000000; i++) alert(i);</script><p>x</p>")
    started = time.monotonic()
    with pytest.raises(RenderError, match="within its time budget of 3 s"):
        renderer.render(site, "page.html", RenderOptions(width=200, height=100, timeout_ms=3000))
    assert time.monotonic() - started < 3 + 4  # the budget, plus closing the page


@pytest.mark.slow
def test_a_page_that_takes_gigabytes_crashes_alone(renderer: Renderer, tmp_path: Path) -> None:
    hog = page(tmp_path / "hog", "<script>const k = []; for (let i = 0; i < 4000; i++) k.push(new Array(1e6).fill(i));</script>")
    # A generous time budget: on a loaded machine the allocation is slow, and the crash must come first.
    with pytest.raises(RenderError, match="Page crashed"):
        renderer.render(hog, "page.html", RenderOptions(width=320, height=240, full_page=False, timeout_ms=120_000))
    fine = renderer.render(page(tmp_path / "fine", "<p>still here</p>"), "page.html", SMALL)
    assert fine.screenshots and "still here" in fine.dom


# Canvases hold their pixels outside the JavaScript heap: 40 of 2048x2048 RGBA are 640 MB that the heap cap never sees.
CANVAS_HOG = """<script>
const kept = [];
for (let i = 0; i < 40; i++) {
  const c = document.createElement("canvas"); c.width = 2048; c.height = 2048;
  const g = c.getContext("2d"); g.fillStyle = "#" + (i * 40000).toString(16).padStart(6, "0"); g.fillRect(0, 0, 2048, 2048);
  kept.push(g.getImageData(0, 0, 2048, 2048));
}
document.body.dataset.done = kept.length;
</script><p>drew</p>"""


def test_memory_outside_the_javascript_heap_is_limited_per_page(renderer: Renderer, tmp_path: Path) -> None:
    renderer.memory_limit_mb = 300  # one playwright per thread: the shared renderer, with a tight limit
    try:
        with pytest.raises(RenderError, match=r"more memory than its limit of 300 MB .*its renderer was stopped"):
            renderer.render(
                page(tmp_path / "hog", CANVAS_HOG), "page.html", RenderOptions(width=320, height=240, timeout_ms=60_000)
            )
        fine = renderer.render(page(tmp_path / "fine", "<p>still here</p>"), "page.html", SMALL)
        assert fine.screenshots and "still here" in fine.dom
    finally:
        renderer.memory_limit_mb = PAGE_MEMORY_MB


def test_memory_watch_sees_only_this_process_renderers(renderer: Renderer, tmp_path: Path) -> None:
    renderer.render(page(tmp_path, "<p>x</p>"), "page.html", SMALL)  # the browser is up, with a renderer or none
    outsider = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        found = renderers_below(os.getpid())
        assert all(pid != outsider.pid for pid, _ in found) and all(rss > 0 for _, rss in found)
        assert renderers_below(outsider.pid) == []  # a process with no Chromium below it
    finally:
        outsider.kill()
        outsider.wait()


def test_a_page_too_large_is_not_rendered(renderer: Renderer, tmp_path: Path) -> None:
    site = page(tmp_path, "<p>" + "x" * (MAX_PAGE_BYTES + 1) + "</p>")
    with pytest.raises(RenderError, match=r"the page is 10.5 MB, over the 10.5 MB a page may have"):
        renderer.render(site, "page.html", SMALL)


# -- several pages in flight in one browser ------------------------------------------
class CountingRenderer(Renderer):
    """A renderer that records how many pages it had open at most."""

    def __init__(self, pages_in_flight: int, pages_open: int):
        super().__init__(pages_in_flight=pages_in_flight, pages_open=pages_open)
        self.open_now = 0
        self.most_open = 0

    async def _render_page(self, *args: Any) -> RenderResult:
        self.open_now += 1  # on the renderer's one event-loop thread: no lock needed
        self.most_open = max(self.most_open, self.open_now)
        try:
            return await super()._render_page(*args)
        finally:
            self.open_now -= 1


def test_pages_render_at_once_from_any_thread_each_with_its_own_result(tmp_path: Path) -> None:
    sites = [
        page(tmp_path / f"s{i}", f'<p>page {i}</p><img src="http://example.com/{i}.png"><script>console.log("log {i}")</script>')
        for i in range(8)
    ]
    # Two viewport captures half a second apart: while a page waits between them, another one works.
    options = RenderOptions(width=320, height=240, screenshots=2, interval_ms=500, full_page=False, timeout_ms=20_000)
    renderer = CountingRenderer(pages_in_flight=2, pages_open=4)
    try:
        with ThreadPoolExecutor(max_workers=8) as callers:  # as the case pipeline's threads would
            results = list(callers.map(lambda site: renderer.render(site, "page.html", options), sites))
    finally:
        renderer.close()
    # More pages open than working (the waiting ones gave their turn), never more than pages_open.
    assert renderer.most_open == 4
    for i, result in enumerate(results):
        assert f"page {i}" in result.dom and len(result.screenshots) == 2
        assert result.blocked == [f"http://example.com/{i}.png"]  # the route of this page only
        assert [c["text"] for c in result.console if c["type"] == "log"] == [f"log {i}"]


@pytest.mark.slow
def test_a_page_over_its_memory_limit_is_stopped_while_another_renders(tmp_path: Path) -> None:
    renderer = Renderer(memory_limit_mb=300, pages_in_flight=2)
    fine_site = page(tmp_path / "fine", "<p>still here</p>")
    slow_fine = RenderOptions(width=320, height=240, screenshots=3, interval_ms=1000, full_page=False, timeout_ms=60_000)
    try:
        with ThreadPoolExecutor(max_workers=2) as callers:
            hog = callers.submit(
                renderer.render,
                page(tmp_path / "hog", CANVAS_HOG),
                "page.html",
                RenderOptions(width=320, height=240, timeout_ms=60_000),
            )
            fine = callers.submit(renderer.render, fine_site, "page.html", slow_fine)
            with pytest.raises(RenderError, match=r"more memory than its limit of 300 MB .*its renderer was stopped"):
                hog.result()
            assert "still here" in fine.result().dom and len(fine.result().screenshots) == 3
    finally:
        renderer.close()


def test_a_closed_renderer_starts_again_on_the_next_page(tmp_path: Path) -> None:
    renderer = Renderer(pages_in_flight=1)
    site = page(tmp_path, "<p>again</p>")
    try:
        assert "again" in renderer.render(site, "page.html", SMALL).dom
        renderer.close()
        renderer.close()  # closing twice is harmless
        assert "again" in renderer.render(site, "page.html", SMALL).dom
    finally:
        renderer.close()


def test_pages_in_flight_must_be_positive_and_within_the_pages_open() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Renderer(pages_in_flight=0)
    with pytest.raises(ValueError, match="at most pages_open"):
        Renderer(pages_in_flight=4, pages_open=2)
    assert Renderer(pages_in_flight=12).pages_open == 12  # the open pages follow a larger working limit


def browser_processes(renderer: Renderer) -> list[int]:
    """The running browser's processes (the launch wrapper and Chromium itself carry its tag)."""
    tag = renderer._browser_tag.encode()
    return [pid for pid in descendants(os.getpid()) if tag in (command_line(pid) or b"").split(b"\0")]


def stop_browser_soon(renderer: Renderer, after_s: float) -> list[int]:
    """SIGSTOP the browser a moment after a render starts: it then answers nothing, as a hung browser."""
    stopped: list[int] = []

    def stop() -> None:
        time.sleep(after_s)
        for pid in browser_processes(renderer):
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)

    threading.Thread(target=stop, daemon=True).start()
    return stopped


@pytest.mark.skipif(sys.platform != "linux", reason="finds the browser in /proc")
@pytest.mark.slow
def test_a_browser_that_stops_answering_is_killed_and_the_next_page_gets_a_new_one(tmp_path: Path) -> None:
    site = page(tmp_path, "<p>steady</p>")
    renderer = Renderer(stuck_after_s=1)
    # Three captures 0.5 s apart, a budget of 2 s in all: the browser is stopped after the first capture.
    slow = RenderOptions(width=320, height=240, screenshots=3, interval_ms=500, full_page=False, timeout_ms=1000)
    try:
        renderer.render(site, "page.html", SMALL)  # the browser is up
        stopped = stop_browser_soon(renderer, 0.3)
        started = time.monotonic()
        with pytest.raises(RenderError, match=r"the browser stopped answering while the page was taking screenshot \d: 1 s past"):
            renderer.render(site, "page.html", slow)
        # Budget 2 s + 1 s, and at most the settling time after the kill (before: it waited forever).
        assert 3 <= time.monotonic() - started < 9
        assert stopped and gone(stopped)
        again = renderer.render(site, "page.html", SMALL)  # a new browser
        assert "steady" in again.dom and browser_processes(renderer)
    finally:
        renderer.close()


@pytest.mark.skipif(sys.platform != "linux", reason="finds the browser in /proc")
def test_pages_on_a_browser_killed_as_stuck_say_so(tmp_path: Path) -> None:
    renderer = Renderer(stuck_after_s=1, pages_in_flight=2)
    short = RenderOptions(width=320, height=240, full_page=False, timeout_ms=1000)
    long = RenderOptions(width=320, height=240, screenshots=3, interval_ms=1000, full_page=False, timeout_ms=20_000)
    try:
        renderer.render(page(tmp_path / "warm", "<p>up</p>"), "page.html", SMALL)
        slow_site = page(tmp_path / "slow", "<p>slow</p><script>const t0 = Date.now(); while (Date.now() - t0 < 800);</script>")
        with ThreadPoolExecutor(max_workers=2) as callers:
            patient = callers.submit(renderer.render, page(tmp_path / "long", "<p>long</p>"), "page.html", long)
            time.sleep(0.5)  # the patient page is between its captures
            stop_browser_soon(renderer, 0.3)
            hasty = callers.submit(renderer.render, slow_site, "page.html", short)
            with pytest.raises(RenderError, match="the browser stopped answering while the page was"):
                hasty.result(timeout=30)
            with pytest.raises(RenderError, match=r"^rendering failed while .* another page on it passed its time limit first"):
                patient.result(timeout=30)
    finally:
        renderer.close()


@pytest.mark.skipif(sys.platform != "linux", reason="finds the browser in /proc")
def test_closing_a_renderer_whose_browser_hangs_kills_it(tmp_path: Path) -> None:
    renderer = Renderer(stuck_after_s=1)
    renderer.render(page(tmp_path, "<p>up</p>"), "page.html", SMALL)
    processes = browser_processes(renderer)
    for pid in processes:
        os.kill(pid, signal.SIGSTOP)
    started = time.monotonic()
    renderer.close()
    assert time.monotonic() - started < 6
    assert gone(processes)
