"""The page around every HTML view (report, compare, pairwise): one template, one stylesheet, one script.

The templates (``templates/``: ``page.html.j2``, the pages that extend it and the
``macros.html.j2`` they share) are rendered by jinja2 with autoescaping on, so
any text from a run is escaped; the stylesheet and script are package data
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
from typing import Any

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
    return Environment(
        loader=PackageLoader(__package__, "templates"),
        autoescape=select_autoescape(["j2"], default=True),
        trim_blocks=True,  # a block tag's own line break is not output: the templates can be laid out for reading
        lstrip_blocks=True,
    )


@cache
def macros(template: str) -> Any:
    """The macros of a template, to call from Python (each returns Markup)."""
    return _environment().get_template(template).module


def csp(css: str, js: str, img_src: str) -> str:
    # Hashes rather than 'unsafe-inline': even a markup injection that slipped past escaping could not run a script.
    return (
        f"default-src 'none'; img-src {img_src}; style-src {csp_hash(css)}; script-src {csp_hash(js)}; "
        "base-uri 'none'; form-action 'none'"
    )


def render_page(
    title: str, parts: Iterable[str] = (), *, img_src: str = "data:", template: str = "page.html.j2", **context: Any
) -> str:
    """A whole page, with the shared style, script and policy.

    ``template`` extends ``page.html.j2`` and fills its body from ``context``; the plain shell puts ``parts``
    (HTML our own code made) in the body.
    """
    css, js = asset("html_page.css"), asset("html_page.js")
    return (
        _environment()
        .get_template(template)
        .render(
            csp=Markup(csp(css, js, img_src)),  # our own constant: its quotes stay quotes
            title=title,
            css=Markup(css),
            script=Markup(js),
            parts=[Markup(part) for part in parts],
            **context,
        )
    )
