"""Shared helpers for the project's tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from tests.library_preload import preload_libraries

# Every plugin test runs once in-process without xdist and once with two workers.
XDIST_MODES = {"n0": [], "n2": ["-n", "2"]}


@pytest.fixture(params=sorted(XDIST_MODES), ids=sorted(XDIST_MODES))
def xdist_args(request: pytest.FixtureRequest) -> list[str]:
    return list(XDIST_MODES[request.param])


@pytest.fixture(autouse=True)
def _quiet_inner_runs(request: pytest.FixtureRequest) -> None:
    """Inner pytester runs ignore the assertion-rewrite warning about the already-imported plugin."""
    if "pytester" in request.fixturenames:
        # Before pytester snapshots sys.modules (why: tests/library_preload.py); a process whose tests run
        # no inner pytest never pays for the import.
        preload_libraries()
        pytester = request.getfixturevalue("pytester")
        pytester.makeini("[pytest]\nfilterwarnings =\n    ignore::pytest.PytestAssertRewriteWarning\n")


def draw_png(path: Path, size: tuple[int, int] = (64, 48), color: tuple[int, int, int] = (30, 90, 200), box: bool = True) -> Path:
    """A small, non-blank PNG (a coloured box on white), or a flat one with box=False."""
    path.parent.mkdir(parents=True, exist_ok=True)
    img = Image.new("RGB", size, "white" if box else color)
    if box:
        w, h = size
        ImageDraw.Draw(img).rectangle((w // 4, h // 4, 3 * w // 4, 3 * h // 4), fill=color)
    img.save(path, format="PNG")
    return path


def install_distribution(
    site: Path, name: str, group: str, entry_points: dict[str, str], modules: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A real installed distribution in ``site`` (a dist-info folder on sys.path) publishing ``entry_points`` in ``group``.

    ``modules`` maps module names to their source, written next to it.
    """
    dist_info = site / f"{name}-0.1.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    lines = [f"[{group}]"] + [f"{entry} = {target}" for entry, target in entry_points.items()]
    (dist_info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for module, source in modules.items():
        (site / f"{module}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    return site


def run_in_threads(work: Callable[[int], None], count: int, timeout: float = 30.0) -> None:
    """Run ``work(0)`` ... ``work(count - 1)`` on as many threads at once, and wait for them all."""
    threads = [threading.Thread(target=work, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)


def read_json(path: Path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


SUITE_YAML = """\
suite: demo
protocol: cookbook
defaults:
  task: image_generation
  tags: [ui]
  graders:
    - use: image
      options: {width: 64, height: 48}
    - use: similarity
      options: {min_score: 0.9}
thresholds:
  similarity.score: 0.9
cases:
  - id: first
    prompt: draw the first picture
    reference: refs/first.png
  - id: second
    prompt: draw the second picture
    reference: refs/second.png
    tags: [slow_render]
  - id: third
    prompt: draw the third picture
    reference: refs/third.png
"""


@pytest.fixture
def demo_suite(pytester: pytest.Pytester) -> Path:
    """cases/demo.eval.yaml with three image_generation cases and their references."""
    root = pytester.path / "cases"
    draw_png(root / "refs" / "first.png", color=(200, 30, 30))
    draw_png(root / "refs" / "second.png", color=(30, 200, 30))
    draw_png(root / "refs" / "third.png", color=(30, 30, 200))
    (root / "demo.eval.yaml").write_text(SUITE_YAML)
    return root
