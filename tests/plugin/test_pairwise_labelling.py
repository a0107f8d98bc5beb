"""Labelling pairwise verdicts in real Chromium: a person says which output is better, by keyboard, exports the CSV,
and ``agreement`` reads it against the judge's verdicts in the pairwise JSON; a second rater's file merges.

The pairwise page is made by the real ``pairwise`` command against a local fake judge (tests/unit/cli/test_pairwise.py);
expectations are computed from the pairwise JSON in Python, independently of the page's script.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from pytest_visioneval.cli import main as dispatcher
from pytest_visioneval.results.agreement import nominal_kappa
from pytest_visioneval.testing import FakeOpenAIServer
from tests.unit.cli.test_pairwise import _png, _run, tasteful
from tests.unit.report import test_html_browser as harness

VALUE = {"a": 1.0, "tie": 0.5, "b": 0.0}


browser = harness.browser  # one Chromium per module, launched as the report's browser tests launch it


@pytest.fixture
def judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, dict[str, Any]]:
    """Two runs (mid, good) judged by the fake judge: the pairwise page and its JSON."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-judge")
    inputs = _png(tmp_path / "inputs" / "photo.png", (128, 128, 128))
    runs = [_run(tmp_path, model, inputs) for model in ("mid", "good")]
    page, document = tmp_path / "pairwise.html", tmp_path / "pairwise.json"
    with FakeOpenAIServer(text_reply=tasteful) as server:
        args = ["pairwise", *map(str, runs), "--judge=openai:judge-model", f"--judge-base-url={server.base_url}"]
        args += [f"--cache-dir={tmp_path / 'cache'}", "--resamples=100", f"--json={document}", f"--html={page}"]
        assert dispatcher.main(args) == 0
    return page, document, json.loads(document.read_text(encoding="utf-8"))


def agreement(document: Path, labels: Path) -> tuple[dict[str, Any], str]:
    """The agreement command's JSON and its table, as a person would run it."""
    command = [sys.executable, "-m", "pytest_visioneval", "agreement", str(document), str(labels), "--by", "none"]
    table = subprocess.run(command, capture_output=True, text=True, check=False)
    assert table.returncode == 0, table.stderr
    data = subprocess.run([*command, "--json"], capture_output=True, text=True, check=False)
    assert data.returncode == 0, data.stderr
    return json.loads(data.stdout)["agreement"][0], table.stdout


def exported(page: Any, target: Path) -> list[dict[str, str]]:
    with page.expect_download() as download:
        page.click("#l-export")
    download.value.save_as(target)
    with target.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_label_verdicts_by_keyboard_export_run_agreement_and_merge_a_second_rater(
    browser: Any, judged: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    path, document_path, document = judged
    (pair,) = document["pairs"]
    name = f"pairwise {pair['a']} vs {pair['b']}"
    verdicts = [(j["case"], j["outcome"]) for j in pair["judgements"]]  # the page's order: by case
    assert len(verdicts) == 5 and {o for _, o in verdicts} == {"a", "b"}  # the judge prefers mid once, on the tricky case
    v = harness.Visit(browser, path)
    try:
        page = v.page
        assert page.locator("#l-progress").inner_text() == "0 of 5 labelled"
        items = page.locator("tr.pair-item")
        assert items.evaluate_all("rows => rows.map(r => r.dataset.case)") == [case for case, _ in verdicts]
        # Both outputs beside each verdict, A on the left; the judge's verdict is hidden until the person answers.
        first = items.first
        assert first.locator("img").evaluate_all("els => els.map(e => e.alt)") == [
            f"{pair['a']}: {verdicts[0][0]}",
            f"{pair['b']}: {verdicts[0][0]}",
        ]
        assert first.locator("img").evaluate_all("els => els.map(e => e.naturalWidth)") == [24, 24]
        expect(first.locator(".judge-said span")).to_be_hidden()

        page.fill("#l-rater", "carol")
        page.locator("h1").click()  # out of the text field: keys now label
        keys = ["b", "a", "b", "t", "a"]  # b, a: B or A better; t: a tie
        page.keyboard.press("j")  # the first verdict
        for key in keys:
            page.keyboard.press(key)  # each answer moves on to the next verdict
        assert page.locator("#l-progress").inner_text() == "5 of 5 labelled"
        expect(first.locator(".judge-said span")).to_be_visible()
        answers = [{"a": "a", "b": "b", "t": "tie"}[k] for k in keys]
        said = [f"you: {'A better' if a == 'a' else 'B better' if a == 'b' else 'a tie'}" for a in answers]
        mine = items.locator(".mine").all_inner_texts()
        assert [m.split(" (")[0] for m in mine] == said
        assert [m.endswith("(as the judge)") for m in mine] == [a == o for a, (_, o) in zip(answers, verdicts, strict=True)]

        page.reload()  # the labels stay in the browser, under the pairwise document's id
        page.wait_for_selector("body[data-ready='1']", state="attached")
        assert page.locator("#l-progress").inner_text() == "5 of 5 labelled"
        assert page.evaluate("Object.keys(localStorage)") == [f"visioneval-pair-labels:{document['id']}"]

        rows = exported(page, tmp_path / "carol.csv")
        expected = [{"case": c, "name": name, "label": a, "rater": "carol"} for (c, _), a in zip(verdicts, answers, strict=True)]
        assert rows == expected

        figures, table = agreement(document_path, tmp_path / "carol.csv")
        human, judge = [VALUE[a] for a in answers], [VALUE[o] for _, o in verdicts]
        accuracy = sum(h == j for h, j in zip(human, judge, strict=True)) / 5
        assert (figures["name"], figures["kind"], figures["n"]) == (name, "preference", 5)
        assert figures["stats"]["accuracy"]["value"] == pytest.approx(accuracy)
        assert figures["stats"]["kappa"]["value"] == pytest.approx(nominal_kappa(human, judge))
        assert f"{name} [all] preference: n=5, unmatched 0" in table and f"accuracy {accuracy:.3f}" in table

        # A second rater who always agrees with the judge: the export then holds both, and agreement sees two raters.
        dave = tmp_path / "dave.csv"
        dave.write_text("case,name,label,rater\n" + "".join(f"{c},{name},{o},dave\n" for c, o in verdicts), encoding="utf-8")
        page.set_input_files("#l-import", str(dave))
        expect(page.locator("#l-note")).to_have_text("merged dave.csv: 5 label(s) of dave")
        assert page.locator("#l-progress").inner_text() == "5 of 5 labelled"  # the progress is carol's
        both = exported(page, tmp_path / "both.csv")
        assert sorted(r["rater"] for r in both) == ["carol"] * 5 + ["dave"] * 5
        figures, table = agreement(document_path, tmp_path / "both.csv")
        assert figures["raters"] == 2 and "2 raters" in table

        bad = tmp_path / "bad.csv"
        bad.write_text("uid,verdict\nx,a\n", encoding="utf-8")
        page.set_input_files("#l-import", str(bad))
        expect(page.locator("#l-note")).to_have_text(
            "bad.csv: missing column(s) case, name, label (need case, name, label; rater optional)"
        )

        # A click labels too, and changes an answer.
        items.nth(0).locator("button[data-answer=tie]").click()
        assert items.nth(0).locator(".mine").inner_text().startswith("you: a tie")
        assert v.clean(), (v.requests, v.console_errors, v.page_errors, v.dialogs)
    finally:
        v.context.close()
