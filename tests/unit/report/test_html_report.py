"""report/html_report.py and its parts: the markup, the case data in the page, the image files.

What the page does with them in a browser is in test_html_browser.py.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from PIL import Image

from pytest_visioneval.report.html_cases import group_key
from pytest_visioneval.report.html_images import ReportImages
from pytest_visioneval.report.html_report import render_html, write_html_report
from tests.unit.report.html_documents import (
    ATTRIBUTE_BREAKER,
    SCRIPT,
    SCRIPT_CLOSER,
    build_document,
    synthetic_document,
)


def soup_of(document: dict[str, Any], images: ReportImages | None = None) -> BeautifulSoup:
    return BeautifulSoup(render_html(document, images), "html.parser")


def data_of(soup: BeautifulSoup) -> dict[str, Any]:
    block = soup.select_one("script#report-data")
    assert block is not None and block.get("type") == "application/json"
    return json.loads(block.get_text())


def record(data: dict[str, Any], uid: str) -> dict[str, Any]:
    return next(r for r in data["cases"] if r["uid"] == uid)


def image(data: dict[str, Any], index: int) -> dict[str, Any]:
    thumb, full, width, height, note = data["images"][index]
    return {"thumb": thumb, "full": full, "width": width, "height": height, "note": note}


def labels(items: list[list[Any]]) -> list[str]:
    return [label for label, _ in items]


def one(node: Tag, selector: str) -> Tag:
    found = node.select_one(selector)
    assert found is not None, selector
    return found


def cells(table: Tag) -> list[list[str]]:
    return [[td.get_text() for td in tr.select("td")] for tr in table.select("tbody tr")]


def table_after(soup: BeautifulSoup, heading: str) -> list[list[str]]:
    """The first table after an <h2> or a <details> summary that starts with ``heading``."""
    title = soup.find(["h2", "summary"], string=re.compile("^" + re.escape(heading)))
    assert isinstance(title, Tag), heading
    table = title.find_next("table")
    assert isinstance(table, Tag)
    return cells(table)


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return build_document(tmp_path_factory.mktemp("doc"))


@pytest.fixture(scope="module")
def soup(document: dict[str, Any]) -> BeautifulSoup:
    return soup_of(document)


# -- the summary at the top --


def test_header_shows_the_run_exit_reasons_and_missed_thresholds_first(soup: BeautifulSoup) -> None:
    run = one(soup, "dl.run")
    assert "20260101-000000-abcd" in run.text and "reference" in run.text and "0.1.0" in run.text
    exit_box = one(soup, ".exit.bad")
    assert "exit status 1" in exit_box.text
    assert [li.text for li in exit_box.select("li")] == [
        "1 case(s) failed a gate or assertion",
        "1 threshold(s) missed: beta.sim.score",
    ]
    block = one(soup, "details#thresholds")
    assert block.has_attr("open")  # a missed threshold is not hidden
    assert one(block, "summary").text == "Thresholds: 2 checked, 1 missed"
    rows = cells(one(block, "table"))
    assert rows[0][:2] == ["FAIL", "beta.sim.score: mean 0.9 < 0.95 (short by 0.05)"]
    assert rows[1][:2] == ["PASS", "alpha.sim.score: mean 0.9 >= 0.5"]


def test_run_warnings_are_shown_under_the_exit_status(tmp_path: Path) -> None:
    document = build_document(tmp_path)
    assert soup_of(document).select_one(".exit.warn") is None
    document["exit"]["warnings"] = ["WARNING: every benchmark score is 0 (cookbook)"]
    warning = one(soup_of(document), ".exit.warn")
    assert [li.text for li in warning.select("li")] == ["WARNING: every benchmark score is 0 (cookbook)"]


def test_thresholds_all_met_stay_folded(tmp_path: Path) -> None:
    document = build_document(tmp_path)
    document["thresholds"] = document["thresholds"][:1]
    block = one(soup_of(document), "details#thresholds")
    assert not block.has_attr("open") and one(block, "summary").text == "Thresholds: 1 checked, all met"


def test_aggregate_tables_per_suite_protocol_and_tag(soup: BeautifulSoup) -> None:
    suites = {row[0]: row for row in table_after(soup, "Suites")}
    # suite, cases, passed, failed, errors, skipped, xfailed, xpassed, pass rate, its Wilson interval
    assert suites["alpha"] == ["alpha", "3", "1", "1", "1", "0", "0", "0", "33.3%", "[6.1, 79.2]"]
    assert suites["beta"] == ["beta", "3", "2", "0", "0", "1", "0", "0", "100.0%", "[34.2, 100.0]"]
    assert suites["all cases"][1] == "6"
    alpha, beta = soup.select("details.suite")
    assert one(alpha, "summary").text == "alpha" and alpha.has_attr("open")  # it has failures
    assert not beta.has_attr("open")
    gate_rows = {row[0]: row for table in alpha.select("table") for row in cells(table)}
    assert gate_rows["layout.ok"][1:] == ["0/1", "0.0%", "[0.0, 79.3]"]
    # alpha/photo only: one value, so its interval is the value itself
    assert gate_rows["sim.score"][1:] == ["0.9000", "[0.9000, 0.9000]", "0.0000", "0.9000", "0.9000", "1"]
    headers = [[th.get_text() for th in table.select("thead th")] for table in alpha.select("table")]
    assert headers == [["gate", "passed", "pass rate", "95% CI"], ["metric", "mean", "95% CI", "std", "min", "max", "n"]]
    assert "ocr: tesseract not installed — 1 case(s)" in alpha.text
    assert [row[0] for row in table_after(soup, "By protocol (2)")] == ["cookbook", "generic"]
    assert [row[0] for row in table_after(soup, "By tag")] == sorted([ATTRIBUTE_BREAKER, "edit", "slow", "ui", "web"])


def test_an_inconclusive_threshold_is_marked_and_opens_the_block(tmp_path: Path) -> None:
    document = build_document(tmp_path)
    met = {**document["thresholds"][0], "status": "met"}
    unsure = {**met, "min": 0.85, "message": "alpha.sim.score: mean 0.9 >= 0.85 but ... (inconclusive)", "status": "inconclusive"}
    document["thresholds"] = [met, unsure]
    block = one(soup_of(document), "details#thresholds")
    assert block.has_attr("open") and one(block, "summary").text == "Thresholds: 2 checked, 1 inconclusive"
    assert [row[0] for row in cells(one(block, "table"))] == ["INCONCLUSIVE", "PASS"]
    assert one(block, "td span.warn").text == "INCONCLUSIVE"


def test_the_interval_columns_are_headed_with_the_level(tmp_path: Path) -> None:
    document = build_document(tmp_path)
    document["aggregates"]["confidence"] = 0.9
    suites = one(soup_of(document), "h2#suites").find_next("table")
    assert isinstance(suites, Tag)
    assert [th.get_text() for th in suites.select("thead th")][-2:] == ["pass rate", "90% CI"]


def test_benchmark_scores_show_their_interval(tmp_path: Path) -> None:
    document = build_document(tmp_path)
    document["benchmarks"] = {
        "bizgeneval": {
            "compat": "official", "cases": 3, "scored": 3, "errored": [], "excluded": [], "unscored": [],
            "scores": {"accuracy": {"mean": 0.5, "n": 3, "ci_low": 0.25, "ci_high": 0.75}}, "groups": {},
        }
    }  # fmt: skip
    (row,) = table_after(soup_of(document), "Benchmark scores")
    assert row[1] == "accuracy 0.5 [0.25, 0.75] (n=3)"


def test_benchmark_scores_keep_describe_and_fold_the_groups(tmp_path: Path) -> None:
    document = build_document(tmp_path)
    document["benchmarks"] = {
        "bizgeneval": {
            "compat": "official", "cases": 4, "scored": 3, "errored": ["alpha/crash"], "excluded": [], "unscored": [],
            "scores": {"accuracy": {"mean": 0.5, "n": 3}},
            "groups": {"domain": {"slides": {"accuracy": {"mean": 0.25, "n": 2}}, "web": {"accuracy": {"mean": 1.0, "n": 1}}}},
        }
    }  # fmt: skip
    document["benchmarks"]["cookbook"] = {"compat": "official", "cases": 2, "scored": 0, "errored": [], "excluded": [],
                                          "unscored": ["a", "b"], "scores": {}, "groups": {}}  # fmt: skip
    soup = soup_of(document)
    assert one(soup, "h2#scores").text == "Benchmark scores"
    (biz, cookbook) = table_after(soup, "Benchmark scores")
    assert biz[:2] == ["bizgeneval", "accuracy 0.5 (n=3)"]
    assert biz[2].startswith("compat official; 3/4 cases in the means; 1 errored (left out): alpha/crash")  # describe()
    assert cookbook[:2] == ["cookbook", "-"] and "2 not scored" in cookbook[2]
    assert table_after(soup, "bizgeneval by group (2)") == [["domain=slides", "0.25 (n=2)"], ["domain=web", "1 (n=1)"]]
    assert soup.find("summary", string=re.compile("^cookbook by group")) is None


def test_the_mutation_self_test_is_shown_with_each_miss(tmp_path: Path) -> None:
    document = build_document(tmp_path)
    assert soup_of(document).find("h2", string="Mutation self-test") is None  # a normal run has none
    document["mutation"] = {
        "suites": {
            "alpha": {
                "cases": 2, "broken": 4, "caught": 3, "score": 0.75, "legitimate": 2, "legitimate_passed": 1,
                "missed": [{"case": "alpha/a", "mutant": "typo", "description": "one letter <b>painted</b> out"}],
                "brittle": [{"case": "alpha/b", "mutant": "jpeg_q85", "description": "re-encoded", "failed": "text.found: 0.5"}],
                "baselines_failed": [], "not_applicable": {},
            }
        }
    }  # fmt: skip
    soup = soup_of(document)
    assert table_after(soup, "Mutation self-test") == [["alpha", "2", "3/4", "75.0%", "1/2"]]
    heading = soup.find("h2", string="Mutation self-test")
    assert isinstance(heading, Tag)
    listing = heading.find_next("ul")
    assert isinstance(listing, Tag)
    items = [li.get_text() for li in listing.select("li")]
    assert items == [
        "missed: alpha/a: typo (one letter <b>painted</b> out): the suite cannot see this",
        "brittle: alpha/b: jpeg_q85 (re-encoded) failed text.found: 0.5",
    ]


def test_timings_are_a_table_of_their_own(tmp_path: Path) -> None:
    document = build_document(tmp_path)
    document["timings"] = {"alpha": {"render.seconds": {"mean": 1.5, "max": 2.0, "total": 3.0, "n": 2}}}
    assert table_after(soup_of(document), "Timings") == [["alpha", "render.seconds", "1.500", "2.000", "3.000", "2"]]


def test_filters_offer_every_suite_tag_status_metric_and_sort(soup: BeautifulSoup) -> None:
    def values(selector: str) -> list[str]:
        return [str(o["value"]) for o in soup.select(f"{selector} option")]

    assert values("#f-suite") == ["", "alpha", "beta"]
    assert values("#f-tag") == ["", ATTRIBUTE_BREAKER, "edit", "slow", "ui", "web"]
    assert values("#f-status") == ["", "failing", "passed", "failed", "error", "skipped"]
    metric_names = [o.text for o in soup.select("#f-metric option")]
    assert metric_names == ["any", "rubric.score", "sim.score"]
    sorts = [o.text for o in soup.select("#f-sort option")]
    assert sorts == ["case id", "status (worst first)", "duration", "rubric.score ↑", "sim.score ↑"]
    assert soup.select_one("#f-model") is None  # one model: no model filter, no spread sort


# -- the case data --


def test_case_data_carries_gates_metrics_reasons_and_skipped_graders(soup: BeautifulSoup) -> None:
    data = data_of(soup)
    assert [r["uid"] for r in data["cases"]] == [
        "alpha/broken", "alpha/crash", "alpha/photo", "beta/edit", "beta/page", "beta/skip",
    ]  # fmt: skip
    assert data["metrics"] == [["rubric.score", True], ["sim.score", True]]
    broken = record(data, "alpha/broken")
    assert broken["status"] == "failed" and broken["tags"] == ["ui", "slow"] and broken["suite"] == "alpha"
    assert broken["criteria"] == "the logo is centred"
    assert broken["message"] == "gate layout.ok failed: the button is missing"
    assert broken["g"][1] == ["layout.ok", False, True, "the button is missing"]
    assert broken["g"][2] == ["style.soft", False, False, "colours a bit off"]
    assert broken["v"] == {"0": 0.25} and broken["mr"] == {"0": f"judge says {SCRIPT} looks wrong"}
    assert broken["skipped"] == [["ocr", "tesseract not installed"]]
    assert broken["meta"] == "cookbook · image_generation · cases/alpha.eval.yaml:3"
    assert "message" not in record(data, "alpha/photo")  # a passed case has nothing to explain


def test_an_errored_case_shows_its_error_and_the_reply_text(soup: BeautifulSoup) -> None:
    crash = record(data_of(soup), "alpha/crash")
    assert crash["error"] == "model failed: <b>boom</b>"
    assert crash["reply"] == "--- reply.md\nSorry, here is <b>no</b> image:\n```html\n<p>x</p>\n```"
    assert crash["files"] == ["reply.md"]


def test_references_are_apart_from_inputs_and_edits_get_a_diff(soup: BeautifulSoup) -> None:
    data = data_of(soup)
    edit = record(data, "beta/edit")
    assert labels(edit["inputs"]) == ["input 1", "mask"]
    assert labels(edit["refs"]) == ["reference"]
    assert labels(edit["outs"]) == ["output-0.png", "output-1.png"]
    assert labels(edit["diff"]) == ["diff vs input 1 (mask outlined)"]
    diff = image(data, edit["diff"][0][1])
    assert diff["thumb"].startswith("data:image/") and diff["note"].endswith("changed; input scaled from 120x120")
    page = record(data, "beta/page")
    assert page["inputs"] == [] and page["refs"] == [] and page["refnote"].endswith("page.html")
    assert labels(page["outs"]) == ["screenshot-1.png", "fullpage.png"]
    assert page["files"] == ["output-0.html", "render.json"]
    assert "diff" not in record(data, "alpha/photo")  # generation, not an edit


def test_missing_and_undecodable_images_become_placeholders(soup: BeautifulSoup, document: dict[str, Any]) -> None:
    data = data_of(soup)
    missing = image(data, record(data, "alpha/broken")["inputs"][0][1])
    assert missing["thumb"] is None and missing["note"] == f"missing: {document['cases'][0]['inputs']['images'][0]}"
    undecodable = image(data, record(data, "beta/edit")["outs"][1][1])
    assert undecodable["thumb"] is None
    assert (
        undecodable["note"] == f"does not decode: {document['cases'][3]['artifacts'][1]['path']} (not an image Pillow can read)"
    )


def test_a_reference_folder_shows_its_frames(tmp_path: Path) -> None:
    document = synthetic_document(tmp_path, 1)
    frames = tmp_path / "trajectory"
    for name in ("frame-2.png", "frame-1.png", "notes.txt"):
        (frames / name).parent.mkdir(exist_ok=True)
        (frames / name).write_bytes(Path(document["cases"][0]["artifacts"][0]["path"]).read_bytes())
    document["cases"][0]["inputs"]["reference"] = str(frames)
    first = data_of(soup_of(document))["cases"][0]
    assert labels(first["refs"]) == ["reference frame-1.png", "reference frame-2.png"]
    assert first["refnote"] == f"reference folder: {frames}"


def test_text_from_models_cannot_end_the_data_block_or_run(soup: BeautifulSoup) -> None:
    html = str(soup)
    assert SCRIPT_CLOSER not in html and SCRIPT not in html and ATTRIBUTE_BREAKER not in html
    assert len(soup.select("script")) == 2  # the data block and the report's own script
    assert record(data_of(soup), "alpha/crash")["prompt"] == SCRIPT_CLOSER  # the text itself survives


def test_the_csp_allows_only_the_reports_own_style_script_and_images(soup: BeautifulSoup) -> None:
    policy = str(one(soup, 'meta[http-equiv="Content-Security-Policy"]')["content"])
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["img-src"] == "data: 'self' file:"
    code = soup.select("script")[-1].get_text()
    digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
    assert directives["script-src"] == f"'sha256-{digest}'"


@pytest.mark.parametrize(
    ("uid", "model", "key"),
    [
        ("s/c", "m", "s/c"),
        ("s/c[m]", "m", "s/c"),
        ("s/c[gpt-image-1]", "openai:gpt-image-1", "s/c"),
        ("s/c[quality=low]", "m", "s/c[quality=low]"),  # a sweep, not the model
        ("s/c[quality=low][m]", "m", "s/c[quality=low]"),
    ],
)
def test_group_key_drops_only_the_model_suffix(uid: str, model: str, key: str) -> None:
    assert group_key({"uid": uid, "model": model}) == key


def test_several_models_group_by_case_and_offer_model_filter_and_spread(tmp_path: Path) -> None:
    document = synthetic_document(tmp_path, 4, models=("model-a", "model-b"))
    for r in document["cases"]:
        r["uid"] = f"{r['uid']}[{r['model']}]"  # as a --model comparison run names them
    soup = soup_of(document)
    data = data_of(soup)
    assert data["models"] == ["model-a", "model-b"]
    assert sorted({r["key"] for r in data["cases"]}) == [
        "logos/case-0001",
        "pages/case-0002",
        "photos/case-0003",
        "posters/case-0000",
    ]
    assert [o.text for o in soup.select("#f-model option")] == ["all", "model-a", "model-b"]
    assert "quality.score: spread across models" in [o.text for o in soup.select("#f-sort option")]


# -- images as files, or embedded --


def test_images_are_written_next_to_the_report_thumbnails_and_full_size(tmp_path: Path) -> None:
    document = build_document(tmp_path)
    target = tmp_path / "site" / "report.html"
    folder = write_html_report(document, target, thumbnail_side=100)
    assert folder == tmp_path / "site" / "report_files"
    data = data_of(BeautifulSoup(target.read_text(encoding="utf-8"), "html.parser"))
    edit = record(data, "beta/edit")
    output = image(data, edit["outs"][0][1])
    assert output["thumb"].startswith("report_files/t/") and output["full"].startswith("report_files/f/")
    assert (output["width"], output["height"]) == (1000, 800)
    with Image.open(target.parent / output["thumb"]) as thumb:
        assert thumb.size == (100, 80)  # aspect kept
    original = Path(document["cases"][3]["artifacts"][0]["path"])
    assert (target.parent / output["full"]).read_bytes() == original.read_bytes()  # full size, unchanged
    assert not (target.parent / output["full"]).samefile(original)  # a copy: editing it cannot touch the output
    diff = image(data, edit["diff"][0][1])
    assert diff["full"].startswith("report_files/d/") and (target.parent / diff["full"]).is_file()
    photo = [image(data, i) for _, i in record(data, "alpha/photo")["inputs"] + record(data, "alpha/photo")["outs"]]
    assert photo[0]["thumb"].endswith(".png")  # a flat drawing stays PNG
    assert photo[1]["thumb"].endswith(".jpg")  # noise is much smaller as JPEG
    every = [row for row in data["images"] if row[0]]
    assert all((target.parent / url).is_file() for row in every for url in row[:2])
    assert "data:image" not in target.read_text(encoding="utf-8")


def test_shared_images_are_stored_once_and_stale_files_are_removed(tmp_path: Path) -> None:
    document = synthetic_document(tmp_path, 40)
    target = tmp_path / "report.html"
    folder = write_html_report(document, target)
    assert folder is not None
    assert len(list((folder / "f").iterdir())) == 5  # four shared outputs and one reference, for 40 cases
    assert len(list((folder / "t").iterdir())) == 5
    stray = folder / "t" / "notes.txt"  # not ours: left alone
    stray.write_text("mine")
    before = {p.name: p.stat().st_mtime_ns for p in (folder / "f").iterdir()}
    document["cases"] = [c for c in document["cases"] if c["artifacts"] and c["artifacts"][0]["path"].endswith("out-0.png")]
    write_html_report(document, target)
    after = {p.name: p.stat().st_mtime_ns for p in (folder / "f").iterdir()}
    assert len(after) == 2 and all(before[name] == mtime for name, mtime in after.items())  # kept as they were
    assert stray.read_text() == "mine"


def test_embedded_images_make_one_file_with_a_downscaled_full_view(tmp_path: Path) -> None:
    document = build_document(tmp_path)
    target = tmp_path / "one" / "report.html"
    assert write_html_report(document, target, embed=True, thumbnail_side=100, embed_side=400) is None
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.html"]  # no folder, no temporary file
    data = data_of(BeautifulSoup(target.read_text(encoding="utf-8"), "html.parser"))
    output = image(data, record(data, "beta/edit")["outs"][0][1])
    assert output["thumb"].startswith("data:image/png;base64,")
    assert decoded(output["thumb"]).size == (100, 80)
    assert decoded(output["full"]).size == (400, 320)
    small = image(data, record(data, "alpha/broken")["outs"][0][1])  # 64x48: the thumbnail is the view
    assert small["full"] == small["thumb"]


def decoded(src: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1])))


def test_write_is_atomic_and_creates_the_folder(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "er" / "report.html"
    write_html_report(build_document(tmp_path), target)
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.html", "report_files"]  # no temporary file


def test_a_long_reply_is_cut_and_says_where_the_rest_is(tmp_path: Path) -> None:
    document = build_document(tmp_path)
    crash = document["cases"][1]
    reply = Path(crash["artifacts"][0]["path"])
    reply.write_text("é" * 30_000, encoding="utf-8")  # 60,000 bytes
    shown = record(data_of(soup_of(document)), "alpha/crash")["reply"]
    assert shown == f"--- reply.md\n{'é' * 20_000}\n[... cut at 20000 characters; 60000 bytes in {reply}]"


def test_an_empty_run_and_python_test_records_make_a_page(tmp_path: Path) -> None:
    document = build_document(tmp_path)
    document["cases"] = []
    assert data_of(soup_of(document))["cases"] == []
    python_test = {"uid": "test_x.py/test_y", "suite": "test_x.py", "case_id": "test_y", "protocol": "python", "task": None,
                   "tags": [], "status": "passed", "model": None, "metrics": [{"name": "m", "value": 1.0, "reason": ""}],
                   "nodeid": "test_x.py::test_y"}  # fmt: skip
    document["cases"] = [python_test]
    only = data_of(soup_of(document))["cases"][0]
    assert (only["key"], only["model"], only["v"], only["outs"]) == ("test_x.py/test_y", "", {"0": 1.0}, [])


def test_a_report_name_with_a_space_gets_a_quoted_folder_url(tmp_path: Path) -> None:
    target = tmp_path / "my report.html"
    write_html_report(synthetic_document(tmp_path, 1), target)
    data = data_of(BeautifulSoup(target.read_text(encoding="utf-8"), "html.parser"))
    thumb = data["images"][0][0]
    assert thumb.startswith("my%20report_files/t/")
    assert (tmp_path / "my report_files" / thumb.split("/", 1)[1]).is_file()
