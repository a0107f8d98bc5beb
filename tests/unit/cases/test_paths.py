"""cases/paths.py: case paths must stay inside the suite folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_visioneval.cases.paths import PathEscapeError, resolve_inside


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    (root / "images").mkdir(parents=True)
    (root / "images" / "a.png").write_bytes(b"png")
    (tmp_path / "secret.txt").write_text("secret")
    return root


def test_normal_relative_path(root: Path) -> None:
    assert resolve_inside(root, "images/a.png") == (root / "images" / "a.png").resolve()


def test_dotdot_that_stays_inside_is_fine(root: Path) -> None:
    assert resolve_inside(root, "images/../images/a.png") == (root / "images" / "a.png").resolve()


def test_relative_root_is_resolved(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root.parent)
    assert resolve_inside(Path("suite"), "images/a.png") == (root / "images" / "a.png").resolve()


@pytest.mark.parametrize("relative", ["../../etc/passwd", "../secret.txt", "images/../../secret.txt"])
def test_dotdot_escape_is_rejected(root: Path, relative: str) -> None:
    with pytest.raises(PathEscapeError, match="leaves the suite folder"):
        resolve_inside(root, relative)


@pytest.mark.parametrize("relative", ["/etc/passwd", "C:\\Windows\\win.ini", "\\\\server\\share\\x.png"])
def test_absolute_path_is_rejected(root: Path, relative: str) -> None:
    with pytest.raises(PathEscapeError, match="absolute paths are not allowed"):
        resolve_inside(root, relative)


def test_absolute_path_inside_root_is_still_rejected(root: Path) -> None:
    with pytest.raises(PathEscapeError, match="absolute"):
        resolve_inside(root, str(root / "images" / "a.png"))


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_symlink_pointing_outside_is_rejected(root: Path, tmp_path: Path) -> None:
    (root / "images" / "link.png").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(PathEscapeError, match="leaves the suite folder"):
        resolve_inside(root, "images/link.png")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_symlinked_directory_pointing_outside_is_rejected(root: Path, tmp_path: Path) -> None:
    (root / "outside").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(PathEscapeError):
        resolve_inside(root, "outside/secret.txt")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_symlink_pointing_inside_is_fine(root: Path) -> None:
    (root / "alias.png").symlink_to(root / "images" / "a.png")
    assert resolve_inside(root, "alias.png") == (root / "images" / "a.png").resolve()


def test_path_escape_error_is_a_value_error() -> None:
    assert issubclass(PathEscapeError, ValueError)
