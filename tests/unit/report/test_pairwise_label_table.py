"""report/pairwise_html.py: the table where a person labels the pairwise verdicts (what the browser test drives)."""

from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup

from pytest_visioneval.report.pairwise_html import PICTURED_LABELS, render_pairwise_html
from pytest_visioneval.results.pairwise import Judgement, Settings, document_id, summarize
from tests.unit.report.test_pairwise_html_pictures import runs_on_disk

HOSTILE = '"><script>alert(1)</script>'


def verdict(outcome: str) -> dict[str, object]:
    answers = [{"order": "a-first", "preference": "1", "reason": "r"}, {"order": "b-first", "preference": "2", "reason": "r"}]
    return {"outcome": outcome, "inconsistent": outcome == "tie", "answers": answers if outcome != "error" else []}


def test_one_row_per_decided_verdict_escaped_under_the_documents_id(tmp_path: Path) -> None:
    runs, uid = runs_on_disk(tmp_path)
    cases = [(uid, "a"), (f"s/{HOSTILE}", "tie"), ("s/broken", "error")]
    judgements = [Judgement(0, 1, case, case.split("/")[0], verdict(outcome)) for case, outcome in cases]
    document = {**summarize(["red", "blue"], judgements, Settings(resamples=20)), "runs": runs}
    document["judge"] = {"name": "openai:j", "instructions": {"source": "default"}}
    page = render_pairwise_html(document, tmp_path)
    assert HOSTILE not in page
    soup = BeautifulSoup(page, "html.parser")
    root = soup.select_one("#pair-labels")
    assert root is not None and root["data-pairwise-id"] == document_id(runs, document["judge"])  # none in the document: made
    rows = root.select("tr.pair-item")
    # The error has no verdict to label; the rows are in the document's order (by case).
    assert [(r["data-case"], r["data-judged"], r["data-name"]) for r in rows] == [
        (uid, "a", "pairwise red vs blue"),
        (f"s/{HOSTILE}", "tie", "pairwise red vs blue"),
    ]
    assert [b["data-answer"] for b in rows[0].select("button")] == ["a", "tie", "b"]
    assert rows[0].select_one(".judge-said").get_text() == "red preferred"
    assert rows[1].select_one(".judge-said").get_text() == "tie (the orders disagree)"
    # A on the left, B on the right, whatever order the judge saw them in.
    assert [img["alt"] for img in rows[0].select("img")] == [f"red: {uid}", f"blue: {uid}"]
    assert root.select_one("#l-export") is not None and root.select_one("#labelbar").get("hidden") is None


def test_a_document_with_its_own_id_keeps_it_and_a_page_without_decided_verdicts_offers_nothing(tmp_path: Path) -> None:
    runs, uid = runs_on_disk(tmp_path)
    document = {**summarize(["red", "blue"], [Judgement(0, 1, uid, "s", verdict("a"))], Settings(resamples=20)), "runs": runs}
    document.update(id="pairwise-fixed", judge={"name": "openai:j", "instructions": {"source": "default"}})
    soup = BeautifulSoup(render_pairwise_html(document, tmp_path), "html.parser")
    assert soup.select_one("#pair-labels")["data-pairwise-id"] == "pairwise-fixed"  # type: ignore[index]
    document = {**summarize(["red", "blue"], [Judgement(0, 1, uid, "s", verdict("error"))], Settings(resamples=20)), "runs": runs}
    document["judge"] = {"name": "openai:j", "instructions": {"source": "default"}}
    soup = BeautifulSoup(render_pairwise_html(document, tmp_path), "html.parser")
    assert soup.select_one("#pair-labels") is None and soup.select_one("#labelbar") is None


def test_beyond_the_pictured_verdicts_a_row_links_to_the_card_instead(tmp_path: Path) -> None:
    runs, uid = runs_on_disk(tmp_path)
    (tmp_path / "red" / "report.html").write_text("<p>red</p>")
    cases = [f"a/c{i:03d}" for i in range(PICTURED_LABELS)] + [uid]  # the real case sorts last: not pictured
    judgements = [Judgement(0, 1, case, "s", verdict("b")) for case in cases]
    document = {**summarize(["red", "blue"], judgements, Settings(resamples=20)), "runs": runs}
    document["judge"] = {"name": "openai:j", "instructions": {"source": "default"}}
    soup = BeautifulSoup(render_pairwise_html(document, tmp_path), "html.parser")
    last = soup.select("tr.pair-item")[-1]
    assert last["data-case"] == uid and not last.select("img")
    assert "not pictured here: see the case's card" in last.get_text()
    assert [a["href"] for a in last.select("a")] == [f"red/report.html#case={uid.replace('/', '%2F')}"]
