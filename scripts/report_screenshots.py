"""The screenshots of docs/compare.md and docs/graders.md: the report's table, labelling, compare's pictures, and
labelling pairwise verdicts.

    .venv/bin/python scripts/report_screenshots.py [--out docs/images]

Builds small synthetic runs with the report tests' builders, writes the report and a
comparison with the package's own writers, judges two runs with the real ``pairwise``
command against the tests' local fake judge, and photographs them in Debian's Chromium
(1200 px wide). The PNGs are quantised to 64 colours so they stay small in the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the synthetic runs of the report tests

from PIL import Image  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from pytest_visioneval.cli import compare  # noqa: E402
from pytest_visioneval.cli import main as dispatcher  # noqa: E402
from pytest_visioneval.pages.render import find_chromium  # noqa: E402
from pytest_visioneval.report.html_report import write_html_report  # noqa: E402
from pytest_visioneval.testing import FakeOpenAIServer  # noqa: E402
from tests.plugin.test_report_workbench import judged_document  # noqa: E402
from tests.unit.cli.test_pairwise import _png, _run, tasteful  # noqa: E402
from tests.unit.report.html_documents import synthetic_document  # noqa: E402

VIEWPORT = {"width": 1200, "height": 720}


def shrink(path: Path) -> None:
    image = Image.open(path).convert("RGB")
    image.quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def shoot(page, path: Path, selector: str | None = None) -> None:  # type: ignore[no-untyped-def]
    if selector:
        page.locator(selector).first.screenshot(path=str(path))
    else:
        page.screenshot(path=str(path))
    shrink(path)
    print(f"{path}: {path.stat().st_size / 1000:.0f} kB")


def pairwise_page(root: Path) -> Path:
    """Two runs (mid, good) judged by the tests' fake judge with the real command; the outputs made bigger to be seen."""
    os.environ.setdefault("OPENAI_API_KEY", "sk-screenshots")  # the fake judge's; nothing leaves the machine
    inputs = _png(root / "inputs" / "photo.png", (128, 128, 128))
    runs = [_run(root, model, inputs) for model in ("mid", "good")]
    for image in (root / "out").rglob("*.png"):
        Image.new("RGB", (160, 120), Image.open(image).convert("RGB").getpixel((0, 0))).save(image)  # type: ignore[arg-type]
    page = root / "pairwise.html"
    with FakeOpenAIServer(text_reply=tasteful) as server:
        args = ["pairwise", *map(str, runs), "--judge=openai:judge-model", f"--judge-base-url={server.base_url}"]
        dispatcher.main([*args, f"--cache-dir={root / 'cache'}", "--resamples=200", f"--html={page}"])
    return page


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        root = Path(folder)
        browser = p.chromium.launch(executable_path=find_chromium(), args=["--no-sandbox", "--disable-gpu"])
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()

        document = judged_document(root / "run", 80, models=("model-a", "model-b"))
        report = root / "run" / "report.html"
        write_html_report(document, report)
        page.goto(report.as_uri() + "#status=failing")
        page.wait_for_selector("body[data-ready='1']", state="attached")
        page.evaluate("document.getElementById('cases').scrollIntoView()")
        shoot(page, args.out / "report-table.png")

        page.fill("#l-rater", "alice")
        page.locator("#l-start").click()
        page.locator("body").press("y")
        page.locator("body").press("n")
        page.evaluate("document.querySelector('.label-item.current').scrollIntoView({block: 'center'})")
        shoot(page, args.out / "report-labels.png")

        before = synthetic_document(root / "a", 12)
        after = synthetic_document(root / "b", 12)
        flipped = next(r for r in after["cases"] if r["status"] == "passed")
        flipped["status"] = "failed"
        flipped["gates"][0].update(passed=False, reason="the output does not decode")
        for name, doc in (("a", before), ("b", after)):
            (root / name / "results.json").write_text(json.dumps(doc), encoding="utf-8")
            write_html_report(doc, root / name / "report.html")
        compared = root / "compare.html"
        os.chdir(root)  # the runs are named by their paths: keep them short
        compare.main(["a/results.json", "b/results.json", "--resamples", "200", "--html", str(compared)])
        page.goto(compared.as_uri())
        shoot(page, args.out / "compare-side-by-side.png", "table.side-by-side")

        page.goto(pairwise_page(root / "pairwise").as_uri())
        page.wait_for_selector("body[data-ready='1']", state="attached")
        page.fill("#l-rater", "carol")
        page.locator("h1").click()
        for key in "jbat":  # the first verdict; B better, A better, a tie
            page.keyboard.press(key)
        page.evaluate("document.getElementById('label').scrollIntoView()")
        shoot(page, args.out / "pairwise-labels.png", "#pair-labels")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
