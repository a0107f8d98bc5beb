"""``pytest --help`` for the plugin: its options in a few groups, the ones most runs need first.

The plugin has about fifty options. ``pytest --help`` shows the common ones in four groups
(running, judges, reporting and CI, calls and cost); the rest (timeouts, key variables, batch
tuning, interval policy...) work the same but are listed only by ``pytest --eval-help-all``.
Each option's ini twin is still listed by ``--help`` (by name; its option's help says what it does).

The option modules declare their options as before, on what :class:`RoutedParser` hands them
for pytest's parser; the table below decides where each goes, so a new option needs one line here.
"""

from __future__ import annotations

import argparse
import shutil
import textwrap
from dataclasses import dataclass
from typing import Any

import pytest

HELP_ALL = "--eval-help-all"
HELP_ALL_DEST = "visioneval_help_all"

# (group name, title in --help); the first keeps the plugin's long-standing group and title.
GROUPS = (
    ("visioneval", "vision evaluation (pytest-visioneval)"),
    ("visioneval-judges", "vision evaluation: judges"),
    ("visioneval-reporting", "vision evaluation: reporting and CI"),
    ("visioneval-calls", "vision evaluation: calls and cost"),
)
RUNNING, JUDGES, REPORTING, CALLS = (name for name, _ in GROUPS)

# flag -> (group, shown by --help). Hidden ones are listed by --eval-help-all; an option missing here is shown, in RUNNING.
PLACES: dict[str, tuple[str, bool]] = {
    "--model": (RUNNING, True),
    "--model-param": (RUNNING, True),
    "--model-base-url": (RUNNING, True),
    "--eval-results": (RUNNING, True),
    "--eval-fail-under": (RUNNING, True),
    "--eval-repeats": (RUNNING, True),
    "--eval-shard": (RUNNING, True),
    "--eval-mutants": (RUNNING, True),
    "--eval-regrade": (RUNNING, True),
    HELP_ALL: (RUNNING, True),
    "--model-api-key-env": (RUNNING, False),
    "--model-api": (RUNNING, False),
    "--model-timeout": (RUNNING, False),
    "--model-max-retries": (RUNNING, False),
    "--eval-output-dir": (RUNNING, False),
    "--eval-run-id": (RUNNING, False),
    "--eval-flaky-spread": (RUNNING, False),
    "--chromium": (RUNNING, False),
    "--render-pages": (RUNNING, False),
    "--judge": (JUDGES, True),
    "--judge-base-url": (JUDGES, True),
    "--judge-repeats": (JUDGES, True),
    "--eval-labels": (JUDGES, True),
    "--judge-api-key-env": (JUDGES, False),
    "--judge-retries": (JUDGES, False),
    "--judge-timeout": (JUDGES, False),
    "--judge-response-format": (JUDGES, False),
    "--judge-max-image-side": (JUDGES, False),
    "--judge-max-images": (JUDGES, False),
    "--judge-temperature": (JUDGES, False),
    "--judge-seed": (JUDGES, False),
    "--eval-agreement-floor": (JUDGES, False),
    "--eval-summary": (REPORTING, True),
    "--eval-report": (REPORTING, True),
    "--eval-markdown": (REPORTING, True),
    "--eval-baseline": (REPORTING, True),
    "--eval-snapshot": (REPORTING, True),
    "--eval-report-embed": (REPORTING, False),
    "--eval-baseline-tolerance": (REPORTING, False),
    "--eval-confidence": (REPORTING, False),
    "--eval-threshold-on": (REPORTING, False),
    "--eval-inconclusive": (REPORTING, False),
    "--eval-concurrency": (CALLS, True),
    "--eval-cache": (CALLS, True),
    "--eval-prices": (CALLS, True),
    "--eval-max-cost": (CALLS, True),
    "--eval-batch": (CALLS, True),
    "--eval-cache-dir": (CALLS, False),
    "--eval-wait-timeout": (CALLS, False),
    "--eval-batch-wait": (CALLS, False),
    "--eval-batch-poll": (CALLS, False),
    "--eval-batch-retry": (CALLS, False),
    "--eval-batch-dir": (CALLS, False),
}

# Prefix -> place, for a family of options: the mutation self-test's tuning options are advanced.
FAMILIES: dict[str, tuple[str, bool]] = {"--eval-mutants-": (RUNNING, False)}


def place(flag: str) -> tuple[str, bool] | None:
    """Where ``flag`` goes: (group, shown by --help); None for an option this module does not know."""
    found = PLACES.get(flag)
    return found or next((where for prefix, where in FAMILIES.items() if flag.startswith(prefix)), None)


@dataclass(frozen=True)
class Declared:
    """An option as declared, for --eval-help-all (argparse is told to hide the hidden ones' help)."""

    flag: str
    metavar: str
    help: str
    group: str
    shown: bool


# Every option the plugin declared, in order; rebuilt by each pytest_addoption (the options do not change).
DECLARED: list[Declared] = []


class RoutedParser:
    """Stands in for pytest's parser while the option modules declare the plugin's options.

    ``getgroup`` gives a group that files each option where :data:`PLACES` says, its help
    hidden from ``--help`` when it is an advanced one; an ini twin's help is left empty
    (``--help`` still lists its name; the option's own help ends with ``[ini: NAME]``).
    """

    def __init__(self, parser: pytest.Parser) -> None:
        self._parser = parser
        self._groups = {name: parser.getgroup(name, title) for name, title in GROUPS}
        self._twins: set[str] = set()
        DECLARED.clear()

    def getgroup(self, name: str, description: str = "", after: str | None = None) -> RoutedGroup:
        return RoutedGroup(self)

    def addini(self, name: str, help: str, *args: Any, **kwargs: Any) -> None:
        self._parser.addini(name, "" if name in self._twins else help, *args, **kwargs)

    def addoption(self, *opts: str, **attrs: Any) -> None:
        self.route(opts, attrs)

    def route(self, opts: tuple[str, ...], attrs: dict[str, Any]) -> None:
        flag = next((o for o in opts if o.startswith("--")), opts[0])
        group, shown = place(flag) or (RUNNING, True)  # an option not placed yet is shown, never lost
        help_text = str(attrs.get("help", ""))
        DECLARED.append(Declared(flag, _metavar(flag, attrs), help_text, group, shown))
        if "dest" in attrs:
            self._twins.add(str(attrs["dest"]))
        self._groups[group].addoption(*opts, **(attrs if shown else {**attrs, "help": argparse.SUPPRESS}))


class RoutedGroup:
    """What :meth:`RoutedParser.getgroup` hands out: ``addoption`` as on pytest's groups."""

    def __init__(self, parser: RoutedParser) -> None:
        self._parser = parser

    def addoption(self, *opts: str, **attrs: Any) -> None:
        self._parser.route(opts, attrs)


def add_help_all_option(parser: RoutedParser) -> None:
    parser.getgroup(RUNNING).addoption(
        HELP_ALL,
        action="store_true",
        dest=HELP_ALL_DEST,
        help="list every pytest-visioneval option, the advanced ones --help leaves out too, and exit",
    )


def _metavar(flag: str, attrs: dict[str, Any]) -> str:
    if attrs.get("action") in ("store_true", "store_false"):
        return ""
    if attrs.get("choices"):
        return "={" + ",".join(str(c) for c in attrs["choices"]) + "}"
    return "=" + str(attrs.get("metavar") or flag.lstrip("-").upper().replace("-", "_"))


def help_all_lines(width: int | None = None) -> list[str]:
    """Every declared option by group, advanced ones marked, wrapped at ``width`` (default: the terminal's)."""
    width = width or shutil.get_terminal_size((80, 24)).columns
    titles = dict(GROUPS)
    hidden = sum(1 for d in DECLARED if not d.shown)

    def wrap(text: str, indent: str) -> list[str]:
        return textwrap.wrap(text, max(20, width), initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)

    lines = wrap(
        f"pytest-visioneval options: {len(DECLARED)}; pytest --help shows {len(DECLARED) - hidden}, "
        f"the {hidden} marked (advanced) are listed here only. docs/options.md has them all.",
        "",
    )
    for name, _ in GROUPS:
        declared = [d for d in DECLARED if d.group == name]
        if not declared:
            continue
        lines += ["", f"{titles[name]}:"]
        for d in sorted(declared, key=lambda d: not d.shown):  # the shown ones first, as --help has them
            lines += wrap(f"{d.flag}{d.metavar}" + ("" if d.shown else "  (advanced)"), "  ")
            lines += wrap(d.help, "        ")
    return lines
