"""Rubric judge: our verdict rules over the judge's fields, through a real SDK call."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.errors import JudgeOutputError
from pytest_visioneval.graders import GradeContext
from pytest_visioneval.graders.rubric import RubricGrader
from pytest_visioneval.graders.rubric_spec import BUILTIN_RUBRICS, RubricError, builtin_rubric, parse_rubric
from pytest_visioneval.testing import FakeOpenAIServer
from tests.unit.conftest import image_bytes, reply

OUTPUT = (Artifact("image-0.png", image_bytes()),)


def ui_reply(**overrides: Any) -> str:
    fields = {
        "instruction_following": {"reason": "login screen with both fields", "value": True},
        "text_rendering": {"reason": "'Log In' spelled right", "value": True},
        "layout_hierarchy": {"reason": "clear header and button", "value": 4},
        "ui_affordance": {"reason": "button looks pressable", "value": 4},
    }
    for name, value in overrides.items():
        fields[name] = {"reason": f"{name} reason", "value": value}
    return reply({"fields": fields, "failure_tags": []})


@pytest.mark.parametrize("name", BUILTIN_RUBRICS)
def test_builtin_rubrics_load_and_their_reply_schemas_are_strict(name: str) -> None:
    rubric = builtin_rubric(name)
    schema = rubric.reply_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    # Strict structured output needs every property required and nothing extra, at every level.
    assert set(schema["properties"]["fields"]["required"]) == {f.name for f in rubric.fields}
    assert schema["properties"]["fields"]["additionalProperties"] is False
    assert {r.field for r in rubric.rules} <= {f.name for f in rubric.fields}
    assert "verdict" not in str(schema)


def test_passing_fields_pass_the_verdict(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies(ui_reply())
    grade = RubricGrader({"rubric": "ui_mockup"}).grade(make_case(), OUTPUT, judge_context())
    (verdict,) = grade.gates
    assert verdict.passed and "all 4 rules of ui_mockup hold" in verdict.reason
    metrics = {m.name: m.value for m in grade.metrics}
    assert metrics["layout_hierarchy"] == 4.0 and metrics["text_rendering"] == 1.0
    assert metrics["failure_tag.wrong_screen_type"] == 0.0


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"text_rendering": False}, "text_rendering is fail, needs pass (judge: text_rendering reason)"),
        ({"layout_hierarchy": 2}, "layout_hierarchy is 2, needs >= 3"),
        ({"ui_affordance": 0, "instruction_following": False}, "instruction_following is fail"),
    ],
)
def test_a_failed_rule_fails_the_verdict_and_says_which(
    server: FakeOpenAIServer,
    judge_context: Callable[..., GradeContext],
    make_case: Callable[..., Any],
    overrides: dict,
    message: str,
) -> None:
    server.queue_replies(ui_reply(**overrides))
    (verdict,) = RubricGrader({"rubric": "ui_mockup"}).grade(make_case(), OUTPUT, judge_context()).gates
    assert not verdict.passed
    assert message in verdict.reason


def test_verdict_comes_from_fields_not_from_any_verdict_the_judge_writes(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    # A reply with its own "verdict": PASS does not satisfy the strict schema, so it is asked again.
    with_verdict = ui_reply(layout_hierarchy=1)[:-1] + ', "verdict": "PASS"}'
    server.queue_replies(with_verdict, ui_reply(layout_hierarchy=1))
    (verdict,) = RubricGrader({"rubric": "ui_mockup"}).grade(make_case(), OUTPUT, judge_context(reply_retries=1)).gates
    assert not verdict.passed
    assert "Additional properties are not allowed" in server.requests[1].json["messages"][3]["content"]


def test_repeats_average_scores_vote_on_pass_fail_and_report_spread(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies(
        ui_reply(layout_hierarchy=2, text_rendering=False), ui_reply(layout_hierarchy=4), ui_reply(layout_hierarchy=3)
    )
    grade = RubricGrader({"rubric": "ui_mockup"}).grade(make_case(), OUTPUT, judge_context(repeats=3))
    metrics = {m.name: m for m in grade.metrics}
    assert metrics["layout_hierarchy"].value == pytest.approx(3.0)
    assert metrics["layout_hierarchy.std"].value == pytest.approx((2 / 3) ** 0.5)
    assert "mean of 3: 2, 4, 3" in metrics["layout_hierarchy"].reason
    assert metrics["text_rendering"].value == pytest.approx(2 / 3)
    assert grade.gates[0].passed  # text_rendering passes 2 of 3 by majority; layout mean 3 >= 3
    assert len(server.requests) == 3


def test_two_judges_are_both_asked(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies(ui_reply(ui_affordance=5), ui_reply(ui_affordance=1))
    grade = RubricGrader({"rubric": "ui_mockup"}).grade(make_case(), OUTPUT, judge_context(judges=2))
    assert sorted(r.json["model"] for r in server.requests) == ["judge-0", "judge-1"]
    assert {m.name: m.value for m in grade.metrics}["ui_affordance"] == 3.0


def test_content_is_sent_in_the_stated_order(
    server: FakeOpenAIServer,
    judge_context: Callable[..., GradeContext],
    make_case: Callable[..., Any],
    make_image: Callable[..., Path],
) -> None:
    case = make_case(
        task="image_editing",
        criteria="keep the text",
        images=(make_image("in1.png"), make_image("in2.png")),
        mask=make_image("m.png"),
    )
    server.queue_replies(
        reply(
            {
                "fields": {
                    n: {"reason": "ok", "value": 5}
                    for n in ("edit_intent_correctness", "non_target_invariance", "character_and_style_integrity")
                },
                "failure_tags": [],
            }
        )
    )
    RubricGrader({"rubric": "logo_edit"}).grade(case, OUTPUT, judge_context())
    content = server.requests[0].json["messages"][1]["content"]
    labels = [c["text"] for c in content if c["type"] == "text"]
    assert labels[0].startswith("Prompt given to the model:\na red square") and "keep the text" in labels[0]
    assert labels[1:] == [
        "[Input image 1]",
        "[Input image 2]",
        "[Edit mask (transparent or white areas may change)]",
        "[Output image 1 (image-0.png)]",
    ]
    assert sum(c["type"] == "image_url" for c in content) == 4


def test_reply_cut_in_half_is_an_error_never_a_pass(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    half = ui_reply()[: len(ui_reply()) // 2]
    server.text_reply = half
    with pytest.raises(JudgeOutputError, match="not valid JSON"):
        RubricGrader({"rubric": "ui_mockup"}).grade(make_case(), OUTPUT, judge_context(reply_retries=1))


def test_without_a_judge_the_grader_is_skipped_with_a_reason(make_case: Callable[..., Any]) -> None:
    grade = RubricGrader({"rubric": "ui_mockup"}).grade(make_case(), OUTPUT, GradeContext())
    assert grade.skipped is not None and "--judge=openai:MODEL" in grade.skipped
    assert grade.gates == () and grade.metrics == ()


def test_empty_output_fails_without_asking(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    grade = RubricGrader({"rubric": "ui_mockup"}).grade(make_case(), (), judge_context())
    assert not grade.gates[0].passed and server.requests == []


def test_users_own_rubric_file_and_prompt_file(
    tmp_path: Path, server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    (tmp_path / "my-prompt.txt").write_text("OFFICIAL PROMPT TEXT")
    (tmp_path / "mine.yaml").write_text(
        "name: mine\ninstructions_file: my-prompt.txt\nscale: 10\n"
        "fields:\n  - {name: quality, kind: score, description: overall quality}\n"
        "rules:\n  quality: '>= 7'\n"
    )
    case = make_case()
    assert RubricGrader.check_case(case, {"rubric_file": "mine.yaml"}) is None
    server.queue_replies(reply({"fields": {"quality": {"reason": "fine", "value": 6}}, "failure_tags": []}))
    grade = RubricGrader({"rubric_file": "mine.yaml"}).grade(case, OUTPUT, judge_context())
    assert server.requests[0].json["messages"][0]["content"].startswith("OFFICIAL PROMPT TEXT")
    assert not grade.gates[0].passed and "quality is 6, needs >= 7" in grade.gates[0].reason


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "x", "instructions": "i", "fields": [], "rules": {}}, "should be non-empty"),
        (
            {
                "name": "x",
                "instructions": "i",
                "fields": [{"name": "a", "kind": "score", "description": "d"}],
                "rules": {"b": ">= 1"},
            },
            "rule names unknown field 'b'",
        ),
        (
            {
                "name": "x",
                "instructions": "i",
                "fields": [{"name": "a", "kind": "score", "description": "d"}],
                "rules": {"a": "high"},
            },
            "must look like '>= 3'",
        ),
        (
            {
                "name": "x",
                "instructions": "i",
                "fields": [{"name": "a", "kind": "pass_fail", "description": "d"}],
                "rules": {"a": ">= 1"},
            },
            "must be 'pass' or 'fail'",
        ),
    ],
)
def test_bad_rubrics_are_rejected(data: dict, message: str) -> None:
    with pytest.raises(RubricError, match=message):
        parse_rubric(data, "test")


def test_rubric_file_outside_the_suite_is_refused(make_case: Callable[..., Any]) -> None:
    problem = RubricGrader.check_case(make_case(), {"rubric_file": "../../etc/passwd"})
    assert problem is not None and "leaves the suite folder" in problem


def test_very_long_page_code_is_cut_and_the_judge_is_told(make_case: Callable[..., Any]) -> None:
    from pytest_visioneval.graders.judging import MAX_CODE_CHARS, case_parts
    from pytest_visioneval.judges import TextPart

    page = Artifact("page.html", ("<p>x</p>" * (MAX_CODE_CHARS // 4)).encode())
    parts = case_parts(make_case(task="html_generation"), (page, Artifact("reply.md", b"the reply")))
    texts = [p.text for p in parts if isinstance(p, TextPart)]
    code = [t for t in texts if t.startswith("Output file page.html")]
    assert len(code) == 1 and len(code[0]) < MAX_CODE_CHARS + 200
    assert code[0].endswith(f"[... cut: {2 * MAX_CODE_CHARS - MAX_CODE_CHARS} more characters not shown]")
    assert not any(t.startswith("Output file reply.md") for t in texts)  # the page's code stands in for the reply
