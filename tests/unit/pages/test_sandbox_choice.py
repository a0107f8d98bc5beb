"""Chromium's sandbox where the machine allows it; otherwise off, with the reason in render.json."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pytest_visioneval.pages.render import Renderer, RenderOptions
from pytest_visioneval.pages.sandbox_choice import sandbox_choice, user_namespaces_allowed


def test_root_runs_without_the_sandbox_and_says_why() -> None:
    assert sandbox_choice(euid=0, userns=True) == (
        False,
        "off: running as root, where Chromium's sandbox cannot start (it needs another user)",
    )


def test_another_user_needs_user_namespaces() -> None:
    assert sandbox_choice(euid=1000, userns=True) == (True, "on")
    used, why = sandbox_choice(euid=1000, userns=False)
    assert not used and "unprivileged user namespaces" in why


def test_user_namespace_switches_are_read(tmp_path: Path) -> None:
    on, off, absent = tmp_path / "on", tmp_path / "off", tmp_path / "absent"
    on.write_text("1\n")
    off.write_text("0\n")
    assert user_namespaces_allowed((on, absent)) is True
    assert user_namespaces_allowed((on, off)) is False


def test_render_json_says_whether_the_sandbox_was_used(renderer: Renderer, tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text("<p>hello</p>")
    result = renderer.render(tmp_path, "page.html", RenderOptions(width=320, height=240, full_page=False))
    report = json.loads(json.dumps(result.report()))
    expected = sandbox_choice()[1]
    assert report["chromium_sandbox"] in (expected, renderer.sandbox)
    assert report["chromium_sandbox"] == "on" or report["chromium_sandbox"].startswith("off: ")
    if os.geteuid() == 0:
        assert report["chromium_sandbox"].startswith("off: running as root")
