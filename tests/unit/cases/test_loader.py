"""cases/loader.py: YAML to data plus a map of lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_visioneval.cases.loader import LoadedYaml, format_field, load_yaml, load_yaml_text
from pytest_visioneval.errors import CaseFileError


def write(tmp_path: Path, text: str, name: str = "suite.eval.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_line_numbers_map_keys_and_sequence_items(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "# a comment\nsuite: demo\ncases:\n  - id: first\n    prompt: hello\n    graders:\n      - use: image\n  - id: second\n",
    )
    loaded = load_yaml(path)
    assert loaded.data == {
        "suite": "demo",
        "cases": [{"id": "first", "prompt": "hello", "graders": [{"use": "image"}]}, {"id": "second"}],
    }
    assert loaded.lines[()] == 2  # the root mapping starts after the comment
    assert loaded.lines[("suite",)] == 2
    assert loaded.lines[("cases",)] == 3
    assert loaded.lines[("cases", 0)] == 4
    assert loaded.lines[("cases", 0, "id")] == 4
    assert loaded.lines[("cases", 0, "prompt")] == 5
    assert loaded.lines[("cases", 0, "graders", 0)] == 7
    assert loaded.lines[("cases", 0, "graders", 0, "use")] == 7
    assert loaded.lines[("cases", 1)] == 8


def test_line_of_falls_back_to_nearest_ancestor() -> None:
    loaded = LoadedYaml(data={}, lines={(): 1, ("cases",): 3, ("cases", 0): 4})
    assert loaded.line_of(("cases", 0, "prompt")) == 4
    assert loaded.line_of(("cases", 7)) == 3
    assert loaded.line_of(("unknown", "deep")) == 1
    assert loaded.line_of(()) == 1


def test_line_of_without_any_line_is_none() -> None:
    assert LoadedYaml(data={}, lines={}).line_of(("x",)) is None


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ((), ""),
        (("cases",), "cases"),
        (("cases", 2, "graders", 0), "cases[2].graders[0]"),
        (("cases", 0, "promt"), "cases[0].promt"),
        (("thresholds", "similarity.score"), "thresholds.similarity.score"),
    ],
)
def test_format_field(path: tuple[object, ...], expected: str) -> None:
    assert format_field(path) == expected


def test_duplicate_key_is_an_error_with_its_line_and_field(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "cases:\n  - id: a\n    prompt: first\n    task: image_generation\n    prompt: second\n",
    )
    with pytest.raises(CaseFileError) as info:
        load_yaml(path)
    err = info.value
    assert err.line == 5  # the second occurrence
    assert err.field == "cases[0].prompt"
    assert "duplicate key" in str(err)
    assert str(err).startswith(f"{path}:5:")


def test_duplicate_top_level_key(tmp_path: Path) -> None:
    path = write(tmp_path, "suite: a\ncases: []\nsuite: b\n")
    with pytest.raises(CaseFileError) as info:
        load_yaml(path)
    assert (info.value.line, info.value.field) == (3, "suite")


def test_every_duplicate_key_is_kept_for_the_caller_when_it_goes_on(tmp_path: Path) -> None:
    text = "suite: a\ncases:\n  - id: x\n    prompt: first\n    prompt: second\nsuite: b\n"
    loaded = load_yaml(write(tmp_path, text), keep_going=True)
    assert [(p.line, p.field) for p in loaded.problems] == [(5, "cases[0].prompt"), (6, "suite")]
    assert loaded.problems[0].message == "duplicate key (first at line 4; the later value is the one read)"
    assert loaded.data == {"suite": "b", "cases": [{"id": "x", "prompt": "second"}]}  # as PyYAML reads it
    assert loaded.lines[("cases", 0, "prompt")] == 5


def test_duplicate_keys_under_anchors_are_kept_too(tmp_path: Path) -> None:
    text = "base: &b {task: image_generation}\ncases:\n  - id: x\n    id: y\n"
    loaded = load_yaml_text(text, tmp_path / "x.eval.yaml", keep_going=True)
    assert [(p.line, p.field) for p in loaded.problems] == [(4, "cases[0].id")]
    assert loaded.data["cases"] == [{"id": "y"}]


def test_a_file_without_duplicates_has_no_problems(tmp_path: Path) -> None:
    assert load_yaml(write(tmp_path, "cases:\n  - id: a\n"), keep_going=True).problems == ()


def test_same_key_in_sibling_mappings_is_not_a_duplicate(tmp_path: Path) -> None:
    loaded = load_yaml(write(tmp_path, "cases:\n  - id: a\n  - id: b\n"))
    assert [c["id"] for c in loaded.data["cases"]] == ["a", "b"]


def test_merge_keys_are_not_duplicates(tmp_path: Path) -> None:
    loaded = load_yaml(
        write(
            tmp_path,
            "cases:\n  - &base {id: a, task: image_generation, prompt: p}\n  - <<: *base\n    id: b\n",
        )
    )
    assert loaded.data["cases"][1] == {"id": "b", "task": "image_generation", "prompt": "p"}
    assert loaded.lines[("cases", 1, "id")] == 4


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("suite: demo\ncases:\n  - id: [unclosed\n  - id: b\n", 4),
        ("suite: demo\ncases: [1,\n", 3),
        ("a: 1\n  b: 2\n", 2),
        ("a: 'never closed\n", 2),
    ],
)
def test_yaml_syntax_error_reports_its_line(tmp_path: Path, text: str, line: int) -> None:
    path = write(tmp_path, text)
    with pytest.raises(CaseFileError) as info:
        load_yaml(path)
    assert info.value.line == line
    assert "invalid YAML" in str(info.value)
    assert str(info.value).startswith(f"{path}:{line}:")
    # The chained YAML exception is suppressed; the message stands on its own.
    assert info.value.__cause__ is None


def test_several_documents_are_refused(tmp_path: Path) -> None:
    with pytest.raises(CaseFileError, match="invalid YAML"):
        load_yaml(write(tmp_path, "cases: []\n---\ncases: []\n"))


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"])
def test_empty_file(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(CaseFileError) as info:
        load_yaml(path)
    assert info.value.line == 1
    assert "file is empty" in str(info.value)


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(CaseFileError, match="cannot read file"):
        load_yaml(tmp_path / "missing.eval.yaml")


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "latin.eval.yaml"
    path.write_bytes("prompt: caf\xe9\n".encode("latin-1"))
    with pytest.raises(CaseFileError, match="cannot read file"):
        load_yaml(path)


def test_load_yaml_text_scalar_document(tmp_path: Path) -> None:
    loaded = load_yaml_text("42\n", tmp_path / "x.eval.yaml")
    assert loaded.data == 42
    assert loaded.lines == {(): 1}


# -- aliases: a few hundred bytes must not become gigabytes --------------------
def alias_bomb(levels: int) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("levels", [7, 9])
def test_an_alias_bomb_is_refused_quickly_with_its_line(tmp_path: Path, levels: int) -> None:
    text = alias_bomb(levels)
    assert len(text.encode()) < 600
    with pytest.raises(CaseFileError) as info:
        load_yaml_text(text, tmp_path / "bomb.eval.yaml")
    assert "expands to more than 2,000,000 YAML nodes through its aliases" in str(info.value)
    assert info.value.line == 7  # the first level whose expansion passes the limit (9**7 > 2,000,000)


def test_a_modest_reuse_of_anchors_is_fine(tmp_path: Path) -> None:
    loaded = load_yaml_text(alias_bomb(5), tmp_path / "ok.eval.yaml")  # 9**5 = 59,049 expanded scalars
    assert len(loaded.data["l4"]) == 9


def string_alias_bomb(levels: int, length: int = 10_000) -> str:
    """A long string aliased 9 times per level: few nodes (9**levels), many characters (length * 9**levels)."""
    lines = [f"s0: &s0 {'x' * length}"]
    lines += [f"s{i}: &s{i} [{', '.join([f'*s{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def test_a_string_alias_bomb_under_the_node_limit_is_refused_by_its_characters_with_its_line(tmp_path: Path) -> None:
    text = string_alias_bomb(5)  # 10 KB that would expand to 590 MB of text in 9**5 = 59,049 strings
    assert len(text.encode()) < 11_000
    with pytest.raises(CaseFileError) as info:
        load_yaml_text(text, tmp_path / "strings.eval.yaml")
    message = str(info.value)
    assert "strings.eval.yaml" in message
    assert "expands to 65,610,000 characters of text through its aliases, over the limit of 50,000,000" in message
    assert "VISIONEVAL_MAX_YAML_CHARS" in message
    assert info.value.line == 5  # s4: 10,000 * 9**4 characters is the first to pass the limit


def test_the_character_limit_can_be_raised_and_lowered_and_a_bad_value_is_worded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = string_alias_bomb(2, length=100)  # 8,100 characters once expanded
    assert len(load_yaml_text(text, tmp_path / "ok.eval.yaml").data["s2"]) == 9
    monkeypatch.setenv("VISIONEVAL_MAX_YAML_CHARS", "8_000")
    with pytest.raises(CaseFileError, match="expands to 8,100 characters of text through its aliases, over the limit of 8,000"):
        load_yaml_text(text, tmp_path / "low.eval.yaml")
    monkeypatch.setenv("VISIONEVAL_MAX_YAML_CHARS", "lots")
    with pytest.raises(CaseFileError, match="VISIONEVAL_MAX_YAML_CHARS='lots' is not a positive whole number"):
        load_yaml_text(text, tmp_path / "bad.eval.yaml")


def test_a_recursive_alias_is_an_error_not_a_recursion_crash(tmp_path: Path) -> None:
    text = "cases: &x\n  - id: a\n    task: image_generation\n    prompt: p\n    graders: *x\n"
    with pytest.raises(CaseFileError, match="a recursive alias") as info:
        load_yaml_text(text, tmp_path / "loop.eval.yaml")
    assert info.value.line == 1


def test_a_file_without_anchors_skips_the_expansion_walk_and_loads_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No ``&`` means no anchor, hence no alias: the node graph is a tree the size of the text."""
    from pytest_visioneval.cases import loader

    walked: list[str] = []
    real = loader._check_expansion
    monkeypatch.setattr(loader, "_check_expansion", lambda node, path: (walked.append(path.name), real(node, path)))
    plain = "suite: s\ncases:\n  - {id: a, prompt: 'cats and dogs'}\n"
    anchored = "suite: s\nbase: &b {prompt: p}\ncases:\n  - {id: a, prompt: 'cats & dogs'}\n"
    assert load_yaml_text(plain, tmp_path / "plain.eval.yaml").data["cases"][0]["prompt"] == "cats and dogs"
    assert load_yaml_text(anchored, tmp_path / "anchored.eval.yaml").data["base"] == {"prompt": "p"}
    assert walked == ["anchored.eval.yaml"]


# -- the one-walk builder of anchor-free files gives what PyYAML's constructor gives --
TRICKY_DOCUMENTS = [
    "suite: s\ncases:\n  - id: a\n    prompt: 'a cat'\n    params: {n: 2, size: 1024x1024, quality: null}\n",
    "ints: [0, -3, 0x1f, 0o17, 1_000]\nfloats: [1.5, -0.0, .inf, -.inf, 1e3]\nbools: [true, False, yes, no, on]\n",
    "nulls: [~, null, ]\nempty:\nstamp: 2026-11-23\nwhen: 2026-11-23T10:00:00Z\n",
    "explicit: !!str 123\nnumber_text: '42'\nbinary: !!binary aGVsbG8=\nfloat_tag: !!float 3\n",
    "1: one\ntrue: yes\n2.5: half\nnull: nothing\n",
    "set: !!set {a, b}\nomap: !!omap [{x: 1}, {y: 2}]\npairs: !!pairs [{k: 1}, {k: 2}]\n",
    "folded: >\n  two\n  lines\nliteral: |\n  keep\n  lines\n",
    "unicode: 'café – ✓'\nquoted: \"tab\\there\"\nnested: [[1, [2, [3]]], {a: {b: {c: [d]}}}]\n",
    "[1, two, {three: 3}]\n",
    "just a string\n",
    "? [complex, key]\n: value\n",
]


def _constructor_result(text: str) -> tuple[object, dict[tuple[object, ...], int]]:
    """What PyYAML's own constructor and the separate line index give for ``text``."""
    from pytest_visioneval.cases import loader

    yaml_loader = loader._Loader(text)
    try:
        node = yaml_loader.get_single_node()
        lines: dict[tuple[object, ...], int] = {(): node.start_mark.line + 1}
        loader._index(node, (), lines, Path("x"))
        return yaml_loader.construct_document(node), lines
    finally:
        yaml_loader.dispose()


@pytest.mark.parametrize("text", TRICKY_DOCUMENTS[:-1])
def test_anchor_free_files_load_as_the_constructor_loads_them(tmp_path: Path, text: str) -> None:
    loaded = load_yaml_text(text, tmp_path / "x.eval.yaml")
    data, lines = _constructor_result(text)
    assert repr(loaded.data) == repr(data)  # repr: True and 1, 1.0 and 1, '42' and 42 differ
    assert loaded.lines == lines


def test_an_unhashable_key_is_invalid_yaml_with_its_line(tmp_path: Path) -> None:
    with pytest.raises(CaseFileError, match="invalid YAML: found unhashable key") as info:
        load_yaml_text(TRICKY_DOCUMENTS[-1], tmp_path / "x.eval.yaml")
    assert info.value.line == 1


def test_an_unknown_tag_is_invalid_yaml_with_its_line(tmp_path: Path) -> None:
    with pytest.raises(CaseFileError, match="invalid YAML") as info:
        load_yaml_text("suite: s\ncode: !!python/name:os.system\n", tmp_path / "x.eval.yaml")
    assert info.value.line == 2


def test_every_shipped_case_file_loads_as_the_constructor_loads_it(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[3]
    files = [p for folder in ("cases", "pytest_visioneval", "tests") for p in (root / folder).rglob("*.yaml")]
    assert len(files) > 10
    for file in files:
        text = file.read_text(encoding="utf-8")
        if "&" in text or "<<" in text:
            continue  # those go through the constructor itself
        data, lines = _constructor_result(text)
        loaded = load_yaml_text(text, file)
        assert (repr(loaded.data), loaded.lines) == (repr(data), lines), file
