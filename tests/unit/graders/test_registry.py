"""graders/registry.py: grader types by name, each imported when first looked up."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_visioneval.errors import GraderError
from pytest_visioneval.graders import BUILTIN_GRADERS, ENTRY_POINT_GROUP, create_grader, grader_types, option_schemas
from pytest_visioneval.graders.image import ImageGrader
from tests.conftest import install_distribution

PLUGIN_MODULE = """
class WordCountGrader:
    options_schema = {"type": "object", "properties": {"words": {"type": "integer"}}}

    def __init__(self, options):
        self.options = options


class NoSchemaGrader:
    def __init__(self, options):
        self.options = options


class ShadowGrader:
    def __init__(self, options):
        raise AssertionError("a plugin's 'image' must never be loaded")
"""


@pytest.fixture
def plugin_graders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An installed distribution (a dist-info folder on sys.path) that publishes three graders, one named like a built-in."""
    install_distribution(
        tmp_path / "site",
        "vegraders",
        ENTRY_POINT_GROUP,
        {
            "word_count": "ve_plugin_graders:WordCountGrader",
            "no_schema": "ve_plugin_graders:NoSchemaGrader",
            "image": "ve_plugin_graders:ShadowGrader",
        },
        {"ve_plugin_graders": PLUGIN_MODULE},
        monkeypatch,
    )
    grader_types.cache_clear()  # the entry points are read once per process
    yield
    grader_types.cache_clear()
    sys.modules.pop("ve_plugin_graders", None)


def test_the_built_ins_are_named_without_being_imported() -> None:
    types = grader_types()
    assert list(types)[: len(BUILTIN_GRADERS)] == list(BUILTIN_GRADERS)
    assert "image" in types and "no_such_grader" not in types
    assert types["image"] is ImageGrader
    with pytest.raises(KeyError):
        types["no_such_grader"]


def test_only_the_grader_looked_up_is_imported() -> None:
    # A process of its own: this one has imported every grader already.
    probe = (
        "import sys\n"
        "from pytest_visioneval.graders import grader_types, option_schemas\n"
        "assert 'text' in grader_types() and sorted(option_schemas())\n"  # names and membership import nothing
        "option_schemas()['ssim']\n"
        "print(sorted(n.rpartition('.')[2] for n in sys.modules if n.startswith('pytest_visioneval.graders.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert "'ssim'" in done.stdout
    for other in ("ocr", "image", "checklist", "similarity", "locality"):
        assert f"'{other}'" not in done.stdout


def test_unknown_grader_is_a_grader_error() -> None:
    with pytest.raises(GraderError, match="unknown grader 'nope'"):
        create_grader("nope", {})


def test_plugin_graders_come_from_entry_points(plugin_graders: None) -> None:
    types = grader_types()
    assert "word_count" in types and "no_schema" in types
    assert list(types)[-2:] == ["word_count", "no_schema"]  # after the built-ins
    assert "ve_plugin_graders" not in sys.modules  # named, not loaded yet
    schemas = option_schemas()
    assert schemas["word_count"] == {"type": "object", "properties": {"words": {"type": "integer"}}}
    assert schemas["no_schema"] == {"type": "object"}  # a grader without a schema takes any options
    assert create_grader("word_count", {"words": 3}).options == {"words": 3}  # type: ignore[attr-defined]


def test_a_plugin_cannot_shadow_a_built_in(plugin_graders: None) -> None:
    assert grader_types()["image"] is ImageGrader
    assert list(grader_types()).count("image") == 1
