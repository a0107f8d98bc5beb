"""Load a case file with everything known: grader option schemas and protocol fields.

:func:`pytest_visioneval.cases.suite.load_suite` sits below the graders and
protocols and takes both as arguments; collection and the importers load
through this function, which hands it the registries.
"""

from __future__ import annotations

from pathlib import Path

from ..cases.spec import SuiteSpec
from ..cases.suite import load_suite
from ..graders.registry import option_schemas
from .registry import get_protocol


def load_case_file(path: Path, display_root: Path | None = None) -> SuiteSpec:
    """Load and check a case file; raise :class:`~pytest_visioneval.errors.CaseFileError` on any problem."""
    return load_suite(path, option_schemas(), display_root, protocols=get_protocol)
