"""Code outside the engine uses only the engine's public modules (issue 9).

Every module under `dune_env/` outside `dune_env/engine/` must not

- import `dune_env.engine.steps` (absolute or relative, any submodule): the steps are the
  engine's internals; bots and tools use `dune_env.engine`, `engine.rules`, `engine.factions`,
  `engine.decisions` / `engine.options` and `engine.constants`;
- import a private (`_`-prefixed) name or module from another module;
- read a private attribute of an imported module or name (`module._name`).

`ALLOWED` lists the modules that still do, each with its reason; it may only shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

import dune_env

PACKAGE_ROOT = Path(dune_env.__file__).parent
STEPS = "dune_env.engine.steps"

# module (path relative to dune_env/) -> why it still reaches into engine internals.
ALLOWED: dict[str, str] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(path: Path, node: ast.ImportFrom) -> str:
    """The absolute module name of a `from ... import` statement."""
    if not node.level:
        return node.module or ""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def violations(path: Path, source: str | None = None) -> list[str]:
    """The violations of the module at `path` (its text, or `source` as if it lived there)."""
    text = path.read_text() if source is None else source
    tree = ast.parse(text, filename=str(path))
    found: list[str] = []
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                imported.add((alias.asname or alias.name).split(".")[0])
                if alias.name == STEPS or alias.name.startswith(STEPS + "."):
                    found.append(f"line {node.lineno}: imports {alias.name}")
                if any(_private(part) for part in alias.name.split(".")):
                    found.append(f"line {node.lineno}: imports private module {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            module = _resolve(path, node)
            if module == "__future__":
                continue
            for alias in node.names:
                imported.add(alias.asname or alias.name)
                full = f"{module}.{alias.name}"
                if full == STEPS or full.startswith(STEPS + ".") or module.startswith(STEPS):
                    found.append(f"line {node.lineno}: imports {full} (engine internals)")
                if _private(alias.name) or any(_private(p) for p in module.split(".")):
                    found.append(f"line {node.lineno}: imports private name {full}")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in imported
        ):
            found.append(f"line {node.lineno}: reads private {node.value.id}.{node.attr}")
    return found


def _outside_engine() -> list[Path]:
    engine = PACKAGE_ROOT / "engine"
    return sorted(p for p in PACKAGE_ROOT.rglob("*.py") if engine not in p.parents)


def test_no_module_outside_the_engine_uses_engine_internals() -> None:
    report = []
    for path in _outside_engine():
        key = path.relative_to(PACKAGE_ROOT).as_posix()
        if key in ALLOWED:
            continue
        report += [f"{key} {v}" for v in violations(path)]
    assert not report, "engine internals used outside dune_env/engine:\n" + "\n".join(report)


def test_the_allow_list_only_shrinks() -> None:
    """Every allowed module exists and still needs its exemption; remove it once it does not."""
    for key in ALLOWED:
        path = PACKAGE_ROOT / key
        assert path.exists(), f"{key} is allowed but gone: remove it from ALLOWED"
        assert violations(path), f"{key} no longer uses engine internals: remove it from ALLOWED"


def test_the_checker_catches_each_kind_of_violation() -> None:
    """The scan finds absolute and relative step imports, private names and attributes."""
    source = (
        "from ..engine.steps.battle import side_factions\n"
        "import dune_env.engine.steps.kanly\n"
        "from ..engine import steps\n"
        "from ..engine.queries import _hidden\n"
        "from ..engine import game\n"
        "x = game._ask\n"
        "from ..engine import rules\n"
        "y = rules.strength\n"
    )
    found = violations(PACKAGE_ROOT / "policies" / "example.py", source)
    assert [line.split(":")[0] for line in found] == [f"line {i}" for i in (1, 2, 3, 4, 6)], found
