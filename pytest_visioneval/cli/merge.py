"""Merge the results of several shards into one report and one verdict.

    python -m pytest_visioneval merge merged.json shard-1.json shard-2.json ... \\
        [--fail-under SUITE.METRIC=VALUE ...] [--report report.html [--embed]] [--markdown summary.md]

Cases are concatenated (a case present in two shards is an error: the
shards overlap); aggregates, benchmark scores, usage, timings, case-file
thresholds (carried by each case) and the given ``--fail-under`` thresholds
are computed afresh over all cases, as one run would have, with intervals at
the confidence level the shards recorded. Exits 1 when a case failed or
errored or a threshold was missed, and says why.

Outputs travel with their shard: a shard's output paths that are not on this
machine are looked up relative to the folder of that shard's results JSON
(``report/artifact_paths.py``: upload ``<eval-output-dir>/<run id>`` next to
the JSON), and the merged results record where they were found. The report
then copies every image next to itself, so it is complete.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..calls.usage import judge_provenance, total_usage
from ..cases.spec import Threshold
from ..errors import ConfigError
from ..report import results_json, terminal
from ..report.artifact_paths import Relocation, relocate
from ..report.markdown import run_summary
from ..results.aggregate import aggregate, benchmark_scores, timings
from ..results.per_model import evaluate_per_model, flat_benchmarks, labels_of, model_sections
from ..results.statistics import DEFAULT_CONFIDENCE
from ..results.thresholds import ThresholdResult, evaluate_thresholds, file_thresholds, parse_threshold
from ..results.verdict import Verdict, decide
from .diff import load
from .help_text import description, prog
from .html import add_report_arguments, check_report_arguments, report_missing, write_report
from .markdown_args import add_markdown_arguments, write_markdown


def merge(documents: Sequence[dict[str, Any]], cli_thresholds: Sequence[Any]) -> dict[str, Any]:
    cases: dict[str, dict[str, Any]] = {}
    for document in documents:
        for case in document["cases"]:
            if case["nodeid"] in cases:
                raise SystemExit(f"case {case['uid']} ({case['nodeid']}) is in more than one shard: the shards overlap")
            cases[case["nodeid"]] = case
    records = sorted(cases.values(), key=lambda r: (r["uid"], r["nodeid"]))
    first = documents[0]
    confidence = first["aggregates"].get("confidence", DEFAULT_CONFIDENCE)
    aggregates = aggregate(records, confidence)
    given = [
        label
        for document in documents
        for label in [*(document["run"].get("model_specs") or {}), *(document["run"].get("models") or ())]
    ]
    sections = model_sections(records, labels_of(records, given), confidence) if given else {}
    if sections:  # shards of a run of several models: each model's numbers and thresholds apart, as the run had them
        thresholds = evaluate_per_model(records, cli_thresholds, sections, aggregates)
    else:
        thresholds = evaluate_thresholds(file_thresholds(records), cli_thresholds, aggregates)
    counts = aggregates["overall"]
    status = 1 if counts["failed"] or counts["errors"] else 0
    verdict = decide(status, thresholds, counts)
    merged: dict[str, Any] = {
        "schema": results_json.SCHEMA_NAME,
        "schema_version": results_json.SCHEMA_VERSION,
        "run": {**first["run"], "merged_from": [d["run"]["id"] for d in documents]},
        "cases": records,
        "aggregates": aggregates,
        "benchmarks": flat_benchmarks(sections) if sections else benchmark_scores(records, confidence),
        "usage": total_usage(records),
        "judges": judge_provenance(records),
        "timings": timings(records),
        "thresholds": [t.as_dict() for t in verdict.thresholds],
        "exit": {"status": verdict.exit_status, "reasons": list(verdict.reasons)},
        "complete": all(d.get("complete", True) for d in documents),
    }
    if sections:
        specs = {label: spec for d in documents for label, spec in (d["run"].get("model_specs") or {}).items()}
        merged["run"].update(models=list(sections), model_specs={**specs, **{m: m for m in sections if m not in specs}})
        merged["run"]["model"] = ", ".join(sections)
        merged["models"] = {
            label: {**section, "timings": timings([r for r in records if r.get("model") == label])}
            for label, section in sections.items()
        }
    return merged


def load_shards(paths: Sequence[Path]) -> tuple[list[dict[str, Any]], Relocation]:
    """Each results file (a shard's, or a run's for ``pairwise``), its outputs looked up relative to its own folder
    when they are not where recorded."""
    documents, found = [], Relocation()
    for path in paths:
        document = load(path)
        found.add(relocate(document, path.parent, roots=[Path.cwd()]))
        documents.append(document)
    return documents, found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog("merge"), description=description(__doc__))
    parser.add_argument("output", type=Path, help="where to write the merged results JSON")
    parser.add_argument("shards", type=Path, nargs="+", help="results JSON of each shard")
    parser.add_argument("--fail-under", action="append", default=[], metavar="SUITE.METRIC=VALUE")
    parser.add_argument("--report", type=Path, help="also write the HTML report here (images in <report>_files/)")
    add_report_arguments(parser)
    add_markdown_arguments(parser, "the summary")
    args = parser.parse_args(argv)
    check_report_arguments(parser, args)
    try:
        thresholds = [parse_threshold(t) for t in args.fail_under]
    except ConfigError as exc:
        parser.error(str(exc))
    documents, found = load_shards(args.shards)
    report_missing(found)
    merged = merge(documents, thresholds)
    results_json.write(args.output, merged)
    if args.report is not None:
        write_report(merged, args.report, args)
    write_markdown(args, lambda limit: run_summary(merged, title="visioneval merge", limit=limit))
    for line in terminal.render(merged["aggregates"], _verdict_of(merged), models=merged.get("models")):
        print(line)
    return int(merged["exit"]["status"])


def _verdict_of(document: dict[str, Any]) -> Verdict:
    """The verdict recorded in a results document, for the terminal summary."""
    results = tuple(
        ThresholdResult(
            Threshold(t["suite"], t["metric"], t["min"], t["max"], t["source"]),
            t["observed"],
            t["passed"],
            t["message"],
            t.get("model"),
            t.get("status", ""),
        )
        for t in document["thresholds"]
    )
    return Verdict(results, document["exit"]["status"], tuple(document["exit"]["reasons"]))


if __name__ == "__main__":
    sys.exit(main())
