"""What pytest's JUnit XML says about a case, in a shape CI tools read right.

- The class name: pytest makes it from the file path with dots, so ``cases/logos.eval.yaml``
  becomes ``cases.logos.eval.yaml``, which Jenkins, GitLab and the like split at every dot
  (a package ``cases.logos.eval`` holding a class ``yaml``). A case's class is its file's
  path without the case-file suffix: ``cases.logos``.
- A gate's property says whether the gate decides the case: a ``gate: false`` check that
  failed reads ``failed (not gating)``, never a bare ``failed`` next to a passing test.

Only the controller writes the XML (xdist workers do not), so all of this runs there.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

import pytest

NOT_GATING = " (not gating)"


def writer(config: pytest.Config) -> Any:
    """The ``--junitxml`` writer of this run, or ``None`` (none asked for, or pytest moved its key)."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover - a pytest without it: the hook path is used
        return None
    return config.stash.get(xml_key, None)


def case_classname(path: str, globs: Sequence[str]) -> str:
    """``cases/cookbook/logo_edits.eval.yaml`` -> ``cases.cookbook.logo_edits``.

    The suffix a case-file glob names (``*.eval.yaml``) is taken off the file name, else its
    extension; a dot left in any part becomes ``_``, so only the path's own levels are dotted.
    """
    parts = PurePosixPath(path.replace("\\", "/")).parts
    *folders, name = parts or ("",)
    stem = next((name[: -len(s)] for s in _literal_suffixes(globs) if name.endswith(s) and len(name) > len(s)), None)
    if stem is None:
        stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    return ".".join(part.replace(".", "_") for part in (*folders, stem) if part not in ("", "."))


def _literal_suffixes(globs: Sequence[str]) -> list[str]:
    """``*.eval.yaml`` -> ``.eval.yaml``; globs with a wildcard after the first ``*`` name no plain suffix."""
    found = [g[1:] for g in globs if g.startswith("*") and not any(ch in g[1:] for ch in "*?[")]
    return sorted(found, key=len, reverse=True)


def name_case_class(config: pytest.Config, report: pytest.TestReport, globs: Sequence[str]) -> None:
    """Give a case's JUnit test case its readable class name, before the JUnit writer sees ``report``.

    The writer keeps attributes set on its test-case reporter over the ones it computes.
    A passing setup opens no test case there, so none is made for it here either.
    """
    xml = writer(config)
    path, sep, _ = report.nodeid.partition("::")
    if xml is None or not sep or not any(fnmatch.fnmatch(PurePosixPath(path).name, g) for g in globs):
        return
    if report.when == "setup" and report.passed:
        return
    classname = case_classname(path, globs)
    if getattr(xml, "prefix", None):  # --junit-prefix
        classname = f"{xml.prefix}.{classname}"
    xml.node_reporter(report).add_attribute("classname", classname)


def gate_property(gate: Mapping[str, Any]) -> tuple[str, str]:
    """A gate as a JUnit property: ``visioneval.gate.NAME`` -> ``passed``, ``failed``, or either ``(not gating)``."""
    value = "passed" if gate["passed"] else "failed"
    return f"visioneval.gate.{gate['name']}", value + ("" if gate.get("gating", True) else NOT_GATING)
