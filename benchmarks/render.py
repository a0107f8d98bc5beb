"""Pages rendered per second: one shared browser vs a browser launched per page.

Run on demand (the machine is shared and noisy, so this is not a test):

    .venv/bin/python benchmarks/render.py [--pages 50]

The per-page variant is what the original ArtifactsBench harness does; the
shared variant is what pytest-visioneval does (one browser per worker, a
fresh context per page). Both render the same pages with the same options.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from pytest_visioneval.pages.render import Renderer, RenderOptions

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


def shared(folder: Path, names: list[str]) -> float:
    renderer = Renderer()
    start = time.perf_counter()
    for name in names:
        renderer.render(folder, name, OPTIONS)
    elapsed = time.perf_counter() - start
    renderer.close()
    return elapsed


def per_page(folder: Path, names: list[str]) -> float:
    start = time.perf_counter()
    for name in names:
        renderer = Renderer()
        renderer.render(folder, name, OPTIONS)
        renderer.close()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        names = make_pages(folder, args.pages)
        Renderer().close()  # warm the OS file cache for the browser binary
        t_shared = shared(folder, names)
        t_per_page = per_page(folder, names)
    n = len(names)
    print(f"shared browser : {t_shared:6.2f} s for {n} pages = {n / t_shared:5.2f} pages/s")
    print(f"browser per page: {t_per_page:6.2f} s for {n} pages = {n / t_per_page:5.2f} pages/s")
    print(f"speed-up of the shared browser: {t_per_page / t_shared:.2f}x")


if __name__ == "__main__":
    main()
