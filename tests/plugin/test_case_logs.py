"""A case's log records are shown in its own report, also when cases are evaluated ahead in threads or by
another xdist worker; before, pytest filed each record under whichever test it was in at the time."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.conftest import install_distribution

PROVIDER = """
import io, logging, time
from PIL import Image, ImageDraw
from pytest_visioneval.artifacts import Artifact, ModelOutput

log = logging.getLogger("chattyprov")

class ChattyModel:
    name = "chatty:model"

    def generate(self, case, params):
        for step in range(3):
            log.warning("case %s step %d", case.id, step)
            time.sleep(0.02)  # the cases in flight interleave their records
        image = Image.new("RGB", (64, 48), "white")
        ImageDraw.Draw(image).rectangle((16, 12, 48, 36), fill="navy")
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        return ModelOutput(artifacts=(Artifact("out.png", buf.getvalue()),), params=dict(params))

def make(argument, settings):
    return ChattyModel()
"""

CASES = 8


@pytest.fixture
def chatty_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = install_distribution(
        pytester.path / "site",
        "chattyprov",
        "pytest_visioneval.models",
        {"chatty": "chattyprov:make"},
        {"chattyprov": PROVIDER},
        monkeypatch,
    )
    # xdist workers take their sys.path from the environment, as an installed package's would be.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    cases = pytester.path / "cases"
    cases.mkdir()
    listed = "".join(f"  - id: c{n}\n    prompt: anything\n" for n in range(CASES))
    width = "    - use: image\n      options: {width: 64, height: 48}\n"
    (cases / "chat.eval.yaml").write_text(f"defaults:\n  task: image_generation\n  graders:\n{width}cases:\n{listed}")
    return cases


def sections_by_case(output: str) -> dict[str, list[str]]:
    """case id -> the ``case <n> step <k>`` records shown in that case's report (``-rP`` lists passed ones)."""
    found: dict[str, list[str]] = {}
    current = None
    for line in output.splitlines():
        header = re.match(r"^_+ (?:case )?chat/(c\d+) _+$", line)
        if header:
            current = header[1]
            found[current] = []
        elif current is not None and (record := re.search(r"case (c\d+) step (\d)$", line)):
            found[current].append(f"{record[1]}:{record[2]}")
    return found


@pytest.mark.parametrize("workers", [0, 2], ids=["n0", "n2"])
def test_each_case_report_shows_its_own_records_only(pytester: pytest.Pytester, chatty_suite: Path, workers: int) -> None:
    args = ["cases", "--model=chatty:model", "--eval-concurrency=4", "-rP", "-p", "no:cacheprovider"]
    result = pytester.runpytest_subprocess(*args, *(["-n", str(workers)] if workers else []), timeout=180)
    result.assert_outcomes(passed=CASES)
    shown = sections_by_case(result.stdout.str())
    assert sorted(shown) == [f"c{n}" for n in range(CASES)]
    for case, records in shown.items():
        assert records == [f"{case}:0", f"{case}:1", f"{case}:2"], f"{case}'s report shows {records}"
    result.stdout.fnmatch_lines(["*- Captured evaluation log setup -*"])


def test_a_failed_case_shows_its_records_in_the_failure(pytester: pytest.Pytester, chatty_suite: Path) -> None:
    # The gate asks for another width: every case fails, and its failure report carries its own records.
    text = (chatty_suite / "chat.eval.yaml").read_text().replace("width: 64", "width: 65")
    (chatty_suite / "chat.eval.yaml").write_text(text)
    result = pytester.runpytest_subprocess("cases", "--model=chatty:model", "--eval-concurrency=4", timeout=180)
    result.assert_outcomes(failed=CASES)
    shown = sections_by_case(result.stdout.str())
    assert shown["c5"] == ["c5:0", "c5:1", "c5:2"]
    assert all(records == [f"{case}:0", f"{case}:1", f"{case}:2"] for case, records in shown.items())
