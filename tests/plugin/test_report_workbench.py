"""The report as a review workbench, driven in real Chromium: the table, links that keep the view, labelling.

Expectations are computed from the results document in Python, independently of the page's script;
the labels the page exports are read by the real ``agreement`` command.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import expect

from pytest_visioneval.report.html_report import write_html_report
from tests.unit.report import test_html_browser as harness
from tests.unit.report.html_documents import synthetic_document

QUESTIONS = ("q1", "q2", "q3")


browser = harness.browser  # one Chromium per module, launched as the report's browser tests launch it


def judged_document(root: Path, count: int, models: tuple[str, ...] = ("reference",)) -> dict[str, Any]:
    """The synthetic run with a checklist judge on every case that ran: a gate and three yes/no answers."""
    document = synthetic_document(root, count, models)
    for i, record in enumerate(document["cases"]):
        if record["status"] in ("error", "skipped"):
            continue
        answers = [(i + k) % 3 != 0 for k in range(len(QUESTIONS))]
        gate = {"name": "checklist.answers", "passed": all(answers), "reason": "the judge's answers", "gating": True}
        record["gates"].append(gate)
        record["metrics"] += [
            {"name": f"checklist.{q}", "value": float(yes), "reason": f"question {q} - judge: because", "higher_is_better": True}
            for q, yes in zip(QUESTIONS, answers, strict=True)
        ]
    return document


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("workbench")
    document = judged_document(root, 80)
    path = root / "site" / "report.html"
    write_html_report(document, path)
    (root / "results.json").write_text(json.dumps(document), encoding="utf-8")
    return path, document


def visit(browser: Any, path: Path, fragment: str = "") -> harness.Visit:
    return harness.Visit(browser, path, fragment)


def fragment(page: Any) -> dict[str, list[str]]:
    return parse_qs(page.evaluate("location.hash").lstrip("#"))


def failing(document: dict[str, Any]) -> list[str]:
    return sorted(r["uid"] for r in document["cases"] if r["status"] in ("failed", "error"))


def test_above_30_cases_the_table_is_the_first_view_and_a_filter_finds_the_failing_case(browser: Any, run: Any) -> None:
    path, document = run
    v = visit(browser, path)
    try:
        page = v.page
        assert page.locator("article.case").count() == 0
        assert page.locator("tr.case-row").count() == 50  # one row per case, a page of them
        page.select_option("#f-status", "failing")
        assert v.uids() == failing(document)[:50]
        assert fragment(page) == {"status": ["failing"]}  # the filter is in the link
        uid = failing(document)[0]
        page.locator(f'tr.case-row[data-uid="{uid}"]').click()  # a row opens its case's card
        assert page.locator("article.case").evaluate_all("els => els.map(e => e.dataset.uid)") == [uid]
        assert fragment(page) == {"status": ["failing"], "case": [uid]}
        page.keyboard.press("Escape")
        assert v.uids() == failing(document)[:50]  # back in the table, the filter kept
        assert v.clean(), (v.requests, v.console_errors, v.page_errors, v.dialogs)
    finally:
        v.context.close()


def test_a_link_with_filters_sort_and_page_opens_the_same_view(browser: Any, run: Any) -> None:
    path, document = run
    quality = sorted({m["name"] for r in document["cases"] for m in r["metrics"]}).index("quality.score")
    v = visit(browser, path, f"#status=passed&sort=metric%3A{quality}&desc=1&size=25&page=2")
    try:
        page = v.page
        assert page.locator("#f-status").input_value() == "passed"
        assert page.locator(".page-label").first.inner_text().startswith("page 2 of ")
        passed = [r for r in document["cases"] if r["status"] == "passed"]
        by_quality = sorted(passed, key=lambda r: (-harness.metric(r, "quality.score"), r["uid"]))
        assert v.uids() == [r["uid"] for r in by_quality[25:50]]
        header = page.locator(f"th[data-sort-key='metric:{quality}']")
        assert header.get_attribute("class") == "sortable desc"
        header.click()  # the same column again: ascending
        assert fragment(page) == {"status": ["passed"], "sort": [f"metric:{quality}"], "size": ["25"]}
        assert v.uids() == [r["uid"] for r in sorted(passed, key=lambda r: (harness.metric(r, "quality.score"), r["uid"]))][:25]
        assert v.clean(), (v.requests, v.console_errors, v.page_errors, v.dialogs)
    finally:
        v.context.close()


def test_a_plain_anchor_leaves_the_view_alone_and_an_unknown_value_falls_back(browser: Any, run: Any) -> None:
    path, document = run
    v = visit(browser, path, "#status=no-such-status&case=no/such-case")
    try:
        assert v.page.locator("#f-status").input_value() == ""
        assert v.counter() == f"{len(document['cases'])} of {len(document['cases'])} cases shown"
        v.page.click("a[href='#cases']")
        assert v.page.locator("tr.case-row").count() == 50
    finally:
        v.context.close()


def test_several_models_have_a_column_of_outputs_each(browser: Any, tmp_path: Path) -> None:
    document = synthetic_document(tmp_path, 40, models=("model-a", "model-b"))
    path = tmp_path / "report.html"
    write_html_report(document, path)
    v = visit(browser, path)
    try:
        page = v.page
        headers = page.locator("table.case-table th").all_inner_texts()
        assert headers[2:4] == ["model-a", "model-b"]
        row = page.locator('tr.case-row[data-uid="logos/case-0001"]')
        for column, model in enumerate(("model-a", "model-b")):
            record = next(r for r in document["cases"] if r["uid"] == "logos/case-0001" and r["model"] == model)
            alts = row.locator("td.outputs").nth(column).locator("img").evaluate_all("els => els.map(e => e.alt)")
            assert alts == [f"{model}: {a['name']}" for a in record["artifacts"]][:2]
        # quality.score: model-b's is the first's + 0.05
        assert row.locator("td.num").first.inner_text() == "0.3700 / 0.4200"
    finally:
        v.context.close()


def judged_items(document: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(case, name, the judge said yes) in the page's order: cases by uid, the gate, then the answers."""
    items = []
    for record in sorted(document["cases"], key=lambda r: r["uid"]):
        for gate in record["gates"]:
            if gate["name"].startswith("checklist."):
                items.append((record["uid"], gate["name"], gate["passed"]))
        for m in record["metrics"]:
            if m["name"].startswith("checklist."):
                items.append((record["uid"], m["name"], m["value"] >= 0.5))
    return items


def agreement(results: Path, labels: Path) -> dict[tuple[str, str], dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_visioneval", "agreement", str(results), str(labels), "--by", "none", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {(row["name"], row["group"]): row for row in json.loads(done.stdout)["agreement"]}


def exported(page: Any, tmp_path: Path, name: str) -> Path:
    with page.expect_download() as download:
        page.click("#l-export")
    target = tmp_path / name
    download.value.save_as(target)
    return target


def test_label_five_answers_by_keyboard_export_run_agreement_and_merge_a_second_rater(
    browser: Any, run: Any, tmp_path: Path
) -> None:
    path, document = run
    items = judged_items(document)
    v = visit(browser, path)
    try:
        page = v.page
        assert page.locator("#l-progress").inner_text() == f"0 of {len(items)} labelled"
        page.fill("#l-rater", "alice")
        page.locator("body").click(position={"x": 5, "y": 5})  # out of the text field: keys now label
        keys = ["y", "n", "y", "y", "n"]  # agree, disagree, ...
        page.keyboard.press("j")  # the first judged item of the list opens with its case
        for key in keys:
            page.keyboard.press(key)  # each answer moves on to the next item, into the next case
        assert page.locator("#l-progress").inner_text() == f"5 of {len(items)} labelled"
        assert page.locator("article.case").evaluate_all("els => els.map(e => e.dataset.uid)") == [items[4][0]]

        page.reload()  # the labels stay in the browser, under the run id
        page.wait_for_selector("body[data-ready='1']", state="attached")
        assert page.locator("#l-progress").inner_text() == f"5 of {len(items)} labelled"

        mine = exported(page, tmp_path, "alice.csv")
        with mine.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        expected_rows = [
            {"case": case, "name": name, "label": "yes" if said_yes == (key == "y") else "no", "rater": "alice"}
            for (case, name, said_yes), key in zip(items, keys, strict=False)
        ]
        assert sorted(rows, key=lambda r: (r["case"], r["name"])) == sorted(expected_rows, key=lambda r: (r["case"], r["name"]))

        figures = agreement(path.parent.parent / "results.json", mine)
        # Per name: how often alice agreed with the judge (y) over the cases she labelled.
        for name in {n for _, n, _ in items[: len(keys)]}:
            labelled = [k for (_, n, _), k in zip(items, keys, strict=False) if n == name]
            row = figures[(name, "all")]
            assert row["n"] == len(labelled)
            assert row["stats"]["accuracy"]["value"] == pytest.approx(labelled.count("y") / len(labelled))

        # A second person's file merges: the export then holds both, and agreement sees two raters.
        bob = tmp_path / "bob.csv"
        with bob.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["case", "name", "label", "rater"])
            for case, name, said_yes in items[:5]:
                writer.writerow([case, name, "yes" if said_yes else "no", "bob"])  # bob agrees with the judge
        page.set_input_files("#l-import", str(bob))
        expect(page.locator("#l-note")).to_have_text("merged bob.csv: 5 label(s) of bob")  # the file is read asynchronously
        assert page.locator("#l-progress").inner_text() == f"5 of {len(items)} labelled"  # the progress is alice's
        both = exported(page, tmp_path, "both.csv")
        with both.open(newline="", encoding="utf-8") as fh:
            raters = sorted(r["rater"] for r in csv.DictReader(fh))
        assert raters == ["alice"] * 5 + ["bob"] * 5
        figures = agreement(path.parent.parent / "results.json", both)
        assert figures[(items[0][1], "all")]["raters"] == 2

        bad = tmp_path / "bad.csv"
        bad.write_text("uid,verdict\nx,yes\n", encoding="utf-8")
        page.set_input_files("#l-import", str(bad))
        expect(page.locator("#l-note")).to_have_text(
            "bad.csv: missing column(s) case, name, label (need case, name, label; rater optional)"
        )
        assert v.clean(), (v.requests, v.console_errors, v.page_errors, v.dialogs)
    finally:
        v.context.close()


def test_a_score_is_labelled_with_a_digit_and_derived_metrics_are_not_offered(browser: Any, tmp_path: Path) -> None:
    document = synthetic_document(tmp_path, 4)
    for record in document["cases"]:
        record["metrics"] += [
            {"name": "score.goal", "value": 7.0, "reason": "judge: mostly", "higher_is_better": True},
            {"name": "score.mean", "value": 7.0, "reason": "mean of 1", "higher_is_better": True},
            {"name": "score.goal.std", "value": 0.5, "reason": "spread", "higher_is_better": False},
        ]
    path = tmp_path / "report.html"
    write_html_report(document, path)
    v = visit(browser, path)
    try:
        page = v.page
        assert page.locator("#l-progress").inner_text() == "0 of 4 labelled"  # score.goal only, once per case
        page.click("#l-start")
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("4")  # labels the score and moves on to the next case's
        uids = sorted(r["uid"] for r in document["cases"])
        assert page.locator("article.case").evaluate_all("els => els.map(e => e.dataset.uid)") == [uids[1]]
        assert page.locator("#l-progress").inner_text() == "1 of 4 labelled"
        page.keyboard.press("k")
        item = page.locator(f'article[data-uid="{uids[0]}"] .label-item')
        assert item.locator(".mine").inner_text() == "you: 4"
        assert item.locator("input.score").input_value() == "4"
        assert item.get_attribute("class") == "label-item labelled current"
    finally:
        v.context.close()


def test_without_judged_items_there_is_no_label_bar(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    write_html_report(synthetic_document(tmp_path, 4), path)
    v = visit(browser, path)
    try:
        assert v.page.locator("#labelbar").is_hidden()
        v.page.keyboard.press("j")
        assert v.page.locator("article.case").count() == 4  # nothing happened
    finally:
        v.context.close()


def test_compare_shows_both_runs_outputs_of_a_flipped_case_with_links_to_the_cards(browser: Any, tmp_path: Path) -> None:
    from pytest_visioneval.cli import compare

    before = synthetic_document(tmp_path / "a", 12)
    after = synthetic_document(tmp_path / "b", 12)
    flipped = next(r for r in after["cases"] if r["status"] == "passed")
    flipped["status"] = "failed"
    flipped["gates"][0].update(passed=False, reason="14% of pixels changed outside the mask")
    for name, document in (("a", before), ("b", after)):
        (tmp_path / name / "results.json").write_text(json.dumps(document), encoding="utf-8")
    write_html_report(before, tmp_path / "a" / "report.html")
    page_path = tmp_path / "compare.html"
    args = [str(tmp_path / "a" / "results.json"), str(tmp_path / "b" / "results.json"), "--resamples", "200"]
    compare.main([*args, "--html", str(page_path)])
    v = visit(browser, page_path)
    try:
        page = v.page
        row = page.locator(f'table.side-by-side tr[data-case="{flipped["uid"]}"]')
        assert row.locator("li.flipped").first.inner_text().startswith("pass->fail")
        assert "14% of pixels changed outside the mask" in row.inner_text()
        widths = row.locator("img").evaluate_all("els => els.map(e => e.naturalWidth)")
        assert len(widths) == 2 * len([a for a in flipped["artifacts"] if a["mime"].startswith("image/")][:3])
        assert all(w > 0 for w in widths)
        links = row.locator("a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
        assert links == [f"a/report.html#case={flipped['uid'].replace('/', '%2F')}"]  # B has no report beside it
        # The shared script sorts compare's tables: the runs table by its "run" column, descending then ascending.
        runs = page.locator("table.sortable").first
        runs.locator("th", has_text="run").first.click()
        labels = runs.locator("tbody tr td:nth-child(2)").all_inner_texts()
        assert labels == sorted(labels, key=str.lower, reverse=True) and len(labels) == 2
        runs.locator("th", has_text="run").first.click()
        assert runs.locator("tbody tr td:nth-child(2)").all_inner_texts() == labels[::-1]
        page.locator(f'tr[data-case="{flipped["uid"]}"] a').click()  # the card of the case in run A's report
        page.wait_for_selector("body[data-ready='1']", state="attached")
        assert page.locator("article.case").evaluate_all("els => els.map(e => e.dataset.uid)") == [flipped["uid"]]
    finally:
        v.context.close()
