"""Issue 35, the first hour: params per request kind against a local server, diff of a one-model file against a
two-model file, and the pairwise command's judge defaults matching the pytest options'. Run as a user would."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_visioneval.artifacts import PROVENANCE_FILE
from pytest_visioneval.cli import main as dispatcher
from pytest_visioneval.cli.pairwise import parser as pairwise_parser
from pytest_visioneval.plugin.options import settings_key
from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import draw_png

MIXED = """\
suite: mixed
defaults:
  task: image_generation
  params: {size: 64x48, quality: low}
  graders:
    - use: image
      options: {width: 64, height: 48, count: 1}
cases:
  - {id: logo, prompt: a red square on white}
  - id: page
    task: html_generation
    prompt: a page that says hello
    graders:
      - {use: image, drop: true}
      - {use: html}
"""


def test_a_chat_request_is_sent_no_images_params_from_defaults(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "mixed.eval.yaml").write_text(MIXED)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    with FakeOpenAIServer() as server:
        server.text_reply = "<html><body><h1>hello</h1></body></html>"
        result = pytester.runpytest(
            "cases",
            "--model=openai:m",
            f"--model-base-url={server.base_url}",
            "--eval-output-dir=out",
            "-rA",
            "-p",
            "no:cacheprovider",
        )
    result.assert_outcomes(passed=2)
    # The case's log says what was left out (shown with its report: -rA, or when it fails).
    result.stdout.fnmatch_lines(
        ["*openai:m: case mixed/page: not sent to chat.completions: quality (a param of the images API), size (a param of*"]
    )
    [chat] = [r.json for r in server.calls_to("/chat/completions")]
    [images] = [r.json for r in server.calls_to("/images/generations")]
    assert chat is not None and images is not None
    assert "size" not in chat and "quality" not in chat
    assert (images["size"], images["quality"]) == ("64x48", "low")
    provenance = {}
    for path in (pytester.path / "out").rglob(PROVENANCE_FILE):
        record = json.loads(path.read_text())
        provenance[record["case"]] = record["params"]
    assert provenance == {"mixed/logo": {"size": "64x48", "quality": "low"}, "mixed/page": {}}  # what was sent


def _two_model_runs(pytester: pytest.Pytester, demo_suite: Path) -> tuple[Path, Path]:
    folder = pytester.path / "cand" / "demo"
    for case in ("first", "second"):
        (folder / case).mkdir(parents=True)
        shutil.copy(demo_suite / "refs" / f"{case}.png", folder / case / "out.png")
    draw_png(folder / "third" / "out.png", color=(200, 30, 30))  # a wrong picture: its similarity drops
    pytester.runpytest("cases", "--eval-results=one.json", "-p", "no:cacheprovider")
    pytester.runpytest(
        "cases", "--model=reference", "--model=cand=replay:cand", "--eval-results=two.json", "-p", "no:cacheprovider"
    )
    return pytester.path / "one.json", pytester.path / "two.json"


def test_diff_of_a_one_model_file_against_a_two_model_file_compares_the_shared_model(
    pytester: pytest.Pytester, demo_suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two = _two_model_runs(pytester, demo_suite)
    capsys.readouterr()
    assert dispatcher.main(["diff", str(one), str(two)]) == 0  # reference against itself: nothing moved
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["compared model by model: reference", "not compared: model cand is only in two.json"]
    assert out[-1] == "no regressions"
    # The other way, cand's worse picture is cand's alone: the reference in the two-model file is unchanged.
    assert dispatcher.main(["diff", str(two), str(one)]) == 0
    assert "not compared: model cand is only in two.json" in capsys.readouterr().out


def test_pairwise_judge_defaults_are_the_pytest_options_defaults(pytester: pytest.Pytester) -> None:
    # What a run with --judge uses when nothing is given, against what the pairwise command uses.
    config = pytester.parseconfigure("-p", "no:cacheprovider")
    used = config.stash[settings_key].judge_settings
    args = pairwise_parser().parse_args(["a.json"])
    assert (args.judge_max_images, args.judge_max_image_side) == (used.max_images, used.max_side) == (12, 1024)
    help_text = " ".join(pairwise_parser().format_help().split())
    assert "--judge-max-images JUDGE_MAX_IMAGES most images one request may carry (default 12)" in help_text
