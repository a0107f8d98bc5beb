"""The ``view`` option of the judge graders, the html grader's ``img_files`` gate, and ``image_quality``."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from PIL import Image

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.graders import GradeContext
from pytest_visioneval.graders.checklist import ChecklistGrader
from pytest_visioneval.graders.html import HtmlGrader
from pytest_visioneval.graders.image_quality import ImageQualityGrader
from pytest_visioneval.graders.judging import VIEW_SCHEMA, case_parts, has_output, select_outputs
from pytest_visioneval.graders.score import ScoreGrader
from pytest_visioneval.judges import ImagePart, TextPart
from pytest_visioneval.testing import FakeOpenAIServer
from tests.unit.conftest import image_bytes, reply, user_text

SOURCE = image_bytes(color=(10, 120, 200))
PAGE = b'<html><body><img src="source.png" alt="the product"><img src="showcase-1.png" alt="on a table"></body></html>'


@pytest.fixture
def page_case(make_case: Callable[..., CaseSpec], make_image: Callable[..., Path]) -> CaseSpec:
    source = make_image("source.png", color=(10, 120, 200))
    return make_case(task="html_generation", prompt="write the page", criteria="be nice", images=(source,))


def outputs() -> tuple[Artifact, ...]:
    return (
        Artifact("page.html", PAGE),
        Artifact("source.png", SOURCE),  # a copy of the input: not generated
        Artifact("showcase-1.png", image_bytes(color=(200, 30, 30))),
        Artifact("showcase-2.png", image_bytes(color=(30, 200, 30))),
        Artifact("screenshot-1.png", image_bytes(color=(90, 90, 90))),
        Artifact("fullpage.png", image_bytes(color=(80, 80, 80))),
        Artifact("render.json", b"{}"),
    )


# -- view -----------------------------------------------------------------------------------------


def test_without_a_view_the_judge_sees_everything_as_before(page_case: CaseSpec) -> None:
    parts = case_parts(page_case, outputs())
    labels = [p.label for p in parts if isinstance(p, ImagePart)]
    assert labels == [
        "Input image 1",
        "Output image 1 (source.png)",
        "Output image 2 (showcase-1.png)",
        "Output image 3 (showcase-2.png)",
        "Output image 4 (screenshot-1.png)",
        "Output image 5 (fullpage.png)",
    ]
    text = "\n".join(p.text for p in parts if isinstance(p, TextPart))
    assert "write the page" in text and "be nice" in text and "Output file page.html" in text


@pytest.mark.parametrize(
    ("outputs_view", "names"),
    [
        ("all", ["source.png", "showcase-1.png", "showcase-2.png", "screenshot-1.png", "fullpage.png"]),
        ("none", []),
        ("generated", ["showcase-1.png", "showcase-2.png"]),
        ("captures", ["screenshot-1.png", "fullpage.png"]),
        (["showcase-*", "full*"], ["showcase-1.png", "showcase-2.png", "fullpage.png"]),
    ],
)
def test_output_selections(page_case: CaseSpec, outputs_view: Any, names: list[str]) -> None:
    assert [a.name for a in select_outputs(page_case, outputs(), outputs_view)] == names


def test_a_narrow_view_leaves_out_prompt_inputs_and_code(page_case: CaseSpec) -> None:
    view = {"prompt": False, "inputs": False, "outputs": "captures", "code": False}
    jsonschema.validate(view, VIEW_SCHEMA)
    parts = case_parts(page_case, outputs(), extra_text="Dimensions: beauty", view=view)
    assert [p.label for p in parts if isinstance(p, ImagePart)] == [
        "Output image 1 (screenshot-1.png)",
        "Output image 2 (fullpage.png)",
    ]
    assert [p.text for p in parts if isinstance(p, TextPart)] == ["Dimensions: beauty"]
    code_only = case_parts(page_case, outputs(), view={"prompt": False, "inputs": False, "outputs": "none"})
    assert [type(p) for p in code_only] == [TextPart] and "Output file page.html" in code_only[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("bad", [{"outputs": "some"}, {"outputs": []}, {"code": "yes"}, {"colour": True}])
def test_bad_views_are_rejected_by_the_schema(bad: dict[str, Any]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"question": "q", "view": bad}, ScoreGrader.options_schema)


def test_nothing_in_view_means_nothing_to_judge(page_case: CaseSpec) -> None:
    only_page = (Artifact("page.html", PAGE), Artifact("source.png", SOURCE))
    assert has_output(only_page)
    assert not has_output(only_page, page_case, {"outputs": "generated", "code": False})
    assert has_output(only_page, page_case, {"outputs": "generated"})  # the code is still shown


def test_score_with_a_view_sends_only_what_it_selects(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], page_case: CaseSpec
) -> None:
    server.queue_replies(reply({"scores": {"score": {"reason": "fine", "score": 4}}}))
    view = {"prompt": False, "inputs": True, "outputs": "generated", "code": False}
    grade = ScoreGrader({"question": "consistent?", "scale": 5, "view": view}).grade(page_case, outputs(), judge_context())
    assert {m.name: m.value for m in grade.metrics}["score"] == 4
    body = server.calls_to("/chat/completions")[0].json
    text = user_text(body)
    assert "consistent?" in text and "write the page" not in text and "page.html" not in text
    assert "[Input image 1]" in text and "[Output image 2 (showcase-2.png)]" in text and "screenshot" not in text
    images = [p for p in body["messages"][1]["content"] if p["type"] == "image_url"]
    assert len(images) == 3


def test_score_with_nothing_in_view_scores_zero_without_asking(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], page_case: CaseSpec
) -> None:
    grader = ScoreGrader({"question": "consistent?", "scale": 5, "view": {"outputs": "generated", "code": False}})
    grade = grader.grade(page_case, (Artifact("page.html", PAGE),), judge_context())
    assert {m.name: m.value for m in grade.metrics}["score"] == 0
    assert server.requests == []


def test_checklist_with_a_code_only_view(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], page_case: CaseSpec
) -> None:
    answers = [{"id": 1, "reason": "r", "answer": "yes"}, {"id": 2, "reason": "r", "answer": "no"}]
    server.queue_replies(reply({"answers": answers}))
    view = {"prompt": False, "inputs": False, "outputs": "none", "code": True}
    grade = ChecklistGrader({"questions": ["grid?", "serif?"], "view": view}).grade(page_case, outputs(), judge_context())
    assert {m.name: m.value for m in grade.metrics}["score"] == 0.5
    content = server.calls_to("/chat/completions")[0].json["messages"][1]["content"]
    assert all(p["type"] == "text" for p in content)
    assert "Output file page.html" in user_text(server.calls_to("/chat/completions")[0].json)


# -- html img_files -------------------------------------------------------------------------------


def html_case(make_case: Callable[..., CaseSpec]) -> CaseSpec:
    return make_case(task="html_generation", prompt="p")


def test_img_files_passes_when_every_src_is_an_output_file(make_case: Callable[..., CaseSpec]) -> None:
    page = b'<html><body><img src="a.png" alt="a"><img src="./b%20c.png?v=1" alt="b"><img src="data:image/png;base64,AA" alt="c">'
    artifacts = (Artifact("page.html", page), Artifact("a.png", image_bytes()), Artifact("b c.png", image_bytes()))
    grade = HtmlGrader({"img_files": True}).grade(html_case(make_case), artifacts)
    gate = next(g for g in grade.gates if g.name == "img_files")
    assert gate.passed and gate.reason == "all 3 <img> show files of the output"


def test_img_files_names_missing_and_remote_images(make_case: Callable[..., CaseSpec]) -> None:
    page = (
        b'<html><body><img src="a.png" alt="a"><img src="gone.png" alt="b">'
        b'<img src="https://cdn.example.com/x.png" alt="c"><img alt="d">'
    )
    artifacts = (Artifact("page.html", page), Artifact("a.png", image_bytes()))
    grade = HtmlGrader({"img_files": True}).grade(html_case(make_case), artifacts)
    gate = next(g for g in grade.gates if g.name == "img_files")
    assert not gate.passed
    assert gate.reason == (
        "3 of 4 <img> do not show a file of the output: gone.png (not in the output), "
        "https://cdn.example.com/x.png (a remote URL), <img> #4 without src (not in the output)"
    )
    assert all(g.name != "img_files" for g in HtmlGrader({}).grade(html_case(make_case), artifacts).gates)  # off by default


# -- image_quality --------------------------------------------------------------------------------


def quality(naturalness: int, artifacts: int) -> str:
    return json.dumps(
        {"naturalness": {"reason": "looks real", "score": naturalness}, "artifacts": {"reason": "clean", "score": artifacts}}
    )


def shown_image(request_json: dict[str, Any]) -> tuple[int, int, int]:
    url = next(p for p in request_json["messages"][1]["content"] if p["type"] == "image_url")["image_url"]["url"]
    image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")
    return image.getpixel((1, 1))  # type: ignore[return-value]


def test_image_quality_rates_each_generated_image_alone(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], page_case: CaseSpec
) -> None:
    by_colour = {(200, 30, 30): quality(9, 6), (30, 200, 30): quality(7, 8)}
    server.text_reply = lambda request: by_colour[shown_image(request.json)]
    grade = ImageQualityGrader({"min_pq": 6.5}).grade(page_case, outputs(), judge_context())
    metrics = {m.name: m for m in grade.metrics}
    assert metrics["pq"].value == pytest.approx((6 + 7) / 2)  # min per image, then the mean
    assert metrics["naturalness"].value == pytest.approx(8.0) and metrics["artifacts"].value == pytest.approx(7.0)
    assert metrics["pq_1"].value == 6 and metrics["pq_1"].reason.startswith("showcase-1.png - openai:judge-0: naturalness 9")
    assert metrics["pq_2"].value == 7
    assert grade.gates[0].name == "pq_ok" and grade.gates[0].passed
    calls = server.calls_to("/chat/completions")
    assert len(calls) == 2
    for call in calls:  # one image per call, no prompt, no code
        content = call.json["messages"][1]["content"]
        assert sum(p["type"] == "image_url" for p in content) == 1
        assert "write the page" not in user_text(call.json) and "page.html" not in user_text(call.json)


def test_image_quality_over_judges_and_repeats_has_a_spread(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], page_case: CaseSpec
) -> None:
    server.queue_replies(quality(8, 8), quality(6, 9), quality(4, 4), quality(10, 10))  # image 1 twice, image 2 twice
    grade = ImageQualityGrader({"outputs": ["showcase-*"]}).grade(page_case, outputs(), judge_context(repeats=2))
    metrics = {m.name: m.value for m in grade.metrics}
    assert metrics["pq_1"] == pytest.approx(7.0) and metrics["pq_2"] == pytest.approx(7.0)
    assert metrics["pq"] == pytest.approx(7.0)
    assert metrics["pq.std"] == pytest.approx(1.0)  # per judgement: (8+4)/2=6 and (6+10)/2=8


def test_image_quality_without_images_scores_zero_and_without_judge_is_skipped(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], page_case: CaseSpec
) -> None:
    only_copy = (Artifact("page.html", PAGE), Artifact("source.png", SOURCE))
    grade = ImageQualityGrader({"min_pq": 5}).grade(page_case, only_copy, judge_context())
    assert {m.name: m.value for m in grade.metrics} == {"pq": 0.0, "naturalness": 0.0, "artifacts": 0.0}
    assert not grade.gates[0].passed and "no output image to rate" in grade.gates[0].reason
    assert server.requests == []
    assert ImageQualityGrader({}).grade(page_case, outputs(), GradeContext()).skipped is not None
