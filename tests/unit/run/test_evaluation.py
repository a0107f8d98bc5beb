"""run/evaluation.py: a write the disk refuses is a plain error of the case, not an internal error."""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_visioneval import artifacts
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.run.evaluation import evaluate_case
from tests.unit.run.test_pipeline import SleepyModel, environment


@pytest.fixture
def png(encode_image: Callable[..., bytes]) -> bytes:
    return encode_image((16, 16))


def _refuse_writes(monkeypatch: pytest.MonkeyPatch, number: int, text: str) -> None:
    def refuse(path: Path, data: bytes) -> None:
        raise OSError(number, text, str(path.with_name(f".{path.name}.1.1.tmp")))

    monkeypatch.setattr(artifacts, "write_atomic", refuse)


def test_a_full_disk_is_an_error_naming_the_folder(
    tmp_path: Path, png: bytes, make_case: Callable[..., CaseSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    _refuse_writes(monkeypatch, errno.ENOSPC, "No space left on device")
    outcome = evaluate_case(make_case(id="case-0"), environment(SleepyModel(png, delay=0.0), tmp_path))
    folder = tmp_path / "run" / "fake_sleepy" / "unit" / "case-0"
    assert outcome["error"] == f"DiskError: cannot write: No space left on device (ENOSPC) at {folder}"


def test_another_os_error_is_still_reported_as_internal_with_where(
    tmp_path: Path, png: bytes, make_case: Callable[..., CaseSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    _refuse_writes(monkeypatch, errno.ENOENT, "No such file or directory")
    outcome = evaluate_case(make_case(id="case-0"), environment(SleepyModel(png, delay=0.0), tmp_path))
    assert outcome["error"].startswith("internal error FileNotFoundError: ")
    assert "File " in outcome["error"]  # the traceback's last frames
