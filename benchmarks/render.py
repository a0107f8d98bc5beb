"""Pages rendered per second: one shared browser vs a browser launched per page.

Run on demand (the machine is shared and noisy, so this is not a test):

    .venv/bin/python benchmarks/render.py [--pages 50]

The per-page variant is what the original ArtifactsBench harness does (one
page at a time, a browser launched for each); the shared variant is what
pytest-visioneval does (one browser per worker, a fresh context per page, and
``--in-flight`` pages at once, handed over from as many threads as the case
pipeline would). Both render the same pages with the same options and the
same browser binary (``find_chromium``: the headless shell when installed).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from pytest_visioneval.pages.render import PAGES_IN_FLIGHT, Renderer, RenderOptions, find_chromium

OPTIONS = RenderOptions(width=800, height=600, screenshots=1, full_page=True)


def make_pages(folder: Path, count: int) -> list[str]:
    names = []
    for i in range(count):
        name = f"page-{i:03d}.html"
        hue = (i * 37) % 360
        (folder / name).write_text(
            f"""<!doctype html><html><head><style>
            body {{ font-family: sans-serif; background: hsl({hue}, 60%, 92%); }}
            .card {{ display: inline-block; width: 180px; height: 120px; margin: 8px; background: hsl({hue}, 50%, 60%); }}
            </style></head><body><h1>Page {i}</h1>
            {"".join(f'<div class="card">card {j}</div>' for j in range(12))}
            <canvas id=c width=200 height=100></canvas>
            <script>const g = c.getContext('2d'); g.fillRect(10, 10, {i % 150 + 20}, 40);</script>
            </body></html>"""
        )
        names.append(name)
    return names


def shared(folder: Path, names: list[str], in_flight: int, options: RenderOptions = OPTIONS) -> float:
    start = time.perf_counter()  # the browser's launch included: paid once per worker
    renderer = Renderer(pages_in_flight=in_flight)
    # As many callers as pages may be open: pages waiting between timed captures let others work.
    with ThreadPoolExecutor(max_workers=renderer.pages_open) as callers:
        for result in callers.map(lambda name: renderer.render(folder, name, options), names):
            assert len(result.screenshots) == options.screenshots and result.full_page
    elapsed = time.perf_counter() - start
    renderer.close()
    return elapsed


def per_page(folder: Path, names: list[str], options: RenderOptions = OPTIONS) -> float:
    start = time.perf_counter()
    for name in names:
        renderer = Renderer(pages_in_flight=1)
        renderer.render(folder, name, options)
        renderer.close()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--in-flight", type=int, nargs="+", default=[PAGES_IN_FLIGHT], help="pages at once in the shared browser")
    parser.add_argument("--repeats", type=int, default=1, help="turns of (shared..., per page); medians are printed")
    parser.add_argument(
        "--screenshots", type=int, default=1, help="viewport captures per page (ArtifactsBench: 3, --interval-ms 1000)"
    )
    parser.add_argument("--interval-ms", type=int, default=1000, help="between the viewport captures")
    args = parser.parse_args()
    options = replace(OPTIONS, screenshots=args.screenshots, interval_ms=args.interval_ms)
    print(f"browser: {find_chromium()}")
    shared_times: dict[int, list[float]] = {k: [] for k in args.in_flight}
    per_page_times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        names = make_pages(folder, args.pages)
        warm = Renderer()  # warm the OS file cache for the browser binary
        warm.render(folder, names[0], OPTIONS)
        warm.close()
        for _ in range(args.repeats):  # in turns: this machine drifts
            for k in args.in_flight:
                shared_times[k].append(shared(folder, names, k, options))
            per_page_times.append(per_page(folder, names, options))
    n = len(names)
    t_per_page = statistics.median(per_page_times)
    print(f"browser per page  : {t_per_page:6.2f} s for {n} pages = {n / t_per_page:5.2f} pages/s")
    for k, times in shared_times.items():
        t_shared = statistics.median(times)
        print(
            f"shared, {k} in flight: {t_shared:6.2f} s for {n} pages = {n / t_shared:5.2f} pages/s, "
            f"{t_per_page / t_shared:.2f}x the browser per page"
        )


if __name__ == "__main__":
    main()
