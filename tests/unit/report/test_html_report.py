"""report/html_report.py: the self-contained HTML report, checked in real Chromium."""

from __future__ import annotations

import base64
import io
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from PIL import Image, ImageDraw

from pytest_visioneval.cli.html import main as cli_main
from pytest_visioneval.pages.render import find_chromium
from pytest_visioneval.report.html_report import render_html, write_html_report
from pytest_visioneval.report.results_json import SCHEMA_NAME, SCHEMA_VERSION
from pytest_visioneval.results.aggregate import aggregate

SCRIPT = "<script>alert(1)</script>"
ATTRIBUTE_BREAKER = '"><script>alert(3)</script>'  # a tag that tries to close the data-tags attribute


def png(path: Path, size: tuple[int, int] = (64, 48), color: tuple[int, int, int] = (30, 90, 200), mode: str = "RGB") -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    img = Image.new("RGB", size, "white")
    ImageDraw.Draw(img).rectangle((size[0] // 4, size[1] // 4, 3 * size[0] // 4, 3 * size[1] // 4), fill=color)
    converted = img.convert("P", palette=Image.Palette.ADAPTIVE) if mode == "P" else img.convert(mode)
    converted.save(path, format="PNG")
    return str(path)


def noise_png(path: Path, size: tuple[int, int] = (200, 150)) -> str:
    """A photo-like image: smooth gradient plus noise, which PNG compresses badly."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    img = Image.new("RGB", size)
    img.putdata(
        [(x + rng.randrange(40), y + rng.randrange(40), 120 + rng.randrange(40)) for y in range(size[1]) for x in range(size[0])]
    )
    img.save(path, format="PNG")
    return str(path)


def artifact(path: str, mime: str) -> dict[str, Any]:
    return {"name": Path(path).name, "path": path, "mime": mime, "sha256": "0" * 64}


def case(uid: str, status: str, tags: list[str], **fields: Any) -> dict[str, Any]:
    suite, case_id = uid.split("/")
    record: dict[str, Any] = {
        "uid": uid,
        "suite": suite,
        "case_id": case_id,
        "protocol": "cookbook",
        "task": "image_generation",
        "tags": tags,
        "source": f"cases/{suite}.eval.yaml:3",
        "prompt": f"prompt of {case_id}",
        "criteria": None,
        "inputs": {"images": [], "mask": None, "reference": None},
        "nodeid": f"cases/{suite}.eval.yaml::{uid}",
        "model": "reference",
        "status": status,
        "duration": 0.5,
        "error": None,
        "gates": [{"name": "image.decodes", "passed": True, "reason": "1 image(s) decode", "gating": True}],
        "metrics": [{"name": "sim.score", "value": 0.9, "reason": "close", "higher_is_better": True}],
        "artifacts": [],
        "skipped_graders": [],
    }
    record.update(fields)
    return record


def build_document(root: Path) -> dict[str, Any]:
    """Two suites, six cases: passed, failed (with a script in a judge reason), error, html page, skipped, edit."""
    out = root / "out"
    cases = [
        case(
            "alpha/broken",
            "failed",
            ["ui", "slow"],
            inputs={"images": [str(root / "gone" / "input.png")], "mask": None, "reference": None},
            criteria="the logo is centred",
            message="gate layout.ok failed: the button is missing",
            gates=[
                {"name": "image.decodes", "passed": True, "reason": "1 image(s) decode", "gating": True},
                {"name": "layout.ok", "passed": False, "reason": "the button is missing", "gating": True},
                {"name": "style.soft", "passed": False, "reason": "colours a bit off", "gating": False},
            ],
            metrics=[
                {"name": "rubric.score", "value": 0.25, "reason": f"judge says {SCRIPT} looks wrong", "higher_is_better": True}
            ],
            artifacts=[artifact(png(out / "broken" / "output-0.png", color=(200, 30, 30)), "image/png")],
            skipped_graders=[{"name": "ocr", "reason": "tesseract not installed"}],
        ),
        case("alpha/crash", "error", ["slow"], error="model failed: <b>boom</b>", gates=[], metrics=[]),
        case(
            "alpha/photo",
            "passed",
            ["ui"],
            inputs={"images": [png(root / "in" / "photo-in.png", (300, 200), mode="P")], "mask": None, "reference": None},
            artifacts=[artifact(noise_png(out / "photo" / "output-0.png"), "image/png")],
        ),
        case(
            "beta/edit",
            "passed",
            ["edit"],
            task="image_editing",
            inputs={
                "images": [png(root / "in" / "logo.png", (120, 120))],
                "mask": png(root / "in" / "mask.png", (120, 120), color=(255, 255, 255), mode="L"),
                "reference": png(root / "in" / "logo-ref.png", (120, 120), color=(20, 20, 120)),
            },
            artifacts=[artifact(png(out / "edit" / "output-0.png", (1000, 800), color=(20, 20, 120)), "image/png")],
        ),
        case(
            "beta/page",
            "passed",
            ["web", "ui"],
            protocol="generic",
            task="html_generation",
            inputs={"images": [], "mask": None, "reference": str(root / "in" / "page.html")},
            artifacts=[
                artifact(str(out / "page" / "output-0.html"), "text/html"),
                artifact(png(out / "page" / "screenshot-1.png", (320, 240), color=(10, 150, 10)), "image/png"),
                artifact(png(out / "page" / "fullpage.png", (320, 900), color=(10, 150, 10)), "image/png"),
                artifact(str(out / "page" / "render.json"), "application/json"),
            ],
        ),
        case("beta/skip", "skipped", [ATTRIBUTE_BREAKER], gates=[], metrics=[]),
    ]
    (out / "page" / "output-0.html").write_text("<p>hi</p>")
    (out / "page" / "render.json").write_text("{}")
    undecodable = out / "edit" / "output-1.png"
    undecodable.write_bytes(b"not a png at all")
    cases[3]["artifacts"].append(artifact(str(undecodable), "image/png"))
    return {
        "schema": SCHEMA_NAME,
        "schema_version": SCHEMA_VERSION,
        "run": {
            "id": "20260101-000000-abcd",
            "model": "reference",
            "model_params": {"size": "64x48"},
            "started": "2026-01-01T00:00:00+00:00",
            "finished": "2026-01-01T00:01:00+00:00",
            "output_dir": str(out),
            "plugin_version": "0.1.0",
            "argv": ["cases"],
        },
        "cases": cases,
        "aggregates": aggregate(cases),
        "thresholds": [
            {"suite": "alpha", "metric": "sim.score", "min": 0.5, "max": None, "source": "alpha.eval.yaml:4",
             "observed": 0.9, "passed": True, "message": "alpha.sim.score: mean 0.9 >= 0.5"},
            {"suite": "beta", "metric": "sim.score", "min": 0.95, "max": None, "source": "--eval-fail-under",
             "observed": 0.9, "passed": False, "message": "beta.sim.score: mean 0.9 < 0.95 (short by 0.05)"},
        ],
        "exit": {"status": 1, "reasons": ["1 case(s) failed a gate or assertion", "1 threshold(s) missed: beta.sim.score"]},
    }  # fmt: skip


EXPECTED_THUMBNAILS = 9  # broken output, photo in+out, edit input+mask+reference+output, page screenshot+fullpage


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("html-report")
    document = build_document(root)
    path = root / "site" / "report.html"
    write_html_report(document, path, thumbnail_side=160)
    return path, document


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=find_chromium(), args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


class Visit:
    """A page with everything that could go wrong recorded: console errors, page errors, dialogs, requests."""

    def __init__(self, browser: Any, path: Path):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.requests: list[str] = []
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self.dialogs: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        self.page.on("dialog", self._dialog)
        self.page.goto(path.as_uri(), wait_until="load")

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith(("file://", "data:")):
            route.continue_()
        else:
            self.requests.append(url)
            route.abort()

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.console_errors.append(message.text)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def visible_uids(self) -> list[str]:
        return self.page.eval_on_selector_all(
            "article.case", "els => els.filter(e => e.offsetParent !== null).map(e => e.dataset.uid)"
        )

    def counter(self) -> str:
        return self.page.locator("#counter").inner_text()


@pytest.fixture
def visit(browser: Any, report: tuple[Path, dict[str, Any]]) -> Iterator[Visit]:
    opened = Visit(browser, report[0])
    yield opened
    opened.context.close()


def test_the_harness_notices_requests_errors_and_dialogs(browser: Any, tmp_path: Path) -> None:
    """So that the zero counts below mean something."""
    page = tmp_path / "bad.html"
    page.write_text('<img src="http://127.0.0.1:9/x.png"><script>alert(2); console.error("e"); throw new Error("x")</script>')
    bad = Visit(browser, page)
    try:
        assert bad.requests == ["http://127.0.0.1:9/x.png"]
        assert bad.dialogs == ["2"]
        assert bad.console_errors and bad.page_errors
    finally:
        bad.context.close()


def test_report_loads_cleanly_and_requests_nothing(visit: Visit) -> None:
    assert visit.page.title() == "visioneval report 20260101-000000-abcd"
    assert visit.requests == []
    assert visit.console_errors == []
    assert visit.page_errors == []
    assert visit.page.locator("article.case").count() == 6


def test_every_embedded_image_decodes_and_missing_ones_show_placeholders(
    visit: Visit, report: tuple[Path, dict[str, Any]]
) -> None:
    sources = visit.page.eval_on_selector_all("img.thumb", "els => els.map(e => [e.src.slice(0, 15), e.naturalWidth])")
    assert len(sources) == EXPECTED_THUMBNAILS
    assert all(src.startswith("data:image/") and width > 0 for src, width in sources)
    broken = visit.page.locator('article[data-uid="alpha/broken"] .missing')
    missing_input = report[1]["cases"][0]["inputs"]["images"][0]
    assert broken.inner_text() == f"missing: {missing_input}"
    undecodable = visit.page.locator('article[data-uid="beta/edit"] .missing').inner_text()
    assert undecodable.startswith("missing: ") and "output-1.png (does not decode" in undecodable


def test_untrusted_text_is_shown_as_text_and_never_runs(visit: Visit) -> None:
    assert visit.dialogs == []
    assert visit.page.locator("script").count() == 1  # only the report's own
    reason = visit.page.locator('article[data-uid="alpha/broken"] td', has_text="judge says")
    assert reason.inner_text() == f"judge says {SCRIPT} looks wrong"
    assert reason.is_visible()
    assert visit.page.locator('article[data-uid="alpha/crash"] pre').inner_text() == "model failed: <b>boom</b>"
    # The hostile tag survives as an attribute value and as a filter option.
    options = visit.page.eval_on_selector_all("#f-tag option", "els => els.map(e => e.value)")
    assert ATTRIBUTE_BREAKER in options
    assert visit.page.locator('article[data-uid="beta/skip"] .tag').inner_text() == ATTRIBUTE_BREAKER


def test_filters_hide_rows_and_update_the_counter(visit: Visit) -> None:
    page = visit.page
    assert visit.counter() == "6 of 6 cases shown"

    page.select_option("#f-suite", "alpha")
    assert visit.visible_uids() == ["alpha/broken", "alpha/crash", "alpha/photo"]
    assert visit.counter() == "3 of 6 cases shown"

    page.select_option("#f-tag", "ui")
    assert visit.visible_uids() == ["alpha/broken", "alpha/photo"]
    assert visit.counter() == "2 of 6 cases shown"

    page.select_option("#f-suite", "")
    page.check("#f-failing")
    assert visit.visible_uids() == ["alpha/broken"]
    page.select_option("#f-tag", "")
    assert visit.visible_uids() == ["alpha/broken", "alpha/crash"]

    page.uncheck("#f-failing")
    page.fill("#f-search", "PAGE")
    assert visit.visible_uids() == ["beta/page"]
    assert visit.counter() == "1 of 6 cases shown"

    page.fill("#f-search", "")
    page.select_option("#f-tag", ATTRIBUTE_BREAKER)
    assert visit.visible_uids() == ["beta/skip"]


def test_clicking_a_thumbnail_opens_it_large(visit: Visit) -> None:
    page = visit.page
    assert page.locator("#lightbox").is_hidden()
    thumb = page.locator('article[data-uid="beta/edit"] img.thumb').last
    thumb.click()
    assert page.locator("#lightbox").is_visible()
    assert page.locator("#lightbox img").get_attribute("src") == thumb.get_attribute("src")
    page.keyboard.press("Escape")
    assert page.locator("#lightbox").is_hidden()


# -- the markup, without a browser --


def soup_of(document: dict[str, Any], **kwargs: Any) -> BeautifulSoup:
    return BeautifulSoup(render_html(document, **kwargs), "html.parser")


def one(node: Tag, selector: str) -> Tag:
    found = node.select_one(selector)
    assert found is not None, selector
    return found


def cells(table: Tag) -> list[list[str]]:
    return [[td.get_text() for td in tr.select("td")] for tr in table.select("tbody tr")]


def table_after(soup: BeautifulSoup, heading: str) -> list[list[str]]:
    title = soup.find("h2", string=heading)
    assert isinstance(title, Tag), heading
    table = title.find_next("table")
    assert isinstance(table, Tag)
    return cells(table)


def test_header_shows_the_run_exit_reasons_and_thresholds(tmp_path: Path) -> None:
    soup = soup_of(build_document(tmp_path))
    run = one(soup, "dl.run")
    assert "20260101-000000-abcd" in run.text and "reference" in run.text and "0.1.0" in run.text
    exit_box = one(soup, ".exit.bad")
    assert "exit status 1" in exit_box.text
    assert [li.text for li in exit_box.select("li")] == [
        "1 case(s) failed a gate or assertion",
        "1 threshold(s) missed: beta.sim.score",
    ]
    rows = table_after(soup, "Thresholds")
    assert rows[0][:2] == ["PASS", "alpha.sim.score: mean 0.9 >= 0.5"]
    assert rows[1][:2] == ["FAIL", "beta.sim.score: mean 0.9 < 0.95 (short by 0.05)"]


def test_aggregate_tables_per_suite_protocol_and_tag(tmp_path: Path) -> None:
    soup = soup_of(build_document(tmp_path))
    suites = {row[0]: row for row in table_after(soup, "Suites")}
    # suite, cases, passed, failed, errors, skipped, xfailed, xpassed, pass rate
    assert suites["alpha"] == ["alpha", "3", "1", "1", "1", "0", "0", "0", "33.3%"]
    assert suites["beta"] == ["beta", "3", "2", "0", "0", "1", "0", "0", "100.0%"]
    assert suites["all cases"][1] == "6"
    alpha = soup.select("details.suite")[0]
    assert one(alpha, "summary").text == "alpha"
    gate_rows = {row[0]: row for table in alpha.select("table") for row in cells(table)}
    assert gate_rows["layout.ok"][1:] == ["0/1", "0.0%"]
    assert gate_rows["sim.score"][1:] == ["0.9000", "0.0000", "0.9000", "0.9000", "1"]  # alpha/photo only
    assert "ocr: tesseract not installed — 1 case(s)" in alpha.text
    protocols = [row[0] for row in table_after(soup, "By protocol")]
    assert protocols == ["cookbook", "generic"]
    tags = [row[0] for row in table_after(soup, "By tag")]
    assert tags == sorted([ATTRIBUTE_BREAKER, "edit", "slow", "ui", "web"])


def test_the_mutation_self_test_is_shown_with_each_miss(tmp_path: Path) -> None:
    document = build_document(tmp_path)
    assert soup_of(document).find("h2", string="Mutation self-test") is None  # a normal run has none
    document["mutation"] = {
        "suites": {
            "alpha": {
                "cases": 2,
                "broken": 4,
                "caught": 3,
                "score": 0.75,
                "legitimate": 2,
                "legitimate_passed": 1,
                "missed": [{"case": "alpha/a", "mutant": "typo", "description": "one letter <b>painted</b> out"}],
                "brittle": [{"case": "alpha/b", "mutant": "jpeg_q85", "description": "re-encoded", "failed": "text.found: 0.5"}],
                "baselines_failed": [],
                "not_applicable": {},
            }
        }
    }
    soup = soup_of(document)
    assert table_after(soup, "Mutation self-test") == [["alpha", "2", "3/4", "75.0%", "1/2"]]
    items = [li.get_text() for li in soup.find("h2", string="Mutation self-test").find_next("ul").select("li")]
    assert items == [
        "missed: alpha/a: typo (one letter <b>painted</b> out): the suite cannot see this",
        "brittle: alpha/b: jpeg_q85 (re-encoded) failed text.found: 0.5",
    ]


def test_a_case_card_shows_gates_metrics_and_failures(tmp_path: Path) -> None:
    soup = soup_of(build_document(tmp_path))
    card = one(soup, 'article[data-uid="alpha/broken"]')
    assert card["class"] == ["case", "failed"] and card["data-status"] == "failed"
    assert json.loads(str(card["data-tags"])) == ["ui", "slow"]
    assert one(card, ".status.failed").text == "failed"
    assert one(card, "pre").text == "gate layout.ok failed: the button is missing"
    assert [dt.text for dt in card.select(".text dt")] == ["prompt", "criteria"]
    highlighted = [one(tr, "td").text for tr in card.select("tr.fail-gating")]
    assert highlighted == ["layout.ok"]  # the failed non-gating gate is not highlighted as a failure
    assert "fail (not gating)" in card.text
    assert "ocr: tesseract not installed" in card.text
    page = one(soup, 'article[data-uid="beta/page"]')
    assert [one(f, "figcaption").text for f in page.select("figure")] == ["screenshot-1.png", "fullpage.png"]
    assert "other outputs: output-0.html, render.json" in page.text
    assert "reference: " in page.text and "page.html" in page.text


def decoded(src: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1])))


def test_images_are_downscaled_and_photos_become_jpeg(tmp_path: Path) -> None:
    soup = soup_of(build_document(tmp_path), thumbnail_side=100)
    edit = one(soup, 'article[data-uid="beta/edit"]')
    output = edit.select("img.thumb")[-1]
    assert str(output["src"]).startswith("data:image/png;base64,")
    assert decoded(str(output["src"])).size == (100, 80)  # 1000x800, aspect kept
    photo = soup.select('article[data-uid="alpha/photo"] img.thumb')
    assert str(photo[0]["src"]).startswith("data:image/png;")  # a flat drawing stays PNG
    assert str(photo[1]["src"]).startswith("data:image/jpeg;")  # noise is much smaller as JPEG
    assert decoded(str(photo[1]["src"])).size == (100, 75)


def test_write_is_atomic_and_creates_the_folder(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "er" / "report.html"
    write_html_report(build_document(tmp_path), target)
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.html"]  # no temporary file left behind


def test_cli_turns_a_results_json_into_a_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps(build_document(tmp_path)))
    target = tmp_path / "report.html"
    assert cli_main([str(results), str(target), "--thumbnail-side", "64"]) == 0
    assert f"wrote {target}" in capsys.readouterr().out
    assert len(BeautifulSoup(target.read_text(encoding="utf-8"), "html.parser").select("article.case")) == 6


def test_cli_refuses_other_documents(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"schema": "something-else", "schema_version": 1}))
    assert cli_main([str(other), str(tmp_path / "r.html")]) == 2
    assert "is not a pytest-visioneval/results document" in capsys.readouterr().err
    assert cli_main([str(tmp_path / "absent.json"), str(tmp_path / "r.html")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()
