"""``python -m pytest_visioneval.importers NAME SOURCE OUT_DIR``: write case files from official data."""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

from ..errors import VisionEvalError
from . import IMPORTERS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="visioneval import",
        description="Turn a benchmark's official data files into pytest-visioneval case files.",
    )
    commands = parser.add_subparsers(dest="importer", required=True, metavar="NAME")
    for name, module_name in IMPORTERS.items():
        module = import_module(f"{__package__}.{module_name}")
        sub = commands.add_parser(name, help=(module.__doc__ or "").strip().splitlines()[0])
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    args = parser.parse_args(argv)
    try:
        written = args.run(args)
    except (VisionEvalError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    print(f"{len(written)} case file(s) written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
