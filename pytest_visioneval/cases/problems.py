"""Every problem of a case file in one error, so a user fixes the file in one pass.

The error carries the first problem (in file order) as its line, field and
message; its text lists that one and then every other problem, each with its
own line.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import CaseFileError


def combined(problems: Sequence[CaseFileError]) -> CaseFileError:
    """One :class:`CaseFileError` standing for all of ``problems`` (at least one), sorted by line."""
    if not problems:
        raise ValueError("combined() needs at least one problem")
    ordered = sorted(problems, key=lambda p: (p.line or 0, p.field or ""))
    first = ordered[0]
    error = CaseFileError(first.path, first.message, line=first.line, field=first.field)
    if len(ordered) > 1:
        error.args = ("\n".join(p.format() for p in ordered),)
    return error
