"""Case files: the YAML format, its schema, and the specs built from it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import lazy_exports

if TYPE_CHECKING:
    from .loader import LoadedYaml, load_yaml
    from .spec import TASKS, CaseSpec, GraderSpec, SuiteSpec, Threshold
    from .suite import CASE_FILE_SUFFIXES, load_suite, suite_name_from_path
    from .validate import case_file_schema, validate_case_file

# Each name is imported from its module on first use (see lazy_exports).
_EXPORTS = {
    "LoadedYaml": ".loader",
    "load_yaml": ".loader",
    "TASKS": ".spec",
    "CaseSpec": ".spec",
    "GraderSpec": ".spec",
    "SuiteSpec": ".spec",
    "Threshold": ".spec",
    "CASE_FILE_SUFFIXES": ".suite",
    "load_suite": ".suite",
    "suite_name_from_path": ".suite",
    "case_file_schema": ".validate",
    "validate_case_file": ".validate",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "CASE_FILE_SUFFIXES",
    "TASKS",
    "CaseSpec",
    "GraderSpec",
    "LoadedYaml",
    "SuiteSpec",
    "Threshold",
    "case_file_schema",
    "load_suite",
    "load_yaml",
    "suite_name_from_path",
    "validate_case_file",
]
