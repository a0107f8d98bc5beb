"""``use: html`` - the structure of a generated HTML page, as gates.

Grades the first artifact of kind ``html`` (the reason names it when there are
several), parsed with BeautifulSoup's ``html.parser``: it ships with Python,
so the grader needs no lxml or html5lib and parses the same way everywhere.

Gates:

* ``parses``     - the page looks like HTML: it has an ``<html>`` or ``<body>``
  element, or at least one standard HTML element (so plain text, Markdown,
  JSON or ``<think>``-style pseudo tags fail). When it fails, or there is no
  HTML artifact, no other gate or metric is reported.
* ``img_count``  - the number of ``<img>`` elements is ``img_count``, or within
  ``min_imgs`` .. ``max_imgs``.
* ``img_alt``    - every ``<img>`` has an alt that is not empty or blank (on unless
  ``require_alt: false``). Decorative ``alt=""`` fails too: a generated page
  should say what its images show.
* ``required_text`` - each string of ``required_text`` is in the visible text,
  ignoring case and runs of whitespace.
* ``required_selectors`` - each CSS selector of ``required_selectors`` matches.
* ``img_files``  - with ``img_files: true``, every ``<img>`` src is an image file the
  output holds (a relative name, as the page's folder serves it, that decodes as an
  image or is an SVG) or a ``data:image/`` URI; a remote URL, a file the model did not
  return, a file that is not an image, the page itself and the renderer's captures
  (``screenshot-N.png``, ``fullpage.png``, ...) fail, naming it.

Metrics: ``img_count`` and ``alt_coverage`` (share of ``<img>`` with a good
alt; 1.0 for a page without images, in line with ``img_alt`` passing it).

What is judged: when the case is rendered (``render``), what rendered. The
``<img>`` gates and ``required_selectors`` read the DOM after the page's scripts
ran (``dom-snapshot.txt``), and ``required_text`` reads the text a person sees at
the capture, as the renderer measured it right after the screenshots
(``render.json``: text hidden by CSS, covered by another element, clipped away,
off-screen or the colour of what is beneath it does not count, nor text that is
not there yet). A string that is missing is named with why: "'Add to cart' is
covered by div#loading-overlay at the capture (2.0 s after load)", "'$49' is
hidden (display:none on section#main) ...", "'Buy now' is not on the page at the
capture ...". A page whose text could not be measured fails ``required_text``.
``parses`` always reads the page's source, because Chromium wraps anything, even
prose, in ``<html><body>``.

Without ``render``, the page's source: visible text is the text of ``<body>``
content outside ``<head>``, ``<script>``, ``<style>``, ``<template>`` and
``<noscript>``, plus the ``placeholder`` of form fields and the ``value`` of
button-like ``<input>``. CSS is not applied, so text hidden with ``display: none``
still counts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:  # bs4 and soupsieve are imported when a page is graded, not at plugin start
    from bs4 import BeautifulSoup, Tag

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..errors import GraderError
from .base import Gate, Grade, GradeContext, Metric
from .page_seen import why_not_seen
from .rendered import DOM_NAME, OutputImages, latest, read_report

# The elements of the WHATWG HTML standard (plus a few obsolete ones models
# still write), for telling an HTML page from text that merely holds a tag.
HTML_ELEMENTS = frozenset(
    """
    a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption
    center cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset
    figcaption figure font footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input
    ins kbd label legend li link main map mark math menu meta meter nav noscript object ol optgroup
    option output p picture pre progress q rp rt ruby s samp script search section select slot small
    source span strong style sub summary sup svg table tbody td template textarea tfoot th thead time
    title tr track u ul var video wbr
    """.split()
)
_INVISIBLE = ("head", "script", "style", "template", "noscript")
_BUTTON_INPUTS = frozenset({"button", "submit", "reset"})


class HtmlGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "img_count": {"type": "integer", "minimum": 0},
            "min_imgs": {"type": "integer", "minimum": 0},
            "max_imgs": {"type": "integer", "minimum": 0},
            "require_alt": {"type": "boolean", "default": True},
            "required_text": {"type": "array", "items": {"type": "string", "minLength": 1}},
            "required_selectors": {"type": "array", "items": {"type": "string", "minLength": 1}},
            "img_files": {"type": "boolean", "default": False},
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        self.options = dict(options)

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        if case.task != "html_generation":
            return f"the html grader grades HTML pages; this case's task is {case.task}"
        if "img_count" in options and ("min_imgs" in options or "max_imgs" in options):
            return "'img_count' is an exact count; do not combine it with 'min_imgs'/'max_imgs'"
        if options.get("min_imgs", 0) > options.get("max_imgs", float("inf")):
            return f"'min_imgs' ({options['min_imgs']}) is above 'max_imgs' ({options['max_imgs']})"
        bad = invalid_selectors(options.get("required_selectors", ()))
        if bad:
            return "invalid CSS selector(s) in 'required_selectors': " + "; ".join(bad)
        return None

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        pages = [a for a in artifacts if a.kind == "html"]
        if not pages:
            return Grade(gates=(Gate("parses", False, "the output holds no HTML"),))
        page = pages[0]
        which = page.name if len(pages) == 1 else f"{page.name} (the first of {len(pages)} HTML artifacts)"
        from bs4 import BeautifulSoup

        parses = _parses(BeautifulSoup(page.data, "html.parser"), which)
        if not parses.passed:
            return Grade(gates=(parses,))
        dom = latest(artifacts, DOM_NAME) if case.render is not None else None
        soup = BeautifulSoup(dom.data if dom is not None else page.data, "html.parser")
        where = f"the rendered DOM of {page.name}" if dom is not None else which
        in_dom = " in the rendered DOM" if dom is not None else ""
        imgs = soup.find_all("img")
        missing_alt = [(i, img) for i, img in enumerate(imgs, 1) if not str(img.get("alt") or "").strip()]
        gates = [parses]
        if {"img_count", "min_imgs", "max_imgs"} & self.options.keys():
            gates.append(self._img_count(len(imgs), in_dom))
        if self.options.get("require_alt", True):
            gates.append(_img_alt(imgs, missing_alt))
        if "required_text" in self.options:
            wanted = self.options["required_text"]
            gates.append(_rendered_text(artifacts, wanted) if dom is not None else _required_text(visible_text(soup), wanted))
        if "required_selectors" in self.options:
            gates.append(_required_selectors(soup, self.options["required_selectors"]))
        if self.options.get("img_files", False):
            gates.append(_img_files(imgs, OutputImages(artifacts)))
        coverage = (len(imgs) - len(missing_alt)) / len(imgs) if imgs else 1.0
        metrics = (
            Metric("img_count", len(imgs), f"{len(imgs)} <img> element(s) in {where}"),
            Metric(
                "alt_coverage",
                coverage,
                f"{len(imgs) - len(missing_alt)} of {len(imgs)} <img> have a non-blank alt" if imgs else "no <img> elements",
            ),
        )
        return Grade(gates=tuple(gates), metrics=metrics)

    def _img_count(self, n: int, where: str = "") -> Gate:
        opts = self.options
        if "img_count" in opts:
            return Gate("img_count", n == opts["img_count"], f"{n} <img> element(s){where}, expected {opts['img_count']}")
        low, high = opts.get("min_imgs"), opts.get("max_imgs")
        passed = (low is None or n >= low) and (high is None or n <= high)
        if low is not None and high is not None:
            want = f"{low} to {high}"
        else:
            want = f"at least {low}" if low is not None else f"at most {high}"
        return Gate("img_count", passed, f"{n} <img> element(s){where}, expected {want}")


def _parses(soup: BeautifulSoup, which: str) -> Gate:
    tags = [t.name for t in soup.find_all(True)]
    known = [name for name in tags if name in HTML_ELEMENTS]
    if "html" in known or "body" in known:
        return Gate("parses", True, f"{which}: an HTML page of {len(tags)} element(s)")
    if known:
        return Gate("parses", True, f"{which}: an HTML fragment of {len(tags)} element(s), without <html> or <body>")
    found = f" (only non-HTML tags: {', '.join(sorted(set(tags)))})" if tags else ""
    return Gate("parses", False, f"{which} does not look like HTML: no HTML element{found}")


def _img_alt(imgs: list[Tag], missing: list[tuple[int, Tag]]) -> Gate:
    if not imgs:
        return Gate("img_alt", True, "no <img> elements")
    if not missing:
        return Gate("img_alt", True, f"all {len(imgs)} <img> have a non-blank alt")
    listed = ", ".join(f"{_img_label(i, img)} ({'no alt' if img.get('alt') is None else 'blank alt'})" for i, img in missing)
    return Gate("img_alt", False, f"{len(missing)} of {len(imgs)} <img> lack a non-blank alt: {listed}")


def _img_files(imgs: list[Tag], outputs: OutputImages) -> Gate:
    from urllib.parse import unquote, urlsplit

    bad = []
    for i, img in enumerate(imgs, 1):
        src = str(img.get("src") or "").strip()
        if src.lower().startswith("data:image/"):
            continue
        parts = urlsplit(src)
        if not src or parts.scheme or parts.netloc:
            bad.append(_img_label(i, img) + (" (a remote URL)" if parts.scheme or parts.netloc else " (not in the output)"))
            continue
        problem = outputs.problem(unquote(parts.path).removeprefix("./"))
        if problem is not None:
            bad.append(f"{_img_label(i, img)} ({problem})")
    if bad:
        return Gate("img_files", False, f"{len(bad)} of {len(imgs)} <img> do not show a file of the output: " + ", ".join(bad))
    return Gate("img_files", True, f"all {len(imgs)} <img> show files of the output" if imgs else "no <img> elements")


def _img_label(position: int, img: Tag) -> str:
    src = str(img.get("src") or "").strip()
    if not src:
        return f"<img> #{position} without src"
    return src if len(src) <= 80 else src[:77] + "..."  # data: URIs can be megabytes


def _required_text(text: str, wanted: Sequence[str], where: str = "", why: Callable[[str], str] = repr) -> Gate:
    text = _normalize(text)
    missing = [s for s in wanted if _normalize(s) not in text]
    if missing:
        listed = ("; " if why is not repr else ", ").join(map(why, missing))
        return Gate("required_text", False, f"{len(missing)} of {len(wanted)} missing{where}: {listed}")
    return Gate("required_text", True, f"all {len(wanted)} present{where}")


def _rendered_text(artifacts: Sequence[Artifact], wanted: Sequence[str]) -> Gate:
    """``required_text`` against the text the renderer measured as visible (CSS applied)."""
    try:
        report = read_report(artifacts)
    except ValueError as exc:
        return Gate("required_text", False, f"the rendered text could not be read: {exc}")
    text = report.get("visible_text") if report else None
    if not isinstance(text, str):
        why = (report or {}).get("measure_error") or "render.json holds no visible text"
        return Gate("required_text", False, f"the rendered text could not be measured: {why}")
    return _required_text(text, wanted, " from the rendered page's visible text", lambda s: why_not_seen(report, s))


def _required_selectors(soup: BeautifulSoup, selectors: Sequence[str]) -> Gate:
    import soupsieve

    try:
        missing = [s for s in selectors if soup.select_one(s) is None]
    except soupsieve.SelectorSyntaxError as exc:
        raise GraderError(f"html: invalid CSS selector in 'required_selectors': {exc}") from exc
    if missing:
        return Gate("required_selectors", False, f"{len(missing)} of {len(selectors)} match nothing: " + ", ".join(missing))
    return Gate("required_selectors", True, f"all {len(selectors)} match")


def visible_text(soup: BeautifulSoup) -> str:
    """The text a reader sees, with element boundaries as spaces (``<b>Sign</b>in`` reads "Sign in")."""
    from bs4 import NavigableString

    # Exact type: comments, doctypes and CDATA are NavigableString subclasses.
    strings = [str(s) for s in soup.find_all(string=True) if type(s) is NavigableString and s.find_parent(_INVISIBLE) is None]
    strings += [str(t["placeholder"]) for t in soup.find_all(["input", "textarea"]) if t.get("placeholder")]
    strings += [
        str(t["value"]) for t in soup.find_all("input") if t.get("value") and str(t.get("type", "")).lower() in _BUTTON_INPUTS
    ]
    return " ".join(strings)


def invalid_selectors(selectors: Sequence[str]) -> list[str]:
    import soupsieve

    bad = []
    for selector in selectors:
        try:
            soupsieve.compile(selector)
        except soupsieve.SelectorSyntaxError as exc:
            bad.append(f"{selector!r}: {str(exc).splitlines()[0]}")
    return bad


def _normalize(text: str) -> str:
    return " ".join(text.split()).casefold()
