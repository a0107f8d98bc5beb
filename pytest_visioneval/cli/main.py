"""``visioneval COMMAND ...`` (or ``python -m pytest_visioneval COMMAND ...``): one entry for every command.

``visioneval --help`` lists the commands, one line each; ``visioneval COMMAND
--help`` is the command's own help. Each command is also a module of its own
(``python -m pytest_visioneval.cli.diff``); this dispatcher imports only the
one asked for, so a command starts as fast as its own module.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

from ..cases.suggest import did_you_mean
from .help_text import PROG

# command -> (module with a main(argv) function, what it does)
COMMANDS: dict[str, tuple[str, str]] = {
    "diff": ("pytest_visioneval.cli.diff", "compare two results files metric by metric, per model"),
    "compare": ("pytest_visioneval.cli.compare", "compare models: score changes, pass-rate tests, flips"),
    "pairwise": ("pytest_visioneval.cli.pairwise", "a judge compares runs' outputs: win rates, a ranking"),
    "merge": ("pytest_visioneval.cli.merge", "merge shard results into one report and one verdict"),
    "html": ("pytest_visioneval.cli.html", "write the HTML report of a results file"),
    "agreement": ("pytest_visioneval.cli.agreement", "judge verdicts against human labels"),
    "checklist-draft": ("pytest_visioneval.cli.checklist_draft", "draft yes/no checklists from case prompts, for review"),
    "cookbook-tags": ("pytest_visioneval.cli.cookbook_tags", "count the cookbook's failure tags in a results file"),
    "import": ("pytest_visioneval.importers.__main__", "write case files from a benchmark's official data"),
    "cdn": ("pytest_visioneval.cli.cdn", "fetch, list, check the CDN mirror rendered pages load from"),
}


class _CommandList(argparse.HelpFormatter):
    """Lists the commands as argparse lists options: one line each, even at 80 columns, no header line."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=20)

    def _format_action(self, action: argparse.Action) -> str:
        if isinstance(action, argparse._SubParsersAction):
            return "".join(self._format_action(command) for command in action._get_subactions())
        return super()._format_action(action)


def parser() -> argparse.ArgumentParser:
    """The help tree: the commands with one line each (their arguments are their own parsers')."""
    p = argparse.ArgumentParser(
        prog=PROG,
        formatter_class=_CommandList,
        description="The commands of pytest-visioneval, for results files and case files (the tests run with pytest).",
        epilog=f"'{PROG} COMMAND --help' tells more of a command. 'python -m pytest_visioneval COMMAND' does the same.",
        allow_abbrev=False,
    )
    commands = p.add_subparsers(title="commands", metavar="COMMAND", dest="command")
    for name, (_, what) in COMMANDS.items():
        commands.add_parser(name, help=what, add_help=False)
    return p


def usage() -> str:
    return parser().format_help()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(usage())
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command not in COMMANDS:
        print(f"{PROG}: unknown command {command!r}{did_you_mean(command, COMMANDS)}\n\n{usage()}", file=sys.stderr)
        return 2
    module = import_module(COMMANDS[command][0])
    return int(module.main(rest) or 0)
