"""The other cases of a case's suite, whose known-good outputs make "another case's output" mutants."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..cases.spec import CaseSpec
from ..errors import VisionEvalError
from ..protocols.case_files import load_case_file


def sibling_references(case: CaseSpec) -> list[Path]:
    """The references (files or trajectory folders) of the suite's other cases, in file order."""
    return [path for uid, path in _references(case.source) if uid != case.uid and path != case.reference]


@lru_cache(maxsize=16)
def _references(source: Path) -> tuple[tuple[str, Path], ...]:
    try:
        suite = load_case_file(source)
    except (VisionEvalError, OSError):
        return ()  # a case made in a test, without a case file: no siblings
    return tuple((c.uid, c.reference) for c in suite.cases if c.reference is not None and c.reference.exists())
