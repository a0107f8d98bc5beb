"""The embedded default model: it returns each case's reference artifact.

A reference that is a folder gives all its files, in name order, under their
own names (a page and its images, the frames of a trajectory). It needs no
network and no key, so the whole pipeline (collect, run, store, grade,
report) runs offline, and it shows what a correct output scores.
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
    waits_only_in_calls = True  # it copies the case's reference: nothing to wait for

    @classmethod
    def from_argument(cls, argument: str, settings: ModelSettings) -> ReferenceModel:
        if argument:
            raise ModelError(f"the reference model takes no argument (got 'reference:{argument}')")
        return cls()

    def generate(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        if case.reference is None:
            raise ModelError(f"case {case.uid} has no 'reference' artifact for the reference model to return")
        if case.reference.is_dir():
            files = sorted(p for p in case.reference.iterdir() if p.is_file() or p.is_symlink())
        else:
            files = [case.reference]
        for path in files:
            if path.is_symlink():  # it could point anywhere on the host: never copy its target into an output
                raise ModelError(f"the reference of {case.uid} holds a symbolic link, which is refused: {path}")
        artifacts = []
        for index, path in enumerate(files):
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise ModelError(f"cannot read reference artifact {path}: {exc}") from exc
            if case.reference.is_dir():  # keep the names: a page refers to its images by name
                artifacts.append(Artifact(path.name, data))
            else:
                artifacts.append(Artifact(f"output-{index}{path.suffix.lower() or '.bin'}", data))
        return ModelOutput(artifacts=tuple(artifacts), params=dict(params))
