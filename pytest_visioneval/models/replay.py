"""Grade outputs that were produced elsewhere, matched by case id.

``--model=replay:DIR`` looks, for case ``suite/case``, at either

* ``DIR/suite/case/`` - every file in it except ``provenance.json``, in name
  order (this is the layout the artifact store writes, so a past run's
  ``<output>/<run>/<model>`` folder can be replayed as is), or
* ``DIR/suite/case.<ext>`` - a single file.
"""

from __future__ import annotations

import glob
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..artifacts import PROVENANCE_FILE, Artifact, ModelOutput
from ..cases.spec import CaseSpec
from ..errors import ModelError
from .base import ModelSettings


class ReplayModel:
    def __init__(self, root: Path, name: str):
        self.root = root
        self.name = name

    @classmethod
    def from_argument(cls, argument: str, settings: ModelSettings) -> ReplayModel:
        if not argument:
            raise ModelError("replay needs a folder: --model=replay:PATH")
        root = Path(argument).expanduser()
        if not root.is_dir():
            raise ModelError(f"replay folder not found: {root}")
        return cls(root.resolve(), f"replay:{argument}")

    def generate(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        folder = self.root / case.suite / case.id
        if folder.is_dir():
            files = sorted(
                p for p in folder.iterdir() if p.is_file() and p.name != PROVENANCE_FILE and not p.name.startswith(".")
            )
            if not files:
                raise ModelError(f"replay folder {folder} holds no output files for {case.uid}")
        else:
            # stem == id: case "logo" must not pick up "logo.v2.png", the output of case "logo.v2".
            candidates = (self.root / case.suite).glob(f"{glob.escape(case.id)}.*")
            files = sorted(p for p in candidates if p.is_file() and p.stem == case.id)
            if not files:
                raise ModelError(
                    f"no replayed output for {case.uid}: looked for {folder}/ and {self.root / case.suite / case.id}.*"
                )
        artifacts = tuple(Artifact(p.name, p.read_bytes()) for p in files)
        return ModelOutput(artifacts=artifacts, params={"replayed_from": str(files[0].parent)})
