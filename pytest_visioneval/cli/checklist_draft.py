"""Draft a checklist for each case from its prompt, with a judge model, for a person to review.

    python -m pytest_visioneval checklist-draft CASES.eval.yaml --judge=openai:MODEL
        [--judge-base-url URL] [--case ID ...] [--max-questions 12] [--instructions-file FILE]
        [--name drafted_checklist] [--replace] [--dry-run]

For each case with a prompt (all, or those named with ``--case``), the judge
is asked to split what the prompt asks for into atomic yes/no questions, each
checkable on the output alone, with the questions each one presupposes
(``depends_on``: a question about the logo's colour presupposes the logo).
They are written into the case file as a ``checklist`` grader named
``drafted_checklist``, after the case's own graders, with a comment saying
they are a draft - the file's other content, comments and layout are kept
(a round-trip YAML writer). Review, edit, then keep or remove the comment.

A case that already has a grader of that name is left alone unless
``--replace``; ``--dry-run`` prints the questions and writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from datetime import date
from io import StringIO
from pathlib import Path
from typing import Any

from ..errors import VisionEvalError
from ..judges import JudgeRequest, TextPart, create_judges
from ..judges.client import JudgeClient, JudgeSettings
from .help_text import description, prog

DEFAULT_NAME = "drafted_checklist"
DEFAULT_INSTRUCTIONS = """\
You turn a request for an image or web page into a checklist for reviewing
what a model made from it. Split the request into atomic yes/no questions:
one fact each, answerable by looking at the output alone, "yes" meaning the
request was met. Cover every explicit requirement (objects, text to show
exactly, counts, colours, positions, style) and nothing the request does not
ask for. When a question only makes sense if an earlier one is answered yes,
list the earlier question's number in depends_on. Number questions from 1."""


def reply_schema(max_questions: int) -> dict[str, Any]:
    question = {
        "type": "object",
        "additionalProperties": False,
        "required": ["text", "depends_on"],
        "properties": {
            "text": {"type": "string", "minLength": 1},
            "depends_on": {"type": "array", "items": {"type": "integer", "minimum": 1}},
        },
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["questions"],
        "properties": {"questions": {"type": "array", "minItems": 1, "maxItems": max_questions, "items": question}},
    }


def drafted_questions(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The judge's questions as checklist items; dependencies on itself or a later question are dropped."""
    out: list[dict[str, Any]] = []
    for number, item in enumerate(data["questions"], 1):
        text = " ".join(str(item["text"]).split())
        parents = sorted({int(p) for p in item.get("depends_on", ()) if 1 <= int(p) < number})
        out.append({"text": text, "depends_on": parents} if parents else {"text": text})
    return out


def draft_for(judge: JudgeClient, prompt: str, instructions: str, max_questions: int) -> list[dict[str, Any]]:
    request = JudgeRequest(
        instructions=instructions,
        parts=(TextPart(f"The request:\n{prompt}"),),
        schema=reply_schema(max_questions),
        schema_name="checklist_draft",
    )
    return drafted_questions(judge.ask(request).data)


def _yaml() -> Any:
    from ruamel.yaml import YAML  # the draft command alone needs a round-trip writer

    yaml = YAML()  # round-trip: comments, order and quoting of the rest of the file are kept
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)  # the layout of the shipped case files
    return yaml


def _grader(questions: list[dict[str, Any]], name: str, judge: str) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    items = CommentedSeq()
    for question in questions:
        if "depends_on" in question:
            item = CommentedMap(text=question["text"], depends_on=CommentedSeq(question["depends_on"]))
            item["depends_on"].fa.set_flow_style()
            items.append(item)
        else:
            items.append(question["text"])
    grader = CommentedMap(use="checklist", name=name, options=CommentedMap(questions=items))
    grader.yaml_add_eol_comment(
        f"DRAFT by {judge} on {date.today().isoformat()}: review the questions, then remove this comment", "name"
    )
    return grader


def _put_grader(case: Any, grader: Any, name: str) -> None:
    """Append ``grader`` to the case's graders, in place (the others keep their comments), replacing one of its name."""
    from ruamel.yaml.comments import CommentedSeq

    graders = case.get("graders")
    if graders is None:
        case["graders"] = graders = CommentedSeq()
    for index in reversed(range(len(graders))):
        if isinstance(graders[index], Mapping) and graders[index].get("name") == name:
            del graders[index]
    graders.append(grader)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=prog("checklist-draft"), description=description(__doc__))
    p.add_argument("case_file", type=Path)
    p.add_argument("--judge", required=True, help="openai:MODEL (any OpenAI-compatible endpoint)")
    p.add_argument("--judge-base-url", help="base URL of the judge's API (default: $OPENAI_BASE_URL)")
    p.add_argument("--judge-api-key-env", default="OPENAI_API_KEY", help="variable holding the API key")
    p.add_argument("--case", action="append", default=[], metavar="ID", help="only this case (repeatable)")
    p.add_argument("--max-questions", type=int, default=12, help="most questions per case (default 12)")
    p.add_argument("--instructions-file", type=Path, help="the judge's instructions instead of ours")
    p.add_argument("--name", default=DEFAULT_NAME, help=f"the grader's name (default {DEFAULT_NAME})")
    p.add_argument("--replace", action="store_true", help="draft again where a grader of that name exists")
    p.add_argument("--dry-run", action="store_true", help="print the questions, write nothing")
    args = p.parse_args(argv)
    instructions = args.instructions_file.read_text(encoding="utf-8") if args.instructions_file else DEFAULT_INSTRUCTIONS
    yaml = _yaml()
    try:
        document = yaml.load(args.case_file.read_text(encoding="utf-8"))
    except Exception as exc:  # ruamel raises many kinds for a file that is not YAML
        raise SystemExit(f"{args.case_file}: cannot read it as YAML ({exc})") from None
    cases = document.get("cases") if isinstance(document, Mapping) else None
    if not isinstance(cases, list):
        raise SystemExit(f"{args.case_file}: no list of cases")
    wanted = set(args.case)
    unknown = wanted - {str(c.get("id")) for c in cases if isinstance(c, Mapping)}
    if unknown:
        raise SystemExit(f"{args.case_file}: no case {', '.join(sorted(unknown))}")
    settings = JudgeSettings(base_url=args.judge_base_url, api_key_env=args.judge_api_key_env)
    try:
        (judge,) = create_judges((args.judge,), settings)
    except VisionEvalError as exc:
        raise SystemExit(str(exc)) from None
    drafted = 0
    for case in cases:
        case_id = str(case.get("id"))
        if wanted and case_id not in wanted:
            continue
        prompt = case.get("prompt") or (document.get("defaults") or {}).get("prompt")
        graders = case.get("graders") or []
        if not prompt:
            print(f"{case_id}: no prompt, skipped")
            continue
        if any(isinstance(g, Mapping) and g.get("name") == args.name for g in graders) and not args.replace:
            print(f"{case_id}: already has {args.name!r} (--replace to draft again), skipped")
            continue
        try:
            questions = draft_for(judge, str(prompt), instructions, args.max_questions)
        except VisionEvalError as exc:
            print(f"{case_id}: the judge gave no usable draft: {exc}", file=sys.stderr)
            return 1
        drafted += 1
        print(f"{case_id}: {len(questions)} question(s)")
        for number, question in enumerate(questions, 1):
            after = f"  (after {', '.join(f'Q{d}' for d in question['depends_on'])})" if "depends_on" in question else ""
            print(f"  Q{number}. {question['text']}{after}")
        if args.dry_run:
            continue
        _put_grader(case, _grader(questions, args.name, args.judge), args.name)
    if drafted and not args.dry_run:
        out = StringIO()
        yaml.dump(document, out)
        args.case_file.write_text(out.getvalue(), encoding="utf-8")
        print(f"wrote {drafted} draft checklist(s) into {args.case_file}: review them before use")
    return 0


if __name__ == "__main__":
    sys.exit(main())
