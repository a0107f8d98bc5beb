"""cases/compiled_schema.py: validators compiled once, kept on disk, and never needed there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fastjsonschema
import pytest

from pytest_visioneval.cases import compiled_schema
from pytest_visioneval.cases.compiled_schema import FOLDER_ENV, cache_folder, compiled_validator

# An $id (the validator's function is named after it) and a $ref (a second function in the module).
SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "https://example.invalid/options.json",
    "type": "object",
    "properties": {"size": {"$ref": "#/definitions/size"}, "mode": {"type": "string", "default": "fast"}},
    "additionalProperties": False,
    "definitions": {"size": {"type": "integer", "minimum": 1}},
}


def _rejects(validate: Any, data: Any) -> bool:
    try:
        validate(data)
    except fastjsonschema.JsonSchemaException:
        return True
    return False


def _module_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("validator_*.py"))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    chosen = tmp_path / "schemas"
    monkeypatch.setenv(FOLDER_ENV, str(chosen))
    return chosen


@pytest.mark.parametrize(
    "data",
    [{}, {"size": 3}, {"size": 0}, {"size": "3"}, {"mode": 1}, {"other": 1}, [], {"size": 2, "mode": "x"}],
)
def test_accepts_and_rejects_what_fastjsonschema_compiled_in_memory_does(folder: Path, data: Any) -> None:
    in_memory = fastjsonschema.compile(SCHEMA, use_default=False)
    assert _rejects(compiled_validator(SCHEMA), data) == _rejects(in_memory, data)
    assert _module_files(folder), "the validator's module was not kept"


def test_never_writes_a_default_into_the_data(folder: Path) -> None:
    data: dict[str, Any] = {"size": 2}
    compiled_validator(SCHEMA)(data)
    assert data == {"size": 2}


def test_a_later_process_loads_the_kept_module_without_compiling(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled_validator(SCHEMA)

    def no_compiling(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("compiled again")

    monkeypatch.setattr(fastjsonschema, "compile_to_code", no_compiling)
    monkeypatch.setattr(fastjsonschema, "compile", no_compiling)
    validate = compiled_validator(SCHEMA)
    assert _rejects(validate, {"size": 0}) and not _rejects(validate, {"size": 1})


def test_each_schema_has_a_module_of_its_own(folder: Path) -> None:
    other = {**SCHEMA, "definitions": {"size": {"type": "integer", "minimum": 5}}}
    assert not _rejects(compiled_validator(SCHEMA), {"size": 3})
    assert _rejects(compiled_validator(other), {"size": 3})
    assert len(_module_files(folder)) == 2


def test_a_module_that_does_not_load_is_made_again(folder: Path) -> None:
    compiled_validator(SCHEMA)
    (kept,) = _module_files(folder)
    kept.write_text("this is not python(\n", encoding="utf-8")
    validate = compiled_validator(SCHEMA)
    assert _rejects(validate, {"size": 0}) and not _rejects(validate, {"size": 1})
    assert "VALIDATOR = " in kept.read_text(encoding="utf-8")


def test_a_folder_that_cannot_be_made_compiles_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv(FOLDER_ENV, str(blocker / "schemas"))
    validate = compiled_validator(SCHEMA)
    assert _rejects(validate, {"size": 0}) and not _rejects(validate, {"size": 1})


def test_off_keeps_nothing_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FOLDER_ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_folder() is None
    assert _rejects(compiled_validator(SCHEMA), {"size": 0})
    assert not any(tmp_path.iterdir())


def test_the_folder_follows_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FOLDER_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_folder() == tmp_path / "pytest-visioneval" / "schemas"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_folder() == Path.home() / ".cache" / "pytest-visioneval" / "schemas"


def test_the_case_file_schema_is_kept_and_checks_the_same(folder: Path) -> None:
    from pytest_visioneval.cases import validate

    validate._fast_check.cache_clear()
    try:
        check = validate._fast_check()
        assert _module_files(folder)
        assert not _rejects(check, {"cases": [{"id": "a", "prompt": "p"}]})
        assert _rejects(check, {"cases": "not a list"})
    finally:
        validate._fast_check.cache_clear()


def test_the_module_is_written_whole_or_not_at_all(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_replace(source: Any, target: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(compiled_schema.os, "replace", failing_replace)
    validate = compiled_validator(SCHEMA)  # compiled in memory instead
    assert _rejects(validate, {"size": 0})
    assert not list(folder.iterdir()), "a temporary file was left behind"
