"""Collection speed: N cases from generated case files vs N parametrized no-op tests.

Run on demand (not part of the test suite; this machine is shared and noisy):

    .venv/bin/python benchmarks/collection.py [--cases 10000] [--per-file 100] [--repeats 3]

The two sides run in turns (case files, Python tests, case files, ...), so a machine
that slows down mid-run slows both. Prints the best wall time of each, the ratio of the
bests and the median of the ratios of each turn's pair (goal: <= 1.2). The runs write
bytecode caches, as on a user's machine (``PYTHONDONTWRITEBYTECODE`` is dropped); one
untimed pair goes first, so no timed run compiles them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image


def make_case_suite(root: Path, cases: int, per_file: int) -> None:
    (root / "cases").mkdir(parents=True)
    Image.new("RGB", (8, 8), "white").save(root / "cases" / "ref.png")
    for f in range(cases // per_file):
        lines = [
            f"suite: s{f:04d}",
            "defaults:",
            "  task: image_generation",
            "  reference: ref.png",
            "  tags: [bench]",
            "  graders:",
            "    - use: image",
            "      options: {width: 8, height: 8}",
            "cases:",
        ]
        for c in range(per_file):
            lines += [f"  - id: c{c:04d}", f"    prompt: case {c} of file {f}"]
        (root / "cases" / f"s{f:04d}.eval.yaml").write_text("\n".join(lines) + "\n")


def make_python_suite(root: Path, cases: int, per_file: int) -> None:
    (root / "py").mkdir(parents=True)
    for f in range(cases // per_file):
        (root / "py" / f"test_s{f:04d}.py").write_text(
            f"import pytest\n\n@pytest.mark.parametrize('i', range({per_file}))\ndef test_noop(i):\n    pass\n"
        )


def collect_seconds(root: Path, target: str) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", target, "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=root,
        capture_output=True,
        text=True,
        env={key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
    )
    elapsed = time.perf_counter() - start
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-300:]
    return elapsed, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--per-file", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_case_suite(root, args.cases, args.per_file)
        make_python_suite(root, args.cases, args.per_file)
        for target in ("cases", "py"):
            collect_seconds(root, target)  # untimed: writes the bytecode caches
        times: dict[str, list[float]] = {"cases": [], "py": []}
        last: dict[str, str] = {}
        for _ in range(args.repeats):
            for target in ("cases", "py"):
                seconds, last[target] = collect_seconds(root, target)
                times[target].append(seconds)
        for target in ("cases", "py"):
            print(f"{target:5s}: best {min(times[target]):.2f}s of {args.repeats}  ({last[target]})")
        pair_ratios = [cases / py for cases, py in zip(times["cases"], times["py"], strict=True)]
        print(f"ratio case files / python tests, of the bests: {min(times['cases']) / min(times['py']):.2f}  (goal <= 1.2)")
        print(
            f"ratio of each turn's pair: median {statistics.median(pair_ratios):.2f} "
            f"(min {min(pair_ratios):.2f}, max {max(pair_ratios):.2f})"
        )


if __name__ == "__main__":
    main()
