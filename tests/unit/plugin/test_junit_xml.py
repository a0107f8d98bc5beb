"""plugin/junit_xml.py: class names CI tools read right; gates that do not gate, marked."""

from __future__ import annotations

import pytest

from pytest_visioneval.plugin.junit_xml import case_classname, gate_property

GLOBS = ("*.eval.yaml", "*.eval.yml")


@pytest.mark.parametrize(
    ("path", "classname"),
    [
        ("mycases2/thr.eval.yaml", "mycases2.thr"),  # the outside team's: pytest made it mycases2.thr.eval.yaml
        ("cases/cookbook/logo_edits.eval.yaml", "cases.cookbook.logo_edits"),
        ("thr.eval.yml", "thr"),
        ("v1.2/my.suite.eval.yaml", "v1_2.my_suite"),  # a dot left in a part is not a level
        ("cases/plain.yaml", "cases.plain"),  # a glob without a plain suffix: the extension goes
    ],
)
def test_the_class_name_is_the_path_without_the_case_file_suffix(path: str, classname: str) -> None:
    assert case_classname(path, GLOBS) == classname


def test_a_custom_glob_suffix_is_taken_off() -> None:
    assert case_classname("evals/a.case.yml", ("*.case.yml",)) == "evals.a"
    assert case_classname("evals/a.case.yml", ("*_x.yml", "*.y?ml")) == "evals.a_case"


def test_a_gate_that_does_not_gate_says_so() -> None:
    assert gate_property({"name": "image.size", "passed": False, "gating": True}) == ("visioneval.gate.image.size", "failed")
    assert gate_property({"name": "image.size", "passed": True}) == ("visioneval.gate.image.size", "passed")
    assert gate_property({"name": "poster.size", "passed": False, "gating": False}) == (
        "visioneval.gate.poster.size",
        "failed (not gating)",
    )
