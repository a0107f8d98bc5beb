"""Load a case file with everything known: grader option schemas and protocol fields.

:func:`pytest_visioneval.cases.suite.load_suite` sits below the graders and
protocols and takes both as arguments; collection and the importers load
through this function, which hands it the registries.
"""

from __future__ import annotations

from pathlib import Path

from ..cases.spec import CaseSpec, GraderSpec, SuiteSpec
from ..cases.suite import CaseCheck, load_suite
from ..graders.registry import grader_types, option_schemas
from .registry import get_protocol


def load_case_file(path: Path, display_root: Path | None = None, case_check: CaseCheck | None = None) -> SuiteSpec:
    """Load and check a case file; raise :class:`~pytest_visioneval.errors.CaseFileError` on any problem.

    With ``case_check`` (collection passes :func:`graders_can_grade`), its problems come in the same error.
    """
    return load_suite(path, option_schemas(), display_root, protocols=get_protocol, case_check=case_check)


def graders_can_grade(case: CaseSpec, grader: GraderSpec) -> str | None:
    """Why ``grader`` cannot grade ``case`` (its type's ``check_case``), or ``None``."""
    return grader_types()[grader.use].check_case(case, grader.options)
