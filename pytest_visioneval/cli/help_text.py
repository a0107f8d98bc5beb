"""The words of the command line: the program's name and plain help text.

Module docstrings are written for the docs (reStructuredText: ``code``,
:func:`name`); ``--help`` shows them without that markup.
"""

from __future__ import annotations

import re

PROG = "visioneval"  # the console script; ``python -m pytest_visioneval`` runs the same commands

_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`~?([^`]+)`")  # :func:`x`, :py:class:`~a.b`
_LITERAL = re.compile(r"``([^`]+)``")
_INTERPRETED = re.compile(r"`([^`]+)`")


def prog(command: str) -> str:
    """``visioneval diff``: the name a command's usage line shows."""
    return f"{PROG} {command}"


def plain(text: str) -> str:
    """``python -m x`` -> python -m x, :func:`a.b` -> a.b: what a terminal should show of a docstring."""
    text = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1] if m.group(0).count("~") else m.group(1), text)
    text = _LITERAL.sub(r"\1", text)
    return _INTERPRETED.sub(r"\1", text)


def description(doc: str | None) -> str:
    """A module docstring's first paragraph, in plain text and on one line (argparse wraps it)."""
    first = (doc or "").strip().split("\n\n", 1)[0]
    return plain(" ".join(line.strip() for line in first.splitlines()))


def details(doc: str | None) -> str:
    """The rest of a module docstring after its first paragraph, in plain text (an epilog)."""
    parts = (doc or "").strip().split("\n\n", 1)
    return plain(parts[1].strip()) if len(parts) > 1 else ""
