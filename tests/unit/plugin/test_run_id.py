"""lock_run_folder: a run folder that cannot be made is a usage error naming it, not an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_visioneval.plugin.run_id import lock_run_folder


def test_a_run_folder_that_cannot_be_made_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the output folder should go")
    folder = blocker / "run-1"
    with pytest.raises(pytest.UsageError) as raised:
        lock_run_folder(folder, "run-1")
    message = str(raised.value)
    assert f"the run folder {folder} cannot be made" in message
    assert "--eval-output-dir must be writable" in message


def test_a_free_run_folder_is_made_and_locked(tmp_path: Path) -> None:
    folder = tmp_path / "out" / "run-2"
    fd = lock_run_folder(folder, "run-2")
    assert fd >= 0 and folder.is_dir()
