"""Turn an existing results JSON into an HTML report.

    python -m pytest_visioneval html results.json report.html [--embed]

Useful for results merged from shards, or to re-render an old run. Images go
to ``report_files/`` next to the report (``--embed``: inside the one file).
An output or input path of the results that is not on this machine is looked
up relative to the results JSON's folder and the current directory
(``report/artifact_paths.py``), so a results JSON downloaded with its run's
output folder beside it gives a complete report.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..report.artifact_paths import Relocation, relocate
from ..report.html_report import EMBED_SIDE, THUMBNAIL_SIDE, write_html_report
from ..report.results_json import SCHEMA_NAME, SCHEMA_VERSION
from .help_text import prog


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of how a report is written (shared with ``merge``)."""
    parser.add_argument("--embed", action="store_true", help="one self-contained file: images inside it, downscaled")
    parser.add_argument(
        "--thumbnail-side", type=int, default=THUMBNAIL_SIDE, help=f"longest side of thumbnails, px (default {THUMBNAIL_SIDE})"
    )
    parser.add_argument(
        "--embed-side",
        type=int,
        default=EMBED_SIDE,
        help=f"with --embed: longest side of the full-size view, px (default {EMBED_SIDE})",
    )


def check_report_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.thumbnail_side < 16:
        parser.error("--thumbnail-side must be at least 16")
    if args.embed_side < args.thumbnail_side:
        parser.error("--embed-side must be at least --thumbnail-side")


def write_report(document: dict[str, Any], target: Path, args: argparse.Namespace) -> None:
    """Write the report and say where it and its images are."""
    folder = write_html_report(document, target, embed=args.embed, thumbnail_side=args.thumbnail_side, embed_side=args.embed_side)
    print(f"wrote {target}" + (f" (images in {folder})" if folder is not None else ""))


def report_missing(found: Relocation) -> None:
    """One line on stderr for the files that are nowhere (the report shows each as missing)."""
    if found.missing:
        first = found.missing[0]
        more = f" and {len(found.missing) - 1} more" if len(found.missing) > 1 else ""
        print(
            f"warning: {len(found.missing)} file(s) of the results are not on this machine: {first}{more} "
            "(put each run's output folder next to its results JSON)",
            file=sys.stderr,
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog("html"), description="Write the HTML report of a visioneval results JSON.")
    parser.add_argument("results", type=Path, help="the results JSON (--eval-results)")
    parser.add_argument("report", type=Path, help="the HTML file to write")
    add_report_arguments(parser)
    args = parser.parse_args(argv)
    check_report_arguments(parser, args)

    try:
        document = json.loads(args.results.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"error: cannot read {args.results}: {exc}", file=sys.stderr)
        return 2
    found = (document.get("schema"), document.get("schema_version")) if isinstance(document, dict) else (None, None)
    if found != (SCHEMA_NAME, SCHEMA_VERSION):
        print(
            f"error: {args.results} is not a {SCHEMA_NAME} document of schema_version {SCHEMA_VERSION} "
            f"(found schema {found[0]!r}, schema_version {found[1]!r})",
            file=sys.stderr,
        )
        return 2
    report_missing(relocate(document, args.results.parent, roots=[Path.cwd()]))
    write_report(document, args.report, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
