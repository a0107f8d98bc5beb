"""The embedded default model: it returns each case's reference artifact.

It needs no network and no key, so the whole pipeline (collect, run, store,
grade, report) runs offline, and it shows what a correct output scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..artifacts import Artifact, ModelOutput
from ..cases.spec import CaseSpec
from ..errors import ModelError
from .base import ModelSettings


class ReferenceModel:
    name = "reference"

    @classmethod
    def from_argument(cls, argument: str, settings: ModelSettings) -> ReferenceModel:
        if argument:
            raise ModelError(f"the reference model takes no argument (got 'reference:{argument}')")
        return cls()

    def generate(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        if case.reference is None:
            raise ModelError(f"case {case.uid} has no 'reference' artifact for the reference model to return")
        try:
            data = case.reference.read_bytes()
        except OSError as exc:
            raise ModelError(f"cannot read reference artifact {case.reference}: {exc}") from exc
        suffix = case.reference.suffix.lower() or ".bin"
        return ModelOutput(artifacts=(Artifact(f"output-0{suffix}", data),), params=dict(params))
