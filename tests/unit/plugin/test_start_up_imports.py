"""The plugin's start-up stays light: every pytest run in an environment with the plugin pays for it.

numpy, scipy and the SDK are imported where a run first needs them (a grader,
the statistics at the session's end, the first call), so a case run imports
them while its first calls are in flight, and other test suites never do.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = ("numpy", "scipy", "openai", "playwright", "krippendorff")
# Also left out of loading the plugin (a controller under xdist never needs them): jsonschema words a
# rejected case file or judge reply, tenacity retries a call, Pillow prepares an image for a judge; YAML
# and the compiled schemas are read with the first case file (a run of Python tests alone never does).
NOT_AT_START = ("jsonschema", "tenacity", "PIL", "yaml", "fastjsonschema")


def test_loading_the_plugin_imports_no_heavy_library() -> None:
    probe = (
        "import json, sys\n"
        "import pytest_visioneval.plugin.hooks\n"
        f"print(json.dumps(sorted(name for name in {HEAVY + NOT_AT_START!r} if name in sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout) == []


CASE_FILE = """
suite: light
cases:
  - id: one
    task: image_generation
    prompt: a red square
    graders:
      - use: image
        options: {width: 8, height: 8}
"""
# Printed when collection is done: which heavy libraries and which grader modules are loaded by then.
PROBE = f"""
import json, sys

def pytest_collection_finish(session):
    heavy = sorted(name for name in {HEAVY + ("jsonschema",)!r} if name in sys.modules)
    graders = sorted(name.rpartition(".")[2] for name in sys.modules if name.startswith("pytest_visioneval.graders."))
    print("LOADED " + json.dumps({{"heavy": heavy, "graders": graders}}))
"""


def test_collecting_case_files_imports_only_the_graders_they_use(tmp_path: Path) -> None:
    (tmp_path / "light.eval.yaml").write_text(CASE_FILE)
    (tmp_path / "conftest.py").write_text(PROBE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-s", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "1 test collected" in done.stdout, done.stdout + done.stderr
    loaded = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("LOADED ")).removeprefix("LOADED "))
    # numpy loads when the first image is graded; jsonschema only to word a rejected file or option.
    assert loaded["heavy"] == []
    assert loaded["graders"] == ["base", "image", "registry"]  # not the OCR, similarity or judge graders


RUN_PROBE = """
import json, sys

def pytest_sessionfinish(session):
    ours = sorted(name for name in sys.modules if name.startswith("pytest_visioneval."))
    print("LOADED " + json.dumps(ours))
"""


def test_an_image_case_run_imports_no_mutant_or_page_rendering_code(tmp_path: Path) -> None:
    from PIL import Image

    image = Image.new("RGB", (8, 8), "white")
    image.paste((200, 20, 20), (2, 2, 6, 6))
    image.save(tmp_path / "red.png")
    (tmp_path / "light.eval.yaml").write_text(CASE_FILE.replace("    graders:", "    reference: red.png\n    graders:"))
    (tmp_path / "conftest.py").write_text(RUN_PROBE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "--eval-output-dir", str(tmp_path / "out")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "1 passed" in done.stdout, done.stdout + done.stderr
    loaded = json.loads(next(line for line in done.stdout.splitlines() if "LOADED " in line).partition("LOADED ")[2])
    assert "pytest_visioneval.run.evaluation" in loaded  # the case did run
    # The mutation self-test and the CDN mirror load only when they are used. The options' defaults and
    # family names (mutants/settings.py: constants and a dataclass, under a package of only a docstring)
    # are read by --help and the option checks at start-up; no mutant-making or self-test code loads.
    light = {"pytest_visioneval.mutants", "pytest_visioneval.mutants.settings"}
    assert not [
        name
        for name in loaded
        if name.startswith(("pytest_visioneval.mutants", "pytest_visioneval.run.mutation")) and name not in light
    ]
    assert not [name for name in loaded if name.startswith("pytest_visioneval.pages.cdn_")]
