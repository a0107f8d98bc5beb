"""A failed gate says what was wrong, in pytest's own failure report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from pytest_visioneval.testing import FakeOpenAIServer

SUITE = """\
suite: gates
cases:
  - id: button-text
    task: image_generation
    prompt: a checkout button
    graders:
      - use: text
        options: {required: ["Place Order"]}
  - id: logo-recolour
    task: image_editing
    prompt: recolour the square
    images: [in/logo.png]
    graders:
      - use: locality
        options: {region: [0, 0, 100, 100], max_changed_outside: 0.02}
  - id: poster-check
    task: image_generation
    prompt: a poster
    graders:
      - use: checklist
        options:
          questions: [q1, q2, q3, q4, q5, q6, "Is the date shown?"]
"""


def _button(path: Path, text: str) -> None:
    img = Image.new("RGB", (480, 160), "white")
    ImageDraw.Draw(img).text((40, 50), text, font=ImageFont.load_default(size=44), fill=(20, 20, 20))
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path)


@pytest.mark.slow
def test_gate_failures_name_what_was_wrong(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist_args: list[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-gates")
    cases = pytester.path / "cases"
    logo = Image.new("RGB", (200, 200), (240, 240, 240))
    ImageDraw.Draw(logo).rectangle((20, 20, 80, 80), fill=(200, 0, 0))
    (cases / "in").mkdir(parents=True)
    logo.save(cases / "in" / "logo.png")
    (cases / "gates.eval.yaml").write_text(SUITE)

    out = pytester.path / "outputs" / "gates"
    _button(out / "button-text.png", "Place Ordr")  # a typo
    edited = logo.copy()
    draw = ImageDraw.Draw(edited)
    draw.rectangle((20, 20, 80, 80), fill=(0, 0, 200))  # the requested edit, inside the region
    draw.rectangle((0, 120, 199, 199), fill=(0, 0, 0))  # and an unrequested one below it: 80 of 200 rows
    edited.save(out / "logo-recolour.png")
    _button(out / "poster-check.png", "Poster")

    answers = [
        {"id": i, "reason": "fine" if i < 7 else "no date anywhere", "answer": "yes" if i < 7 else "no"} for i in range(1, 8)
    ]
    with FakeOpenAIServer(text_reply=json.dumps({"answers": answers})) as server:
        result = pytester.runpytest(
            "cases", "--model=replay:outputs", "--judge=openai:j", f"--judge-base-url={server.base_url}", *xdist_args
        )
    result.assert_outcomes(failed=3)
    text = result.stdout.str()
    assert 'text.text_present: 0 of 1 required line found, need 1; missing: "Place Order"; other text read: "Place Ordr"' in text
    # 80 of 200 rows outside the 100x100 region changed: 16000 of 30000 outside pixels.
    assert "locality.preserved: 53.3% of pixels changed outside the region (limit 2.0%)" in text
    assert (
        'checklist.answers: 6/7 answered yes (needs 100%); judge answered "no" to Q7 (Is the date shown?): no date anywhere'
        in text
    )
