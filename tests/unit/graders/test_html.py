"""graders/html.py: every gate passes a correct page and fails a broken one."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from bs4 import BeautifulSoup

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import GraderError
from pytest_visioneval.graders.base import Gate, Metric
from pytest_visioneval.graders.html import HtmlGrader, visible_text
from pytest_visioneval.pages.render import Renderer
from tests.unit.graders.rendered_pages import RENDER, render_case
from tests.unit.pages.page_variants import ABSENT, BROKEN, LEGIT
from tests.unit.pages.page_variants import SHOP as VARIANT_BASE

IMGS = "\n".join(f'<img src="photo-{i}.jpg" alt="Photo {i} of the gallery">' for i in range(5))
PAGE = f"""<!DOCTYPE html>
<html lang="en">
<head><title>Gallery title</title><style>.hero {{ color: red }}</style></head>
<body>
  <header class="hero"><h1>Summer   Gallery</h1><nav><a href="/">Home</a></nav></header>
  <main id="content">
    <p>Five photos from the <b>coast</b>.</p>
    {IMGS}
    <form><input type="email" placeholder="Your email"><input type="submit" value="Subscribe"></form>
  </main>
  <!-- a comment with hidden words -->
  <script>const secret = "script words";</script>
</body>
</html>
"""


def page(html: str = PAGE, name: str = "index.html") -> Artifact:
    return Artifact(name, html.encode())


@pytest.fixture
def case(make_case: Callable[..., CaseSpec]) -> CaseSpec:
    return make_case(task="html_generation", prompt="a photo gallery page")


def grade(options: dict[str, Any], case: CaseSpec, *artifacts: Artifact) -> tuple[dict[str, Gate], dict[str, Metric]]:
    jsonschema.validate(options, HtmlGrader.options_schema)
    result = HtmlGrader(options).grade(case, artifacts)
    gates = {g.name: g for g in result.gates}
    metrics = {m.name: m for m in result.metrics}
    assert len(gates) == len(result.gates)
    return gates, metrics


# -- parses -------------------------------------------------------------------
def test_a_full_page_parses(case: CaseSpec) -> None:
    gates, metrics = grade({}, case, page())
    assert set(gates) == {"parses", "img_alt"}  # img_alt is on by default, the rest need options
    assert gates["parses"].passed
    assert gates["parses"].reason.startswith("index.html: an HTML page of ")
    assert set(metrics) == {"img_count", "alt_coverage"}


def test_a_fragment_parses(case: CaseSpec) -> None:
    gates, _ = grade({}, case, page('<div class="card"><h2>Hi</h2></div>'))
    assert gates["parses"].passed
    assert "fragment of 2 element(s), without <html> or <body>" in gates["parses"].reason


@pytest.mark.parametrize(
    "reply",
    [
        "Sure! Here is a page about the coast, with 5 photos.",
        "# Gallery\n\n* photo 1\n* photo 2 (a < b and c > d)",
        '{"html": null}',
        "<think>the user wants a page</think> I cannot do that.",
    ],
    ids=["prose", "markdown", "json", "pseudo-tags"],
)
def test_a_non_html_reply_does_not_parse(case: CaseSpec, reply: str) -> None:
    gates, metrics = grade({"img_count": 0, "required_text": ["page"]}, case, page(reply))
    assert set(gates) == {"parses"}  # nothing else is graded on a page that is not HTML
    assert not gates["parses"].passed
    assert gates["parses"].reason.startswith("index.html does not look like HTML")
    assert metrics == {}


def test_pseudo_tags_are_named(case: CaseSpec) -> None:
    gates, _ = grade({}, case, page("<think>hmm</think><answer>42</answer>"))
    assert gates["parses"].reason == "index.html does not look like HTML: no HTML element (only non-HTML tags: answer, think)"


def test_no_html_artifact_fails_parses(case: CaseSpec) -> None:
    gates, metrics = grade({"img_count": 5}, case, Artifact("reply.txt", b"<html><body>hi</body></html>"))
    assert set(gates) == {"parses"}
    assert not gates["parses"].passed
    assert gates["parses"].reason == "the output holds no HTML"
    assert metrics == {}


def test_only_the_first_html_artifact_is_graded(case: CaseSpec) -> None:
    gates, _ = grade({}, case, page(), page("plain words", "other.html"))
    assert gates["parses"].passed
    assert gates["parses"].reason.startswith("index.html (the first of 2 HTML artifacts)")


# -- img_count ----------------------------------------------------------------
def test_img_count_passes(case: CaseSpec) -> None:
    gates, metrics = grade({"img_count": 5}, case, page())
    assert gates["img_count"].passed
    assert gates["img_count"].reason == "5 <img> element(s), expected 5"
    assert metrics["img_count"].value == 5.0


def test_img_count_fails_on_wrong_count(case: CaseSpec) -> None:
    gates, _ = grade({"img_count": 4}, case, page())
    assert not gates["img_count"].passed
    assert gates["img_count"].reason == "5 <img> element(s), expected 4"


@pytest.mark.parametrize(
    ("options", "passed", "expected"),
    [
        ({"min_imgs": 3}, True, "at least 3"),
        ({"min_imgs": 6}, False, "at least 6"),
        ({"max_imgs": 5}, True, "at most 5"),
        ({"max_imgs": 4}, False, "at most 4"),
        ({"min_imgs": 2, "max_imgs": 5}, True, "2 to 5"),
        ({"min_imgs": 6, "max_imgs": 9}, False, "6 to 9"),
    ],
)
def test_img_count_bounds(case: CaseSpec, options: dict[str, int], passed: bool, expected: str) -> None:
    gate = grade(options, case, page())[0]["img_count"]
    assert gate.passed is passed
    assert gate.reason == f"5 <img> element(s), expected {expected}"


# -- img_alt ------------------------------------------------------------------
def test_img_alt_passes_when_every_img_has_alt(case: CaseSpec) -> None:
    gates, metrics = grade({}, case, page())
    assert gates["img_alt"].passed
    assert gates["img_alt"].reason == "all 5 <img> have a non-blank alt"
    assert metrics["alt_coverage"].value == 1.0


def test_img_alt_fails_naming_missing_and_blank_alts(case: CaseSpec) -> None:
    broken = PAGE.replace('<img src="photo-1.jpg" alt="Photo 1 of the gallery">', '<img src="photo-1.jpg">').replace(
        'alt="Photo 3 of the gallery"', 'alt="  "'
    )
    gates, metrics = grade({}, case, page(broken))
    assert not gates["img_alt"].passed
    assert gates["img_alt"].reason == "2 of 5 <img> lack a non-blank alt: photo-1.jpg (no alt), photo-3.jpg (blank alt)"
    assert metrics["alt_coverage"].value == pytest.approx(3 / 5)


def test_img_alt_names_an_img_without_src_by_position(case: CaseSpec) -> None:
    gates, _ = grade({}, case, page('<p>x</p><img src="a.png" alt="A"><img alt="">'))
    assert gates["img_alt"].reason == "1 of 2 <img> lack a non-blank alt: <img> #2 without src (blank alt)"


def test_require_alt_false_turns_the_gate_off(case: CaseSpec) -> None:
    gates, metrics = grade({"require_alt": False}, case, page('<img src="a.png">'))
    assert "img_alt" not in gates
    assert metrics["alt_coverage"].value == 0.0  # still measured


def test_page_without_images(case: CaseSpec) -> None:
    gates, metrics = grade({}, case, page("<p>No pictures here.</p>"))
    assert gates["img_alt"].passed and gates["img_alt"].reason == "no <img> elements"
    assert metrics["img_count"].value == 0.0
    assert metrics["alt_coverage"].value == 1.0


# -- required_text --------------------------------------------------------------
def test_required_text_passes_ignoring_case_and_whitespace(case: CaseSpec) -> None:
    wanted = ["summer gallery", "FIVE PHOTOS\nfrom the coast", "Your email", "subscribe"]
    gates, _ = grade({"required_text": wanted}, case, page())
    assert gates["required_text"].passed
    assert gates["required_text"].reason == "all 4 present"


def test_required_text_fails_naming_the_missing_ones(case: CaseSpec) -> None:
    wanted = ["Summer Gallery", "Winter", "script words", "hidden words", "Gallery title"]
    gates, _ = grade({"required_text": wanted}, case, page())
    assert not gates["required_text"].passed
    # script, comments and <head> are not visible text
    assert gates["required_text"].reason == "4 of 5 missing: 'Winter', 'script words', 'hidden words', 'Gallery title'"


def test_visible_text_separates_elements() -> None:
    soup = BeautifulSoup("<p>Hello</p><p>World</p><style>p {}</style>", "html.parser")
    assert " ".join(visible_text(soup).split()) == "Hello World"


# -- required_selectors -------------------------------------------------------
def test_required_selectors_pass(case: CaseSpec) -> None:
    selectors = ["header.hero h1", "main#content img[alt]", "form input[type=email]", "nav > a[href]"]
    gates, _ = grade({"required_selectors": selectors}, case, page())
    assert gates["required_selectors"].passed
    assert gates["required_selectors"].reason == "all 4 match"


def test_required_selectors_fail_naming_those_that_match_nothing(case: CaseSpec) -> None:
    gates, _ = grade({"required_selectors": ["h1", "footer", "img.thumb", "main > p"]}, case, page())
    assert not gates["required_selectors"].passed
    assert gates["required_selectors"].reason == "2 of 4 match nothing: footer, img.thumb"


def test_invalid_selector_at_grade_time_is_a_grader_error(case: CaseSpec) -> None:
    with pytest.raises(GraderError, match="invalid CSS selector"):
        HtmlGrader({"required_selectors": ["div["]}).grade(case, [page()])


# -- check_case -----------------------------------------------------------------
def test_check_case(case: CaseSpec, make_case: Callable[..., CaseSpec]) -> None:
    assert HtmlGrader.check_case(case, {"img_count": 5, "required_selectors": ["main img"]}) is None
    wrong_task = HtmlGrader.check_case(make_case(task="image_generation"), {})
    assert wrong_task == "the html grader grades HTML pages; this case's task is image_generation"
    both = HtmlGrader.check_case(case, {"img_count": 5, "min_imgs": 1})
    assert both is not None and "exact count" in both
    crossed = HtmlGrader.check_case(case, {"min_imgs": 4, "max_imgs": 2})
    assert crossed is not None and "'min_imgs' (4) is above 'max_imgs' (2)" in crossed
    bad = HtmlGrader.check_case(case, {"required_selectors": ["main img", "div["]})
    assert bad is not None and "'div['" in bad and "main img" not in bad


def test_options_schema() -> None:
    schema = HtmlGrader.options_schema
    jsonschema.validate({"img_count": 0, "require_alt": False, "required_text": ["a"]}, schema)
    for bad in ({"img_count": -1}, {"required_text": "a"}, {"required_text": [""]}, {"alt": True}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


# -- img_files ------------------------------------------------------------------
def test_img_files_passes_images_of_the_output(case: CaseSpec, encode_image: Callable[..., bytes]) -> None:
    html = '<body><img src="a.png" alt="A"><img src="./b%20c.jpg" alt="B"><img src="d.svg" alt="D">'
    html += '<img src="data:image/png;base64,iVBORw0KGgo=" alt="E"></body>'
    outputs = (Artifact("a.png", encode_image()), Artifact("b c.jpg", encode_image(fmt="JPEG")), Artifact("d.svg", b"<svg/>"))
    gate = grade({"img_files": True}, case, page(html), *outputs)[0]["img_files"]
    assert gate.passed and gate.reason == "all 4 <img> show files of the output"


def test_img_files_fails_what_is_not_an_image_of_the_output(case: CaseSpec, encode_image: Callable[..., bytes]) -> None:
    html = (
        '<body><img src="a.png" alt="ok"><img src="index.html" alt="the page"><img src="screenshot-1.png" alt="capture">'
        '<img src="fullpage.png" alt="capture"><img src="notes.png" alt="text"><img src="gone.png" alt="missing">'
        '<img src="https://cdn.example.com/x.png" alt="remote"><img alt="none"></body>'
    )
    outputs = (
        Artifact("a.png", encode_image()),
        Artifact("screenshot-1.png", encode_image()),  # a capture: it is among the artifacts, but the model did not make it
        Artifact("fullpage.png", encode_image()),
        Artifact("notes.png", b"not really a png"),
    )
    gate = grade({"img_files": True}, case, page(html), *outputs)[0]["img_files"]
    assert not gate.passed
    assert gate.reason == (
        "7 of 8 <img> do not show a file of the output: index.html (the page itself, not an image), "
        "screenshot-1.png (a capture the renderer writes, not an image of the output), "
        "fullpage.png (a capture the renderer writes, not an image of the output), notes.png (not an image file), "
        "gone.png (not in the output), https://cdn.example.com/x.png (a remote URL), <img> #8 without src (not in the output)"
    )


# -- judged on what rendered (real Chromium) --------------------------------------
@pytest.fixture
def rendered_case(make_case: Callable[..., CaseSpec]) -> CaseSpec:
    return make_case(task="html_generation", prompt="a shop page", render=RENDER)


SHOP = """<!doctype html><html><head><style>.gone { display: none }</style></head><body>
<h1>Arc desk lamp</h1><p class="price">$49</p><button>Add to cart</button>
<img src="a.png" alt="the lamp"></body></html>"""
SHOP_OPTIONS = {"img_count": 1, "required_text": ["Arc desk lamp", "$49", "Add to cart"], "required_selectors": ["h1", "button"]}


def test_a_rendered_page_is_judged_on_what_rendered(
    rendered_case: CaseSpec, renderer: Renderer, tmp_path: Path, encode_image: Callable[..., bytes]
) -> None:
    artifacts = render_case(rendered_case, renderer, tmp_path, SHOP, {"a.png": encode_image()})
    gates, metrics = grade(SHOP_OPTIONS, rendered_case, *artifacts)
    assert all(g.passed for g in gates.values()), gates
    assert gates["required_text"].reason == "all 3 present from the rendered page's visible text"
    assert gates["img_count"].reason == "1 <img> element(s) in the rendered DOM, expected 1"
    assert metrics["img_count"].reason == "1 <img> element(s) in the rendered DOM of page.html"


def test_text_hidden_by_css_is_missing_from_a_rendered_page(
    rendered_case: CaseSpec, renderer: Renderer, tmp_path: Path, encode_image: Callable[..., bytes]
) -> None:
    html = SHOP.replace('<p class="price">', '<p class="gone">').replace("<button>", '<button style="opacity:0">')
    artifacts = render_case(rendered_case, renderer, tmp_path, html, {"a.png": encode_image()})
    gate = grade(SHOP_OPTIONS, rendered_case, *artifacts)[0]["required_text"]
    assert not gate.passed
    assert re.fullmatch(
        r"2 of 3 missing from the rendered page's visible text: "
        r"'\$49' is hidden \(display:none on p.gone\) at the capture \(0\.0 s after load\); "
        r"'Add to cart' is hidden \(opacity:0 on button\) at the capture \(0\.0 s after load\)",
        gate.reason,
    ), gate.reason
    # the same page's source holds the text: unrendered, it passes
    assert grade(SHOP_OPTIONS, make_unrendered(rendered_case), page(html, "page.html"))[0]["required_text"].passed


def test_a_hidden_body_fails_required_text(
    rendered_case: CaseSpec, renderer: Renderer, tmp_path: Path, encode_image: Callable[..., bytes]
) -> None:
    html = SHOP.replace("<style>", "<style>body { display: none } ")
    artifacts = render_case(rendered_case, renderer, tmp_path, html, {"a.png": encode_image()})
    gate = grade(SHOP_OPTIONS, rendered_case, *artifacts)[0]["required_text"]
    assert gate.reason.startswith(
        "3 of 3 missing from the rendered page's visible text: 'Arc desk lamp' is hidden (display:none on body) "
    )


def test_structure_is_read_from_the_dom_after_scripts(
    rendered_case: CaseSpec, renderer: Renderer, tmp_path: Path, encode_image: Callable[..., bytes]
) -> None:
    html = SHOP + "<script>document.querySelector('button').remove(); document.querySelector('img').remove();</script>"
    artifacts = render_case(rendered_case, renderer, tmp_path, html, {"a.png": encode_image()})
    gates, _ = grade(SHOP_OPTIONS, rendered_case, *artifacts)
    assert gates["img_count"].reason == "0 <img> element(s) in the rendered DOM, expected 1" and not gates["img_count"].passed
    assert gates["required_selectors"].reason == "1 of 2 match nothing: button"
    added = SHOP.replace("<button>Add to cart</button>", "") + (
        "<script>document.body.insertAdjacentHTML('beforeend', '<button>Add to cart</button>')</script>"
    )
    artifacts = render_case(rendered_case, renderer, tmp_path, added, {"a.png": encode_image()})
    gates, _ = grade(SHOP_OPTIONS, rendered_case, *artifacts)
    assert gates["required_selectors"].passed and gates["required_text"].passed


def test_unmeasured_rendered_text_fails_required_text(rendered_case: CaseSpec) -> None:
    report = {"page_errors": [], "visible_text": None, "measure_error": "the browser did not answer: Target closed"}
    artifacts = (
        page(SHOP, "page.html"),
        Artifact("dom-snapshot.txt", SHOP.encode()),
        Artifact("render.json", json.dumps(report).encode()),
    )
    gate = grade({"required_text": ["Arc desk lamp"]}, rendered_case, *artifacts)[0]["required_text"]
    assert not gate.passed
    assert gate.reason == "the rendered text could not be measured: the browser did not answer: Target closed"


def test_parses_reads_the_source_not_the_dom(rendered_case: CaseSpec) -> None:
    dom = "<html><head></head><body>Sure! Here is your page.</body></html>"  # what Chromium makes of prose
    artifacts = (page("Sure! Here is your page.", "page.html"), Artifact("dom-snapshot.txt", dom.encode()))
    gates, _ = grade({}, rendered_case, *artifacts)
    assert not gates["parses"].passed


def make_unrendered(case: CaseSpec) -> CaseSpec:
    return dataclasses.replace(case, render=None)


@pytest.mark.parametrize(
    ("variant", "why"),
    [
        ("loading overlay", "is covered by div#loading-overlay"),
        ("main display none", "is hidden (display:none on main#main)"),
        ("main shown only after 10 s", "is hidden (display:none on main#main)"),
        ("main added only after 10 s", "is not on the page"),
        ("main in the background colour", "is invisible: the colour of what is beneath it (p.price)"),
        ("main off-screen", "is off-screen (main#main is outside the page)"),
    ],
)
def test_required_text_a_person_does_not_see_is_missing_with_why(
    rendered_case: CaseSpec, renderer: Renderer, tmp_path: Path, variant: str, why: str
) -> None:
    artifacts = render_case(rendered_case, renderer, tmp_path, (BROKEN | ABSENT)[variant](VARIANT_BASE))
    gate = grade({"required_text": ["$49"]}, rendered_case, *artifacts)[0]["required_text"]
    assert not gate.passed
    pattern = (
        r"1 of 1 missing from the rendered page's visible text: '\$49' "
        + re.escape(why)
        + r" at the capture \(0\.0 s after load\)"
    )
    assert re.fullmatch(pattern, gate.reason), gate.reason


@pytest.mark.parametrize("variant", sorted(LEGIT))
def test_required_text_on_legitimate_pages_is_seen(
    make_case: Callable[..., CaseSpec], renderer: Renderer, tmp_path: Path, variant: str
) -> None:
    # The shipped web suite's viewport: at 320x240 a cookie bar would cover the button, the page's last line, as a person sees it.
    case = make_case(task="html_generation", prompt="a shop page", render=RENDER | {"width": 800, "height": 600})
    artifacts = render_case(case, renderer, tmp_path, LEGIT[variant](VARIANT_BASE))
    gate = grade({"required_text": ["Arc desk lamp", "$49", "Add to cart"]}, case, *artifacts)[0]["required_text"]
    assert gate.passed, gate.reason


def test_text_under_a_cookie_bar_no_scrolling_frees_is_covered(
    rendered_case: CaseSpec, renderer: Renderer, tmp_path: Path
) -> None:
    artifacts = render_case(rendered_case, renderer, tmp_path, LEGIT["cookie banner"](VARIANT_BASE))
    gate = grade({"required_text": ["Arc desk lamp", "Add to cart"]}, rendered_case, *artifacts)[0]["required_text"]
    assert re.fullmatch(
        r"1 of 2 missing from the rendered page's visible text: 'Add to cart' is covered by div.cookies at the capture "
        r"\(0\.0 s after load\)",
        gate.reason,
    ), gate.reason


def test_text_running_over_several_elements_is_found_with_why(
    rendered_case: CaseSpec, renderer: Renderer, tmp_path: Path
) -> None:
    html = '<h1>Arc <b>desk</b> lamp</h1><section id="main" style="display:none"><p>Pour-over <i>kettle</i></p></section>'
    artifacts = render_case(rendered_case, renderer, tmp_path, html)
    gate = grade({"required_text": ["Arc desk lamp", "pour-over kettle"]}, rendered_case, *artifacts)[0]["required_text"]
    assert re.fullmatch(
        r"1 of 2 missing from the rendered page's visible text: "
        r"'pour-over kettle' is hidden \(display:none on section#main\) at the capture \(0\.0 s after load\)",
        gate.reason,
    ), gate.reason
