"""``use: render_check`` - did the page render cleanly? Gates from the Chromium capture.

For ``html_generation`` cases with ``render``. Reads the captures the
rendering step added (``screenshot-N.png``, ``fullpage.png``) and its report
(``render.json``).

Gates:

* ``captured``       - the page was rendered: ``render.json`` and at least one
  screenshot are there (when not, nothing else is reported).
* ``no_page_errors`` - at most ``max_page_errors`` (default 0) page errors
  while loading and capturing: uncaught JavaScript exceptions, and scripts or
  modules that did not load (a ``<script src>`` or an import of a file the
  output lacks, of a CDN file the mirror does not have, of a blocked URL:
  ``failed_scripts``); the reason quotes them, naming each URL.
* ``visible``        - (on unless ``visible: false``) the page is not hidden:
  neither ``<html>`` nor ``<body>`` has ``display: none``, ``opacity: 0`` or
  ``content-visibility: hidden``, and a ``<body>`` with ``visibility: hidden``
  still shows some text or image (its children may set ``visible``).
* ``not_blank``      - at least one capture shows something: at least
  ``min_content`` (default 0.00005, about 46 pixels of a 1280x720 capture) of
  its pixels differ from its background (its most common colour) by more
  than 16 of 255 in some channel. A share of pixels rather than a luminance
  spread, because a small icon on a large white page is content, not a blank
  page. "At least one" capture, because a page may fade in, or show its
  content only after a delay.
* ``imgs_loaded``    - (on unless ``imgs_loaded: false``) every ``<img>`` of the
  rendered page loaded: ``complete`` with a ``naturalWidth`` above 0, measured
  after the captures; the reason names each one that did not and why (no such
  file, blocked, not decodable, still loading).
* ``imgs_shown``     - (on unless ``imgs_shown: false``) of the ``<img>`` that
  loaded, at least one is shown (not ``display: none``, ``visibility:
  hidden``, ``opacity: 0``, and with a size): pictures made and then hidden
  leave the page without them, as a person sees it. A carousel or tabs show
  one of several, which passes.
* ``graphics_shown`` - (on unless ``graphics_shown: false``) of the drawn pictures
  (``<svg>`` not inside another, ``<canvas>``, ``<video>``) that take room on the
  page (16 px or more each way), at least one is shown: not ``visibility:
  hidden``, ``opacity: 0`` or an opacity under 0.1 over its ancestors. A sprite
  sheet or an off-screen canvas is ``display: none`` and takes no room, so it
  is not counted. Not applied when the page has none.
* ``fits_width``     - (on unless ``fits_width: false``) the page is no wider than
  its viewport (2% and 8 px of slack), or its ``<html>``/``<body>`` does not let a
  person scroll sideways (``overflow-x: hidden``, whatever it cuts is decoration
  as far as this gate knows): a page a person must scroll sideways to read is cut
  off in every capture, which are as wide as the viewport.
* ``text_kept``      - (on unless ``text_kept: false``) the words the page's source
  writes in its body are still in its DOM at the capture, hidden or not (at
  least 30% of them): its scripts did not take the content away (see
  :mod:`.page_kept`), unless the DOM holds more words than the source (a page
  built by script). Not applied to a source of fewer than 4 words.
* ``img_sources``    - (with ``img_sources: true``) every ``<img>`` shows an image
  file of the model's output, by the URL the browser resolved: a file that
  decodes as an image (or an SVG), not the page itself and not a capture the
  renderer writes (``screenshot-N.png``, ``fullpage.png``, ...); ``data:image/``
  URIs are fine.

What a person sees, measured right after the captures (``render.json``'s
``text``, see ``pages/seen_text.py`` and ``graders/page_seen.py``), each on
unless set to ``false``:

* ``not_covered``    - no element covers more than ``max_covered_share``
  (default 0.25) of the page's laid-out text, and none that spans
  ``max_cover_viewport`` (default 0.5) of the viewport or more covers any
  (a loading overlay over a finished page); a cookie bar or a sticky header
  covers little, and what scrolls out from under it counts as seen.
* ``text_shown``     - no single block of unseen text (hidden by CSS,
  clipped away, off-screen, invisible in place) holds as many pieces of
  content (text nodes, pictures, drawn shapes) as the page shows, unless it is the
  page working as meant: in a closed ``<details>``, a ``<nav>``, a dialog or
  menu, a positioned layer (a modal, a dropdown), one of several alike with
  another shown (tabs, slides, steps), a screen-reader label, a carousel;
  and at most ``max_faint_share`` (default 0.1) of the laid-out text is the
  colour of what is beneath it.
* ``text_legible``   - the page's text can be read in its capture: of the words
  the page shows (``visible_text``), at least ``min_legible`` (default 0.5)
  are read back by tesseract from the full-page capture (else, of the text
  seen on the first screen, from the last screenshot); a blurred, turned, mirrored, squashed or shrunk page shows
  its text to the DOM and to nobody else, and a faint line (ink within 45
  grey levels of its ground) does not count (:mod:`.page_legible`). Pages
  showing fewer than four words are not judged; ``legible: false`` turns
  it off.
* ``tables_filled``  - every rendered ``<table>`` with a header (a
  ``<thead>`` row, a row of ``<th>``, a caption) shows something in its body
  cells.

These and the ``visible`` and image gates read what the renderer measured
in the page (``render.json``); a page that could not be measured fails
them, naming why.

Metric ``blank_captures``: how many captures are blank (lower is better).
Console errors and blocked requests are already the ``render.*`` metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..errors import GraderError
from .base import Gate, Grade, GradeContext, Metric
from .imaging import content_share as pixel_content_share
from .imaging import decode, rgb_array
from .page_kept import text_kept_gate
from .page_layout import fits_width_gate, graphics_shown_gate
from .page_legible import MIN_LEGIBLE, MIN_WORDS, legibility, legible_gate, page_words
from .page_seen import (
    MAX_COVER_VIEWPORT,
    MAX_COVERED_SHARE,
    MAX_FAINT_SHARE,
    not_covered_gate,
    tables_filled_gate,
    text_shown_gate,
)
from .rendered import DOM_NAME, REPORT_NAME, OutputImages, latest, read_report, screenshots

_TOLERANCE = 16  # of 255: anti-aliasing and JPEG-like noise stay below it
_LABEL = 80  # characters of an <img> src quoted in a reason


class RenderCheckGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "max_page_errors": {"type": "integer", "minimum": 0},
            "min_content": {"type": "number", "minimum": 0, "maximum": 1},
            "visible": {"type": "boolean", "default": True},
            "imgs_loaded": {"type": "boolean", "default": True},
            "img_sources": {"type": "boolean", "default": False},
            "imgs_shown": {"type": "boolean", "default": True},
            "graphics_shown": {"type": "boolean", "default": True},
            "text_kept": {"type": "boolean", "default": True},
            "fits_width": {"type": "boolean", "default": True},
            "not_covered": {"type": "boolean", "default": True},
            "max_covered_share": {"type": "number", "minimum": 0, "maximum": 1, "default": MAX_COVERED_SHARE},
            "max_cover_viewport": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": MAX_COVER_VIEWPORT},
            "text_shown": {"type": "boolean", "default": True},
            "max_faint_share": {"type": "number", "minimum": 0, "maximum": 1, "default": MAX_FAINT_SHARE},
            "tables_filled": {"type": "boolean", "default": True},
            "legible": {"type": "boolean", "default": True},
            "min_legible": {"type": "number", "minimum": 0, "maximum": 1, "default": MIN_LEGIBLE},
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        self.max_page_errors: int = int(options.get("max_page_errors", 0))
        self.min_content: float = float(options.get("min_content", 0.00005))
        self.visible: bool = bool(options.get("visible", True))
        self.imgs_loaded: bool = bool(options.get("imgs_loaded", True))
        self.img_sources: bool = bool(options.get("img_sources", False))
        self.imgs_shown: bool = bool(options.get("imgs_shown", True))
        self.graphics_shown: bool = bool(options.get("graphics_shown", True))
        self.text_kept: bool = bool(options.get("text_kept", True))
        self.fits_width: bool = bool(options.get("fits_width", True))
        self.not_covered: bool = bool(options.get("not_covered", True))
        self.max_covered_share: float = float(options.get("max_covered_share", MAX_COVERED_SHARE))
        self.max_cover_viewport: float = float(options.get("max_cover_viewport", MAX_COVER_VIEWPORT))
        self.text_shown: bool = bool(options.get("text_shown", True))
        self.max_faint_share: float = float(options.get("max_faint_share", MAX_FAINT_SHARE))
        self.tables_filled: bool = bool(options.get("tables_filled", True))
        self.legible: bool = bool(options.get("legible", True))
        self.min_legible: float = float(options.get("min_legible", MIN_LEGIBLE))

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        if case.task != "html_generation":
            return f"render_check checks rendered pages; this case's task is {case.task}"
        if case.render is None:
            return "render_check needs the page rendered: set 'render' on the case"
        return None

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        try:
            report = read_report(artifacts)
            page_errors = [str(e) for e in report["page_errors"]] if report is not None else []
            failed_scripts = [str(s) for s in report.get("failed_scripts") or ()] if report is not None else []
        except (ValueError, KeyError, TypeError) as exc:
            raise GraderError(f"render_check: cannot read {REPORT_NAME}: {exc}") from exc
        captures = screenshots(artifacts, report)
        if report is None or not captures:
            return Grade(gates=(Gate("captured", False, "the page was not rendered: no render.json or no screenshot"),))
        images = {a.name: decoded_capture(a) for a in captures}  # once each, for not_blank and text_legible
        shares = {name: pixel_content_share(rgb_array(image), _TOLERANCE) for name, image in images.items()}
        blank = [name for name, share in shares.items() if share < self.min_content]
        gates = [
            Gate("captured", True, f"{len(captures)} capture(s): {', '.join(shares)}"),
            self._page_errors(page_errors, failed_scripts),
        ]
        if self.visible:
            gates.append(visible_gate(report))
        gates.append(self._not_blank(shares, blank))
        if self.not_covered:
            gates.append(not_covered_gate(report, self.max_covered_share, self.max_cover_viewport))
        if self.text_shown:
            gates.append(text_shown_gate(report, self.max_faint_share))
        if self.tables_filled:
            gates.append(tables_filled_gate(report))
        if self.fits_width:
            fits = fits_width_gate(report)
            if fits is not None:
                gates.append(fits)
        if self.text_kept:
            kept = self._kept(report, artifacts)
            if kept is not None:
                gates.append(kept)
        if self.legible:
            legible = self._legible(report, captures, images)
            if legible is not None:
                gates.append(legible)
        if self.imgs_loaded:
            gates.append(imgs_loaded_gate(report))
        if self.imgs_shown:
            shown = imgs_shown_gate(report)
            if shown is not None:
                gates.append(shown)
        if self.graphics_shown:
            drawn = graphics_shown_gate(report)
            if drawn is not None:
                gates.append(drawn)
        if self.img_sources:
            gates.append(img_sources_gate(report, OutputImages(artifacts)))
        reason = f"blank: {', '.join(blank)}" if blank else "none blank"
        return Grade(gates=tuple(gates), metrics=(Metric("blank_captures", len(blank), reason, higher_is_better=False),))

    def _kept(self, report: Mapping[str, Any], artifacts: Sequence[Artifact]) -> Gate | None:
        """The source's words still in the DOM at the capture (:mod:`.page_kept`); None without both to compare."""
        dom = latest(artifacts, DOM_NAME)
        pages = [a for a in artifacts if a.kind == "html"]
        entry = str(report.get("entry") or "")
        source = next((a for a in pages if a.name == entry), pages[0] if pages else None)
        return None if dom is None or source is None else text_kept_gate(source.data, dom.data, source.name)

    def _legible(self, report: Mapping[str, Any], captures: Sequence[Artifact], images: Mapping[str, Any]) -> Gate | None:
        """The page's words read back from its capture (:mod:`.page_legible`); None when it shows too few to judge."""
        from .ocr import NOT_INSTALLED, tesseract_installed

        whole = [a for a in captures if a.name == "fullpage.png"]
        if whole:
            capture, text = whole[0], str(report.get("visible_text") or "")
        else:  # a screenshot shows the first screen: the text the renderer saw there
            seen = report.get("text")
            capture, text = captures[-1], str(seen.get("first_screen") or "") if isinstance(seen, dict) else ""
        if len(page_words(text)) < MIN_WORDS:
            return None
        if not tesseract_installed():
            missing = NOT_INSTALLED.replace("the text grader", "render_check's text_legible")
            return Gate("text_legible", False, missing + "; or set legible: false")
        return legible_gate(legibility(text, capture.name, images[capture.name]), self.min_legible)

    def _page_errors(self, errors: list[str], failed_scripts: list[str]) -> Gate:
        if not errors and not failed_scripts:
            return Gate("no_page_errors", True, "no uncaught exception, every script loaded")
        passed = len(errors) + len(failed_scripts) <= self.max_page_errors
        counted = [f"{len(errors)} uncaught exception(s)"] if errors else []
        counted += [f"{len(failed_scripts)} script(s) that did not load"] if failed_scripts else []
        every = [e.splitlines()[0][:200] for e in errors] + [f"did not load: {s[:300]}" for s in failed_scripts]
        listed = "; ".join(every[:3]) + (f" (+{len(every) - 3} more)" if len(every) > 3 else "")
        return Gate("no_page_errors", passed, f"{' and '.join(counted)} (allowed {self.max_page_errors}): {listed}")

    def _not_blank(self, shares: Mapping[str, float], blank: list[str]) -> Gate:
        if len(blank) < len(shares):
            best = max(shares, key=lambda name: shares[name])
            return Gate("not_blank", True, f"{best} shows content ({shares[best]:.2%} of pixels off the background)")
        listed = ", ".join(f"{name} ({share:.3%})" for name, share in shares.items())
        return Gate(
            "not_blank", False, f"every capture is blank: {listed} of pixels off the background; need {self.min_content:.3%}"
        )


def _not_measured(name: str, report: Mapping[str, Any]) -> Gate:
    why = report.get("measure_error") or "render.json holds no measurement of the page"
    return Gate(name, False, f"the rendered page could not be measured: {why}")


def visible_gate(report: Mapping[str, Any]) -> Gate:
    """The page is not hidden as a whole (by its <html> or <body> style)."""
    styles = report.get("visibility")
    if not isinstance(styles, dict) or not isinstance(styles.get("html"), dict):
        return _not_measured("visible", report)
    present = [(tag, styles[tag]) for tag in ("html", "body") if isinstance(styles.get(tag), dict)]
    hidden = [f"<{tag}> has {rule}" for tag, style in present for rule in _hiding_rules(style)]
    inner_tag, inner = present[-1]  # <body>, or <html> when the page has no body
    text = str(report.get("visible_text") or "").strip()
    shown = [i for i in report.get("images") or () if isinstance(i, dict) and i.get("visible")]
    if not hidden and inner.get("visibility") != "visible" and not text and not shown:
        hidden.append(f"<{inner_tag}> has visibility: {inner.get('visibility')} and nothing in it is visible")
    if hidden:
        return Gate("visible", False, "the page is hidden: " + "; ".join(hidden))
    return Gate("visible", True, f"the page is shown: {len(text)} characters of visible text, {len(shown)} visible <img>")


def _hiding_rules(style: Mapping[str, Any]) -> list[str]:
    rules = []
    if style.get("display") == "none":
        rules.append("display: none")
    if isinstance(style.get("opacity"), (int, float)) and style["opacity"] <= 0:
        rules.append("opacity: 0")
    if style.get("content_visibility") == "hidden":
        rules.append("content-visibility: hidden")
    return rules


def _measured_images(report: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    images = report.get("images")
    if not isinstance(images, list) or not all(isinstance(i, dict) for i in images):
        return None
    return images


def _img_label(position: int, image: Mapping[str, Any]) -> str:
    src = str(image.get("src") or "").strip()
    if not src:
        return f"<img> #{position} without src"
    return src if len(src) <= _LABEL else src[: _LABEL - 3] + "..."


def _unmeasured_images(name: str, report: Mapping[str, Any], images: list[dict[str, Any]]) -> Gate | None:
    total = report.get("images_total", len(images))
    if isinstance(total, int) and total > len(images):
        return Gate(name, False, f"the page has {total} <img>; only the first {len(images)} were measured")
    return None


def imgs_loaded_gate(report: Mapping[str, Any]) -> Gate:
    """Every <img> of the rendered page loaded (complete, naturalWidth > 0)."""
    images = _measured_images(report)
    if images is None:
        return _not_measured("imgs_loaded", report)
    blocked = {str(url) for url in report.get("blocked_requests") or ()}
    missing = {str(name) for name in report.get("missing_files") or ()}
    broken = []
    for position, image in enumerate(images, 1):
        if image.get("complete") and int(image.get("natural_width") or 0) > 0:
            continue
        broken.append(f"{_img_label(position, image)} ({_why_not_loaded(image, blocked, missing)})")
    if broken:
        return Gate("imgs_loaded", False, f"{len(broken)} of {len(images)} <img> did not load: " + ", ".join(broken))
    too_many = _unmeasured_images("imgs_loaded", report, images)
    if too_many is not None:
        return too_many
    return Gate("imgs_loaded", True, f"all {len(images)} <img> loaded" if images else "no <img> elements")


def imgs_shown_gate(report: Mapping[str, Any]) -> Gate | None:
    """Of the <img> that loaded, at least one is shown; None when none loaded (``imgs_loaded`` speaks of those)."""
    images = _measured_images(report)
    if images is None:
        return None
    loaded = [
        (position, image)
        for position, image in enumerate(images, 1)
        if image.get("complete") and int(image.get("natural_width") or 0) > 0
    ]
    if not loaded:
        return None
    shown = [position for position, image in loaded if image.get("visible")]
    if shown:
        return Gate("imgs_shown", True, f"{len(shown)} of the {len(loaded)} loaded <img> shown")
    listed = ", ".join(_img_label(position, image) for position, image in loaded[:5]) + (" ..." if len(loaded) > 5 else "")
    return Gate(
        "imgs_shown",
        False,
        f"none of the {len(loaded)} <img> that loaded is shown (display: none, visibility: hidden, opacity: 0 "
        f"or no size): {listed}",
    )


def _why_not_loaded(image: Mapping[str, Any], blocked: set[str], missing: set[str]) -> str:
    url = str(image.get("url") or "")
    if not url:
        return "no image to load"
    if url in blocked or (image.get("file") is None and not url.startswith("data:")):
        return "blocked: only files of the page's folder load"
    if image.get("file") in missing:
        return "the output has no such file"
    if not image.get("complete"):
        return "still loading when measured"
    return "the browser could not decode it as an image"


def img_sources_gate(report: Mapping[str, Any], outputs: OutputImages) -> Gate:
    """Every <img> shows an image file of the output (or a data:image/ URI), by the URL the browser resolved."""
    images = _measured_images(report)
    if images is None:
        return _not_measured("img_sources", report)
    bad = []
    for position, image in enumerate(images, 1):
        problem = _source_problem(image, outputs)
        if problem is not None:
            bad.append(f"{_img_label(position, image)} ({problem})")
    if bad:
        return Gate(
            "img_sources", False, f"{len(bad)} of {len(images)} <img> do not show an image of the output: " + ", ".join(bad)
        )
    too_many = _unmeasured_images("img_sources", report, images)
    if too_many is not None:
        return too_many
    return Gate("img_sources", True, f"all {len(images)} <img> show images of the output" if images else "no <img> elements")


def _source_problem(image: Mapping[str, Any], outputs: OutputImages) -> str | None:
    url = str(image.get("url") or "")
    if url.lower().startswith("data:image/"):
        return None
    if not url:
        return "no source"
    if url.lower().startswith("data:"):
        return "a data: URI that is not an image"
    file = image.get("file")
    if not isinstance(file, str):
        return "not a file of the page's folder"
    problem = outputs.problem(file)
    return None if problem is None else (problem if file == image.get("src") else f"{file}: {problem}")


def decoded_capture(artifact: Artifact) -> Any:
    """A capture's pixels (a Pillow image); a capture that does not decode is an error of the grader."""
    try:
        return decode(artifact.data)
    except ValueError as exc:
        raise GraderError(f"render_check: capture {artifact.name} does not decode: {exc}") from exc
