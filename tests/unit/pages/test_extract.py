from __future__ import annotations

import pytest

from pytest_visioneval.pages.extract import ExtractionError, extract_page


def test_fenced_html_block_is_the_page() -> None:
    reply = "Here you go:\n```html\n<!doctype html>\n<html><body><h1>Hi</h1></body></html>\n```\nEnjoy!"
    page = extract_page(reply)
    assert page.html == "<!doctype html>\n<html><body><h1>Hi</h1></body></html>"
    assert page.source == "fenced html block"


def test_largest_html_block_wins_and_untagged_html_counts() -> None:
    reply = "```html\n<div>small</div>\n```\ntext\n```\n<!doctype html><html><body>" + "x" * 50 + "</body></html>\n```"
    assert "x" * 50 in extract_page(reply).html


def test_css_and_js_files_are_merged_into_the_page() -> None:
    reply = (
        "```html\n<html><head><title>t</title></head><body><canvas></canvas></body></html>\n```\n"
        "```css\nbody { background: red; }\n```\n"
        "```javascript\nconsole.log('hi');\n```\n"
    )
    page = extract_page(reply)
    assert page.merged == ("css", "js")
    html = page.html
    assert html.index("<style>") < html.index("</head>") and "background: red" in html
    assert html.index("console.log('hi')") < html.index("</body>")


def test_raw_html_document_without_fences() -> None:
    reply = "Sure.\n<!DOCTYPE html>\n<html lang='en'><body><p>ok</p></body></html>\nThat is all."
    page = extract_page(reply)
    assert page.html.startswith("<!DOCTYPE html>") and page.html.endswith("</html>")
    assert "That is all" not in page.html


@pytest.mark.parametrize(
    "reply",
    [
        '```svg\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>\n```',
        'An icon: <svg width="10" height="10"><circle r="4"/></svg> done',
    ],
)
def test_svg_is_wrapped_in_a_page(reply: str) -> None:
    page = extract_page(reply)
    assert page.source == "svg"
    assert page.html.startswith("<!doctype html>") and "<svg" in page.html and "done" not in page.html


@pytest.mark.parametrize(
    ("reply", "mentions"),
    [
        ("I cannot build that page, sorry.", "no code blocks"),
        ("```python\nprint('hello')\n```", "python"),
        ("```css\nbody{}\n```", "css"),
        ("", "no code blocks"),
    ],
)
def test_no_renderable_code_is_an_error(reply: str, mentions: str) -> None:
    with pytest.raises(ExtractionError, match="no HTML or SVG to render") as info:
        extract_page(reply)
    assert mentions in str(info.value)
