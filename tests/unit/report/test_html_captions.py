"""An edit's captions in the HTML report break between words, in real Chromium.

The diff image of an edit carries a note ("3.1% of pixels changed; 0.8% of the area outside the
mask changed") under a thumbnail 160 px wide; the stylesheet's break-all for file names broke it
as "area o / utside". Every word of a note must sit on one line, while the note does wrap.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pytest_visioneval.report.html_report import write_html_report
from tests.unit.report.html_documents import build_document
from tests.unit.report.test_html_browser import Visit, browser  # noqa: F401 - the module's Chromium fixture

# For one caption: the words whose letters land on more than one line, and how many lines it has.
SPLIT_WORDS = """node => {
  const text = node.firstChild, words = [], re = /\\S+/g;
  let m;
  while ((m = re.exec(text.textContent))) {
    const range = document.createRange();
    range.setStart(text, m.index);
    range.setEnd(text, m.index + m[0].length);
    if (new Set(Array.from(range.getClientRects(), r => Math.round(r.top))).size > 1) words.push(m[0]);
  }
  const whole = document.createRange();
  whole.selectNodeContents(node);
  return {split: words, lines: new Set(Array.from(whole.getClientRects(), r => Math.round(r.top))).size};
}"""


@pytest.fixture
def edit_card(browser: Any, tmp_path: Path) -> Iterator[Any]:  # noqa: F811 - the imported fixture
    document = build_document(tmp_path)
    mask = Image.new("L", (120, 120), 0)  # the left half editable: the note then tells the change outside it
    mask.paste(255, (0, 0, 60, 120))
    mask.save(tmp_path / "in" / "mask.png")
    path = tmp_path / "report.html"
    write_html_report(document, path, thumbnail_side=160)
    visit = Visit(browser, path)
    yield visit.page.locator('article[data-uid="beta/edit"] figcaption.note')
    assert not visit.page_errors and not visit.console_errors
    visit.context.close()


def test_an_edit_note_breaks_between_words(edit_card: Any) -> None:
    assert edit_card.count() >= 1
    note = edit_card.first
    assert "of the area outside the mask changed" in note.inner_text()
    layout = note.evaluate(SPLIT_WORDS)
    assert layout["lines"] > 1, "the note fits one line: this check would see no break at all"
    assert layout["split"] == [], f"words broken across lines: {layout['split']}"


def test_the_check_sees_a_word_broken_by_break_all(edit_card: Any) -> None:
    note = edit_card.first
    note.evaluate("node => { node.style.wordBreak = 'break-all'; node.style.overflowWrap = 'normal'; }")  # the old layout
    assert note.evaluate(SPLIT_WORDS)["split"], "break-all splits some word of the note mid-word"
