"""Let a broken case file not stop the other files from running.

pytest stops after collection when any collector failed. When every failure
comes from a case file, the run goes on: the broken file is still reported
as a collection error and the exit status is still non-zero. A broken Python
module stops the run as usual, and ``--continue-on-collection-errors`` keeps
its meaning.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .items import is_case_file


class CaseFileErrorTolerance:
    def __init__(self, config: pytest.Config, case_globs: tuple[str, ...]):
        self.config = config
        self.case_globs = case_globs
        self.user_choice = bool(config.option.continue_on_collection_errors)
        self.case_file_errors = 0
        self.other_errors = 0

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if not report.failed:
            return
        path = report.nodeid.split("::")[0]
        if path and is_case_file(Path(path), self.case_globs):
            self.case_file_errors += 1
        else:
            self.other_errors += 1
        self.config.option.continue_on_collection_errors = self.user_choice or self.other_errors == 0
