"""Read a YAML case file into plain data plus a map of where each field is.

The map lets schema errors point at a line: ``lines[("cases", 2, "prompt")]``
is the 1-based line of that key. PyYAML keeps the last of two duplicate keys
silently; here a duplicate key is an error, because in a case file it is
almost always a copy-paste mistake that would drop a grader or a prompt.
Every duplicate is noted (``LoadedYaml.problems``) and the later value kept,
as PyYAML would, so the checks after loading can still report the file's
other problems in the same error. Bad YAML syntax stops the loading: PyYAML's
own pointer to the cause is then the only problem there is to report.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import CaseFileError

# The C loader is several times faster; collection speed matters for large suites.
_Loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

PathKey = tuple[Any, ...]

# A case file whose aliases expand it past this many nodes is refused before anything
# walks it: a few hundred bytes of nested aliases (a "billion laughs") would otherwise
# take gigabytes. A suite of 10,000 plain cases is about 300,000 nodes.
MAX_EXPANDED_NODES = 2_000_000
# The same for the characters of the text: a long string aliased 9 times per level over 5
# levels stays under the node limit yet expands a 10 KB file to 590 MB. Text written out
# is never refused by this (a file without aliases is not checked); only what aliases repeat.
MAX_EXPANDED_CHARS = 50_000_000
MAX_EXPANDED_CHARS_ENV = "VISIONEVAL_MAX_YAML_CHARS"


def max_expanded_chars(path: Path) -> int:
    """The limit on a case file's text once its aliases are expanded: the environment's, else the default."""
    raw = os.environ.get(MAX_EXPANDED_CHARS_ENV, "").strip().replace("_", "")
    if not raw:
        return MAX_EXPANDED_CHARS
    if not raw.isdigit() or int(raw) <= 0:
        raise CaseFileError(path, f"{MAX_EXPANDED_CHARS_ENV}={raw!r} is not a positive whole number")
    return int(raw)


@dataclass(frozen=True)
class LoadedYaml:
    data: Any
    lines: dict[PathKey, int]
    problems: tuple[CaseFileError, ...] = ()  # duplicate keys (the later value is kept)

    def line_of(self, path: PathKey) -> int | None:
        """Line of ``path``, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get(())


def format_field(path: PathKey) -> str:
    """``("cases", 2, "graders", 0)`` -> ``cases[2].graders[0]``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def load_yaml(path: Path, *, keep_going: bool = False) -> LoadedYaml:
    """Parse ``path``; raise :class:`CaseFileError` with the line on bad YAML.

    A duplicate key raises too, unless ``keep_going``: then every duplicate is
    in ``problems`` for the caller to report with the file's other problems.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseFileError(path, f"cannot read file: {exc}") from exc
    return load_yaml_text(text, path, keep_going=keep_going)


def load_yaml_text(text: str, path: Path, *, keep_going: bool = False) -> LoadedYaml:
    loader = _Loader(text)
    duplicates: list[CaseFileError] = []
    try:
        node = loader.get_single_node()
        if node is None:
            raise CaseFileError(path, "file is empty", line=1)
        lines: dict[PathKey, int] = {(): node.start_mark.line + 1}
        if "&" in text or "<<" in text:
            # Anchors, aliases or merge keys: PyYAML's constructor resolves them, after a check that
            # the aliases do not expand the file past its size limit.
            _check_expansion(node, path)
            _index(node, (), lines, path, duplicates)
            data = loader.construct_document(node)
        else:  # no anchor, no alias: the node graph is a tree as big as the text
            data = _tree_data(node, (), lines, path, loader, duplicates)
    except yaml.MarkedYAMLError as exc:
        raise CaseFileError(path, f"invalid YAML: {_yaml_problem(exc)}", line=_yaml_line(exc)) from None
    except yaml.YAMLError as exc:
        raise CaseFileError(path, f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()
    if duplicates and not keep_going:
        raise duplicates[0]
    return LoadedYaml(data, lines, tuple(duplicates))


def _yaml_line(exc: yaml.MarkedYAMLError) -> int | None:
    mark = exc.problem_mark or exc.context_mark
    return mark.line + 1 if mark is not None else None


def _yaml_problem(exc: yaml.MarkedYAMLError) -> str:
    """PyYAML's problem with its context: where what it was reading began is often where the mistake is.

    "found unexpected end of stream (while scanning a quoted scalar that starts at line 5, column 13)":
    the file's end is the symptom, the quote opened on line 5 the cause.
    """
    problem = exc.problem or str(exc)
    if exc.context:
        mark = exc.context_mark
        at = f" that starts at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem += f" ({exc.context}{at})"
    return problem


def _check_expansion(root: yaml.Node, path: Path) -> None:
    """Refuse a node graph that refers to itself or that aliases expand past MAX_EXPANDED_NODES nodes or
    :func:`max_expanded_chars` characters of scalar text.

    Sizes are counted once per distinct node (aliases share their node), so
    the check itself stays as small as the file.
    """
    char_limit = max_expanded_chars(path)
    sizes: dict[int, int] = {}
    chars: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        children = _children(node)
        if children_done:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in children)
            chars[key] = len(node.value) if isinstance(node, yaml.ScalarNode) else sum(chars[id(child)] for child in children)
            if chars[key] > char_limit:
                raise CaseFileError(
                    path,
                    f"the file expands to {chars[key]:,} characters of text through its aliases, over the limit of "
                    f"{char_limit:,} ({MAX_EXPANDED_CHARS_ENV}); write the data out or use fewer nested aliases",
                    line=node.start_mark.line + 1,
                )
            if sizes[key] > MAX_EXPANDED_NODES:
                raise CaseFileError(
                    path,
                    f"the file expands to more than {MAX_EXPANDED_NODES:,} YAML nodes through its aliases "
                    "(anchors reused inside each other); write the data out or use fewer nested aliases",
                    line=node.start_mark.line + 1,
                )
            continue
        if key in sizes:
            continue
        on_path.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in on_path:
                raise CaseFileError(
                    path, "an alias refers to a node that contains it (a recursive alias)", line=child.start_mark.line + 1
                )
            if id(child) not in sizes:
                stack.append((child, False))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_STR_TAG = "tag:yaml.org,2002:str"


def _tree_data(
    node: yaml.Node, prefix: PathKey, lines: dict[PathKey, int], path: Path, loader: Any, duplicates: list[CaseFileError]
) -> Any:
    """The data of a node tree and the line of every key and item below ``prefix``, in one walk.

    Gives what PyYAML's constructor gives for the same tree; plain mappings,
    sequences and strings (nearly all of a case file) are built here directly,
    any other node by the constructor.
    """
    if isinstance(node, yaml.ScalarNode):
        return node.value if node.tag == _STR_TAG else loader.construct_object(node)
    if isinstance(node, yaml.SequenceNode) and node.tag == _SEQ_TAG:
        items = []
        for i, item in enumerate(node.value):
            here = prefix + (i,)
            lines[here] = item.start_mark.line + 1
            items.append(_tree_data(item, here, lines, path, loader, duplicates))
        return items
    if isinstance(node, yaml.MappingNode) and node.tag == _MAP_TAG:
        mapping: dict[Any, Any] = {}
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            here = _key_path(key_node, prefix, seen, lines, path, duplicates)
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag == _STR_TAG:
                key = key_node.value
            else:
                key = loader.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, "found unhashable key", key_node.start_mark
                ) from None
            mapping[key] = _tree_data(value_node, here, lines, path, loader, duplicates)
        return mapping
    _index(node, prefix, lines, path, duplicates)  # another tag (!!set, !!omap, ...): the constructor knows it
    return loader.construct_object(node, deep=True)


def _key_path(
    key_node: yaml.Node, prefix: PathKey, seen: set[Any], lines: dict[PathKey, int], path: Path, duplicates: list[CaseFileError]
) -> PathKey:
    """The path of a mapping key's value; notes the key's line, and a key its mapping already has as a problem."""
    key = key_node.value if isinstance(key_node, yaml.ScalarNode) else repr(key_node)
    here = prefix + (key,)
    if key in seen:
        first = lines.get(here)
        duplicates.append(
            CaseFileError(
                path,
                f"duplicate key (first at line {first}; the later value is the one read)",
                line=key_node.start_mark.line + 1,
                field=format_field(here),
            )
        )
    seen.add(key)
    lines[here] = key_node.start_mark.line + 1
    return here


def _index(
    node: yaml.Node, prefix: PathKey, lines: dict[PathKey, int], path: Path, duplicates: list[CaseFileError] | None = None
) -> None:
    if duplicates is None:
        duplicates = []
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == "<<":
                continue  # merge key: its own keys are indexed where they are written
            _index(value_node, _key_path(key_node, prefix, seen, lines, path, duplicates), lines, path, duplicates)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            here = prefix + (i,)
            lines[here] = item.start_mark.line + 1
            _index(item, here, lines, path, duplicates)
