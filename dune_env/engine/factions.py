"""The faction-ability table: what each of the eight factions does, and where the code is.

`FACTION_ABILITIES[faction]` lists the faction's abilities in rule order (docs/rules.md §8):
the rule ID, its name, the turn steps where it acts, the decision kinds it adds, and the
functions that implement it.  A faction's abilities are spread over the steps they change
(the Fremen over set-up, recruiting, Kanly, movement and the storm); this table is the one
place that lists them all.  To change an ability, edit the functions named here; to add one,
add its rule to docs/rules.md, implement it in the steps it changes and add a row here
(tests/rules/test_faction_table.py checks that every ability rule ID has a row and that each
implementing function names its rule).

    python -m dune_env.engine.factions    # prints the table as Markdown (docs/architecture.md)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from . import constants, queries, rules
from .constants import FACTION_NAMES, Faction
from .decisions import DecisionKind
from .steps import ally, battle, landing, movement, recruit, roll, setup, storm, turn


class Step(IntEnum):
    """When an ability acts: set-up, a turn step (1-10, TURN-1), or whenever it applies."""

    SETUP = 0
    ROLL = 1
    ALLY = 2
    RECRUIT = 3
    KANLY = 4
    LANDING = 5
    MOVEMENT = 6
    BATTLE = 7
    PROPERTY = 8
    STORM = 9
    END_TURN = 10


STEP_NAMES: Final = {
    Step.SETUP: "set-up",
    Step.ROLL: "1 roll",
    Step.ALLY: "2 ally",
    Step.RECRUIT: "3 recruit",
    Step.KANLY: "4 Kanly",
    Step.LANDING: "5 landing",
    Step.MOVEMENT: "6 movement",
    Step.BATTLE: "7 battle",
    Step.PROPERTY: "8 property",
    Step.STORM: "9 storm",
    Step.END_TURN: "10 end of turn",
}


@dataclass(frozen=True)
class Ability:
    """One faction ability (a rule of docs/rules.md §8) and the code implementing it."""

    rule: str
    """Its rule ID, e.g. "FRE-3"."""
    name: str
    steps: tuple[Step, ...]
    implemented_by: tuple[Callable[..., object], ...]
    """The functions that implement it; each names the rule in its code or docstring."""
    decisions: tuple[DecisionKind, ...] = ()
    """Decision kinds that exist only for this ability."""


def _a(
    rule: str,
    name: str,
    steps: tuple[Step, ...],
    *implemented_by: Callable[..., object],
    decisions: tuple[DecisionKind, ...] = (),
) -> Ability:
    return Ability(rule, name, steps, implemented_by, decisions)


S: Final = Step
K: Final = DecisionKind

FACTION_ABILITIES: Final[dict[Faction, tuple[Ability, ...]]] = {
    Faction.ATREIDES: (
        _a(
            "ATR-0",
            "Set-up",
            (S.SETUP,),
            setup.legal_atreides_start,
            setup.apply_atreides_start,
            decisions=(K.ATREIDES_START,),
        ),
        _a("ATR-1", "Duncan Idaho", (S.BATTLE,), constants.leaders_strength),
        _a("ATR-2", "One leader per recruit step", (S.RECRUIT,), recruit.legal_recruit),
        _a("ATR-3", "Honourable duel", (S.BATTLE,), battle._side_losses),
    ),
    Faction.HARKONNEN: (
        _a(
            "HAR-0",
            "Set-up",
            (S.SETUP,),
            setup.legal_harkonnen_start,
            setup.apply_harkonnen_start,
            decisions=(K.HARKONNEN_START,),
        ),
        _a(
            "HAR-1",
            "Piter De Vries",
            (S.ROLL,),
            roll.run_piter,
            roll.apply_piter,
            decisions=(K.PITER_DE_VRIES,),
        ),
        _a(
            "HAR-2",
            "Infiltration",
            (S.BATTLE,),
            battle.run_fortress,
            battle.apply_infiltration,
            decisions=(K.INFILTRATION,),
        ),
    ),
    Faction.FREMEN: (
        _a("FRE-0", "Set-up", (S.SETUP,), setup._auto_setup),
        _a("FRE-1", "Desert people", (S.RECRUIT,), recruit._unit_cost),
        _a(
            "FRE-2",
            "Immune to the storm and the Crysknife",
            (S.KANLY, S.STORM),
            rules.kanly_protected,
            storm.storm_damage,
        ),
        _a("FRE-3", "Worm riding", (S.MOVEMENT,), rules.can_move),
    ),
    Faction.TLEILAX: (
        _a("TLX-0", "Set-up", (S.SETUP,), setup._auto_setup),
        _a(
            "TLX-1",
            "Axolotl tanks",
            (S.ROLL, S.RECRUIT),
            roll.run_axolotl,
            roll.legal_axolotl,
            recruit.active_symbol,
            decisions=(K.AXOLOTL_SYMBOL,),
        ),
        _a(
            "TLX-2",
            "Offers to the chosen symbol; shared dice",
            (S.ALLY,),
            ally.shared_dice,
            ally.legal_split,
            decisions=(K.DICE_SPLIT,),
        ),
        _a(
            "TLX-3",
            "Offers naming any showing symbol",
            (S.ALLY,),
            ally.legal_offer,
            ally.ally_symbol,
        ),
        _a(
            "TLX-4",
            "Face dancers",
            (S.BATTLE,),
            battle.legal_face_dancer,
            battle.apply_face_dancer,
            decisions=(K.FACE_DANCER,),
        ),
        _a(
            "TLX-5",
            "Ghola",
            (S.RECRUIT, S.BATTLE),
            recruit.ghola_possible,
            recruit.apply_ghola,
            battle.run_battle_ghola,
            decisions=(K.GHOLA,),
        ),
    ),
    Faction.CORRINO: (
        _a("COR-0", "Set-up", (S.SETUP,), setup._auto_setup),
        _a("COR-1", "Salusa Secundus (Sardaukar)", (S.RECRUIT,), recruit.legal_recruit),
        _a("COR-2", "CHOAM", (S.END_TURN,), turn.run_end_turn, queries.add_storage),
        _a(
            "COR-3",
            "Spice gift to the ally",
            (S.LANDING,),
            landing.run_gift,
            landing.apply_gift,
            decisions=(K.SPICE_GIFT,),
        ),
    ),
    Faction.GUILD: (
        _a("GLD-0", "Set-up", (S.SETUP,), setup._auto_setup),
        _a("GLD-1", "Transport monopoly", (S.LANDING,), landing._guild_income),
        _a("GLD-2", "Ruthless calculation", (S.END_TURN,), turn.run_end_turn),
        _a("GLD-3", "Evacuation", (S.BATTLE, S.STORM), battle._side_losses, storm.storm_damage),
    ),
    Faction.BENE_GESSERIT: (
        _a(
            "BG-0",
            "Set-up and prediction",
            (S.SETUP,),
            setup.legal_prediction,
            setup.apply_prediction,
            decisions=(K.BG_PREDICTION,),
        ),
        _a("BG-1", "Plans within plans", (S.END_TURN,), turn.bene_gesserit_steal),
        _a("BG-2", "The Voice", (S.ALLY, S.LANDING), ally.legal_answer, landing.run_consent),
        _a("BG-3", "Prana-bindu", (S.KANLY,), rules.kanly_protected),
    ),
    Faction.SMUGGLERS: (
        _a("SMG-0", "Set-up", (S.SETUP,), setup._auto_setup),
        _a(
            "SMG-1",
            "Soldiers of fortune",
            (S.RECRUIT, S.LANDING),
            recruit.begin_recruit,
            landing._land_cost,
            landing._lands_anywhere,
        ),
        _a(
            "SMG-2",
            "Running rat",
            (S.MOVEMENT,),
            movement.running_rat_allowed,
            movement.legal_target,
        ),
        _a("SMG-3", "Anyone may offer an alliance", (S.ALLY,), ally.legal_offer),
    ),
}


def abilities(faction: int) -> tuple[Ability, ...]:
    """The abilities of `faction`, in rule order."""
    return FACTION_ABILITIES[Faction(faction)]


def ability(rule: str) -> Ability:
    """The ability with rule ID `rule` (e.g. "FRE-3")."""
    for listed in FACTION_ABILITIES.values():
        for a in listed:
            if a.rule == rule:
                return a
    known = ", ".join(a.rule for listed in FACTION_ABILITIES.values() for a in listed)
    raise KeyError(f"no faction ability {rule!r}; the abilities are {known}")


def _where(function: Callable[..., object]) -> str:
    module = function.__module__.removeprefix("dune_env.engine.")
    return f"`{module}.{function.__name__}`"


def markdown_table() -> str:
    """The table as Markdown, one row per ability (docs/architecture.md embeds it)."""
    lines = [
        "| Faction | Rule | Ability | Step | Decision kinds | Implemented by |",
        "|---|---|---|---|---|---|",
    ]
    for faction, listed in FACTION_ABILITIES.items():
        for a in listed:
            steps = ", ".join(STEP_NAMES[s] for s in a.steps)
            kinds = ", ".join(f"`{k.name}`" for k in a.decisions)
            where = ", ".join(_where(f) for f in a.implemented_by)
            lines.append(
                f"| {FACTION_NAMES[faction]} | {a.rule} | {a.name} | {steps} | {kinds} | {where} |"
            )
    return "\n".join(lines) + "\n"


__all__ = ["FACTION_ABILITIES", "STEP_NAMES", "Ability", "Step", "ability", "abilities"]


if __name__ == "__main__":
    print(markdown_table(), end="")
