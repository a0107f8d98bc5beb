"""Merge the results of several shards into one report and one verdict.

    python -m pytest_visioneval merge merged.json shard-1.json shard-2.json ... \\
        [--fail-under SUITE.METRIC=VALUE ...] [--report report.html]

Cases are concatenated (a case present in two shards is an error: the
shards overlap); aggregates, case-file thresholds (carried by each case) and
the given ``--fail-under`` thresholds are computed afresh over all cases, as
one run would have. Exits 1 when a case failed or errored or a threshold was
missed, and says why.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..cases.spec import Threshold
from ..errors import ConfigError
from ..report import results_json, terminal
from ..results.aggregate import aggregate
from ..results.thresholds import ThresholdResult, evaluate_thresholds, file_thresholds, parse_threshold
from ..results.verdict import Verdict, decide
from .diff import load


def merge(documents: Sequence[dict[str, Any]], cli_thresholds: Sequence[Any]) -> dict[str, Any]:
    cases: dict[str, dict[str, Any]] = {}
    for document in documents:
        for case in document["cases"]:
            if case["nodeid"] in cases:
                raise SystemExit(f"case {case['uid']} ({case['nodeid']}) is in more than one shard: the shards overlap")
            cases[case["nodeid"]] = case
    records = sorted(cases.values(), key=lambda r: (r["uid"], r["nodeid"]))
    aggregates = aggregate(records)
    thresholds = evaluate_thresholds(file_thresholds(records), cli_thresholds, aggregates)
    counts = aggregates["overall"]
    status = 1 if counts["failed"] or counts["errors"] else 0
    verdict = decide(status, thresholds, counts)
    first = documents[0]
    return {
        "schema": results_json.SCHEMA_NAME,
        "schema_version": results_json.SCHEMA_VERSION,
        "run": {**first["run"], "merged_from": [d["run"]["id"] for d in documents]},
        "cases": records,
        "aggregates": aggregates,
        "thresholds": [t.as_dict() for t in verdict.thresholds],
        "exit": {"status": verdict.exit_status, "reasons": list(verdict.reasons)},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pytest_visioneval merge", description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="where to write the merged results JSON")
    parser.add_argument("shards", type=Path, nargs="+", help="results JSON of each shard")
    parser.add_argument("--fail-under", action="append", default=[], metavar="SUITE.METRIC=VALUE")
    parser.add_argument("--report", type=Path, help="also write the HTML report here")
    args = parser.parse_args(argv)
    try:
        thresholds = [parse_threshold(t) for t in args.fail_under]
    except ConfigError as exc:
        parser.error(str(exc))
    merged = merge([load(p) for p in args.shards], thresholds)
    results_json.write(args.output, merged)
    if args.report is not None:
        from ..report.html_report import write_html_report

        write_html_report(merged, args.report)
    for line in terminal.render(merged["aggregates"], _verdict_of(merged)):
        print(line)
    return int(merged["exit"]["status"])


def _verdict_of(document: dict[str, Any]) -> Verdict:
    """The verdict recorded in a results document, for the terminal summary."""
    results = tuple(
        ThresholdResult(
            Threshold(t["suite"], t["metric"], t["min"], t["max"], t["source"]), t["observed"], t["passed"], t["message"]
        )
        for t in document["thresholds"]
    )
    return Verdict(results, document["exit"]["status"], tuple(document["exit"]["reasons"]))


if __name__ == "__main__":
    sys.exit(main())
