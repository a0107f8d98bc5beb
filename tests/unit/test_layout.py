"""The package's import structure: layers import downwards only, no cycles, pytest only in the plugin.

Walks every module's ``import`` statements with :mod:`ast` (module level,
inside functions and under ``TYPE_CHECKING`` alike), so a lazy import that
goes the wrong way is caught as surely as a top-level one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import pytest_visioneval

PACKAGE = "pytest_visioneval"
ROOT = Path(pytest_visioneval.__file__).parent

# Top-level parts of the package, lowest layer first. A module may import its
# own part and any part of a lower layer, never a higher or an equal one.
LAYERS: list[set[str]] = [
    {"__init__", "errors"},
    {"cases"},
    {"artifacts"},
    {"calls"},
    {"judges"},
    {"graders"},
    {"pages"},
    {"models"},
    {"protocols"},
    {"mutants"},
    {"run"},
    {"results"},
    {"report"},
    {"importers"},
    {"plugin", "cli"},
    {"__main__", "testing"},
]
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}
# The root holds these modules only; everything else lives in the package of its stage.
ROOT_MODULES = {"__init__", "__main__", "errors", "artifacts"}
# Only these parts may import pytest.
PYTEST_PARTS = {"plugin", "testing"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def part_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports_of(module: str) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import in ``module``, resolved to a module of the package or not."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                yield (submodule if submodule in MODULES else target), node.lineno


def internal_edges() -> dict[str, set[str]]:
    return {m: {t for t, _ in imports_of(m) if t in MODULES and t != m} for m in MODULES}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path (first module repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_every_part_has_a_layer() -> None:
    unknown = sorted({part_of(m) for m in MODULES} - set(RANK))
    assert not unknown, f"give these parts a layer in LAYERS: {unknown}"


def test_the_root_holds_only_modules_of_no_stage() -> None:
    at_root = {p.stem for p in ROOT.glob("*.py")}
    assert at_root <= ROOT_MODULES, f"move into the package of their stage: {sorted(at_root - ROOT_MODULES)}"


def test_every_import_of_the_package_resolves() -> None:
    # an import the walk cannot resolve would hide its edges from the checks below
    unresolved = [
        f"{MODULES[m].relative_to(ROOT.parent)}:{line} imports {target}"
        for m in MODULES
        for target, line in imports_of(m)
        if (target == PACKAGE or target.startswith(PACKAGE + ".")) and target not in MODULES
    ]
    assert not unresolved, "imports of modules that do not exist: " + ", ".join(unresolved)


def test_no_import_cycle() -> None:
    cycle = find_cycle(internal_edges())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_layers_import_downwards_only() -> None:
    wrong = []
    for module in MODULES:
        here = part_of(module)
        for target, line in imports_of(module):
            if target not in MODULES:
                continue
            there = part_of(target)
            if there != here and RANK[there] >= RANK[here]:
                wrong.append(f"{MODULES[module].relative_to(ROOT.parent)}:{line} imports {target} ({here} -> {there})")
    assert not wrong, "imports that go up or sideways:\n" + "\n".join(wrong)


def test_only_the_plugin_imports_pytest() -> None:
    wrong = [
        f"{MODULES[m].relative_to(ROOT.parent)}:{line}"
        for m in MODULES
        if part_of(m) not in PYTEST_PARTS
        for target, line in imports_of(m)
        if target == "pytest" or target.startswith("pytest.") or target.startswith("_pytest")
    ]
    assert not wrong, "pytest imported outside plugin/: " + ", ".join(wrong)


# -- the checker itself ------------------------------------------------------


def test_find_cycle_reports_a_cycle_and_passes_a_tree() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("pytest_visioneval.run.case", {"pytest_visioneval.graders.outcome", "pytest_visioneval.protocols"}),
        ("pytest_visioneval.plugin.session", {"pytest_visioneval.report.results_json", "pytest_visioneval.report.terminal"}),
    ],
)
def test_imports_are_resolved_to_modules(module: str, expected: set[str]) -> None:
    # relative imports, `from package import module` and lazy imports inside functions all count
    assert expected <= internal_edges()[module]
