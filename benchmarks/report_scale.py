"""The HTML report at scale in Chromium: how long it takes to open, to filter, to page and to open a case.

Run on demand (not part of the test suite; this machine is shared and noisy):

    .venv/bin/python benchmarks/report_scale.py [--cases 2000] [--models 2] [--repeats 3] [--embed]

Writes a synthetic run (``--cases`` cases times ``--models`` models, each with a checklist
judge, so the labelling tools are on) with the report's own writer, opens it in Debian's
Chromium through Playwright and prints, best of ``--repeats``: the file size; the time until
the first page of rows is drawn; a text filter, a status filter, a sort by a metric, the next
page and the card of one case, each from the input to the redrawn list. Goal (issue 36): open
in under 2 s, each step well under a frame budget a person would notice (~100 ms).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the synthetic runs of the report tests

from playwright.sync_api import sync_playwright  # noqa: E402

from pytest_visioneval.pages.render import find_chromium  # noqa: E402
from pytest_visioneval.report.html_report import write_html_report  # noqa: E402
from tests.plugin.test_report_workbench import judged_document  # noqa: E402

STEPS = ("text filter", "status filter", "sort by a metric", "next page", "open a case")


def timed(page, action) -> float:  # type: ignore[no-untyped-def]
    """Seconds from the action to the list being drawn again (the counter or the card changed)."""
    page.evaluate("window.__mark = document.getElementById('case-list').firstChild")
    started = time.perf_counter()
    action()
    page.wait_for_function("document.getElementById('case-list').firstChild !== window.__mark", polling="raf")
    return time.perf_counter() - started


def measure(browser, path: Path) -> dict[str, float]:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=True)  # wait_for_function evaluates
    page = context.new_page()
    started = time.perf_counter()
    page.goto(path.as_uri(), wait_until="domcontentloaded")
    page.wait_for_selector("body[data-ready='1']", state="attached")
    result = {"open": time.perf_counter() - started}
    first = page.locator("tr.case-row").first.get_attribute("data-uid")
    result["text filter"] = timed(page, lambda: page.fill("#f-text", "case-01"))
    page.fill("#f-text", "")
    result["status filter"] = timed(page, lambda: page.select_option("#f-status", "failing"))
    page.select_option("#f-status", "")
    result["sort by a metric"] = timed(page, lambda: page.locator("th[data-sort-key^='metric:']").first.click())
    result["next page"] = timed(page, lambda: page.locator(".pager [data-step='1']").first.click())
    result["open a case"] = timed(page, lambda: page.locator("tr.case-row").first.click())
    assert first, "no rows drawn"
    context.close()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--models", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--embed", action="store_true", help="one self-contained file (thumbnails embedded)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        models = tuple(f"model-{chr(97 + m)}" for m in range(args.models))
        document = judged_document(root, args.cases, models)
        path = root / "report.html"
        started = time.perf_counter()
        write_html_report(document, path, embed=args.embed)
        written = time.perf_counter() - started
        size = path.stat().st_size
        print(f"{args.cases} cases x {args.models} model(s): {size / 1e6:.2f} MB of HTML, written in {written:.2f} s")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=find_chromium(), args=["--no-sandbox", "--disable-gpu"])
            runs = [measure(browser, path) for _ in range(args.repeats)]
            browser.close()
    best = {key: min(run[key] for run in runs) for key in runs[0]}
    print(json.dumps({key: round(value, 3) for key, value in best.items()}))
    for key in ("open", *STEPS):
        print(f"  {key:18s} {best[key] * 1000:7.0f} ms (best of {args.repeats})")
    return 0 if best["open"] < 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
