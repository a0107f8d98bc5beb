"""``python -m pytest_visioneval COMMAND ...``: one entry for every command.

Each command is also a module of its own (``python -m pytest_visioneval.cli.diff``);
this dispatcher imports only the one asked for.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import import_module

# command -> (module with a main(argv) function, what it does)
COMMANDS: dict[str, tuple[str, str]] = {
    "diff": ("pytest_visioneval.cli.diff", "compare two results files metric by metric"),
    "compare": ("pytest_visioneval.cli.compare", "compare models: score differences with intervals, pass-rate tests, flips"),
    "pairwise": ("pytest_visioneval.cli.pairwise", "judge runs' outputs side by side: win rates and a Bradley-Terry ranking"),
    "merge": ("pytest_visioneval.cli.merge", "merge shard results into one report and one verdict"),
    "html": ("pytest_visioneval.cli.html", "write the HTML report of a results file"),
    "agreement": ("pytest_visioneval.cli.agreement", "judge verdicts against human labels"),
    "checklist-draft": ("pytest_visioneval.cli.checklist_draft", "draft yes/no checklists from case prompts, for review"),
    "cookbook-tags": ("pytest_visioneval.cli.cookbook_tags", "count the cookbook's failure tags in a results file"),
    "import": ("pytest_visioneval.importers.__main__", "write case files from a benchmark's official data"),
    "cdn": ("pytest_visioneval.cli.cdn", "fetch, list, check the CDN mirror that rendered pages load libraries from"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: python -m pytest_visioneval COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name.ljust(width)}  {what}" for name, (_, what) in COMMANDS.items()]
    lines += ["", "python -m pytest_visioneval COMMAND --help tells more."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(usage())
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command not in COMMANDS:
        print(f"unknown command {command!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = import_module(COMMANDS[command][0])
    return int(module.main(rest) or 0)
