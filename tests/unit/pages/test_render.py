"""Rendering untrusted HTML in real Chromium (Debian's package, driven by playwright)."""

from __future__ import annotations

import http.server
import io
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from pytest_visioneval.pages.render import Renderer, RenderError, RenderOptions, find_chromium

SMALL = RenderOptions(width=320, height=240, full_page=False, timeout_ms=5000)


@pytest.fixture(scope="module")
def renderer() -> Iterator[Renderer]:
    shared = Renderer()
    yield shared
    shared.close()


@pytest.fixture
def listener() -> Iterator[tuple[int, list[str]]]:
    """A local HTTP server that records every request it gets."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()

        do_POST = do_GET

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], hits
    server.shutdown()
    server.server_close()


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
    with pytest.raises(RenderError, match=r"did not finish loading the page within 1\.5 s.*stopped.*spinning"):
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


def test_local_images_next_to_the_page_are_shown(renderer: Renderer, tmp_path: Path) -> None:
    site = page(tmp_path, '<body style="margin:0"><img src="showcase-1.png" alt="green" style="width:100px;height:100px"></body>')
    Image.new("RGB", (10, 10), (0, 180, 0)).save(site / "showcase-1.png")
    result = renderer.render(site, "page.html", RenderOptions(width=200, height=200, full_page=True))
    shot = Image.open(io.BytesIO(result.screenshots[0])).convert("RGB")
    assert shot.getpixel((50, 50)) == (0, 180, 0)
    assert shot.getpixel((150, 150)) == (255, 255, 255)
    assert result.full_page is not None and result.missing == []


def test_missing_local_file_is_listed(renderer: Renderer, tmp_path: Path) -> None:
    result = renderer.render(page(tmp_path, '<img src="not-generated.png" alt="x">'), "page.html", SMALL)
    assert result.missing == ["not-generated.png"]


def test_without_chromium_the_error_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("VISIONEVAL_CHROMIUM", raising=False)
    with pytest.raises(RenderError, match="install Debian's 'chromium' package"):
        find_chromium()
    with pytest.raises(RenderError, match="not found: '/no/such/chrome'"):
        find_chromium("/no/such/chrome")
