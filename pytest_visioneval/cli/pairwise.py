"""Pairwise judging across runs: ``visioneval pairwise A.json B.json [C.json ...] --judge=openai:MODEL``.

For every case that two runs share (every pair of runs), a judge sees the
case and both outputs and prefers one or calls a tie, asked twice with the
outputs in swapped order; a win needs both orders to agree. Prints wins,
ties, losses and win rates per pair, overall and per suite, and for three or
more runs a Bradley-Terry ranking with bootstrap intervals; ``--json`` and
``--html`` write the same as data and as a page. Calls go through the call
layer (cache, retries, usage). Exits 0, 1 when some comparison could not be
judged (listed), 2 for input it cannot use. docs/compare.md.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import combinations
from pathlib import Path
from typing import Any

from ..calls.cache import MODES
from ..calls.layer import CallLayer, CallSettings
from ..calls.usage import CaseUsage, usage_scope
from ..errors import GraderError
from ..graders.pairwise import DEFAULT_INSTRUCTIONS, Judge, judge_records
from ..judges import RESPONSE_FORMATS, JudgeSettings, create_judges
from ..judges.content import DEFAULT_MAX_IMAGES, DEFAULT_MAX_SIDE
from ..report.pairwise_html import write_pairwise_html
from ..report.pairwise_text import pairwise_lines
from ..results.bradley_terry import DEFAULT_PRIOR
from ..results.compare import Side, sides_of
from ..results.pairwise import Judgement, Settings, document_id, summarize
from ..results.statistics import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED
from .compare import open_fraction, show, whole_number
from .help_text import description, prog
from .html import report_missing
from .merge import load_shards

DEFAULT_CONCURRENCY = 4
DEFAULT_CACHE_DIR = Path(".visioneval") / "cache"


def _positive(kind: type[int] | type[float]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = kind(text)
        if not value > 0:
            raise argparse.ArgumentTypeError(f"expected a number above 0, got {text}")
        return value

    return parse


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog("pairwise"), description=description(__doc__))
    p.add_argument("results", type=Path, nargs="+", help="results JSON files (--eval-results) of the same suites, one per model")
    p.add_argument("--judge", action="append", default=[], metavar="openai:MODEL", help="the judge (once)")
    p.add_argument("--judge-base-url", metavar="URL", help="base URL of the judge's API (default: $OPENAI_BASE_URL)")
    p.add_argument("--judge-api-key-env", default="OPENAI_API_KEY", metavar="VAR", help="variable holding the API key")
    p.add_argument("--judge-timeout", type=_positive(float), default=120.0, help="seconds per request (default 120)")
    p.add_argument(
        "--judge-retries", type=whole_number, default=2, help="asking again after a reply that does not parse (default 2)"
    )
    p.add_argument("--judge-response-format", choices=RESPONSE_FORMATS, default="json_schema", help="default json_schema")
    # The same defaults as the pytest options of the same names (judges/content.py).
    p.add_argument(
        "--judge-max-image-side",
        type=_positive(int),
        default=DEFAULT_MAX_SIDE,
        help=f"images are downscaled to this longest side (default {DEFAULT_MAX_SIDE})",
    )
    p.add_argument(
        "--judge-max-images",
        type=_positive(int),
        default=DEFAULT_MAX_IMAGES,
        help=f"most images one request may carry (default {DEFAULT_MAX_IMAGES})",
    )
    p.add_argument("--instructions-file", type=Path, metavar="FILE", help="the judge's instructions instead of ours")
    p.add_argument("--concurrency", type=_positive(int), default=DEFAULT_CONCURRENCY, help="judge requests at once (default 4)")
    p.add_argument("--cache", choices=MODES, default="on", help="the call cache: on, read, write, off (default on)")
    p.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR, help="the cache folder (default .visioneval/cache)")
    p.add_argument("--confidence", type=open_fraction, default=DEFAULT_CONFIDENCE, help="interval level (default 0.95)")
    p.add_argument("--resamples", type=_positive(int), default=DEFAULT_RESAMPLES, help="bootstrap resamples (default 10000)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed (default 0)")
    p.add_argument(
        "--prior", type=_positive(float), default=DEFAULT_PRIOR, help="virtual ties per pair in the ranking (default 1)"
    )
    p.add_argument("--errors", type=whole_number, default=10, help="failed comparisons listed in the terminal (default 10)")
    p.add_argument("--html", type=Path, metavar="FILE", help="also write the result as an HTML page")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the result as JSON")
    return p


def names_of(sides: Sequence[Side]) -> list[str]:
    """Each side's model name, or its file label where models repeat or are unnamed."""
    models = [side.model for side in sides]
    if all(models) and len(set(models)) == len(models):
        return models
    return [side.label for side in sides]


# A case a run skipped (or expected to fail) was not meant to produce an output: left out, and counted.
_NOT_RUN = ("skipped", "xfailed")


def tasks_of(sides: Sequence[Side]) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    """Every (run, run, case) to judge - each pair of runs over the cases both have, in uid order - and those
    left out because one of the runs skipped the case."""
    tasks: list[tuple[int, int, str]] = []
    skipped: list[tuple[int, int, str]] = []
    for a, b in combinations(range(len(sides)), 2):
        for key in sorted(set(sides[a].cases) & set(sides[b].cases)):
            statuses = (sides[a].cases[key].get("status"), sides[b].cases[key].get("status"))
            (skipped if any(s in _NOT_RUN for s in statuses) else tasks).append((a, b, key))
    return tasks, skipped


def judge_all(
    judge: Judge, sides: Sequence[Side], tasks: Sequence[tuple[int, int, str]], instructions: str, concurrency: int
) -> tuple[list[Judgement], CaseUsage]:
    """Every task judged, ``concurrency`` at a time; the judge's usage booked in one account."""
    usage = CaseUsage()
    step = max(1, len(tasks) // 10)
    done = 0

    def one(task: tuple[int, int, str]) -> Judgement:
        a, b, key = task
        with usage_scope(usage):
            verdict = judge_records(judge, sides[a].cases[key], sides[b].cases[key], instructions)
        return Judgement(a, b, key, str(sides[a].cases[key].get("suite", "")), verdict.as_dict())

    judgements = []
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        for judgement in pool.map(one, tasks):
            judgements.append(judgement)
            done += 1
            if len(tasks) >= 20 and (done % step == 0 or done == len(tasks)):
                print(f"pairwise: {done}/{len(tasks)} judged", file=sys.stderr)
    return judgements, usage


def _load_all(paths: Sequence[Path]) -> list[tuple[str, dict[str, Any]]]:
    documents, found = load_shards(paths)
    report_missing(found)
    return [(str(path), document) for path, document in zip(paths, documents, strict=True)]


def _instructions(path: Path | None) -> tuple[str, dict[str, Any]]:
    if path is None:
        return DEFAULT_INSTRUCTIONS, {"source": "default"}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        raise ValueError(f"{path}: the instructions file is empty")
    return text, {"source": str(path), "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}


def _judge(args: argparse.Namespace, layer: CallLayer) -> Judge:
    settings = JudgeSettings(
        base_url=args.judge_base_url,
        api_key_env=args.judge_api_key_env,
        timeout=args.judge_timeout,
        reply_retries=args.judge_retries,
        response_format=args.judge_response_format,
        max_side=args.judge_max_image_side,
        max_images=args.judge_max_images,
        calls=layer,
    )
    return create_judges((args.judge[0],), settings)[0]


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if len(args.judge) != 1:
        p.error("name exactly one judge: --judge=openai:MODEL")
    try:
        documents = _load_all(args.results)
        sides = sides_of(documents)
        instructions, instructions_info = _instructions(args.instructions_file)
    except (SystemExit, OSError, ValueError) as exc:  # load() words an unreadable results file as SystemExit
        print(f"pairwise: {exc}", file=sys.stderr)
        return 2
    tasks, skipped = tasks_of(sides)
    if not tasks:
        print("pairwise: no case is in two of the runs; nothing to judge (a file holding several models "
              "is split into its models only when it is the only file)", file=sys.stderr)  # fmt: skip
        return 2
    names = names_of(sides)
    cache_dir = args.cache_dir if args.cache != "off" else None
    layer = CallLayer(CallSettings(concurrency=args.concurrency, cache_dir=cache_dir, cache_mode=args.cache))
    try:
        judge = _judge(args, layer)
        print(f"pairwise: {len(tasks)} comparison(s), each asked in both orders, judge {judge.name}", file=sys.stderr)
        judgements, usage = judge_all(judge, sides, tasks, instructions, args.concurrency)
    except GraderError as exc:  # no API key, a malformed --judge
        print(f"pairwise: {exc}", file=sys.stderr)
        return 2
    finally:
        layer.close()
    settings = Settings(confidence=args.confidence, resamples=args.resamples, seed=args.seed, prior=args.prior)
    document = build_document(sides, names, judgements, settings, judge.name, instructions_info, usage.as_dict())
    document["skipped"] = [{"a": names[a], "b": names[b], "case": key} for a, b, key in skipped]
    show(document, pairwise_lines(document, errors_shown=args.errors), args, write_pairwise_html)
    return 1 if document["errors"] else 0


def build_document(
    sides: Sequence[Side],
    names: Sequence[str],
    judgements: Sequence[Judgement],
    settings: Settings,
    judge: str,
    instructions: Mapping[str, Any],
    usage: Mapping[str, Any],
) -> dict[str, Any]:
    """The summary with what produced it: the runs, the judge, its instructions and its usage."""
    document = summarize(names, judgements, settings)
    runs = [{"name": name, **side.describe()} for name, side in zip(names, sides, strict=True)]
    judged_by = {"name": judge, "instructions": dict(instructions)}
    return {"id": document_id(runs, judged_by), **document, "runs": runs, "judge": judged_by, "usage": dict(usage)}


if __name__ == "__main__":
    sys.exit(main())
