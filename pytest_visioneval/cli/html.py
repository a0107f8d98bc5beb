"""Turn an existing results JSON into an HTML report.

    python -m pytest_visioneval html results.json report.html

Useful for results merged from shards, or to re-render an old run.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ..report.html_report import write_html_report
from ..report.results_json import SCHEMA_NAME, SCHEMA_VERSION


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_visioneval html", description="Write the HTML report of a visioneval results JSON."
    )
    parser.add_argument("results", type=Path, help="the results JSON (--eval-results)")
    parser.add_argument("report", type=Path, help="the HTML file to write")
    parser.add_argument("--thumbnail-side", type=int, default=480, help="longest side of embedded images, in pixels")
    args = parser.parse_args(argv)
    if args.thumbnail_side < 16:
        parser.error("--thumbnail-side must be at least 16")

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
    write_html_report(document, args.report, thumbnail_side=args.thumbnail_side)
    print(f"wrote {args.report}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
