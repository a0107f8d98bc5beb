"""Issue 35, as a new user runs it: the summary at 80 and 200 columns, failure cards, JUnit, --help.

A small suite like the outside team's (a text gate, an edit with a mask, a checklist judged by a
local OpenAI-compatible server; a failing gate, a missed threshold, a non-gating check) and the
shipped examples under cases/ are run the way a user runs them, with COLUMNS set as a CI log has it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from xml.etree import ElementTree

import pytest
from PIL import Image, ImageDraw, ImageFont

from pytest_visioneval.plugin.help_groups import PLACES, place
from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import read_json

SHIPPED = Path(__file__).resolve().parents[2] / "cases"
WIDTHS = (80, 200)
TRUNCATION = re.compile(r"\u2026|\.\.\.")

SUITE = """\
suite: first-hour
thresholds:
  locality.preserved: 1.0        # missed: the edit changed pixels outside its mask
  text.text_present: {min: 0.05}  # met: one of the two buttons reads right
cases:
  - id: button-typo
    task: image_generation
    prompt: a checkout button reading Place Order
    graders:
      - use: text
        options: {required: ["Place Order"]}
  - id: button-good
    task: image_generation
    prompt: a checkout button reading Place Order
    graders:
      - use: text
        options: {required: ["Place Order"]}
      - use: checklist
        options: {questions: ["Does it read Place Order?", "Is the date shown?"]}
  - id: logo-recolour
    task: image_editing
    prompt: recolour the square blue
    images: [in/logo.png]
    mask: in/mask.png
    graders:
      - use: locality
        options: {max_changed_outside: 0.02}
      - use: image
        name: poster_size
        gate: false                # recorded, never fails the case
        options: {width: 300, height: 300}
"""


def _button(path: Path, text: str) -> None:
    img = Image.new("RGB", (480, 160), "white")
    ImageDraw.Draw(img).text((40, 50), text, font=ImageFont.load_default(size=44), fill=(20, 20, 20))
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path)


@pytest.fixture
def first_hour(pytester: pytest.Pytester) -> Path:
    """The suite, its inputs, and the outputs a model gave (replayed): one typo, one edit that spills."""
    cases = pytester.path / "cases"
    (cases / "in").mkdir(parents=True)
    logo = Image.new("RGB", (200, 200), (240, 240, 240))
    ImageDraw.Draw(logo).rectangle((20, 20, 80, 80), fill=(200, 0, 0))
    logo.save(cases / "in" / "logo.png")
    mask = Image.new("L", (200, 200), 0)
    ImageDraw.Draw(mask).rectangle((0, 0, 99, 99), fill=255)  # the top-left quarter may change
    mask.save(cases / "in" / "mask.png")
    (cases / "first_hour.eval.yaml").write_text(SUITE)
    out = pytester.path / "outputs" / "first-hour"
    _button(out / "button-typo.png", "Place Ordr")
    _button(out / "button-good.png", "Place Order")
    edited = logo.copy()
    draw = ImageDraw.Draw(edited)
    draw.rectangle((20, 20, 80, 80), fill=(0, 0, 200))  # the requested edit
    draw.rectangle((0, 150, 199, 199), fill=(0, 0, 0))  # and an unrequested one
    edited.save(out / "logo-recolour.png")
    return cases


def _judge_reply() -> str:
    return json.dumps(
        {"answers": [{"id": 1, "reason": "it does", "answer": "yes"}, {"id": 2, "reason": "top right", "answer": "yes"}]}
    )


def _tail(lines: list[str]) -> list[str]:
    """Our part of the output: the visioneval scores section, and the exit-status lines after pytest's last line."""
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"=+ visioneval scores =+", line))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("=") and lines[i].endswith("="))
    last = max(i for i, line in enumerate(lines) if line.startswith("=") and line.endswith("="))
    return lines[start + 1 : end] + lines[last + 1 :]


def _verdict(lines: list[str]) -> str:
    """The exit-status line, its wrapped continuation lines joined back."""
    last = max(i for i, line in enumerate(lines) if line.startswith("=") and line.endswith("="))
    return " ".join(line.strip() for line in lines[last + 1 :])


@pytest.mark.parametrize("width", WIDTHS)
def test_the_summary_of_a_failing_run_reads_whole_at_the_width(
    pytester: pytest.Pytester, first_hour: Path, monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-first-hour")
    with FakeOpenAIServer(text_reply=_judge_reply()) as server:
        result = pytester.runpytest("cases", "--model=replay:outputs", "--judge=openai:j", f"--judge-base-url={server.base_url}")
    result.assert_outcomes(passed=1, failed=3)  # button-typo, logo-recolour and visioneval::thresholds
    lines = result.stdout.lines
    ours = _tail(lines)
    assert not [line for line in ours if TRUNCATION.search(line)], "cut with ... or an ellipsis"
    assert not [line for line in ours if len(line) > width], f"wider than {width} columns"
    text = "\n".join(ours)
    # The key facts: the failed gates, each threshold once with its numbers, the verdict naming the missed one.
    assert "locality.preserved (1)" in text and "text.text_present (1)" in text and "poster_size.size (1, not gating)" in text
    output = result.stdout.str()
    assert output.count("pass rate 0 < 1 (short by 1)") == 1  # the missed threshold, told once in the whole output
    assert re.search(
        r"FAIL first-hour\.locality\.preserved: pass rate 0 < 1 \(short by 1\)\s+\[cases/first_hour\.eval\.yaml:3\]", text
    )
    assert "PASS first-hour.text.text_present: pass rate 0.5 >= 0.05" in text
    assert _verdict(lines) == (
        "visioneval: exit status 1: 2 case(s) failed a gate or assertion | 1 threshold(s) missed: first-hour.locality.preserved"
    )
    # pytest's short summary line of the run-level check counts, and the card says where the check is listed.
    result.stdout.fnmatch_lines(["FAILED visioneval::thresholds - 1 threshold(s) missed"])
    card = output.split("_ thresholds _")[1].split("\n")[1:3]
    assert card == ["1 threshold(s) missed", "each is listed under 'visioneval scores' below"]
    if width == 80:  # the narrow layout: the failed gates under the table, not cut out of a column
        assert re.search(
            r"^failed gates in first-hour: locality\.preserved \(1\), text\.text_present \(1\),\s+"
            r"poster_size\.size \(1, not gating\)$",
            text,
            re.M,
        )
    else:
        assert re.search(
            r"^first-hour +3 +1 +2 +0 +33\.3% \[6\.1, 79\.2\] +locality\.preserved \(1\), text\.text_present \(1\), "
            r"poster_size\.size \(1, not gating\)$",
            text,
            re.M,
        )


def test_with_summary_none_the_card_lists_the_thresholds_whole(
    pytester: pytest.Pytester, first_hour: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = pytester.runpytest("cases", "--model=replay:outputs", "-k", "not button-good", "--eval-summary=none")
    result.assert_outcomes(failed=3)
    output = result.stdout.str()
    # Each missed threshold is said once, in the card: the only list of them on the terminal (pytest's own
    # short summary repeats the card, whole when CI is set, as it does for any failure).
    ours = output.split("short test summary info")[0]
    assert ours.count("first-hour.locality.preserved: pass rate 0 < 1 (short by 1)") == 1
    assert ours.count("first-hour.text.text_present: pass rate 0 < ") == 1
    result.stdout.fnmatch_lines(
        ["*_ thresholds _*", "threshold missed: first-hour.locality.preserved: pass rate 0 < 1 (short by 1)"]
    )
    assert "FAIL first-hour" not in output
    # Without button-good no button reads right: the text threshold is missed too.
    assert _verdict(result.stdout.lines).endswith(
        "| 2 threshold(s) missed: first-hour.locality.preserved, first-hour.text.text_present"
    )


@pytest.mark.slow
def test_the_shipped_examples_read_whole_at_80_columns(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # Only the narrowest width: the shipped suites take a minute and more to run on two cores. A summary at 200
    # columns is read whole, on a smaller suite, in test_the_summary_of_a_failing_run_reads_whole_at_the_width.
    width = 80
    shutil.copytree(SHIPPED, pytester.path / "cases")
    monkeypatch.setenv("COLUMNS", str(width))
    result = pytester.runpytest("cases")
    assert result.ret == pytest.ExitCode.OK
    lines = result.stdout.lines
    ours = _tail(lines)
    assert not [line for line in ours if TRUNCATION.search(line)], "cut with ... or an ellipsis"
    assert not [line for line in ours if len(line) > width], f"wider than {width} columns"
    text = "\n".join(ours)
    files = list(SHIPPED.rglob("*.eval.yaml"))
    assert len(files) >= 8
    rows = [line for line in ours if re.match(r"^\S+ +\d+ +\d+ +0 +0 +100\.0% \[", line)]
    assert len(rows) == len(files) + 1  # each suite (one per file) once, and "all"
    # the skipped judge graders, every one named; the hint; the verdict, whole
    assert re.search(r"^not graded \(\d+ grader-case\(s\), -v says why\): checklist,", text, re.M)
    assert "(every gate, metric, protocol group and tag: -v or --eval-summary=full)" in text
    assert re.fullmatch(r"visioneval: exit status 0 \(all gates passed, \d+ threshold\(s\) met; 1 warning\)", _verdict(lines))
    assert "WARNING no --judge: judge graders did not run" in text


@pytest.mark.slow
def test_failure_cards_json_and_junit_hold_the_reasons_only(
    pytester: pytest.Pytester, first_hour: Path, monkeypatch: pytest.MonkeyPatch, xdist_args: list[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-first-hour")
    with FakeOpenAIServer(text_reply=_judge_reply()) as server:
        result = pytester.runpytest(
            "cases",
            "--model=replay:outputs",
            "--judge=openai:j",
            f"--judge-base-url={server.base_url}",
            "--eval-results=r.json",
            "--junitxml=j.xml",
            *xdist_args,
        )
    result.assert_outcomes(passed=1, failed=3)
    output = result.stdout.str()
    for boilerplate in ("All traceback entries are hidden", "-- Python ", "[gw0]", "[gw1]", "Failed: "):
        assert boilerplate not in output.split("= FAILURES =")[1], boilerplate
    result.stdout.fnmatch_lines(
        ["*_ case first-hour/logo-recolour _*", "first-hour/logo-recolour: 1 gate(s) failed", "  - locality.preserved: *"]
    )
    (typo,) = [c for c in read_json(pytester.path / "r.json")["cases"] if c["uid"] == "first-hour/button-typo"]
    assert typo["message"].splitlines()[0] == "first-hour/button-typo: 1 gate(s) failed"
    assert (
        typo["message"]
        .splitlines()[1]
        .startswith('  - text.text_present: 0 of 1 required line found, need 1; missing: "Place Order"')
    )
    assert typo["message"].splitlines()[-1].startswith("  output: ")
    suite = ElementTree.parse(pytester.path / "j.xml").getroot().find("testsuite")
    assert suite is not None
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    # A class name CI tools split at the dots into the folder and the suite file, not into "eval" and "yaml".
    assert {cases[f"first-hour/{c}"].get("classname") for c in ("button-typo", "button-good", "logo-recolour")} == {
        "cases.first_hour"
    }
    assert cases["thresholds"].get("classname") == "visioneval"
    failure = cases["first-hour/button-typo"].find("failure")
    assert failure is not None and failure.text == typo["message"]
    assert "threshold missed: first-hour.locality.preserved: pass rate 0 < 1" in (cases["thresholds"].find("failure").text or "")  # type: ignore[union-attr]
    properties = {p.get("name"): p.get("value") for p in cases["first-hour/logo-recolour"].iter("property")}
    assert properties["visioneval.gate.locality.preserved"] == "failed"
    assert properties["visioneval.gate.poster_size.size"] == "failed (not gating)"
    good = {p.get("name"): p.get("value") for p in cases["first-hour/button-good"].iter("property")}
    assert good["visioneval.gate.text.text_present"] == "passed"


def test_help_puts_the_common_options_first_and_the_rest_behind_eval_help_all(pytester: pytest.Pytester) -> None:
    help_text = pytester.runpytest("--help").stdout.lines
    titles = [line for line in help_text if line.startswith("vision evaluation")]
    assert titles == [
        "vision evaluation (pytest-visioneval):",
        "vision evaluation: judges:",
        "vision evaluation: reporting and CI:",
        "vision evaluation: calls and cost:",
    ]
    start, end = help_text.index(titles[0]), next(i for i, line in enumerate(help_text) if line == "syrupy:")
    block = help_text[start:end]
    assert len(block) <= 90  # was 178 lines for the plugin's options at 80 columns
    flags = {m.group(1) for line in block for m in [re.match(r"^  (--[a-z-]+)", line)] if m}
    assert flags == {flag for flag, (_, visible) in PLACES.items() if visible}
    assert "--judge-timeout" not in "\n".join(block)
    # Each ini twin is listed on one line, by name (its option's help says what it does).
    ini = [line for line in help_text if line.startswith("  visioneval_")]
    assert "  visioneval_judge_timeout (string):" in ini
    assert help_text[help_text.index("  visioneval_judge_timeout (string):") + 1].startswith("  visioneval_")

    every = pytester.runpytest("--eval-help-all")
    assert every.ret == pytest.ExitCode.OK
    listed = "\n".join(every.stdout.lines)
    for flag, (_, visible) in PLACES.items():
        assert re.search(rf"^  {re.escape(flag)}(=\S+)?{'' if visible else '  [(]advanced[)]'}$", listed, re.M), flag
    assert "seconds before one judge request times out (default 120)" in listed
    assert all(len(line) <= 80 for line in every.stdout.lines)


def test_every_option_of_the_plugin_has_its_place_in_help(pytester: pytest.Pytester) -> None:
    """A new option must be put in a --help group (help_groups.PLACES or FAMILIES), shown or advanced."""
    every = pytester.runpytest("--eval-help-all").stdout.lines
    declared = {m.group(1) for line in every for m in [re.match(r"^  (--[a-z-]+)", line)] if m}
    assert set(PLACES) <= declared  # no stale entry
    assert [flag for flag in sorted(declared) if place(flag) is None] == []
