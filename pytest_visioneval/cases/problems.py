"""Every problem of a case file in one error, so a user fixes the file in one pass.

The error carries the first problem (in file order) as its line, field and
message; its text lists that one and then every other problem, each with its
own line. It also keeps the problems one by one and the cases that could be
built in spite of them, so a caller that checks more (a grader that cannot
grade a case, an id another file uses) can add its own problems to the same
error instead of reporting them in a later run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import CaseFileError

if TYPE_CHECKING:
    from .spec import CaseSpec


class CaseFileProblems(CaseFileError):
    """All the problems of one case file, sorted by line (see :func:`combined`)."""

    problems: tuple[CaseFileError, ...]
    cases: tuple[CaseSpec, ...]  # the cases that could be built, for the caller's own checks


def combined(problems: Sequence[CaseFileError], cases: Sequence[CaseSpec] = ()) -> CaseFileProblems:
    """One error standing for all of ``problems`` (at least one), sorted by line; repeats are dropped."""
    if not problems:
        raise ValueError("combined() needs at least one problem")
    flat = [single for p in problems for single in (p.problems if isinstance(p, CaseFileProblems) else (p,))]
    unique = {(p.line or 0, p.field or "", p.message): p for p in flat}  # the same problem seen twice is said once
    ordered = [unique[key] for key in sorted(unique)]
    first = ordered[0]
    error = CaseFileProblems(first.path, first.message, line=first.line, field=first.field)
    if len(ordered) > 1:
        error.args = ("\n".join(p.format() for p in ordered),)
    error.problems = tuple(ordered)
    error.cases = tuple(cases)
    return error
