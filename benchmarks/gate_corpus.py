"""The shipped suites' gates measured on a larger random corpus of mutants: several seeds, more per family.

Run on demand (not a test; minutes: each seed is one self-test run of the suites):

    .venv/bin/python benchmarks/gate_corpus.py [PATH ...] [--seeds 0 1 2] [--per-family 5] [-n 2]
        [--family geometric --family photometric] [--classes] [--keep DIR]

It runs ``pytest PATH... --eval-mutants --eval-mutants-seed=S
--eval-mutants-per-family=N`` once per seed (default: every suite under
``cases/``), reads each run's results JSON, and prints per suite and family
(``--classes``: per class) the broken mutants caught out of those a gate
could see, the judge-only ones (no gate of the case can see what they
break), and the legitimate variants passed; then the classes missed or
failed most often, each with one instance's parameters to make it again
(``--eval-mutants-seed`` and the case give the rest).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
COUNTS = ("broken", "caught", "uncaught", "judge_only", "legitimate", "legitimate_passed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=["cases"], help="suites or folders (default: cases)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--per-family", type=int, default=5)
    parser.add_argument("-n", "--workers", type=int, default=2, help="xdist workers (0: none)")
    parser.add_argument("--family", action="append", default=[], help="only this family (repeatable)")
    parser.add_argument("--classes", action="store_true", help="a row per class instead of per family")
    parser.add_argument("--keep", type=Path, help="keep the runs' outputs and results here (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        documents = [run(args, seed, folder) for seed in args.seeds]
    print_tables(documents, "classes" if args.classes else "families")
    print_worst(documents)


def run(args: argparse.Namespace, seed: int, folder: Path) -> dict[str, Any]:
    results = folder / f"seed-{seed}.json"
    command = [sys.executable, "-m", "pytest", *args.paths, "--eval-mutants", f"--eval-mutants-seed={seed}"]
    command += [f"--eval-mutants-per-family={args.per_family}", "-q", "-p", "no:cacheprovider", "--eval-summary=none"]
    command += [f"--eval-results={results}", f"--eval-output-dir={folder / f'out-{seed}'}"]
    command += [f"--eval-mutants-family={f}" for f in args.family]
    command += ["-n", str(args.workers)] if args.workers else []
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    print(f"seed {seed}: exit {done.returncode} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    if not results.is_file():
        sys.exit(f"no results from seed {seed}:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    return json.loads(results.read_text(encoding="utf-8"))


def print_tables(documents: list[dict[str, Any]], group: str) -> None:
    totals: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: dict.fromkeys(COUNTS, 0))
    for document in documents:
        for suite, summary in document.get("mutation", {}).get("suites", {}).items():
            for name, counts in summary[group].items():
                for key in COUNTS:
                    totals[suite, name][key] += counts.get(key, 0)
    rows = [("suite", "family" if group == "families" else "class", "caught", "rate", "judge-only", "legit passed", "rate")]
    for (suite, name), c in sorted(totals.items()):
        seen = c["caught"] + c["uncaught"]
        broken = (f"{c['caught']}/{seen}", rate(c["caught"], seen), str(c["judge_only"])) if c["broken"] else ("-", "-", "-")
        legit = (f"{c['legitimate_passed']}/{c['legitimate']}", rate(c["legitimate_passed"], c["legitimate"]))
        rows.append((suite, name, *broken, *(legit if c["legitimate"] else ("-", "-"))))
    all_seen = sum(c["caught"] + c["uncaught"] for c in totals.values())
    all_legit = sum(c["legitimate"] for c in totals.values())
    caught = sum(c["caught"] for c in totals.values())
    passed = sum(c["legitimate_passed"] for c in totals.values())
    judge_only = sum(c["judge_only"] for c in totals.values())
    rows.append(
        (
            "all",
            "",
            f"{caught}/{all_seen}",
            rate(caught, all_seen),
            str(judge_only),
            f"{passed}/{all_legit}",
            rate(passed, all_legit),
        )
    )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def print_worst(documents: list[dict[str, Any]], listed: int = 15) -> None:
    problems: dict[str, list[str]] = defaultdict(list)
    for seed_document in documents:
        for suite, summary in seed_document.get("mutation", {}).get("suites", {}).items():
            seed = summary.get("seed")
            for m in summary["missed"]:
                problems[f"missed {suite} {m['family']}/{m['class']}"].append(f"seed {seed} {m['case']}: {m['mutant']}")
            for b in summary["brittle"]:
                problems[f"brittle {suite} {b['family']}/{b['class']}"].append(
                    f"seed {seed} {b['case']}: {b['mutant']}: {b['failed']}"
                )
    if not problems:
        print("\nno mutant missed, no legitimate variant failed")
        return
    print("\nmost often missed or failed (one instance each):")
    for name, instances in sorted(problems.items(), key=lambda item: -len(item[1]))[:listed]:
        print(f"  {len(instances):3d}x {name}\n        e.g. {instances[0][:300]}")


def rate(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


if __name__ == "__main__":
    main()
