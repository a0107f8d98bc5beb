"""report/html_shell.py: one template, stylesheet and script for every page, autoescaped, locked by its CSP."""

from __future__ import annotations

import base64
import hashlib
import re

from pytest_visioneval.report.html_shell import asset, render_page
from pytest_visioneval.report.view_html import render

HOSTILE = "<script>alert(1)</script>"


def sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def test_the_title_is_escaped_and_the_parts_are_kept_as_html() -> None:
    html = render_page(HOSTILE, ["<p>already <b>escaped</b> &lt;x&gt;</p>"])
    assert HOSTILE not in html
    assert "<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>" in html
    assert "<p>already <b>escaped</b> &lt;x&gt;</p>" in html


def test_the_policy_allows_exactly_the_inlined_style_and_script_and_the_images_asked_for() -> None:
    html = render_page("t", [], img_src="data: 'self' file:")
    style = re.search(r"<style>(.*?)</style>", html, re.S).group(1)  # type: ignore[union-attr]
    script = re.search(r"<script>(.*?)</script>", html, re.S).group(1)  # type: ignore[union-attr]
    assert style == asset("html_page.css") and script == asset("html_page.js")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)  # type: ignore[union-attr]
    assert policy == (
        f"default-src 'none'; img-src data: 'self' file:; style-src {sha(style)}; script-src {sha(script)}; "
        "base-uri 'none'; form-action 'none'"
    )


def test_compare_and_pairwise_pages_share_the_reports_style_and_script() -> None:
    html = render("compare.html.j2", "comparison", runs=[], method=HOSTILE, level="95%", pairs=[], score_header=[])
    assert "<h1>Comparison</h1>" in html and HOSTILE not in html  # the template escapes what it is given
    assert asset("html_page.css") in html and asset("html_page.js") in html
    assert html.count("<script>") == 1 and html.count("<style>") == 1
    assert "img-src data:;" in html  # embedded thumbnails only: no files, no network
