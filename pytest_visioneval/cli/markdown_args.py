"""``--markdown FILE`` and ``--markdown-limit CHARS``, shared by ``merge``, ``diff`` and ``compare`` (docs/ci.md)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from ..artifacts import write_atomic
from ..report.markdown import COMMENT_LIMIT


def markdown_limit(text: str) -> int:
    value = int(text)
    if value < 1000:  # below that not even the verdict and one table row fit
        raise argparse.ArgumentTypeError(f"expected at least 1000 characters, got {text}")
    return value


def add_markdown_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--markdown", type=Path, metavar="FILE", help=f"also write {what} as Markdown (docs/ci.md)")
    parser.add_argument(
        "--markdown-limit",
        type=markdown_limit,
        default=COMMENT_LIMIT,
        metavar="CHARS",
        help=f"longest Markdown, long tables cut by whole rows (default {COMMENT_LIMIT}, a GitHub comment's limit)",
    )


def write_markdown(args: argparse.Namespace, render: Callable[[int], str]) -> None:
    """Write ``render(limit)`` to ``--markdown`` when it was given."""
    if args.markdown is not None:
        write_atomic(args.markdown, render(args.markdown_limit).encode("utf-8"))
