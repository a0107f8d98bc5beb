"""The HTML report in real Chromium: it loads fast at scale, filters, sorts, pages, shows images, runs nothing foreign.

Every check reads the DOM after clicking or typing, as a user would; expectations are computed
from the document in Python, independently of the page's script.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.pages.render import find_chromium
from pytest_visioneval.report.html_report import write_html_report
from tests.unit.report.html_documents import (
    ATTRIBUTE_BREAKER,
    SCRIPT,
    SCRIPT_CLOSER,
    build_document,
    synthetic_document,
)

LOAD_LIMIT_S = 2.0  # the bar: 1,000 cases open in under 2 s


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=find_chromium(), args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


class Visit:
    """A page with everything that could go wrong recorded: console errors, page errors, dialogs, requests."""

    def __init__(self, browser: Any, path: Path, fragment: str = ""):
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
        started = time.perf_counter()
        self.page.goto(path.as_uri() + fragment, wait_until="domcontentloaded")
        self.page.wait_for_selector("body[data-ready='1']", state="attached")
        self.ready_seconds = time.perf_counter() - started  # the first page of cases is drawn
        self.page.wait_for_load_state("load")
        self.load_seconds = time.perf_counter() - started  # and the thumbnails in view have loaded

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

    def timing(self) -> str:
        return f"cases drawn in {self.ready_seconds:.2f} s, load event at {self.load_seconds:.2f} s"

    def uids(self) -> list[str]:
        return self.page.eval_on_selector_all("article.case, tr.case-row", "els => els.map(e => e.dataset.uid)")

    def counter(self) -> str:
        return self.page.locator("#counter").inner_text()

    def clean(self) -> bool:
        return not (self.requests or self.console_errors or self.page_errors or self.dialogs)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("big")
    document = synthetic_document(root, 400)
    path = root / "site" / "report.html"
    write_html_report(document, path)
    return path, document


@pytest.fixture
def visit_big(browser: Any, big: tuple[Path, dict[str, Any]]) -> Iterator[Visit]:
    opened = Visit(browser, big[0], "#view=cards")  # the cards: above 30 cases the table is the first view
    yield opened
    assert opened.clean(), (opened.requests, opened.console_errors, opened.page_errors, opened.dialogs)
    opened.context.close()


def expected(document: dict[str, Any], keep: Callable[[dict[str, Any]], bool] = lambda r: True) -> list[str]:
    return sorted(r["uid"] for r in document["cases"] if keep(r))


def metric(record: dict[str, Any], name: str) -> float | None:
    return next((m["value"] for m in record["metrics"] if m["name"] == name), None)


def wait_until(page: Any, condition: str, timeout: float = 5.0) -> None:
    """Poll ``condition`` with ``evaluate`` (the report's CSP refuses the eval that ``wait_for_function`` uses)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(condition):
        assert time.monotonic() < deadline, f"not true after {timeout} s: {condition}"
        page.wait_for_timeout(50)


def all_pages(visit: Visit) -> list[str]:
    """Every uid the filters leave, page after page (200 per page)."""
    visit.page.select_option("#f-size", "200")
    seen = visit.uids()
    while visit.page.locator(".pager [data-step='1']").first.is_enabled():
        visit.page.locator(".pager [data-step='1']").first.click()
        seen += visit.uids()
    return seen


def test_the_harness_notices_requests_errors_and_dialogs(browser: Any, tmp_path: Path) -> None:
    """So that the clean visits below mean something."""
    page = tmp_path / "bad.html"
    page.write_text(
        '<img src="http://127.0.0.1:9/x.png"><script>alert(2); console.error("e"); '
        'document.body.dataset.ready = "1"; throw new Error("x")</script>'
    )
    bad = Visit(browser, page)
    try:
        assert bad.requests == ["http://127.0.0.1:9/x.png"]
        assert bad.dialogs == ["2"]
        assert bad.console_errors and bad.page_errors
    finally:
        bad.context.close()


def test_400_cases_make_a_small_page_that_opens_fast(visit_big: Visit, big: tuple[Path, dict[str, Any]]) -> None:
    path, document = big
    size = path.stat().st_size
    assert size < 3_000_000, size  # images are files beside it
    print(f"\n400 cases: {size / 1e6:.2f} MB of HTML; {visit_big.timing()}")
    assert visit_big.ready_seconds < LOAD_LIMIT_S
    assert visit_big.counter() == "400 of 400 cases shown"
    assert visit_big.uids() == expected(document)[:50]  # the first page only
    assert visit_big.page.locator(".page-label").first.inner_text() == "page 1 of 8"
    # Make every lazy thumbnail of the page load: none is broken, none came from elsewhere.
    visit_big.page.evaluate("document.querySelectorAll('img.thumb').forEach(i => { i.loading = 'eager'; })")
    wait_until(visit_big.page, "Array.from(document.images).every(i => i.complete)")
    widths = visit_big.page.eval_on_selector_all("img.thumb", "els => els.map(e => e.naturalWidth)")
    shown = {r["uid"]: r for r in document["cases"] if r["uid"] in visit_big.uids()}
    assert len(widths) == sum(1 + len(r["artifacts"]) for r in shown.values())  # the reference and the outputs
    assert all(w == 256 for w in widths)


def test_1000_cases_open_in_under_two_seconds(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    write_html_report(synthetic_document(tmp_path, 1000), path)
    visit = Visit(browser, path)
    try:
        print(f"\n1000 cases: {path.stat().st_size / 1e6:.2f} MB of HTML; {visit.timing()}")
        assert visit.ready_seconds < LOAD_LIMIT_S
        assert visit.counter() == "1000 of 1000 cases shown"
        assert visit.clean()
    finally:
        visit.context.close()


def test_filters_by_status_suite_tag_and_text(visit_big: Visit, big: tuple[Path, dict[str, Any]]) -> None:
    page, document = visit_big.page, big[1]
    page.select_option("#f-status", "failing")
    failing = expected(document, lambda r: r["status"] in ("failed", "error"))
    assert visit_big.counter() == f"{len(failing)} of 400 cases shown"
    assert all_pages(visit_big) == failing

    page.select_option("#f-status", "")
    page.select_option("#f-suite", "logos")
    page.select_option("#f-tag", "t0")
    both = expected(document, lambda r: r["suite"] == "logos" and "t0" in r["tags"])
    assert visit_big.uids() == both and len(both) == 20
    page.click("#f-reset")

    page.fill("#f-text", "HTTP 500")  # in the error text; words match in any case
    assert visit_big.uids() == expected(document, lambda r: r["status"] == "error")[:50]
    page.fill("#f-text", "case-0123")
    assert visit_big.uids() == expected(document, lambda r: r["case_id"] == "case-0123") == ["photos/case-0123"]
    page.fill("#f-text", "500 LOGOS")  # every word, each anywhere: the error text and the case id here
    both = expected(document, lambda r: r["status"] == "error" and r["suite"] == "logos")
    assert visit_big.uids() == both and visit_big.counter() == f"{len(both)} of 400 cases shown"
    page.fill("#f-text", "Judge SIX")  # in a judge's reason
    six = expected(document, lambda r: any(m["reason"].startswith("the judge found six ") for m in r["metrics"]))
    assert visit_big.uids() == six[:50] and visit_big.counter() == f"{len(six)} of 400 cases shown"


def test_filter_by_metric_range(visit_big: Visit, big: tuple[Path, dict[str, Any]]) -> None:
    page, document = visit_big.page, big[1]
    page.select_option("#f-metric", label="quality.score")
    scored = expected(document, lambda r: metric(r, "quality.score") is not None)
    assert visit_big.counter() == f"{len(scored)} of 400 cases shown"  # errored cases have no score
    page.fill("#f-min", "0.9")
    page.fill("#f-max", "0.95")
    band = expected(document, lambda r: 0.9 <= (metric(r, "quality.score") or -1) <= 0.95)
    assert band and all_pages(visit_big) == band


def test_sorting_by_a_metric_both_ways_with_missing_values_last(visit_big: Visit, big: tuple[Path, dict[str, Any]]) -> None:
    page, document = visit_big.page, big[1]
    page.select_option("#f-size", "200")

    def by(name: str, descending: bool) -> list[str]:
        have = [r for r in document["cases"] if metric(r, name) is not None]
        ordered = sorted(have, key=lambda r: r["uid"])  # ties in case-id order, in either direction
        ordered = sorted(ordered, key=lambda r: metric(r, name) or 0.0, reverse=descending)
        rest = sorted(r["uid"] for r in document["cases"] if metric(r, name) is None)
        return [r["uid"] for r in ordered] + rest

    page.select_option("#f-sort", label="size.px ↓")
    assert visit_big.uids() == by("size.px", False)[:200]
    page.click("#f-dir")
    assert page.locator("#f-dir").inner_text() == "descending"
    assert visit_big.uids() == by("size.px", True)[:200]
    page.locator(".pager [data-step='1']").first.click()
    assert visit_big.uids() == by("size.px", True)[200:400]  # odd cases have no size.px: last, either way
    chips = page.eval_on_selector_all("article.case .chip.sorted", "els => els.map(e => e.textContent)")
    assert chips == [] or all(c.startswith("size.px") for c in chips)

    page.select_option("#f-sort", label="quality.score ↑")
    assert visit_big.uids() == by("quality.score", True)[:200]
    first_chip = page.locator("article.case .chip.sorted").first.inner_text()
    assert first_chip == "quality.score 0.9900"


def test_sorting_by_status_puts_the_worst_first_and_a_chip_click_sorts(visit_big: Visit) -> None:
    page = visit_big.page
    page.select_option("#f-sort", "status")
    statuses = page.eval_on_selector_all("article.case", "els => els.map(e => e.dataset.status)")
    assert set(statuses) == {"error"}  # 50 errors come before anything else
    page.click("#f-reset")
    page.locator("article.case .chip[data-metric]").first.click()
    assert page.locator("#f-sort").input_value() == "metric:0"
    first_values = page.eval_on_selector_all("article.case .chip.sorted", "els => els.map(e => e.textContent)")[:3]
    assert first_values == ["quality.score 0"] * 3  # whole numbers print as such


def test_pages_move_and_the_page_size_changes(visit_big: Visit, big: tuple[Path, dict[str, Any]]) -> None:
    page, every = visit_big.page, expected(big[1])
    previous, following = page.locator(".pager").last.locator("button").first, page.locator(".pager").last.locator("button").last
    assert previous.is_disabled()
    following.click()
    assert visit_big.uids() == every[50:100]
    assert page.locator(".page-label").first.inner_text() == "page 2 of 8"
    page.select_option("#f-size", "100")
    assert visit_big.uids() == every[100:200] and page.locator(".page-label").first.inner_text() == "page 2 of 4"
    page.click("#f-reset")
    assert page.locator(".page-label").first.inner_text() == "page 1 of 4"


def test_a_thumbnail_opens_the_full_size_image(visit_big: Visit, big: tuple[Path, dict[str, Any]]) -> None:
    page = visit_big.page
    assert page.locator("#lightbox").is_hidden()
    page.locator("article.case").first.locator(".figure-group[data-group=outputs] img.thumb").click()
    box = page.locator("#lightbox")
    assert box.is_visible()
    wait_until(page, "document.querySelector('#lightbox img').complete")
    src = page.locator("#lightbox img").get_attribute("src") or ""
    assert src.startswith("report_files/f/")  # the original, not the thumbnail
    assert page.evaluate("document.querySelector('#lightbox img').naturalWidth") == 256
    assert page.locator("#lightbox .caption").inner_text() == "out-1.png · 256×192 · 2 of 2"  # after the reference
    page.keyboard.press("ArrowRight")  # wraps round to the case's first image
    assert page.locator("#lightbox .caption").inner_text() == "reference · 256×192 · 1 of 2"
    page.keyboard.press("Escape")
    assert box.is_hidden()


def test_tags_click_to_filter(visit_big: Visit, big: tuple[Path, dict[str, Any]]) -> None:
    visit_big.page.locator("article.case .tag", has_text="t0").first.click()
    assert visit_big.page.locator("#f-tag").input_value() == "t0"
    assert visit_big.uids() == expected(big[1], lambda r: "t0" in r["tags"])[:50]


# -- the hand-made run: hostile text, errors, edits --


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("small")
    path = root / "report.html"
    write_html_report(build_document(root), path, thumbnail_side=160)
    return path


@pytest.fixture
def visit_small(browser: Any, small: Path) -> Iterator[Visit]:
    opened = Visit(browser, small)
    yield opened
    opened.context.close()


def test_untrusted_text_is_shown_as_text_and_never_runs(visit_small: Visit) -> None:
    page = visit_small.page
    assert visit_small.clean()
    assert page.locator("script").count() == 2  # the data block and the report's own
    page.locator('article[data-uid="alpha/broken"] summary').click()  # the details with every reason
    reason = page.locator('article[data-uid="alpha/broken"] td', has_text="judge says")
    assert reason.inner_text() == f"judge says {SCRIPT} looks wrong" and reason.is_visible()
    assert page.locator('article[data-uid="alpha/crash"] .prompt').inner_text() == f"prompt: {SCRIPT_CLOSER}"
    options = page.eval_on_selector_all("#f-tag option", "els => els.map(e => e.value)")
    assert ATTRIBUTE_BREAKER in options
    assert page.locator('article[data-uid="beta/skip"] .tag').inner_text() == ATTRIBUTE_BREAKER


def test_an_errored_case_shows_the_error_and_the_reply(visit_small: Visit) -> None:
    crash = visit_small.page.locator('article[data-uid="alpha/crash"]')
    assert crash.locator("pre.error").inner_text() == "model failed: <b>boom</b>"
    assert crash.locator("details.reply").get_attribute("open") is not None
    assert "Sorry, here is <b>no</b> image:" in crash.locator("details.reply pre").inner_text()


def test_an_edit_shows_inputs_references_outputs_and_the_diff(visit_small: Visit) -> None:
    edit = visit_small.page.locator('article[data-uid="beta/edit"]')
    groups = edit.locator(".figure-group").evaluate_all(
        "els => els.map(e => [e.dataset.group, Array.from(e.querySelectorAll('figcaption:not(.note)')).map(f => f.textContent)])"
    )
    assert groups == [
        ["inputs", ["input 1", "mask"]],
        ["references", ["reference"]],
        ["outputs", ["output-0.png", "output-1.png", "diff vs input 1 (mask outlined)"]],
    ]
    assert edit.locator(".missing").inner_text().startswith("does not decode")
    broken = visit_small.page.locator('article[data-uid="alpha/broken"] .missing').inner_text()
    assert broken.startswith("missing: ") and broken.endswith("gone/input.png")


def test_failed_gates_are_flagged_and_the_details_list_every_gate(visit_small: Visit) -> None:
    card = visit_small.page.locator('article[data-uid="alpha/broken"]')
    assert card.locator(".chip.failgate").all_inner_texts() == ["layout.ok: FAIL"]
    assert "style.soft: fail (not gating)" in card.locator(".chips").inner_text()
    card.locator("details.details summary").click()
    card.locator("details.details table").first.wait_for()  # filled when first opened
    rows = card.locator("tr.fail-gating td:first-child").all_inner_texts()
    assert rows == ["layout.ok"]
    assert "tesseract not installed" in card.locator("details.details").inner_text()


# -- several models, and one self-contained file --


def test_several_models_sit_side_by_side_and_sort_by_their_spread(browser: Any, tmp_path: Path) -> None:
    document = synthetic_document(tmp_path, 12, models=("model-a", "model-b"))
    quality_b = {r["uid"]: r for r in document["cases"] if r["model"] == "model-b"}
    quality_b["logos/case-0005"]["metrics"] = []  # errored anyway; make one spread large:
    quality_b["photos/case-0007"]["metrics"][0]["value"] = 0.0
    path = tmp_path / "report.html"
    write_html_report(document, path)
    visit = Visit(browser, path)
    try:
        page = visit.page
        assert visit.counter() == "12 of 12 cases shown · 2 models side by side"
        models = page.eval_on_selector_all(
            "article.case", "els => els.map(e => Array.from(e.querySelectorAll('.record')).map(r => r.dataset.model))"
        )
        assert models == [["model-a", "model-b"]] * 12

        def chips(uid: str, model: str) -> list[str]:
            record = page.locator(f'article[data-uid="{uid}"] .record[data-model="{model}"]')
            return record.locator(".chip[data-metric]").all_inner_texts()

        # The second model's metrics say how far they are from the first's, coloured by which is better.
        assert chips("logos/case-0001", "model-a") == ["quality.score 0.3700"]
        assert chips("logos/case-0001", "model-b") == ["quality.score 0.4200 (+0.0500)"]
        assert chips("photos/case-0007", "model-b") == ["quality.score 0 (−0.5900)"]
        worse = page.locator('article[data-uid="photos/case-0007"] .record[data-model="model-b"] .delta')
        assert worse.get_attribute("class") == "delta worse"
        page.select_option("#f-sort", label="quality.score: spread across models")
        page.click("#f-dir")  # largest spread first
        assert visit.uids()[0] == "photos/case-0007"
        page.select_option("#f-model", "model-b")
        page.select_option("#f-status", "failing")
        assert sorted(visit.uids()) == sorted(r["uid"] for r in quality_b.values() if r["status"] in ("failed", "error"))
        assert visit.clean()
    finally:
        visit.context.close()


def test_an_embedded_report_is_one_file_that_works_alone(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "alone" / "report.html"
    write_html_report(build_document(tmp_path), path, embed=True, thumbnail_side=120)
    visit = Visit(browser, path)
    try:
        page = visit.page
        sources = page.eval_on_selector_all("img.thumb", "els => els.map(e => [e.src.slice(0, 11), e.naturalWidth])")
        assert sources and all(src == "data:image/" and width > 0 for src, width in sources)
        page.locator('article[data-uid="beta/edit"] img.thumb').first.click()
        assert (page.locator("#lightbox img").get_attribute("src") or "").startswith("data:image/")
        assert page.locator("#lightbox a").is_hidden()  # a data URL cannot be opened as a page
        assert visit.clean()
    finally:
        visit.context.close()
