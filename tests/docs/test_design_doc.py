"""docs/design.md draws the house: the layers, and one line a module. These tests read the plan
and the code and fail when the two disagree, so the plan cannot drift.

- Every module of the package is in the module list, and every module listed exists.
- Every module belongs to exactly one layer, and its imports (at the top and inside functions)
  reach only its own layer or the ones below.
- No module reaches itself through its imports (no cycles, in a layer or across them).
- Only the modules the plan names import the command line (``cli/``), the MCP server not among them.
"""

from __future__ import annotations

import ast
import re

import pytest

from conftest import ROOT

PACKAGE = ROOT / "py" / "fitproof"
DESIGN = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
NAME = re.compile(r"^[\w.]+(\.py|/)$")


def _section(title: str) -> str:
    start = DESIGN.index(f"## {title}\n")
    end = DESIGN.find("\n## ", start + 1)
    return DESIGN[start : end if end != -1 else None]


def package_files() -> set[str]:
    """Every module and every folder of the package, as paths relative to it (folders end in /)."""
    found = set()
    for path in PACKAGE.rglob("*"):
        if "__pycache__" in path.parts:
            continue
        relative = path.relative_to(PACKAGE).as_posix()
        if path.is_dir():
            found.add(relative + "/")
        elif path.suffix == ".py":
            found.add(relative)
    return found


def listed_files(block: str) -> set[str]:
    """The paths the module list's tree names: two spaces of indent a level, ``a.py, b.py   words``
    for several modules on one line, a line whose first words are no name continues the one before."""
    lines = block.splitlines()
    assert lines[0] == "py/fitproof/", lines[0]
    folders: list[str] = []
    listed = set()
    for line in lines[1:]:
        depth = (len(line) - len(line.lstrip(" "))) // 2 - 1
        names = [name.strip() for name in re.split(r"\s{2,}", line.strip())[0].split(",")]
        if not all(NAME.match(name) for name in names):
            continue  # the description of the line before, carried on
        assert depth <= len(folders), f"{line!r} is indented under no folder"
        del folders[depth:]
        for name in names:
            listed.add("".join(folders) + name)
        if names[-1].endswith("/"):
            folders.append(names[-1])
    return listed


def test_the_module_list_names_every_module_and_no_other():
    block = re.search(r"```\n(py/fitproof/\n.*?)```", _section("The package, one line a module"), re.S)[1]
    listed = listed_files(block)
    actual = package_files()
    assert sorted(actual - listed) == [], "modules missing from docs/design.md's list"
    assert sorted(listed - actual) == [], "docs/design.md lists modules that do not exist"


def test_the_module_list_reader_sees_a_missing_or_a_made_up_module():
    """The reader above is the whole proof: it must notice a line gone and a line invented."""
    block = "py/fitproof/\n  a.py        one\n  sub/\n    b.py, c.py   two\n      and more words\n  d.py  three\n"
    assert listed_files(block) == {"a.py", "sub/", "sub/b.py", "sub/c.py", "d.py"}
    assert "sub/c.py" not in listed_files(block.replace("b.py, c.py", "b.py"))


def layers() -> list[list[str]]:
    """The numbered list under "Layers": each item's first parenthesis names its modules and folders."""
    found = []
    for number, names in re.findall(r"^(\d+)\. \*\*[^*]+\*\* \(([^)]*)\)", _section("Layers"), re.M):
        assert int(number) == len(found) + 1
        found.append(re.findall(r"`([^`]+)`", names))
    return found


def module_name(path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str, plan: list[list[str]]) -> int:
    """The layer whose entry is the module's own file or the nearest folder that holds it."""
    relative = module.split(".")[1:]
    candidates = {"/".join(relative[:depth]) + "/" for depth in range(1, len(relative) + 1)}
    candidates.add("/".join(relative) + ".py" if relative else "__init__.py")
    candidates.add("/".join(relative) + "/__init__.py")
    hits = [number for number, names in enumerate(plan, 1) for name in names if name in candidates]
    assert len(hits) == 1, f"{module} is in layers {hits}: it must be in exactly one"
    return hits[0]


def imports_of(path, modules: set[str], broken: list[str] | None = None) -> set[str]:
    """The package's modules that ``path`` imports, anywhere in it (at the top or in a function);
    ``broken`` collects the imports of the package that name no module of it."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] == "fitproof" and target not in modules and broken is not None:
                broken.append(f"{name}: from {'.' * node.level}{node.module or ''} import ... (line {node.lineno})")
            for alias in node.names:
                if f"{target}.{alias.name}" in modules:
                    found.add(f"{target}.{alias.name}")
                elif target in modules:
                    found.add(target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
    return found - {name}


def import_graph() -> dict[str, set[str]]:
    paths = [path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts]
    modules = {module_name(path) for path in paths}
    return {module_name(path): imports_of(path, modules) for path in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_imports_run_only_downwards():
    plan = layers()
    assert len(plan) >= 5, plan
    graph = import_graph()
    upward = [
        f"{module} (layer {layer_of(module, plan)}) imports {target} (layer {layer_of(target, plan)})"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if layer_of(target, plan) > layer_of(module, plan)
    ]
    assert upward == []


def test_every_import_of_the_package_names_one_of_its_modules():
    """A function-level import left behind by a move fails only when the function runs."""
    paths = [path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts]
    modules = {module_name(path) for path in paths}
    broken: list[str] = []
    for path in paths:
        imports_of(path, modules, broken)
    assert broken == []


def test_no_module_reaches_itself_through_its_imports():
    assert cycles(import_graph()) == []


@pytest.mark.parametrize(
    "graph, expected",
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}, [["a", "b"], ["c", "d"]]),
    ],
)
def test_the_cycle_finder_finds_a_planted_cycle(graph, expected):
    assert sorted(cycles(graph)) == expected


def test_the_import_reader_sees_imports_inside_functions(tmp_path):
    """A cycle hidden in a function-level import (as _passages -> _selection was) is still a cycle."""
    graph = import_graph()
    assert "fitproof.tokenizers.files" in graph["fitproof.tokenizers.registry"]  # imported in a method
    assert "fitproof._evaluation.claims" in graph["fitproof._evaluation.evaluate"]  # imported in a function


def command_line_importers(graph: dict[str, set[str]]) -> list[str]:
    """The modules outside ``cli/`` that import a module of it."""

    def in_cli(module: str) -> bool:
        return module == "fitproof.cli" or module.startswith("fitproof.cli.")

    return sorted(module for module, targets in graph.items() if not in_cli(module) and any(map(in_cli, targets)))


def test_only_the_modules_the_plan_names_import_the_command_line():
    """Layer 7 is one layer, but the MCP server and the site stand apart from ``cli/``:
    "`cli/` is imported only by ..." names who may (``fitproof mcp`` starts without it)."""
    named = re.search(r"`cli/` is imported only by\s+((?:`[^`]+\.py`(?:,\s+|\s+and\s+)?)+)", _section("Layers"))
    assert named, "docs/design.md's layer 7 says who imports cli/"
    allowed = sorted("fitproof." + name[:-3].replace("/", ".") for name in re.findall(r"`([^`]+)`", named[1]))
    assert allowed == ["fitproof._launch"]
    assert command_line_importers(import_graph()) == allowed


def test_the_command_line_rule_sees_a_planted_import():
    graph = {
        "fitproof.cli": {"fitproof.cli._arguments"},
        "fitproof.cli._arguments": set(),
        "fitproof._launch": {"fitproof.cli"},
        "fitproof.mcp_server.stdio": {"fitproof.cli._arguments", "fitproof.tokenizers"},
        "fitproof.client": set(),
    }
    assert command_line_importers(graph) == ["fitproof._launch", "fitproof.mcp_server.stdio"]


def test_the_package_tests_mirror_the_packages_folders():
    """docs/design.md, "The tests": a folder of tests/package/ is named after the package folder it
    tests, without the leading underscore (tests/package/modes/messages/ tests modes/messages/);
    what tests the package as a whole stays at the top."""
    tests = ROOT / "tests" / "package"
    folders = sorted(
        path.relative_to(tests).as_posix()
        for path in tests.rglob("*")
        if path.is_dir() and "__pycache__" not in path.parts and any(path.glob("test_*.py"))
    )
    assert folders, "no folder of tests"
    for folder in folders:
        parts = folder.split("/")
        candidates = [PACKAGE.joinpath(*parts), PACKAGE.joinpath("_" + parts[0], *parts[1:])]
        assert any(candidate.is_dir() for candidate in candidates), f"tests/package/{folder}/ names no folder of the package"
    assert "## The tests" in DESIGN and all(f"tests/package/{folder}/" in _section("The tests") for folder in folders)


def test_a_test_module_imports_no_test_module_of_another_folder():
    """docs/design.md, "The tests": what tests of two folders share lives in a module of tests/."""
    pattern = re.compile(r"^\s*(?:from\s+(test_\w+)\s+import|import\s+(test_\w+))", re.M)
    crossing = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if "data" in path.relative_to(ROOT / "tests").parts:
            continue
        for match in pattern.finditer(path.read_text(encoding="utf-8")):
            name = (match.group(1) or match.group(2)) + ".py"
            if not (path.parent / name).is_file():
                crossing.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not crossing, crossing
    assert pattern.search("    from test_page import open_page\n"), "the pattern must see an indented import"


def test_no_hand_written_module_is_over_500_lines_and_no_page_script_over_450():
    """docs/design.md, "Where things live": a file that outgrows its job is split by job. The
    Unicode tables are generated (scripts/make_unicode_*.py) and not counted."""
    long = []
    for path in sorted((ROOT / "py" / "fitproof").rglob("*.py")):
        if not path.name.startswith("unicode_") and len(path.read_text(encoding="utf-8").splitlines()) > 500:
            long.append(path.relative_to(ROOT).as_posix())
    for path in sorted((ROOT / "web").rglob("*.js")):
        if len(path.read_text(encoding="utf-8").splitlines()) > 450:
            long.append(path.relative_to(ROOT).as_posix())
    assert not long, long
    assert len((ROOT / "py" / "fitproof" / "tokenizers" / "unicode_nfc.py").read_text(encoding="utf-8").splitlines()) > 500, (
        "the walk must meet a long file it leaves out"
    )
