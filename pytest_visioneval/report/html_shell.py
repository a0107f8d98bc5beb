"""The page around every HTML view (report, compare, pairwise): one template, one stylesheet, one script.

The template (``templates/page.html.j2``) is rendered by jinja2 with autoescaping on,
so a title from a run is always escaped; the stylesheet and script are package data
(``html_page.css``, ``html_page.js``) inlined into the page, which stays one file that
works offline. Their hashes go into the page's Content-Security-Policy, which allows
nothing else to run or style the page, and images only from where ``img_src`` says.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from functools import cache
from importlib import resources

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup


def csp_hash(source: str) -> str:
    """The Content-Security-Policy source that allows exactly this inline style or script."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"


@cache
def asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


@cache
def _environment() -> Environment:
    return Environment(loader=PackageLoader(__package__, "templates"), autoescape=select_autoescape(["j2"], default=True))


def csp(css: str, js: str, img_src: str) -> str:
    # Hashes rather than 'unsafe-inline': even a markup injection that slipped past escaping could not run a script.
    return (
        f"default-src 'none'; img-src {img_src}; style-src {csp_hash(css)}; script-src {csp_hash(js)}; "
        "base-uri 'none'; form-action 'none'"
    )


def render_page(title: str, parts: Iterable[str], *, img_src: str = "data:") -> str:
    """A whole page: ``parts`` (HTML its builders escaped) in the body, with the shared style, script and policy."""
    css, js = asset("html_page.css"), asset("html_page.js")
    return (
        _environment()
        .get_template("page.html.j2")
        .render(
            csp=Markup(csp(css, js, img_src)),  # our own constant: its quotes stay quotes
            title=title,
            css=Markup(css),
            script=Markup(js),
            parts=[Markup(part) for part in parts],
        )
    )
