"""report/pairwise_html.py and run_pictures.py: each verdict beside both outputs, in the order the judge saw them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pytest_visioneval.report.pairwise_html import render_pairwise_html
from pytest_visioneval.results.pairwise import Judgement, Settings, summarize
from tests.unit.report.html_documents import artifact, png, synthetic_document


def runs_on_disk(tmp_path: Path) -> tuple[list[dict[str, Any]], str]:
    """Two runs of the same case, each output a different colour, written as results JSON files."""
    runs = []
    for name, colour in (("red", (220, 20, 20)), ("blue", (20, 20, 220))):
        document = synthetic_document(tmp_path / name, 1, models=(name,))
        document["cases"][0]["artifacts"] = [artifact(png(tmp_path / name / "out.png", (300, 200), color=colour), "image/png")]
        source = tmp_path / name / "results.json"
        source.write_text(json.dumps(document), encoding="utf-8")
        uid = document["cases"][0]["uid"]
        runs.append({"name": name, "label": name, "source": str(source), "run_id": "r", "model": name, "cases": 1})
        runs[-1]["complete"] = True
    return runs, uid


def pairwise(runs: list[dict[str, Any]], uid: str) -> dict[str, Any]:
    answers = [
        {"order": "a-first", "preference": "1", "reason": "the first is redder"},
        {"order": "b-first", "preference": "2", "reason": "the second is redder"},
    ]
    verdict = {"outcome": "a", "inconsistent": False, "answers": answers, "error": None}
    result = summarize(["red", "blue"], [Judgement(0, 1, uid, uid.split("/")[0], verdict)], Settings(resamples=50))
    return {**result, "runs": runs, "judge": {"name": "openai:j", "instructions": {"source": "default"}}}


def rows(page: str) -> dict[str, str]:
    return dict(re.findall(r'<tr data-case="[^"]*" data-order="([^"]+)">(.*?)</tr>', page))


def test_each_order_shows_the_outputs_as_the_judge_saw_them(tmp_path: Path) -> None:
    runs, uid = runs_on_disk(tmp_path)
    (tmp_path / "red" / "report.html").write_text("<p>the red run's report</p>")
    page = render_pairwise_html(pairwise(runs, uid), tmp_path)
    shown = rows(page)
    assert set(shown) == {"a-first", "b-first"}
    assert re.findall(r'alt="([^"]+)"', shown["a-first"]) == [f"red: {uid}", f"blue: {uid}"]
    assert re.findall(r'alt="([^"]+)"', shown["b-first"]) == [f"blue: {uid}", f"red: {uid}"]
    assert "<b>red</b>: the first is redder" in shown["a-first"]  # "1" named as the run shown first
    assert "<b>red</b>: the second is redder" in shown["b-first"]
    assert all(src.startswith("data:image/") for src in re.findall(r'<img src="([^"]+)"', page))  # the page stays one file
    assert re.findall(r'href="([^"]+)"', shown["a-first"]) == [f"red/report.html#case={uid.replace('/', '%2F')}"]
    assert "img-src data:;" in page  # its CSP lets in the embedded pictures, nothing else


def test_a_run_whose_results_cannot_be_read_says_so_instead_of_pictures(tmp_path: Path) -> None:
    runs, uid = runs_on_disk(tmp_path)
    runs[1]["source"] = str(tmp_path / "gone.json")
    page = render_pairwise_html(pairwise(runs, uid), tmp_path)
    assert rows(page) == {}
    assert f"cannot read {tmp_path / 'gone.json'} (FileNotFoundError): no pictures" in page
