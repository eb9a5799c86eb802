"""The package's layers: engine < environment < policies < match < everything that plays games.

Imports are read from the sources (function-level imports included, since a lazy import is
still a dependency).  The same reading keeps the functions short."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "dune_env"


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                names = [f"{base}.{alias.name}" for alias in node.names]
                # `from package import module` needs the module, not the package's own names
                targets = names + ([base] if any(n not in modules for n in names) else [])
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    deps.add(target)
        graph[name] = deps
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for dep in graph[node]:
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in graph:
        if node not in index:
            visit(node)
    return found


GRAPH = _imports(_modules())


def _area(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_the_environment_does_not_import_the_policies() -> None:
    """Seat policies reach the environment resolved, from dune_env.match."""
    bad = sorted(
        f"{m} -> {d}"
        for m, deps in GRAPH.items()
        if _area(m) == "dune_env.environment"
        for d in deps
        if _area(d) == "dune_env.policies"
    )
    assert bad == []


def test_replays_do_not_import_the_harness() -> None:
    bad = sorted(
        f"{m} -> {d}"
        for m, deps in GRAPH.items()
        if _area(m) == "dune_env.replay"
        for d in deps
        if _area(d) == "dune_env.harness"
    )
    assert bad == []


def test_no_import_cycle_across_areas_or_inside_the_harness() -> None:
    """No cycle between environment, policies, match, harness, replay, vector, human; none
    between the harness's modules."""
    bad = [
        sorted(c)
        for c in _cycles(GRAPH)
        if len({_area(m) for m in c}) > 1 or _area(next(iter(c))) == "dune_env.harness"
    ]
    assert bad == []


def test_no_policy_module_imports_the_registry() -> None:
    """The registry classifies a spec and calls one loader; the loaders (weights, sb3, rllib,
    ...) take what they share from `policies.specs` and never call back into the registry."""
    bad = sorted(
        m
        for m, deps in GRAPH.items()
        if _area(m) == "dune_env.policies" and m != "dune_env.policies"
        if "dune_env.policies.registry" in deps
    )
    assert bad == []


def test_the_graph_sees_imports() -> None:
    """The reader itself: it finds a lazy import and a relative one."""
    assert "dune_env.match" in GRAPH["dune_env.single_agent.seating"]
    assert "dune_env.harness.play.types" in GRAPH["dune_env.harness.play.runner"]


# The layers of docs/architecture.md, lowest first: a module imports only from its own layer and
# those below it.  Every module of dune_env has one (a new top-level module or package must be
# placed here); the package's own __init__ only names its public parts lazily and has none.
LAYERS: tuple[tuple[str, ...], ...] = (
    # the build (`_compiled_manifest` is generated by setup.py), the version, registration, the
    # command lines' one-line refusals
    ("_compiled_manifest", "compiled_build", "env_version", "exits", "provenance", "registration"),
    ("engine",),  # the rules
    ("environment",),  # the PettingZoo environment
    ("policies",),  # the registry, heuristics, search, loaded models
    ("match", "seatings"),  # where a game is played between policies, how seats are arranged
    (  # what plays games
        "dune_v0",
        "dune_v1",
        "game_log",
        "harness",
        "human",
        "openspiel",
        "play",
        "replay",
        "single_agent",
        "vector",
    ),
)
LAYER_OF = {room: rank for rank, rooms in enumerate(LAYERS) for room in rooms}


def _room(module: str) -> str:
    return module.split(".")[1] if module.count(".") else ""


def _upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import from a lower layer to a higher one (the package root exempt)."""
    return sorted(
        f"{m} -> {d}"
        for m, deps in graph.items()
        if _room(m)
        for d in deps
        if _room(d) and LAYER_OF[_room(d)] > LAYER_OF[_room(m)]
    )


def test_every_module_has_a_layer() -> None:
    unplaced = sorted({_room(m) for m in GRAPH if _room(m) and _room(m) not in LAYER_OF})
    assert unplaced == [], f"place these in LAYERS (and docs/architecture.md): {unplaced}"


def test_no_module_imports_a_layer_above_its_own() -> None:
    """The environment resolves no policy name and plays no match; the policies know no
    harness: a lazy import counts as much as one at the top."""
    assert _upward(GRAPH) == []


def test_the_layer_check_sees_an_upward_import() -> None:
    """The check itself: an environment module importing the match layer is caught."""
    graph = {**GRAPH, "dune_env.environment.aec": {*GRAPH["dune_env.environment.aec"]}}
    graph["dune_env.environment.aec"].add("dune_env.match")
    assert _upward(graph) == ["dune_env.environment.aec -> dune_env.match"]


MAX_FUNCTION_LINES = 80


def test_no_function_is_longer_than_80_lines() -> None:
    """A function that long does several things: split it into named steps (issue 22)."""
    bad = sorted(
        f"{path.relative_to(ROOT.parent)}:{node.lineno} {node.name} "
        f"({node.end_lineno - node.lineno + 1} lines)"
        for path in ROOT.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    )
    assert bad == [], f"functions over {MAX_FUNCTION_LINES} lines: {bad}"
