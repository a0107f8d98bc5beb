"""results/mutation.py: the self-test summed up per suite, per property family and per class."""

from __future__ import annotations

from typing import Any

from pytest_visioneval.report.mutation_text import mutation_lines
from pytest_visioneval.results.mutation import mutation_summary


def mutant(
    name: str, status: str, gates: list[str] | None = None, error: str | None = None, params: dict | None = None
) -> dict[str, Any]:
    family, kind = name.split("/")
    params = params or {}
    return {
        "name": name,
        "family": family,
        "class": kind,
        "index": 1,
        "label": f"{name}({', '.join(f'{k}={v}' for k, v in params.items())})",
        "params": params,
        "broken": status not in ("passed", "brittle"),
        "status": status,
        "description": f"the {kind} mutant",
        "folder": f"a/mutants/{family}-{kind}-1",
        "caught": status in ("caught", "caught_by_judge", "brittle"),
        "judge_only": status == "judge_only",
        "failed_gates": [{"name": g, "reason": f"{g} failed"} for g in gates or []],
        "error": error,
    }


def record(suite: str, uid: str, *mutants: dict[str, Any], baseline: bool = True) -> dict[str, Any]:
    mutation = {
        "baseline_passed": baseline,
        "seed": 4,
        "per_family": 2,
        "mutants": list(mutants),
        "not_applicable": [{"name": "text", "reason": "-"}],
    }
    return {"suite": suite, "uid": uid, "mutation": mutation}


RECORDS = [
    record(
        "ui",
        "ui/a",
        mutant("degenerate/transparent", "caught", ["image.not_blank"]),
        mutant("text/typo", "missed", params={"line": "Pay", "letter": 1}),
        mutant("photometric/hue_rotation", "judge_only", params={"degrees": 137}),
    ),
    record(
        "ui",
        "ui/b",
        mutant("photometric/hue_rotation", "caught", ["similarity.match"], params={"degrees": -40}),
        mutant("legitimate/jpeg", "brittle", ["text.x"], params={"quality": 71}),
        mutant("photometric/blur", "caught_by_judge", params={"radius": 4.0}),
    ),
    record("logo", "logo/a", mutant("legitimate/jpeg", "passed"), baseline=False),
    {"suite": "plain", "uid": "plain/a"},  # no self-test: not listed
]


def test_counts_score_misses_and_brittle_gates() -> None:
    summary = mutation_summary(RECORDS)["suites"]
    assert list(summary) == ["logo", "ui"]
    ui = summary["ui"]
    counts = [ui[k] for k in ("cases", "broken", "caught", "uncaught", "judge_only", "caught_by_judge", "legitimate")]
    assert counts == [2, 5, 3, 1, 1, 1, 1]
    assert ui["legitimate_passed"] == 0 and (ui["seed"], ui["per_family"]) == (4, 2)
    assert ui["score"] == 3 / 4  # the judge-only mutant is neither caught nor missed
    assert ui["missed"] == [
        {
            "case": "ui/a",
            "mutant": "text/typo(line=Pay, letter=1)",
            "family": "text",
            "class": "typo",
            "params": {"line": "Pay", "letter": 1},
            "description": "the typo mutant",
            "folder": "a/mutants/text-typo-1",
        }
    ]
    [brittle] = ui["brittle"]
    assert brittle["mutant"] == "legitimate/jpeg(quality=71)" and brittle["failed"] == "text.x: text.x failed"
    assert ui["not_applicable"] == {"text": 2}
    assert summary["logo"]["score"] is None and summary["logo"]["baselines_failed"] == ["logo/a"]


def test_counts_per_family_and_class() -> None:
    ui = mutation_summary(RECORDS)["suites"]["ui"]
    assert list(ui["families"]) == ["degenerate", "legitimate", "photometric", "text"]
    photometric = ui["families"]["photometric"]
    assert (photometric["broken"], photometric["caught"], photometric["judge_only"], photometric["score"]) == (3, 2, 1, 1.0)
    assert ui["families"]["text"]["score"] == 0.0
    assert ui["families"]["legitimate"] == {**ui["families"]["legitimate"], "legitimate": 1, "legitimate_passed": 0}
    assert ui["classes"]["photometric/hue_rotation"]["broken"] == 2 and ui["classes"]["photometric/hue_rotation"]["caught"] == 1


def test_terminal_lines_show_a_row_per_family_and_name_each_miss_with_its_parameters() -> None:
    lines = mutation_lines(mutation_summary(RECORDS[:2]), width=200)
    assert "seed 4, 2 per family and case" in lines[0]
    assert lines[1].split() == ["suite", "family", "cases", "broken", "caught", "score", "legitimate", "passed", "judge-only"]
    assert lines[2].split() == ["ui", "all", "2", "3/4", "75.0%", "0/1", "1"]
    assert lines[5].split() == ["photometric", "2/2", "100.0%", "-", "1"]
    assert lines[6].split() == ["text", "0/1", "0.0%", "-", "0"]
    assert "  MISSED ui/a: text/typo(line=Pay, letter=1) (the typo mutant)" in lines
    assert "  BRITTLE ui/b: legitimate/jpeg(quality=71) failed text.x: text.x failed" in lines
    assert mutation_lines({"suites": {}}) == []


def test_long_lines_wrap_and_keep_the_parameters() -> None:
    long = mutant("text/typo", "missed", params={"line": "A very long line of text " * 4})
    lines = mutation_lines(mutation_summary([record("ui", "ui/a", long)]), width=60)
    missed = [i for i, line in enumerate(lines) if line.startswith("  MISSED")][0]
    joined = " ".join(line.strip() for line in lines[missed:])
    assert "A very long line of text " * 3 in joined + " " and all(len(line) <= 60 for line in lines[missed:])
