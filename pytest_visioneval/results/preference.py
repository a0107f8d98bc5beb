"""Pairwise verdicts as judged values that people label: which of two runs' outputs is better, or a tie.

A pairwise document (:mod:`.pairwise`) holds, per pair of runs, one verdict per
case. For labelling, each pair is one judged name, ``pairwise A vs B`` (the
runs' names in the document's order), and a verdict is a value on a three-step
scale: A preferred 1, a tie 0.5, B preferred 0. A person's label is ``a``,
``b`` or ``tie`` (or the preferred run's name). A verdict the judge could not
give (``error``) is no judged value: a label of that case counts as unmatched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .pairwise import SCHEMA_NAME

PREFERENCE = "preference"
# A verdict, from side A's point of view; a tie the two orders disagreed on is a tie.
VALUES = {"a": 1.0, "tie": 0.5, "b": 0.0}
_TIE_WORDS = frozenset({"tie", "t", "same", "equal"})


def is_pairwise(document: Mapping[str, Any]) -> bool:
    return document.get("schema") == SCHEMA_NAME


def pair_name(a: str, b: str) -> str:
    """The judged name of a pair of runs, as the label CSV writes it."""
    return f"pairwise {a} vs {b}"


def judged_preferences(document: Mapping[str, Any]) -> tuple[dict[tuple[str, str], float], dict[str, tuple[str, str]]]:
    """((case, pair name) -> the verdict's value, pair name -> (run A, run B)) of a pairwise document."""
    values: dict[tuple[str, str], float] = {}
    sides: dict[str, tuple[str, str]] = {}
    for pair in document.get("pairs") or ():
        name = pair_name(str(pair["a"]), str(pair["b"]))
        sides[name] = (str(pair["a"]), str(pair["b"]))
        for judgement in pair.get("judgements") or ():
            if judgement.get("outcome") in VALUES:
                values[(str(judgement["case"]), name)] = VALUES[judgement["outcome"]]
    return values, sides


def case_suites(document: Mapping[str, Any]) -> dict[str, str]:
    """Case -> its suite, from the verdicts (a pairwise document has no other fields to group by)."""
    return {str(j["case"]): str(j.get("suite", "")) for pair in document.get("pairs") or () for j in pair.get("judgements") or ()}


def preference_value(text: str, sides: tuple[str, str] | None) -> float | None:
    """A person's label as a value of the scale: ``a``/``b``/``tie``, or the name of the run they prefer; None otherwise."""
    word = text.strip()
    if sides is not None and word in sides and sides[0] != sides[1]:
        return VALUES["a"] if word == sides[0] else VALUES["b"]
    low = word.lower()
    if low in ("a", "b"):
        return VALUES[low]
    return VALUES["tie"] if low in _TIE_WORDS else None
