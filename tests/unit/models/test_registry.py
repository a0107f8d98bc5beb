"""models/registry.py: built-in providers and entry-point providers."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_visioneval.errors import ModelError, UnknownModelError
from pytest_visioneval.models import ENTRY_POINT_GROUP, Model, ModelSettings, available_providers, create_model
from pytest_visioneval.models.reference import ReferenceModel
from pytest_visioneval.models.replay import ReplayModel
from tests.conftest import install_distribution

MODULES = ("ve_fake_provider", "ve_broken_provider")

FAKE_MODULE = """
from pytest_visioneval.artifacts import Artifact, ModelOutput


class FakeModel:
    def __init__(self, argument, settings):
        self.argument = argument
        self.settings = settings
        self.name = "fake:" + argument

    def generate(self, case, params):
        return ModelOutput((Artifact("out.txt", b"fake"),), params=dict(params))


class NotAModel:
    pass


def make_model(argument, settings):
    return FakeModel(argument, settings)


def make_nothing(argument, settings):
    return NotAModel()
"""


@pytest.fixture
def fake_distribution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real installed distribution (dist-info folder on sys.path) publishing model providers."""
    site = install_distribution(
        tmp_path / "site",
        "fakepkg",
        ENTRY_POINT_GROUP,
        {
            "fake": "ve_fake_provider:make_model",
            "nothing": "ve_fake_provider:make_nothing",
            "broken": "ve_broken_provider:make_model",
            "missing_attr": "ve_fake_provider:no_such_factory",
            "openai": "ve_fake_provider:make_model",
        },
        {"ve_fake_provider": FAKE_MODULE, "ve_broken_provider": "import ve_dependency_that_is_not_installed\n"},
        monkeypatch,
    )
    yield site
    for name in MODULES:
        sys.modules.pop(name, None)


def test_builtin_providers() -> None:
    assert {"openai", "replay", "reference"} <= set(available_providers())


def test_reference_provider() -> None:
    model = create_model("reference", ModelSettings())
    assert isinstance(model, ReferenceModel)
    assert isinstance(model, Model)
    assert model.name == "reference"


def test_replay_provider_gets_the_argument(tmp_path: Path) -> None:
    model = create_model(f"replay:{tmp_path}", ModelSettings())
    assert isinstance(model, ReplayModel)
    assert model.root == tmp_path.resolve()


def test_builtin_errors_are_model_errors(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="takes no argument"):
        create_model("reference:extra", ModelSettings())
    with pytest.raises(ModelError, match="replay folder not found"):
        create_model(f"replay:{tmp_path / 'nope'}", ModelSettings())


def test_unknown_provider_lists_the_available_ones() -> None:
    with pytest.raises(UnknownModelError) as info:
        create_model("nosuchprovider:x", ModelSettings())
    message = str(info.value)
    assert "unknown model provider 'nosuchprovider'" in message
    assert "--model='nosuchprovider:x'" in message
    available = message.split("available: ", 1)[1]
    assert available.split(", ") == available_providers()
    assert {"openai", "reference", "replay"} <= set(available.split(", "))


def test_entry_point_provider_is_found(fake_distribution: Path) -> None:
    assert "fake" in available_providers()
    settings = ModelSettings(timeout=5.0)
    model = create_model("fake:some:arg", settings)
    assert type(model).__module__ == "ve_fake_provider"
    assert type(model).__name__ == "FakeModel"
    assert model.name == "fake:some:arg"
    assert model.argument == "some:arg"  # type: ignore[attr-defined]  # split at the first ':' only
    assert model.settings is settings  # type: ignore[attr-defined]
    output = model.generate(None, {"k": 1})  # type: ignore[arg-type]
    assert output.artifacts[0].data == b"fake"


def test_entry_point_provider_without_argument(fake_distribution: Path) -> None:
    assert create_model("fake", ModelSettings()).argument == ""  # type: ignore[attr-defined]


def test_unknown_provider_lists_entry_point_providers(fake_distribution: Path) -> None:
    with pytest.raises(UnknownModelError, match=r"available: .*\bfake\b"):
        create_model("other:x", ModelSettings())


def test_entry_point_that_fails_to_import(fake_distribution: Path) -> None:
    with pytest.raises(UnknownModelError) as info:
        create_model("broken:x", ModelSettings())
    message = str(info.value)
    assert "'broken'" in message and "failed to load" in message
    assert "ve_broken_provider:make_model" in message
    assert "ve_dependency_that_is_not_installed" in message
    assert isinstance(info.value.__cause__, ImportError)


def test_entry_point_naming_a_missing_attribute(fake_distribution: Path) -> None:
    with pytest.raises(UnknownModelError, match="failed to load"):
        create_model("missing_attr", ModelSettings())


def test_factory_returning_a_non_model(fake_distribution: Path) -> None:
    with pytest.raises(UnknownModelError, match="has no name/generate"):
        create_model("nothing:x", ModelSettings())


def test_entry_point_cannot_shadow_a_builtin(fake_distribution: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # The built-in openai provider is used (it wants a key); the plugin's "openai" is never loaded.
    with pytest.raises(ModelError, match="no API key"):
        create_model("openai:gpt-image-1", ModelSettings())
    assert "ve_fake_provider" not in sys.modules
