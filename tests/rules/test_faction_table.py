"""The faction-ability table (`dune_env.engine.factions`): every faction ability of
docs/rules.md §8 (ATR-*, HAR-*, FRE-*, TLX-*, COR-*, GLD-*, BG-*, SMG-*) has one row, and each
row points at functions that exist and name the rule."""

from __future__ import annotations

import ast
import inspect
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from dune_env.engine import DecisionKind, Faction
from dune_env.engine.factions import FACTION_ABILITIES, abilities, ability, markdown_table

RULES = Path(__file__).parents[2] / "docs" / "rules.md"
ARCHITECTURE = Path(__file__).parents[2] / "docs" / "architecture.md"
PREFIX = {
    Faction.ATREIDES: "ATR",
    Faction.HARKONNEN: "HAR",
    Faction.FREMEN: "FRE",
    Faction.TLEILAX: "TLX",
    Faction.CORRINO: "COR",
    Faction.GUILD: "GLD",
    Faction.BENE_GESSERIT: "BG",
    Faction.SMUGGLERS: "SMG",
}
# A rule ID, a range "TLX-1..3" or a pair "TLX-2/3" as the code's comments write them.
MENTION = re.compile(r"\b([A-Z]+)-(\d+)(?:(?:\.\.|/)(\d+))?")


def _ability_rules_in_docs() -> list[str]:
    defined = re.findall(
        r"^\*\*((?:ATR|HAR|FRE|TLX|COR|GLD|BG|SMG)-\d+)\*\*", RULES.read_text(), re.M
    )
    assert len(defined) >= 30, "docs/rules.md §8 not found"
    return defined


def _mentioned(text: str) -> set[str]:
    found = set()
    for prefix, first, last in MENTION.findall(text):
        for n in range(int(first), int(last or first) + 1):
            found.add(f"{prefix}-{n}")
    return found


def test_every_faction_ability_of_the_rules_is_in_the_table() -> None:
    listed = [a.rule for rows in FACTION_ABILITIES.values() for a in rows]
    assert sorted(listed) == sorted(_ability_rules_in_docs())
    assert len(set(listed)) == len(listed)


def test_each_faction_lists_its_own_rules_in_order() -> None:
    assert set(FACTION_ABILITIES) == set(Faction)
    for faction, rows in FACTION_ABILITIES.items():
        assert all(a.rule.startswith(PREFIX[faction] + "-") for a in rows), faction.name
        assert [a.rule for a in rows] == sorted(
            (a.rule for a in rows), key=lambda r: int(r.split("-")[1])
        )


def _source_of(function: Any) -> str:
    """The function's source text; read from its module's `.py` file when it runs compiled
    (a compiled function has no code object for `inspect`)."""
    try:
        return inspect.getsource(function)
    except TypeError:
        root = Path(sys.modules["dune_env"].__file__ or "").parent.parent
        path = root.joinpath(*function.__module__.split(".")).with_suffix(".py")
        text = path.read_text()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and node.name == function.__name__:
                return ast.get_source_segment(text, node) or ""
        raise


@pytest.mark.parametrize("rule", _ability_rules_in_docs())
def test_each_ability_is_implemented_by_functions_that_name_it(rule: str) -> None:
    """Each implementing function exists, is callable, and names `rule` in its source."""
    row = ability(rule)
    assert row.implemented_by, rule
    for function in row.implemented_by:
        assert callable(function)
        source = _source_of(function)
        assert rule in _mentioned(source), (
            f"{function.__module__}.{function.__name__} never names {rule}"
        )


def test_decision_kinds_of_abilities_are_real_and_unique() -> None:
    kinds = [k for rows in FACTION_ABILITIES.values() for a in rows for k in a.decisions]
    assert all(isinstance(k, DecisionKind) for k in kinds)
    assert len(kinds) == len(set(kinds))


def test_lookup_by_faction_and_by_rule() -> None:
    assert [a.rule for a in abilities(Faction.FREMEN)] == ["FRE-0", "FRE-1", "FRE-2", "FRE-3"]
    unknown = "FRE" + "-" + "99"  # not a rule (spelled apart so no doc scan cites it)
    with pytest.raises(KeyError, match=unknown):
        ability(unknown)


def test_architecture_doc_embeds_the_generated_table() -> None:
    """docs/architecture.md shows `python -m dune_env.engine.factions` verbatim."""
    assert markdown_table() in ARCHITECTURE.read_text()
