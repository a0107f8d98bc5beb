"""Words for a name a case file got wrong: the closest known name, and all the known ones.

One wording for case keys, grader option names and grader types, so every
typo in a case file reads the same way and ends with the fix when there is one.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known name closest to ``word``, or ``None`` when none is close."""
    close = difflib.get_close_matches(word, sorted(known), n=1)
    return close[0] if close else None


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'similarity'?)`` for the closest known name, or "" when none is close."""
    close = closest(word, known)
    return f" (did you mean {close!r}?)" if close else ""


def unknown_name(what: str, word: str, known: Iterable[str], listed_as: str = "allowed") -> str:
    """``unknown option 'max_changed_outsde' (did you mean 'max_changed_outside'?); allowed: a, b``."""
    names = sorted(known)
    return f"unknown {what} {word!r}{did_you_mean(word, names)}; {listed_as}: {', '.join(names) or 'none'}"
