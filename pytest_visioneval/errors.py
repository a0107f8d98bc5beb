"""The exception tree of pytest-visioneval.

Every error a user can cause or meet derives from :class:`VisionEvalError`, so
the plugin can tell "the evaluation could not be done" (an *error* of a case)
apart from "the evaluation was done and a gate failed" (a *failure*).
"""

from __future__ import annotations

from pathlib import Path


class VisionEvalError(Exception):
    """Base class of every error raised by pytest-visioneval."""


class CaseFileError(VisionEvalError):
    """A case file is malformed; it is reported as a collection error.

    Carries the file, the 1-based line and the field (a dotted path such as
    ``cases[2].graders[0].use``) so the message can point at the mistake.
    """

    def __init__(self, path: Path | str, message: str, *, line: int | None = None, field: str | None = None):
        self.path = Path(path)
        self.line = line
        self.field = field
        self.message = message
        super().__init__(self.format())

    def format(self) -> str:
        where = str(self.path)
        if self.line is not None:
            where += f":{self.line}"
        if self.field:
            return f"{where}: field '{self.field}': {self.message}"
        return f"{where}: {self.message}"


class ConfigError(VisionEvalError):
    """A command-line or ini setting is invalid."""


class ModelError(VisionEvalError):
    """The model under test could not produce an output for a case."""


class UnknownModelError(ModelError):
    """``--model`` names a provider that no built-in or entry point supplies."""


class GraderError(VisionEvalError):
    """A grader could not grade an artifact (bad options, undecodable input...)."""


class JudgeOutputError(GraderError):
    """A judge reply did not satisfy its schema, even after the retries."""


class BatchError(VisionEvalError):
    """A provider batch could not be submitted or read, or a request inside one failed for good."""


class MetricError(VisionEvalError):
    """A metric value handed to ``record_metric`` is not a finite number."""
