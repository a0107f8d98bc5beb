"""Case files: the YAML format, its schema, and the specs built from it."""

from .loader import LoadedYaml, load_yaml
from .spec import TASKS, CaseSpec, GraderSpec, SuiteSpec, Threshold
from .suite import CASE_FILE_SUFFIXES, load_suite, suite_name_from_path
from .validate import case_file_schema, validate_case_file

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
