"""Words for a name a case file got wrong: the closest known name, and all the known ones.

One wording for case keys, grader option names and grader types, so every
typo in a case file reads the same way and ends with the fix when there is one.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'similarity'?)`` for the closest known name, or "" when none is close."""
    close = difflib.get_close_matches(word, sorted(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown_name(what: str, word: str, known: Iterable[str], listed_as: str = "allowed") -> str:
    """``unknown option 'max_changed_outsde' (did you mean 'max_changed_outside'?); allowed: a, b``."""
    names = sorted(known)
    return f"unknown {what} {word!r}{did_you_mean(word, names)}; {listed_as}: {', '.join(names) or 'none'}"
