"""The CDN mirror that rendered pages load libraries from: ``visioneval cdn ACTION``.

Actions:
  fetch     fetch the pinned packages into the mirror (the shipped list, plus --packages FILE
            and VISIONEVAL_CDN_PACKAGES); a package already there is not fetched again
  list      the packages in the mirror, with their sizes
  resolve   what the mirror answers for CDN URLs (which package, version and file, or why none)
  verify    re-hash the mirror's files against the manifests written when they were fetched
  path      print the mirror's folder

Exit status of fetch: 0 when every package is in the mirror, 1 when one failed to fetch or to
check out, 3 when the npm registry did not answer (offline): nothing was changed then.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import ConfigError
from ..pages.cdn_fetch import MIRROR_ENV, RegistryUnreachable, default_mirror_dir, default_registry, fetch_all, prune, verify
from ..pages.cdn_mirror import FETCH_HINT, CdnMirror, describe
from ..pages.cdn_packages import EXTRA_ENV, load_pins
from .help_text import description, details, prog

OFFLINE = 3


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog("cdn"),
        description=description(__doc__),
        epilog=details(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("action", choices=["fetch", "list", "resolve", "verify", "path"])
    parser.add_argument("urls", nargs="*", help="for resolve: the CDN URLs")
    parser.add_argument(
        "--dir", type=Path, default=None, help=f"the mirror's folder (default: ${MIRROR_ENV}, else {default_mirror_dir()})"
    )
    parser.add_argument(
        "--packages", type=Path, action="append", default=[], metavar="FILE", help=f"a package list to add (also: ${EXTRA_ENV})"
    )
    parser.add_argument("--registry", default=None, help=f"the npm registry (default: {default_registry()})")
    parser.add_argument("--jobs", type=int, default=4, help="packages fetched at once")
    parser.add_argument("--prune", action="store_true", help="fetch: also delete mirrored packages that no list names")
    parser.add_argument("--quiet", "-q", action="store_true", help="fetch: print only failures and the summary")
    parser.add_argument("--json", action="store_true", help="list, resolve: print JSON")
    args = parser.parse_intermixed_args(argv)
    folder = args.dir or default_mirror_dir()
    if args.action == "fetch":
        return _fetch(args, folder)
    if args.action == "path":
        print(folder)
        return 0
    if args.action == "verify":
        problems = verify(folder)
        for problem in problems:
            print(problem)
        count = len(CdnMirror(folder))
        if not count:
            print(f"cdn: the mirror at {folder} is empty: run `{FETCH_HINT}`")
            return 1
        print(f"cdn: {count} packages checked in {folder}: {'OK' if not problems else f'{len(problems)} problems'}")
        return 1 if problems else 0
    mirror = CdnMirror(folder)
    if args.action == "list":
        rows = describe(mirror)
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            for row in rows:
                print(f"{row['package']}@{row['version']:<12} {row['files']:>5} files {row['bytes'] / 1e6:7.2f} MB")
            print(f"{len(rows)} packages, {sum(r['bytes'] for r in rows) / 1e6:.1f} MB in {folder}")
        return 0
    # resolve
    if not args.urls:
        parser.error("resolve needs one or more URLs")
    unanswered = 0
    for url in args.urls:
        answer = mirror.answer(url)
        record = answer.record if answer is not None else {"url": url, "reason": "not a CDN URL the mirror knows: blocked"}
        unanswered += answer is None or not answer.served
        print(json.dumps(record) if args.json else _line(record))
    return 1 if unanswered else 0


def _line(record: dict[str, object]) -> str:
    if "reason" in record:
        return f"{record['url']}\n  not served: {record['reason']}"
    line = f"{record['url']}\n  served: {record['package']}@{record['version']} {record['file']}"
    return line + (f"\n  note: {record['note']}" if record.get("note") else "")


def _fetch(args: argparse.Namespace, folder: Path) -> int:
    try:
        pins = load_pins(args.packages).pins
    except ConfigError as exc:
        print(f"cdn: {exc}", file=sys.stderr)
        return 1
    registry = args.registry or default_registry()

    def log(line: str) -> None:
        if not args.quiet or "FAILED" in line:
            print(line, flush=True)

    try:
        outcomes = fetch_all(pins, folder, registry, jobs=args.jobs, log=log)
    except RegistryUnreachable as exc:
        print(f"cdn: {exc}", file=sys.stderr)
        print(
            "cdn: the CDN mirror was not fetched (offline?); pages that load libraries from CDNs will render "
            "without them, and their reports say which. Run this again when the registry can be reached.",
            file=sys.stderr,
        )
        return OFFLINE
    if args.prune:
        for key in prune(folder, pins):
            log(f"cdn: {key} removed (no list names it)")
    failed = [o for o in outcomes if o.status in ("failed", "unreachable")]
    fetched = sum(o.status == "fetched" for o in outcomes)
    size = sum(o.size for o in outcomes if o.status != "failed")
    print(
        f"cdn: {len(outcomes) - len(failed)} of {len(outcomes)} packages in the mirror at {folder} "
        f"({fetched} fetched now, {size / 1e6:.1f} MB)" + (f"; {len(failed)} FAILED" if failed else "")
    )
    if failed and all(o.status == "unreachable" for o in failed):
        return OFFLINE
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
