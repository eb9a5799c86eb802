"""Positions built with dune_env.engine.Scenario for decisions that random play rarely reaches.

Each function returns (game, expected pending kind) at the moment that decision is asked.
"""

from __future__ import annotations

from collections.abc import Callable

from dune_env.engine import DecisionKind, Game, KanlyFace, Phase, Region, Scenario, Token
from dune_env.engine import Faction as F

R = Region
SIX = [F.TLEILAX, F.ATREIDES, F.HARKONNEN, F.FREMEN, F.CORRINO, F.GUILD]


def _advance_to(game: Game, kind: DecisionKind) -> Game:
    for _ in range(20):
        pending = game.pending
        assert pending is not None
        if pending.kind == kind:
            return game
        game.apply(pending.options[0])
    raise AssertionError(f"{kind.name} was not reached")


def harkonnen_fortress_battle(skip_forced: bool = False) -> Game:
    """Harkonnen attacks Atreides in Arrakeen, which holds a fortress (HAR-2, BATTLE-3)."""
    return (
        Scenario([F.HARKONNEN, F.ATREIDES, F.FREMEN], skip_forced_decisions=skip_forced)
        .units(F.HARKONNEN, R.ARRAKEEN, 2)
        .units(F.ATREIDES, R.ARRAKEEN, 2)
        .token(R.ARRAKEEN, Token.FORTRESS)
        .storm(1)
        .dice(factions=[F.HARKONNEN] * 4, region=5, spice=1, kanly=KanlyFace.SHIELD)
        .active(F.HARKONNEN)
        .at(Phase.BATTLE_SELECT)
    )


def infiltration() -> Game:
    return _advance_to(harkonnen_fortress_battle(), DecisionKind.INFILTRATION)


def fortress_victim() -> Game:
    game = infiltration()
    game.apply(0)  # no infiltration: the fortress takes a unit
    return _advance_to(game, DecisionKind.FORTRESS_VICTIM)


def battle_order() -> Game:
    return (
        Scenario([F.HARKONNEN, F.ATREIDES, F.FREMEN])
        .units(F.HARKONNEN, R.ARRAKEEN, 2)
        .units(F.ATREIDES, R.ARRAKEEN, 2)
        .units(F.HARKONNEN, R.CARTHAG, 2)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .storm(1)
        .dice(factions=[F.HARKONNEN] * 4, region=5, spice=1, kanly=KanlyFace.SHIELD)
        .active(F.HARKONNEN)
        .at(Phase.BATTLE_SELECT)
    )


def ghola() -> Game:
    return (
        Scenario(SIX)
        .units(F.TLEILAX, R.POLAR_CAP, 2)
        .storm(1)
        .dice(factions=[F.ATREIDES] * 4, region=5, spice=2, kanly=KanlyFace.SHIELD)
        .axolotl(F.ATREIDES)
        .active(F.TLEILAX)
        .at(Phase.GHOLA)
    )


def face_dancer() -> Game:
    return (
        Scenario(SIX)
        .units(F.TLEILAX, R.CARTHAG, 2)
        .units(F.ATREIDES, R.CARTHAG, 2)
        .storm(1)
        .dice(
            factions=[F.ATREIDES, F.ATREIDES, F.CORRINO, F.HARKONNEN],
            region=5,
            spice=2,
            kanly=KanlyFace.SHIELD,
        )
        .axolotl(F.CORRINO)
        .pool(0)
        .active(F.TLEILAX)
        .at(Phase.BATTLE_SELECT)
    )


def harvester_discard() -> Game:
    return (
        Scenario([F.ATREIDES, F.HARKONNEN, F.FREMEN])
        .units(F.ATREIDES, R.CARTHAG, 2)
        .units(F.ATREIDES, R.SIETCH_TABR, 1)
        .token(R.CARTHAG, Token.HARVESTER)
        .token(R.SIETCH_TABR, Token.HARVESTER)
        .storm(1)
        .dice(factions=[F.ATREIDES] * 4, region=5, spice="worm", kanly=KanlyFace.SHIELD)
        .active(F.ATREIDES)
        .at(Phase.LAND_START)
    )


def bid_battle() -> Game:
    """Harkonnen (seat 1, active) attacks Atreides (seat 0) in Carthag: the attacker's bid is
    pending.  Both sides have units and leaders; 5 players, the Bene Gesserit at seat 4."""
    return (
        Scenario([F.ATREIDES, F.HARKONNEN, F.FREMEN, F.CORRINO, F.BENE_GESSERIT])
        .units(F.HARKONNEN, R.CARTHAG, 3)
        .units(F.ATREIDES, R.CARTHAG, 2)
        .units(F.FREMEN, R.POLAR_CAP, 2)
        .leaders(F.HARKONNEN, 1)
        .leaders(F.ATREIDES, 2)
        .prediction(F.FREMEN)
        .storm(1)
        .dice(factions=[F.HARKONNEN] * 4, region=4, spice=1, kanly=KanlyFace.SHIELD)
        .active(F.HARKONNEN)
        .at(Phase.BATTLE_SELECT)
    )


RARE: dict[DecisionKind, Callable[[], Game]] = {
    DecisionKind.INFILTRATION: infiltration,
    DecisionKind.FORTRESS_VICTIM: fortress_victim,
    DecisionKind.BATTLE_ORDER: battle_order,
    DecisionKind.GHOLA: ghola,
    DecisionKind.FACE_DANCER: face_dancer,
    DecisionKind.HARVESTER_DISCARD: harvester_discard,
    DecisionKind.BID: bid_battle,
}
