"""Hostile inputs through real runs: small files that decode or expand to gigabytes, a judge reply nested 1 MB deep.

Each bomb run is a subprocess started by a small wrapper that prints the peak RSS of its child
(``RUSAGE_CHILDREN`` of a process that ran nothing else), so other tests' children do not count.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import draw_png

# Peak RSS a run with a refused bomb must stay under: the interpreter, pytest and the plugin take ~100 MB;
# decoding the 144 Mpx bomb took 3 GB (as a model output) to 12 GB (as an input).
PEAK_RSS_BOUND_MB = 500

_WRAPPER = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(done.stdout + done.stderr)
print(f"\\nPEAK_RSS_KB={resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
"""


def run_measured(folder: Path, *args: str, timeout: float = 120) -> tuple[str, float]:
    """``pytest *args`` in ``folder``, in a fresh process: its output and its peak RSS in MB."""
    command = [sys.executable, "-c", _WRAPPER, sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=timeout)
    output, _, peak = done.stdout.rpartition("PEAK_RSS_KB=")
    return output, int(peak) / 1024


@pytest.fixture(scope="module")
def png_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12,000 x 12,000 of one colour: a small PNG, under Pillow's own guard (~179 Mpx), 144 Mpx once decoded."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.png"
    Image.new("L", (12_000, 12_000), 200).save(path, format="PNG")
    assert path.stat().st_size < 200_000
    return path


BOMB_SUITE = """\
suite: bombs
protocol: cookbook
cases:
  - id: as_input
    task: image_editing
    prompt: make it red
    images: [images/bomb.png]
    reference: images/small.png
    graders:
      - use: image
        options: {differs_from_input: true}
  - id: as_reference
    task: image_generation
    prompt: draw a square
    reference: images/bomb.png
    graders:
      - use: similarity
  - id: as_output  # the reference model answers with the reference: the bomb is the model's output
    task: image_generation
    prompt: draw a square
    reference: images/bomb.png
    graders:
      - use: image
"""


def test_a_png_bomb_as_input_reference_or_output_is_refused_by_its_header_in_little_memory(
    tmp_path: Path, png_bomb: Path
) -> None:
    images = tmp_path / "cases" / "images"
    images.mkdir(parents=True)
    (images / "bomb.png").write_bytes(png_bomb.read_bytes())
    Image.new("RGB", (64, 48), (30, 90, 200)).save(images / "small.png")
    (tmp_path / "cases" / "bombs.eval.yaml").write_text(BOMB_SUITE)
    output, peak_mb = run_measured(tmp_path, "cases")
    over = "is 12000x12000 = 144 Mpx, over the limit of 40 Mpx (VISIONEVAL_MAX_IMAGE_PIXELS=40000000)"
    assert "ERROR cases/bombs.eval.yaml::bombs/as_input" in output, output
    assert "ERROR cases/bombs.eval.yaml::bombs/as_reference" in output, output
    assert "FAILED cases/bombs.eval.yaml::bombs/as_output" in output, output
    assert f"bomb.png {over}" in output  # the input and the reference, named by their paths
    assert f"output-0.png: the image {over}" in output  # the model's output fails its decodes gate
    assert peak_mb < PEAK_RSS_BOUND_MB, f"peak RSS {peak_mb:.0f} MB, over {PEAK_RSS_BOUND_MB} MB"


def test_the_pixel_limit_can_be_lowered_through_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    images = tmp_path / "cases" / "images"
    images.mkdir(parents=True)
    Image.new("RGB", (640, 480), (30, 90, 200)).save(images / "ref.png")
    suite = "suite: s\nprotocol: cookbook\ncases:\n  - id: a\n    task: image_generation\n    prompt: p\n"
    (tmp_path / "cases" / "s.eval.yaml").write_text(
        suite + "    reference: images/ref.png\n    graders:\n      - use: similarity\n"
    )
    output, _ = run_measured(tmp_path, "cases")
    assert "PASSED cases/s.eval.yaml::s/a" in output, output
    monkeypatch.setenv("VISIONEVAL_MAX_IMAGE_PIXELS", "300_000")
    output, _ = run_measured(tmp_path, "cases")
    assert "is 640x480 = 0.3 Mpx, over the limit of 0.3 Mpx (VISIONEVAL_MAX_IMAGE_PIXELS=300000)" in output, output


def string_alias_bomb(levels: int, length: int = 10_000) -> str:
    lines = ["suite: strings", "protocol: cookbook", f"s0: &s0 {'x' * length}"]
    lines += [f"s{i}: &s{i} [{', '.join([f'*s{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\ncases: []\n"


def test_a_string_alias_bomb_is_refused_at_collection_with_its_line_in_little_memory(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    text = string_alias_bomb(5)  # 10 KB; 590 MB of text (1.3 GB RSS) once expanded
    assert len(text) < 11_000
    (tmp_path / "cases" / "strings.eval.yaml").write_text(text)
    output, peak_mb = run_measured(tmp_path, "cases")
    assert "strings.eval.yaml:7" in output, output  # s4, the first level past the limit
    assert "expands to 65,610,000 characters of text through its aliases, over the limit of 50,000,000" in output
    assert peak_mb < PEAK_RSS_BOUND_MB, f"peak RSS {peak_mb:.0f} MB, over {PEAK_RSS_BOUND_MB} MB"


JUDGED_SUITE = """\
suite: judged
cases:
  - id: one
    task: image_generation
    prompt: a blue box on white
    reference: ref.png
    graders:
      - use: checklist
        options:
          questions: ["Is there a blue box?"]
"""


def test_a_judge_reply_nested_a_megabyte_deep_is_asked_again_then_a_judge_output_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    draw_png(pytester.path / "cases" / "ref.png")
    (pytester.path / "cases" / "judged.eval.yaml").write_text(JUDGED_SUITE)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-judge")
    with FakeOpenAIServer() as server:
        server.text_reply = "[" * 500_000 + "]" * 500_000  # 1 MB: past what Python's JSON reader can follow
        result = pytester.runpytest("cases", "-rA", "--judge=openai:judge-1", f"--judge-base-url={server.base_url}")
    output = result.stdout.str()
    result.assert_outcomes(errors=1)
    assert "judge openai:judge-1 gave no valid reply in 3 attempt(s): attempt 1: nested too deeply to read" in output, output
    assert "RecursionError" not in output and "internal error" not in output
    assert len(server.calls_to("/chat/completions")) == 3  # asked again with the reason, twice
