"""No API key reaches the browser: Chromium starts with an allowlisted environment."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pytest_visioneval.pages.browser_env import browser_environment
from pytest_visioneval.pages.process_tree import command_line, descendants, read_proc
from pytest_visioneval.pages.render import Renderer, RenderOptions

KEY = "sk-test-must-not-reach-the-browser"


def test_the_allowlist_keeps_what_chromium_needs_and_drops_keys() -> None:
    given = {"PATH": "/bin", "HOME": "/root", "LC_ALL": "C.UTF-8", "XDG_CACHE_HOME": "/c", "OPENAI_API_KEY": KEY}
    given |= {"AWS_SECRET_ACCESS_KEY": "x", "GITHUB_TOKEN": "y", "OPENAI_BASE_URL": "http://h"}
    assert browser_environment(given) == {"PATH": "/bin", "HOME": "/root", "LC_ALL": "C.UTF-8", "XDG_CACHE_HOME": "/c"}


@pytest.mark.skipif(sys.platform != "linux", reason="reads the browser's environment in /proc")
def test_the_running_browser_holds_no_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    (tmp_path / "page.html").write_text("<p>hello</p>")
    renderer = Renderer()
    try:
        renderer.render(tmp_path, "page.html", RenderOptions(width=320, height=240, full_page=False, timeout_ms=5000))
        tag = renderer._browser_tag.encode()
        browser = [pid for pid in descendants(os.getpid()) if tag in (command_line(pid) or b"").split(b"\0")]
        assert browser, "no browser process found"
        # The browser and every process below it (renderers, GPU and utility processes).
        processes = {p for root in browser for p in (root, *descendants(root))}
        environments = {pid: read_proc(pid, "environ") for pid in processes}
        readable = {pid: env for pid, env in environments.items() if env is not None}
        assert readable, "no browser environment could be read"
        holding = [pid for pid, env in readable.items() if KEY.encode() in env or b"OPENAI_API_KEY=" in env]
        assert holding == [], f"{len(holding)} of {len(readable)} browser process(es) hold OPENAI_API_KEY"
        assert any(b"PATH=" in (readable.get(pid) or b"") for pid in browser)  # the allowlist did reach the browser
    finally:
        renderer.close()
