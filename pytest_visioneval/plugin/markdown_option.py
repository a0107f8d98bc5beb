"""``--eval-markdown FILE``: the run's Markdown summary, for ``$GITHUB_STEP_SUMMARY`` and a pull-request comment.

The option is declared by :func:`add_options`; the controller calls :func:`write_run_markdown` at the end of the
run with the results document it builds and the deltas against ``--eval-baseline`` (docs/ci.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ..artifacts import write_atomic
from ..report.markdown import run_summary
from ..results.baseline import Delta
from .option_values import option_path

OPTION = "--eval-markdown"
DEST = "visioneval_markdown"


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("visioneval-reporting", "vision evaluation: reporting and CI")
    help_text = (
        "write the run's summary as Markdown to FILE (verdict, thresholds, suites, the table against the baseline, "
        "failed cases; at most 65,536 characters, a PR comment's limit): for $GITHUB_STEP_SUMMARY and PR comments"
    )
    group.addoption(OPTION, dest=DEST, metavar="FILE", help=f"{help_text} [ini: {DEST}]")
    parser.addini(DEST, help_text)


def markdown_path(config: pytest.Config) -> Path | None:
    """Where to write the summary (a command-line path from the current directory, an ini path from the rootdir)."""
    return option_path(config, DEST, Path(config.rootpath))


def write_run_markdown(
    config: pytest.Config, document: Mapping[str, Any], deltas: Sequence[Delta], baseline: Path | None
) -> Path | None:
    """Write the summary of ``document`` (the run's results JSON) where ``--eval-markdown`` asks; None when not asked."""
    path = markdown_path(config)
    if path is None:
        return None
    text = run_summary(document, deltas, None if baseline is None else Path(baseline).name)
    write_atomic(path, text.encode("utf-8"))
    return path
