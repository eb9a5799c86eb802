"""Faction abilities (RULES.md §7): ATR-0..3, HAR-0..2, FRE-0..3, TLX-0..5, COR-0..3, GLD-0..3,
BG-0..3, SMG-0..3.  Every test names the rule ID it checks."""

from __future__ import annotations

import pytest

from dune_env.engine import (
    CARD,
    RESERVE,
    DecisionKind,
    Game,
    GameConfig,
    KanlyFace,
    Phase,
    Region,
    Scenario,
    Token,
)
from dune_env.engine import options as opt
from dune_env.engine.constants import FACTION_DIE_SYMBOLS, Die
from dune_env.engine.decisions import (
    BID_DONE,
    KANLY_NONE,
    KANLY_TAKE,
    LAND_SMUGGLERS_LEADER,
    LAND_STOP,
    RECRUIT_ELITE,
    RECRUIT_LEADER,
    RECRUIT_STOP,
    RECRUIT_UNIT,
    bid_leader_option,
    kanly_kill_option,
    land_option,
    move_option,
    offer_option,
    unit_option,
)
from dune_env.engine.events import EventKind
from dune_env.engine.state import uidx

from .common import ATR, BG, COR, ELITE, FRE, GLD, HAR, POLAR, REG, SMG, TLX

ATTACKER_WINS, DEFENDER_WINS = 0, 1

FIVE = [ATR, HAR, FRE, COR, GLD]  # a 5-player table (alliances allowed, ALLY-1)
SIX = [TLX, HAR, FRE, COR, GLD, SMG]  # a 6-player table with Tleilax and Smugglers


# --- helpers ---------------------------------------------------------------------------------


def setup_game(*factions: int, seed: int = 0) -> Game:
    """A fresh game with assigned factions that asks every decision (no auto-apply)."""
    cfg = GameConfig(
        num_players=len(factions),
        faction_mode="assigned",
        factions=tuple(int(f) for f in factions),
        skip_forced_decisions=False,
    )
    return Game(cfg, seed=seed)


def expect(game: Game, kind: DecisionKind, faction: int | None = None) -> tuple[int, ...]:
    """Assert the pending decision's kind (and decider) and return its options."""
    d = game.pending
    assert d is not None, "no decision pending"
    assert d.kind == kind, f"expected {kind.name}, pending {d.kind.name} of faction {d.faction}"
    if faction is not None:
        assert d.faction == faction, f"{kind.name} asked of {d.faction}, not {faction}"
    return d.options


def bid(game: Game, faction: int, *options: int) -> None:
    """Play one side's hidden bid (BATTLE-5): commit the options, then done (unless "done"
    was the only option left and so applied automatically)."""
    expect(game, DecisionKind.BID, faction)
    for option in options:
        game.apply(option)
    d = game.pending
    if d is not None and d.kind == DecisionKind.BID and d.faction == faction:
        game.apply(BID_DONE)


def n(game: Game, faction: int, location: int, unit_type: int | None = None) -> int:
    """Units of a faction at a location (both types unless one is named)."""
    if unit_type is None:
        return game.state.count(faction, location)
    return game.state.units[faction][uidx(location, unit_type)]


def last_battle(game: Game) -> tuple[int, int, int]:
    """(attacker strength, defender strength, winning side) of the last battle."""
    lb = game.state.last_battle
    assert lb is not None, "no battle was fought"
    return lb.attacker_strength, lb.defender_strength, lb.winner_side


def six_player_setup() -> Game:
    """A 6-player game after SETUP-6 (Harkonnen picks its region; the rest is automatic)."""
    game = setup_game(*SIX)
    game.apply(Region.BROKEN_LAND)  # HAR-0
    expect(game, DecisionKind.FIX_DICE)
    return game


# --- Atreides --------------------------------------------------------------------------------


def test_atr_0_setup_both_leaders_and_two_units_in_chosen_non_strategic_region() -> None:
    game = setup_game(ATR, HAR, FRE)
    options = expect(game, DecisionKind.ATREIDES_START, ATR)
    # ATR-0: a non-strategic region (never a strategic one, never the neutral Polar Cap).
    assert options == (
        Region.CIELAGO_PLAIN,
        Region.GREAT_FLAT,
        Region.BROKEN_LAND,
        Region.MINOR_ERG,
    )
    game.apply(Region.MINOR_ERG)
    s = game.state
    assert n(game, ATR, Region.MINOR_ERG) == 2
    assert sum(n(game, ATR, r) for r in range(10)) == 2
    assert s.leaders[ATR] == [2, 0]  # Leto and Duncan Idaho both on the card
    assert n(game, ATR, CARD) == 0
    assert n(game, ATR, RESERVE) == 10


@pytest.mark.parametrize(
    ("leaders", "strength", "winner"),
    [(1, 3, DEFENDER_WINS), (2, 5, ATTACKER_WINS)],
)
def test_atr_1_one_leader_is_3_both_leaders_are_5(leaders: int, strength: int, winner: int) -> None:
    """ATR-1: one leader token is strength 3, both together 5; only the committed go."""
    game = (
        Scenario([ATR, HAR, FRE])
        .units(ATR, Region.CARTHAG, 1)
        .leaders(ATR, 2)
        .units(HAR, Region.CARTHAG, 4)
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    bid(game, ATR, *[bid_leader_option(ATR)] * leaders)
    bid(game, HAR, *[unit_option(HAR, REG)] * 4)
    assert last_battle(game) == (strength, 4, winner)
    assert game.state.leaders[ATR] == [2 - leaders, leaders]


def test_atr_1_two_leader_tokens_can_be_committed_together() -> None:
    """ATR-1: the bid offers the Atreides leader option twice (two tokens), not a third time."""
    game = (
        Scenario([ATR, HAR, FRE])
        .units(ATR, Region.CARTHAG, 1)
        .leaders(ATR, 2)
        .units(HAR, Region.CARTHAG, 1)
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    assert bid_leader_option(ATR) in expect(game, DecisionKind.BID, ATR)
    game.apply(bid_leader_option(ATR))
    assert bid_leader_option(ATR) in expect(game, DecisionKind.BID, ATR)
    game.apply(bid_leader_option(ATR))
    assert bid_leader_option(ATR) not in expect(game, DecisionKind.BID, ATR)


def test_atr_2_at_most_one_leader_per_recruit_step() -> None:
    game = (
        Scenario([ATR, HAR, FRE], skip_forced_decisions=False)
        .dice(factions=[ATR, ATR, ATR, ATR])
        .active(ATR)
        .at(Phase.RECRUIT_ACTIVE)
    )
    assert game.state.leaders[ATR] == [0, 2]
    assert RECRUIT_LEADER in expect(game, DecisionKind.RECRUIT, ATR)
    game.apply(RECRUIT_LEADER)
    # The second token is still in the reserve and three dice remain, but ATR-2 forbids it.
    assert game.state.leaders[ATR] == [1, 1]
    assert expect(game, DecisionKind.RECRUIT, ATR) == (RECRUIT_STOP, RECRUIT_UNIT)
    game.apply(RECRUIT_UNIT)
    assert expect(game, DecisionKind.RECRUIT, ATR) == (RECRUIT_STOP, RECRUIT_UNIT)


def _duel_battle(defender_leader: bool) -> Game:
    """Atreides attacks Carthag with 3 units and Leto; the Harkonnen holds it."""
    scenario = (
        Scenario([ATR, HAR, FRE])
        .units(ATR, Region.CARTHAG, 3)
        .leaders(ATR, 1)
        .units(HAR, Region.CARTHAG, 2)
        .active(ATR)
    )
    if defender_leader:
        scenario.leaders(HAR, 1)
    return scenario.at(Phase.BATTLE_SELECT)


def test_atr_3_honourable_duel_winning_attacker_units_return_to_card() -> None:
    game = _duel_battle(defender_leader=True)
    bid(game, ATR, unit_option(ATR, REG), unit_option(ATR, REG), bid_leader_option(ATR))
    bid(game, HAR, bid_leader_option(HAR))
    assert last_battle(game) == (5, 4, ATTACKER_WINS)
    assert n(game, ATR, CARD) == 2  # the 2 committed units go back to the card
    assert n(game, ATR, Region.CARTHAG) == 1
    assert n(game, ATR, RESERVE) == 9  # unchanged
    assert game.state.leaders[ATR] == [0, 2]  # the leader goes to the reserve as usual
    assert n(game, HAR, Region.CARTHAG) == 0


def test_atr_3_no_duel_when_the_enemy_commits_no_leader() -> None:
    game = _duel_battle(defender_leader=False)
    bid(game, ATR, unit_option(ATR, REG), unit_option(ATR, REG), bid_leader_option(ATR))
    bid(game, HAR, unit_option(HAR, REG))
    assert last_battle(game) == (5, 1, ATTACKER_WINS)
    assert n(game, ATR, CARD) == 0
    assert n(game, ATR, RESERVE) == 11


def test_atr_3_no_duel_when_atreides_loses() -> None:
    """ATR-3: losing units are 'defeated', not 'used'."""
    game = _duel_battle(defender_leader=True)
    bid(game, ATR, unit_option(ATR, REG), bid_leader_option(ATR))
    bid(game, HAR, unit_option(HAR, REG), bid_leader_option(HAR))
    assert last_battle(game) == (4, 5, DEFENDER_WINS)
    assert n(game, ATR, CARD) == 0
    assert n(game, ATR, Region.CARTHAG) == 0
    assert n(game, ATR, RESERVE) == 12


def test_atr_3_honourable_duel_as_defender() -> None:
    game = (
        Scenario([ATR, HAR, FRE])
        .units(HAR, Region.CARTHAG, 2)
        .leaders(HAR, 1)
        .units(ATR, Region.CARTHAG, 2)
        .leaders(ATR, 1)
        .active(HAR)
        .at(Phase.BATTLE_SELECT)
    )
    expect(game, DecisionKind.BID, HAR)
    bid(game, HAR, bid_leader_option(HAR))
    bid(game, ATR, unit_option(ATR, REG), unit_option(ATR, REG), bid_leader_option(ATR))
    assert last_battle(game) == (4, 5, DEFENDER_WINS)
    assert n(game, ATR, CARD) == 2
    assert n(game, ATR, RESERVE) == 10
    assert n(game, HAR, Region.CARTHAG) == 0


def test_atr_3_as_attackers_ally_duel_also_returns_active_players_units() -> None:
    """ATR-3: as the active player's ally the duel saves the active player's units too."""
    game = (
        Scenario(FIVE)
        .units(HAR, Region.CARTHAG, 3)
        .leaders(HAR, 1)
        .units(ATR, Region.CARTHAG, 1)
        .leaders(ATR, 1)
        .units(COR, Region.CARTHAG, 2)
        .leaders(COR, 1)
        .active(HAR)
        .ally(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    expect(game, DecisionKind.LEND_LEADER, ATR)
    game.apply(1)
    bid(
        game,
        HAR,
        unit_option(HAR, REG),
        unit_option(HAR, REG),
        unit_option(ATR, REG),
        bid_leader_option(ATR),
    )
    bid(game, COR, unit_option(COR, REG), bid_leader_option(COR))
    assert last_battle(game) == (6, 4, ATTACKER_WINS)
    assert n(game, HAR, CARD) == 2
    assert n(game, HAR, Region.CARTHAG) == 1
    assert n(game, ATR, CARD) == 1
    assert game.state.leaders[ATR] == [0, 2]


def test_atr_3_as_attacker_only_atreides_units_return() -> None:
    """ATR-3: as the attacker the duel applies to the Atreides units only, not the ally's."""
    game = (
        Scenario(FIVE)
        .units(ATR, Region.CARTHAG, 2)
        .leaders(ATR, 1)
        .units(COR, Region.CARTHAG, 2)
        .units(HAR, Region.CARTHAG, 1)
        .leaders(HAR, 1)
        .active(ATR)
        .ally(COR)
        .at(Phase.BATTLE_SELECT)
    )
    bid(
        game,
        ATR,
        unit_option(ATR, REG),
        unit_option(ATR, REG),
        unit_option(COR, REG),
        unit_option(COR, REG),
        bid_leader_option(ATR),
    )
    bid(game, HAR, bid_leader_option(HAR))
    assert last_battle(game) == (7, 4, ATTACKER_WINS)
    assert n(game, ATR, CARD) == 2
    assert n(game, COR, CARD) == 0
    assert n(game, COR, RESERVE, REG) == 8


def test_atr_3_ally_lending_leader_without_units_in_the_region() -> None:
    """ATR-3 / BATTLE-4: the Atreides ally may lend Leto with no units in the region; the duel
    then returns the active player's committed units to its card."""
    game = (
        Scenario(FIVE)
        .units(HAR, Region.CARTHAG, 2)
        .units(ATR, Region.ARRAKEEN, 1)
        .leaders(ATR, 1)
        .units(COR, Region.CARTHAG, 1)
        .leaders(COR, 1)
        .active(HAR)
        .ally(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    expect(game, DecisionKind.LEND_LEADER, ATR)
    game.apply(1)
    bid(game, HAR, unit_option(HAR, REG), bid_leader_option(ATR))
    bid(game, COR, bid_leader_option(COR))
    assert last_battle(game) == (4, 3, ATTACKER_WINS)
    assert n(game, HAR, CARD) == 1
    assert n(game, HAR, Region.CARTHAG) == 1
    assert n(game, HAR, RESERVE) == 10


def test_atr_3_duel_when_the_atreides_ally_keeps_its_leader_but_the_active_commits_one() -> None:
    """ATR-3 (RULES.md: "both sides committed a leader and your side won"): the Atreides ally
    keeps Leto home, the active Harkonnen commits its own leader and wins against a leader; the
    Atreides' side committed a leader, so the duel saves the committed units of both."""
    game = (
        Scenario(FIVE)
        .units(HAR, Region.CARTHAG, 3)
        .leaders(HAR, 1)
        .units(ATR, Region.CARTHAG, 1)
        .leaders(ATR, 1)
        .units(COR, Region.CARTHAG, 2)
        .leaders(COR, 1)
        .active(HAR)
        .ally(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    expect(game, DecisionKind.LEND_LEADER, ATR)
    game.apply(0)  # Leto stays home
    bid(
        game,
        HAR,
        unit_option(HAR, REG),
        unit_option(HAR, REG),
        unit_option(ATR, REG),
        bid_leader_option(HAR),
    )
    bid(game, COR, unit_option(COR, REG), bid_leader_option(COR))
    assert last_battle(game) == (7, 4, ATTACKER_WINS)
    assert game.state.leaders[ATR] == [1, 1]  # Leto stayed on the card, Duncan in reserve
    assert n(game, HAR, CARD) == 2
    assert n(game, ATR, CARD) == 1
    assert game.state.leaders[HAR] == [0, 1]  # the leader goes to the reserve as usual


def test_atr_3_atreides_attacker_winning_with_a_lent_leader_keeps_its_units() -> None:
    """ATR-3: the Atreides attacker commits the Baron lent by its Harkonnen ally and 2 units
    against Corrino's Shaddam and wins 6-3: both sides used a leader, so its 2 committed units
    return to its card (the engine used to demand an Atreides leader and sent them to the
    reserve)."""
    game = (
        Scenario(FIVE)
        .units(ATR, Region.CARTHAG, 3)
        .units(HAR, Region.ARRAKEEN, 1)
        .leaders(HAR, 1)
        .units(COR, Region.CARTHAG, 2)
        .leaders(COR, 1)
        .active(ATR)
        .ally(HAR)
        .at(Phase.BATTLE_SELECT)
    )
    expect(game, DecisionKind.LEND_LEADER, HAR)
    game.apply(1)
    bid(game, ATR, unit_option(ATR, REG), unit_option(ATR, REG), bid_leader_option(HAR))
    bid(game, COR, bid_leader_option(COR))
    assert last_battle(game) == (6, 3, ATTACKER_WINS)
    assert n(game, ATR, CARD) == 2
    assert n(game, ATR, Region.CARTHAG) == 1
    assert n(game, ATR, RESERVE) == 9  # unchanged
    assert game.state.leaders[HAR] == [0, 1]  # the lent Baron goes to its owner's reserve


def test_atr_3_no_duel_for_the_atreides_ally_when_the_winners_commit_no_leader() -> None:
    """ATR-3 needs a leader on both sides: the Harkonnen wins with units only against Corrino's
    leader, so the committed units of the Atreides ally and of the active player are used up."""
    game = (
        Scenario(FIVE)
        .units(HAR, Region.CARTHAG, 3)
        .units(ATR, Region.CARTHAG, 2)
        .leaders(ATR, 1)
        .units(COR, Region.CARTHAG, 1)
        .leaders(COR, 1)
        .active(HAR)
        .ally(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    expect(game, DecisionKind.LEND_LEADER, ATR)
    game.apply(0)
    bid(
        game,
        HAR,
        unit_option(HAR, REG),
        unit_option(HAR, REG),
        unit_option(ATR, REG),
        unit_option(ATR, REG),
    )
    bid(game, COR, bid_leader_option(COR))
    assert last_battle(game) == (4, 3, ATTACKER_WINS)
    assert n(game, HAR, CARD) == 0
    assert n(game, ATR, CARD) == 0
    assert n(game, ATR, RESERVE) == 12


# --- Harkonnen -------------------------------------------------------------------------------


def test_har_0_setup_two_units_and_unused_token_in_empty_non_strategic_region() -> None:
    game = setup_game(ATR, HAR, FRE)
    s = game.state
    unused = [t for t in range(3) if s.token_supply[t] > 0]
    assert len(unused) == 1  # SETUP-2: one token stays in the common supply
    game.apply(Region.CIELAGO_PLAIN)  # ATR-0
    options = expect(game, DecisionKind.HARKONNEN_START, HAR)
    assert options == (Region.GREAT_FLAT, Region.BROKEN_LAND, Region.MINOR_ERG)  # empty only
    game.apply(Region.BROKEN_LAND)
    assert n(game, HAR, Region.BROKEN_LAND) == 2
    assert n(game, HAR, RESERVE) == 10
    assert s.region_token[Region.BROKEN_LAND] == unused[0]
    assert s.token_supply == [0, 0, 0]


def _harkonnen_roll(faction: int, kanly: int) -> Game:
    return (
        Scenario([ATR, HAR, FRE], skip_forced_decisions=False)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(HAR, Region.CARTHAG, 1)
        .active(faction)
        .force(0, 0, 0, 0, 3, 0, kanly)  # faction dice Atreides, region 4, spice 1
        .at_turn_start()
    )


def test_har_1_piter_de_vries_turns_the_kanly_die_to_poison() -> None:
    game = _harkonnen_roll(HAR, KanlyFace.SNOOPER)
    game.apply(0b1111111)
    assert expect(game, DecisionKind.PITER_DE_VRIES, HAR) == (0, 1)
    game.apply(1)
    assert game.state.dice_faces[Die.KANLY] == KanlyFace.POISON
    options = expect(game, DecisionKind.KANLY, HAR)
    assert kanly_kill_option(Region.ARRAKEEN, ATR, REG) in options
    assert KANLY_TAKE not in options


def test_har_1_declining_piter_keeps_the_face() -> None:
    game = _harkonnen_roll(HAR, KanlyFace.SNOOPER)
    game.apply(0b1111111)
    game.apply(0)
    assert game.state.dice_faces[Die.KANLY] == KanlyFace.SNOOPER
    assert expect(game, DecisionKind.KANLY, HAR) == (KANLY_NONE, KANLY_TAKE)


def test_har_1_piter_is_harkonnen_only() -> None:
    game = _harkonnen_roll(ATR, KanlyFace.SNOOPER)
    game.apply(0b1111111)
    assert game.pending is not None
    assert game.pending.kind != DecisionKind.PITER_DE_VRIES
    assert game.state.dice_faces[Die.KANLY] == KanlyFace.SNOOPER


def test_har_1_not_offered_when_the_kanly_die_already_shows_poison() -> None:
    game = _harkonnen_roll(HAR, KanlyFace.POISON)
    game.apply(0b1111111)
    assert kanly_kill_option(Region.ARRAKEEN, ATR, REG) in expect(game, DecisionKind.KANLY, HAR)


def _fortress_battle(attacker: int) -> Game:
    other = ATR if attacker == HAR else HAR
    return (
        Scenario([ATR, HAR, FRE], skip_forced_decisions=False)
        .units(attacker, Region.CARTHAG, 2)
        .units(other, Region.CARTHAG, 1)
        .token(Region.CARTHAG, Token.FORTRESS)
        .active(attacker)
        .at(Phase.BATTLE_SELECT)
    )


def test_har_2_infiltration_ignores_the_fortress() -> None:
    game = _fortress_battle(HAR)
    game.apply(Region.CARTHAG)  # BATTLE_ORDER
    assert expect(game, DecisionKind.INFILTRATION, HAR) == (0, 1)
    game.apply(1)
    assert n(game, HAR, Region.CARTHAG) == 2  # no unit removed
    assert game.state.region_token[Region.CARTHAG] == Token.FORTRESS
    bid(game, HAR, unit_option(HAR, REG), unit_option(HAR, REG))
    bid(game, ATR)
    assert game.state.region_token[Region.CARTHAG] == Token.FORTRESS  # the fortress stays


def test_har_2_declined_infiltration_fortress_works() -> None:
    game = _fortress_battle(HAR)
    game.apply(Region.CARTHAG)
    game.apply(0)
    assert expect(game, DecisionKind.FORTRESS_VICTIM, HAR) == (unit_option(HAR, REG) - 1,)
    game.apply(unit_option(HAR, REG) - 1)
    assert n(game, HAR, Region.CARTHAG) == 1
    assert game.state.region_token[Region.CARTHAG] == -1


def test_har_2_infiltration_is_harkonnen_only() -> None:
    game = _fortress_battle(ATR)
    game.apply(Region.CARTHAG)
    expect(game, DecisionKind.FORTRESS_VICTIM, ATR)


# --- Fremen ----------------------------------------------------------------------------------


def test_fre_0_setup_one_unit_in_each_empty_non_strategic_region() -> None:
    game = setup_game(ATR, HAR, FRE)
    game.apply(Region.CIELAGO_PLAIN)  # ATR-0
    game.apply(Region.GREAT_FLAT)  # HAR-0
    expect(game, DecisionKind.FIX_DICE)
    assert n(game, FRE, Region.BROKEN_LAND) == 1
    assert n(game, FRE, Region.MINOR_ERG) == 1
    assert n(game, FRE, Region.CIELAGO_PLAIN) == 0
    assert n(game, FRE, Region.GREAT_FLAT) == 0
    assert n(game, FRE, POLAR) == 0
    assert n(game, FRE, RESERVE) == 6
    assert game.state.leaders[FRE] == [1, 0]


@pytest.mark.parametrize(
    ("factions", "expected"),
    [((FRE, COR, GLD), 4), ((ATR, FRE, COR), 3)],
)
def test_fre_0_two_to_four_units_depending_on_atreides_and_harkonnen(
    factions: tuple[int, ...], expected: int
) -> None:
    game = setup_game(*factions)
    if ATR in factions:
        game.apply(Region.MINOR_ERG)
    expect(game, DecisionKind.FIX_DICE)
    regions = (Region.CIELAGO_PLAIN, Region.GREAT_FLAT, Region.BROKEN_LAND, Region.MINOR_ERG)
    assert sum(n(game, FRE, r) for r in regions) == expected
    assert all(n(game, FRE, r) <= 1 for r in regions)
    assert n(game, FRE, RESERVE) == 8 - expected


def test_fre_1_own_turn_each_unit_costs_two_symbols() -> None:
    game = (
        Scenario([ATR, HAR, FRE], skip_forced_decisions=False)
        .leaders(FRE, 1)
        .dice(factions=[FRE, FRE, FRE, ATR])
        .active(FRE)
        .at(Phase.RECRUIT_ACTIVE)
    )
    assert expect(game, DecisionKind.RECRUIT, FRE) == (RECRUIT_STOP, RECRUIT_UNIT)
    game.apply(RECRUIT_UNIT)
    # One Fremen die is left: not enough for a unit, so the recruit step is over.
    assert n(game, FRE, CARD) == 1
    assert game.state.dice_used == [True, True, False, False]
    assert game.pending is not None and game.pending.kind != DecisionKind.RECRUIT


def test_fre_1_own_turn_four_symbols_recruit_two_units() -> None:
    game = (
        Scenario([ATR, HAR, FRE])
        .leaders(FRE, 1)
        .dice(factions=[FRE, FRE, FRE, FRE])
        .active(FRE)
        .at(Phase.RECRUIT_ACTIVE)
    )
    game.apply(RECRUIT_UNIT)
    game.apply(RECRUIT_UNIT)
    assert n(game, FRE, CARD) == 2
    assert n(game, FRE, RESERVE) == 6


def test_fre_1_as_ally_one_symbol_per_unit() -> None:
    game = (
        Scenario(FIVE, skip_forced_decisions=False)
        .dice(factions=[FRE, FRE, ATR, COR])
        .active(ATR)
        .ally(FRE)
        .at(Phase.RECRUIT_ACTIVE)
    )
    expect(game, DecisionKind.RECRUIT, ATR)
    game.apply(RECRUIT_STOP)
    # The ally never recruits its leader (RECRUIT-2), but a unit costs one symbol (FRE-1).
    assert expect(game, DecisionKind.RECRUIT, FRE) == (RECRUIT_STOP, RECRUIT_UNIT)
    game.apply(RECRUIT_UNIT)
    assert expect(game, DecisionKind.RECRUIT, FRE) == (RECRUIT_STOP, RECRUIT_UNIT)
    game.apply(RECRUIT_UNIT)
    assert n(game, FRE, CARD) == 2


def test_fre_1_units_count_two_in_battle() -> None:
    game = (
        Scenario([ATR, HAR, FRE])
        .units(FRE, Region.CARTHAG, 2)
        .units(HAR, Region.CARTHAG, 3)
        .active(FRE)
        .at(Phase.BATTLE_SELECT)
    )
    bid(game, FRE, unit_option(FRE, REG), unit_option(FRE, REG))
    bid(game, HAR, *[unit_option(HAR, REG)] * 3)
    assert last_battle(game) == (4, 3, ATTACKER_WINS)


def test_fre_2_fremen_units_never_die_to_the_storm() -> None:
    game = (
        Scenario([ATR, HAR, FRE])
        .units(FRE, Region.GREAT_FLAT, 1)
        .units(HAR, Region.GREAT_FLAT, 1)
        .storm(3)
        .dice(region=2, spice=3)  # storm symbol; face 2 shows E (CL-1): sector 3 -> 2
        .active(ATR)
        .at(Phase.STORM)
    )
    assert game.state.storm_sector == 2
    assert n(game, HAR, Region.GREAT_FLAT) == 0
    assert n(game, FRE, Region.GREAT_FLAT) == 1


@pytest.mark.parametrize(
    ("face", "fremen_targetable"),
    [(KanlyFace.CRYSKNIFE, False), (KanlyFace.HUNTER_SEEKER, True), (KanlyFace.POISON, True)],
)
def test_fre_2_crysknife_cannot_target_fremen(face: int, fremen_targetable: bool) -> None:
    game = (
        Scenario([ATR, HAR, FRE])
        .units(FRE, Region.ARRAKEEN, 1)
        .units(HAR, Region.ARRAKEEN, 1)
        .dice(kanly=face)
        .active(ATR)
        .at(Phase.KANLY)
    )
    options = expect(game, DecisionKind.KANLY, ATR)
    assert kanly_kill_option(Region.ARRAKEEN, HAR, REG) in options
    assert (kanly_kill_option(Region.ARRAKEEN, FRE, REG) in options) == fremen_targetable


@pytest.mark.parametrize("worm", [True, False])
def test_fre_3_worm_riding_from_any_region_not_in_the_storm(worm: bool) -> None:
    game = (
        Scenario([ATR, HAR, FRE], skip_forced_decisions=False)
        .units(FRE, Region.ARRAKEEN, 1)  # adjacent to Carthag
        .units(FRE, Region.TUEKS_SIETCH, 2)  # not adjacent
        .units(FRE, Region.CIELAGO_PLAIN, 1)  # in the storm
        .storm(1)
        .dice(region=4, spice="worm" if worm else 1)
        .active(FRE)
        .at(Phase.MOVE_TARGET)
    )
    game.apply(Region.CARTHAG)
    options = expect(game, DecisionKind.MOVE, FRE)
    assert move_option(Region.ARRAKEEN, REG) in options
    assert (move_option(Region.TUEKS_SIETCH, REG) in options) == worm
    assert move_option(Region.CIELAGO_PLAIN, REG) not in options
    if worm:
        game.apply(move_option(Region.TUEKS_SIETCH, REG))
        assert n(game, FRE, Region.CARTHAG) == 1


def test_fre_3_worm_riding_as_the_ally_in_move_3() -> None:
    game = (
        Scenario(FIVE, skip_forced_decisions=False)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, Region.MINOR_ERG, 1)
        .units(FRE, Region.TUEKS_SIETCH, 1)
        .dice(region=4, spice="worm")
        .active(ATR)
        .ally(FRE)
        .at(Phase.MOVE_TARGET)
    )
    game.apply(Region.CARTHAG)
    options = expect(game, DecisionKind.MOVE, ATR)
    assert move_option(Region.MINOR_ERG, REG) not in options  # worm riding is Fremen only
    game.apply(0)
    options = expect(game, DecisionKind.MOVE, FRE)
    assert move_option(Region.TUEKS_SIETCH, REG) in options


# --- Bene Tleilax ----------------------------------------------------------------------------


def test_tlx_0_setup_two_units_on_polar_cap_two_and_leader_on_card() -> None:
    game = six_player_setup()
    assert n(game, TLX, POLAR) == 2
    assert n(game, TLX, CARD) == 2
    assert game.state.leaders[TLX] == [1, 0]
    assert n(game, TLX, RESERVE) == 8


def test_tlx_1_axolotl_symbol_recruits_for_tleilax() -> None:
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .active(TLX)
        .force(2, 2, 1, 0, 3, 0, KanlyFace.SHIELD)  # Harkonnen, Harkonnen, Corrino, Atreides
        .at_turn_start()
    )
    game.apply(0b1111111)
    assert expect(game, DecisionKind.AXOLOTL_SYMBOL, TLX) == tuple(sorted(FACTION_DIE_SYMBOLS))
    game.apply(HAR)
    assert game.state.axolotl_symbol == HAR
    game.apply(0)  # ALLY_OFFER: nobody
    assert expect(game, DecisionKind.RECRUIT, TLX) == (RECRUIT_STOP, RECRUIT_UNIT, RECRUIT_LEADER)
    game.apply(RECRUIT_LEADER)
    assert expect(game, DecisionKind.RECRUIT, TLX) == (RECRUIT_STOP, RECRUIT_UNIT)
    game.apply(RECRUIT_UNIT)
    assert game.state.leaders[TLX] == [1, 0]
    assert n(game, TLX, CARD) == 1
    assert game.state.dice_used == [True, True, False, False]  # the two Harkonnen dice


def test_tlx_1_fremen_symbol_recruits_one_unit_per_die_for_tleilax() -> None:
    """TLX-1: one unit per die, even with the Fremen symbol (FRE-1 is the Fremen's own)."""
    game = (
        Scenario(SIX)
        .leaders(TLX, 1)
        .dice(factions=[FRE, FRE, COR, COR])
        .axolotl(FRE)
        .active(TLX)
        .at(Phase.RECRUIT_ACTIVE)
    )
    game.apply(RECRUIT_UNIT)
    game.apply(RECRUIT_UNIT)
    assert n(game, TLX, CARD) == 2


def test_tlx_2_offering_with_the_axolotl_symbol_splits_the_dice() -> None:
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .dice(factions=[HAR, HAR, HAR, COR])
        .axolotl(HAR)
        .active(TLX)
        .at(Phase.ALLY_OFFER)
    )
    assert offer_option(HAR, HAR) in expect(game, DecisionKind.ALLY_OFFER, TLX)
    game.apply(offer_option(HAR, HAR))
    expect(game, DecisionKind.ALLY_ANSWER, HAR)
    game.apply(1)
    assert expect(game, DecisionKind.DICE_SPLIT, TLX) == (1, 2, 3)
    game.apply(1)
    expect(game, DecisionKind.RECRUIT, TLX)
    game.apply(RECRUIT_UNIT)
    game.apply(RECRUIT_UNIT)
    expect(game, DecisionKind.RECRUIT, HAR)
    game.apply(RECRUIT_UNIT)
    assert n(game, TLX, CARD) == 2
    assert n(game, HAR, CARD) == 1
    assert game.state.dice_used == [True, True, True, False]


def test_tlx_2_no_split_when_allying_with_another_symbol() -> None:
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .dice(factions=[HAR, HAR, COR, COR])
        .axolotl(COR)
        .active(TLX)
        .at(Phase.ALLY_OFFER)
    )
    game.apply(offer_option(HAR, HAR))
    game.apply(1)
    expect(game, DecisionKind.RECRUIT, TLX)  # no DICE_SPLIT
    assert game.state.recruit_dice == [2, 3]
    assert game.state.ally_dice == [0, 1]


def test_tlx_3_anyone_may_offer_tleilax_with_any_showing_symbol() -> None:
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .dice(factions=[HAR, HAR, COR, GLD])
        .active(HAR)
        .at(Phase.ALLY_OFFER)
    )
    options = expect(game, DecisionKind.ALLY_OFFER, HAR)
    for symbol in (HAR, COR, GLD):
        assert offer_option(TLX, symbol) in options
    for symbol in (ATR, FRE, BG):
        assert offer_option(TLX, symbol) not in options
    game.apply(offer_option(TLX, COR))
    expect(game, DecisionKind.ALLY_ANSWER, TLX)
    game.apply(1)
    expect(game, DecisionKind.RECRUIT, HAR)
    game.apply(RECRUIT_UNIT)
    game.apply(RECRUIT_UNIT)
    # Tleilax recruits as the ally with the die of the offer's symbol; no leader as the ally.
    assert expect(game, DecisionKind.RECRUIT, TLX) == (RECRUIT_STOP, RECRUIT_UNIT)
    game.apply(RECRUIT_UNIT)
    assert n(game, HAR, CARD) == 2
    assert n(game, TLX, CARD) == 1
    assert game.state.dice_used == [True, True, True, False]  # the Guild die stays unused


def test_tlx_3_active_players_own_symbol_is_split_by_the_active_player() -> None:
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .dice(factions=[HAR, HAR, HAR, COR])
        .active(HAR)
        .at(Phase.ALLY_OFFER)
    )
    game.apply(offer_option(TLX, HAR))
    game.apply(1)
    assert expect(game, DecisionKind.DICE_SPLIT, HAR) == (1, 2, 3)
    game.apply(2)
    expect(game, DecisionKind.RECRUIT, HAR)
    game.apply(RECRUIT_UNIT)
    expect(game, DecisionKind.RECRUIT, TLX)  # the Harkonnen had one die only
    game.apply(RECRUIT_UNIT)
    game.apply(RECRUIT_UNIT)
    assert n(game, HAR, CARD) == 1
    assert n(game, TLX, CARD) == 2


def _face_dancer_scenario(factions: list[int], **config: object) -> Scenario:
    return (
        Scenario(SIX, **config)
        .units(TLX, Region.CARTHAG, 1)
        .leaders(TLX, 1)
        .units(HAR, Region.CARTHAG, 3)
        .dice(factions=factions, kanly=KanlyFace.SHIELD)
        .shield(TLX)
        .active(TLX)
    )


def test_tlx_4_face_dancers_one_enemy_unit_per_unused_die() -> None:
    game = _face_dancer_scenario([HAR, HAR, COR, FRE]).axolotl(FRE).at(Phase.BATTLE_SELECT)
    assert expect(game, DecisionKind.FACE_DANCER, TLX) == (0, unit_option(HAR, REG))
    game.apply(unit_option(HAR, REG))
    game.apply(unit_option(HAR, REG))
    # Both Harkonnen dice are spent (each die once): the bids follow.
    expect(game, DecisionKind.BID, TLX)
    assert n(game, HAR, Region.CARTHAG) == 1
    assert n(game, HAR, RESERVE) == 11
    assert n(game, TLX, Region.CARTHAG) == 3
    assert n(game, TLX, RESERVE) == 9


def test_tlx_4_dice_used_for_recruiting_cannot_be_face_dancers() -> None:
    # Region die 1 under the storm on sector 1: the movement target can only be the Polar Cap.
    scenario = _face_dancer_scenario([HAR, HAR, COR, FRE]).dice(region=1).storm(1)
    game = scenario.axolotl(HAR).at(Phase.ALLY_OFFER)
    game.apply(0)  # no alliance
    game.apply(RECRUIT_UNIT)  # one Harkonnen die recruits for the Tleilax
    game.apply(RECRUIT_STOP)  # the other stays unused
    game.apply(LAND_STOP)
    game.apply(0)  # MOVE: stay (target Polar Cap, forced)
    assert expect(game, DecisionKind.FACE_DANCER, TLX) == (0, unit_option(HAR, REG))
    game.apply(unit_option(HAR, REG))
    expect(game, DecisionKind.BID, TLX)  # one die was left, one replacement
    assert n(game, HAR, Region.CARTHAG) == 2


def test_tlx_4_each_die_once_across_battles() -> None:
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .units(TLX, Region.CARTHAG, 1)
        .units(TLX, Region.ARRAKEEN, 1)
        .leaders(TLX, 1)
        .units(HAR, Region.CARTHAG, 2)
        .units(HAR, Region.ARRAKEEN, 2)
        .dice(factions=[HAR, COR, COR, COR])
        .axolotl(FRE)
        .active(TLX)
        .at(Phase.BATTLE_SELECT)
    )
    game.apply(Region.CARTHAG)
    game.apply(unit_option(HAR, REG))
    bid(game, TLX, unit_option(TLX, REG), unit_option(TLX, REG))
    bid(game, HAR)
    game.apply(Region.ARRAKEEN)
    expect(game, DecisionKind.BID, TLX)  # the Harkonnen die is spent
    assert n(game, HAR, Region.ARRAKEEN) == 2


def test_tlx_4_die_must_show_a_present_enemy() -> None:
    game = _face_dancer_scenario([COR, COR, GLD, FRE]).axolotl(FRE).at(Phase.BATTLE_SELECT)
    expect(game, DecisionKind.BID, TLX)  # no face dancer decision
    assert n(game, HAR, Region.CARTHAG) == 3


def test_tlx_5_ghola_after_the_recruit_step() -> None:
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .dice(factions=[HAR, HAR, COR, COR], spice=2)
        .axolotl(ATR)
        .active(TLX)
        .at(Phase.RECRUIT_ACTIVE)
    )
    assert game.state.leaders[TLX] == [0, 1]
    assert expect(game, DecisionKind.GHOLA, TLX) == (0, 1)
    game.apply(1)
    assert game.state.leaders[TLX] == [1, 0]
    assert game.state.pool == 1


def test_tlx_5_ghola_not_offered_without_spice() -> None:
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .dice(factions=[HAR, HAR, COR, COR], spice="worm")
        .axolotl(ATR)
        .active(TLX)
        .at(Phase.RECRUIT_ACTIVE)
    )
    assert game.pending is not None and game.pending.kind != DecisionKind.GHOLA


def test_tlx_5_ghola_before_each_battle_as_often_as_wanted() -> None:
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .units(TLX, Region.CARTHAG, 1)
        .units(TLX, Region.ARRAKEEN, 1)
        .leaders(TLX, 1)
        .units(HAR, Region.CARTHAG, 1)
        .units(HAR, Region.ARRAKEEN, 1)
        .dice(factions=[COR, COR, COR, COR])
        .pool(3)
        .axolotl(ATR)
        .active(TLX)
        .at(Phase.BATTLE_SELECT)
    )
    assert expect(game, DecisionKind.BATTLE_ORDER, TLX) == (Region.CARTHAG, Region.ARRAKEEN)
    game.apply(Region.CARTHAG)
    bid(game, TLX, unit_option(TLX, REG), bid_leader_option(TLX))  # leader on card: no ghola
    bid(game, HAR)
    assert game.state.leaders[TLX] == [0, 1]
    expect(game, DecisionKind.BATTLE_ORDER, TLX)
    game.apply(Region.ARRAKEEN)
    expect(game, DecisionKind.GHOLA, TLX)
    game.apply(1)
    assert game.state.leaders[TLX] == [1, 0]
    assert game.state.pool == 2
    assert bid_leader_option(TLX) in expect(game, DecisionKind.BID, TLX)


# --- Corrino ---------------------------------------------------------------------------------


def test_cor_0_setup_leader_unit_sardaukar_on_card_and_three_spice() -> None:
    game = setup_game(FRE, COR, GLD)
    expect(game, DecisionKind.FIX_DICE)
    assert game.state.leaders[COR] == [1, 0]
    assert n(game, COR, CARD, REG) == 1
    assert n(game, COR, CARD, ELITE) == 1
    assert n(game, COR, RESERVE, REG) == 7
    assert n(game, COR, RESERVE, ELITE) == 3
    assert sum(n(game, COR, r) for r in range(10)) == 0
    assert game.state.storage[COR] == 3


def test_cor_1_two_dice_recruit_one_sardaukar() -> None:
    game = (
        Scenario([ATR, HAR, COR], skip_forced_decisions=False)
        .leaders(COR, 1)
        .dice(factions=[COR, COR, ATR, ATR])
        .active(COR)
        .at(Phase.RECRUIT_ACTIVE)
    )
    assert expect(game, DecisionKind.RECRUIT, COR) == (RECRUIT_STOP, RECRUIT_UNIT, RECRUIT_ELITE)
    game.apply(RECRUIT_ELITE)
    assert n(game, COR, CARD, ELITE) == 1
    assert n(game, COR, CARD, REG) == 0
    assert game.state.dice_used == [True, True, False, False]
    assert game.pending is not None and game.pending.kind != DecisionKind.RECRUIT


def test_cor_1_one_die_cannot_recruit_a_sardaukar() -> None:
    game = (
        Scenario([ATR, HAR, COR], skip_forced_decisions=False)
        .leaders(COR, 1)
        .dice(factions=[COR, ATR, ATR, ATR])
        .active(COR)
        .at(Phase.RECRUIT_ACTIVE)
    )
    assert RECRUIT_ELITE not in expect(game, DecisionKind.RECRUIT, COR)


def test_cor_1_sardaukar_counts_two_in_battle() -> None:
    game = (
        Scenario([ATR, HAR, COR])
        .units(COR, Region.CARTHAG, 1, ELITE)
        .units(HAR, Region.CARTHAG, 1)
        .active(COR)
        .at(Phase.BATTLE_SELECT)
    )
    bid(game, COR, unit_option(COR, ELITE))
    bid(game, HAR, unit_option(HAR, REG))
    assert last_battle(game) == (2, 1, ATTACKER_WINS)


@pytest.mark.parametrize(
    ("storage", "spice", "expected"),
    [(0, 2, 4), (1, "worm", 1), (3, 2, 5), (0, 3, 5), (2, 1, 4)],
)
def test_cor_2_choam_adds_two_per_unspent_spice_capped_at_5(
    storage: int, spice: int | str, expected: int
) -> None:
    """COR-2: at the end of the Corrino's turn, +2 storage per unspent spice; at most 5."""
    game = (
        Scenario([ATR, HAR, COR])
        .storage(COR, storage)
        .dice(spice=spice)
        .active(COR)
        .at(Phase.END_TURN)
    )
    assert game.state.storage[COR] == expected


def test_cor_2_choam_counts_only_spice_rolled_on_the_spice_die() -> None:
    """COR-2 per the Czech original ("koření, které ti padlo na kostce koření"), the engine's
    reading in docs/rules-notes.md #15 (RULES.md says "of your pool"): harvester income does not
    convert, and it is taken as spent first."""
    game = (
        Scenario([ATR, HAR, COR])
        .units(COR, Region.ARRAKEEN, 1)
        .units(COR, CARD, 1)
        .token(Region.ARRAKEEN, Token.HARVESTER)
        .dice(spice=2, region=1)  # sector 1 under the storm: the target is the Polar Cap
        .storm(1)
        .active(COR)
        .at(Phase.LAND_START)
    )
    assert game.state.pool == 4  # 2 rolled + 2 from the harvester (LAND-1)
    game.apply(land_option(Region.ARRAKEEN, REG))
    expect(game, DecisionKind.MOVE, COR)
    assert game.state.pool == 3
    game.apply(0)
    assert game.state.active_faction != COR
    assert game.state.storage[COR] == 4  # the 2 rolled spice are unspent: +4, not +6


def test_cor_2_stored_spice_is_spent_like_pool_spice_in_own_turn() -> None:
    game = (
        Scenario([ATR, HAR, COR])
        .units(COR, Region.ARRAKEEN, 1)
        .units(COR, CARD, 3)
        .storage(COR, 3)
        .dice(spice="worm")  # pool 0
        .active(COR)
        .at(Phase.LAND_START)
    )
    assert game.state.pool == 0
    for _ in range(3):
        assert land_option(Region.ARRAKEEN, REG) in expect(game, DecisionKind.LAND, COR)
        game.apply(land_option(Region.ARRAKEEN, REG))
    assert n(game, COR, Region.ARRAKEEN) == 4
    assert game.state.storage[COR] == 0


def test_cor_2_choam_only_in_corrinos_own_turn() -> None:
    """COR-2 / COR-3: the ally's unspent pool never reaches the Corrino storage."""
    game = Scenario(FIVE).storage(COR, 1).pool(2).active(ATR).ally(COR).at(Phase.END_TURN)
    assert game.state.storage[COR] == 1


def test_cor_3_corrino_gives_stored_spice_to_its_ally() -> None:
    game = (
        Scenario(FIVE)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, CARD, 4)
        .storage(COR, 4)
        .dice(spice=1)
        .active(ATR)
        .ally(COR)
        .at(Phase.LAND_START)
    )
    assert expect(game, DecisionKind.SPICE_GIFT, COR) == (0, 1, 2, 3, 4)
    game.apply(3)
    assert game.state.storage[COR] == 1
    assert game.state.pool == 4
    for _ in range(4):
        game.apply(land_option(Region.ARRAKEEN, REG))
    assert n(game, ATR, Region.ARRAKEEN) == 5
    assert game.state.pool == 0
    assert game.state.storage[COR] == 1  # the gift came from storage, nothing more taken


def test_cor_3_no_gift_without_the_alliance() -> None:
    game = (
        Scenario(FIVE)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, CARD, 4)
        .storage(COR, 4)
        .active(ATR)
        .ally(HAR)
        .at(Phase.LAND_START)
    )
    expect(game, DecisionKind.LAND, ATR)
    assert game.state.pool == 1


# --- Spacing Guild ---------------------------------------------------------------------------


def test_gld_0_setup_leader_and_three_units_on_card_storage_0() -> None:
    game = setup_game(FRE, COR, GLD)
    assert game.state.leaders[GLD] == [1, 0]
    assert n(game, GLD, CARD) == 3
    assert n(game, GLD, RESERVE) == 9
    assert sum(n(game, GLD, r) for r in range(10)) == 0
    assert game.state.storage[GLD] == 0


def _gld_1_two_landers(**config: object) -> tuple[Game, list[int]]:
    """ATR lands outside the Polar Cap, then its ally COR does: Guild storage after each
    landing (written with the public options and accessors, docs/scenarios.md)."""
    game = (
        Scenario(FIVE, **config)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, CARD, 4)
        .units(COR, Region.CARTHAG, 1)
        .units(COR, CARD, 3)
        .pool(5)
        .active(ATR)
        .ally(COR)
        .at(Phase.LAND_START)
    )
    seen = []
    expect(game, DecisionKind.LAND_CONSENT, COR)
    game.apply(opt.yes_no(False))
    for landing in (POLAR, Region.ARRAKEEN, Region.ARRAKEEN):  # the Polar Cap does not count
        game.apply(opt.land(landing))
        seen.append(game.storage(GLD))
    game.apply(opt.STOP_LANDING)
    expect(game, DecisionKind.ALLY_GRANT, ATR)
    game.apply(opt.spice(2))
    for landing in (POLAR, Region.CARTHAG):  # now the ally lands
        game.apply(opt.land(landing))
        seen.append(game.storage(GLD))
    return game, seen


def test_gld_1_at_most_one_spice_per_turn_however_many_players_land() -> None:
    """GLD-1 (rev. 2): +1 once in a turn in which any other player lands outside the Polar
    Cap; the ally landing outside too adds nothing more."""
    game, seen = _gld_1_two_landers()
    assert seen == [0, 1, 1, 1, 1]
    assert not game.config.guild_income_per_lander


def test_gld_1_variant_guild_income_per_lander_pays_each_other_player() -> None:
    """GLD-1 [variant] guild_income_per_lander: +1 for each other player landing outside the
    Polar Cap, once per player per turn (the pre-rev. 2 behaviour)."""
    _, seen = _gld_1_two_landers(guild_income_per_lander=True)
    assert seen == [0, 1, 1, 1, 2]


def test_gld_1_income_in_the_guilds_own_turn_from_its_ally() -> None:
    game = (
        Scenario(FIVE)
        .units(GLD, Region.ARRAKEEN, 1)
        .units(HAR, Region.CARTHAG, 1)
        .units(HAR, CARD, 1)
        .pool(2)
        .active(GLD)
        .ally(HAR)
        .at(Phase.LAND_START)
    )
    expect(game, DecisionKind.ALLY_GRANT, GLD)
    game.apply(1)
    game.apply(land_option(Region.CARTHAG, REG))
    assert game.state.storage[GLD] == 1


def test_gld_1_storage_capped_at_5_and_guild_landing_pays_nothing() -> None:
    game = (
        Scenario(FIVE)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, CARD, 1)
        .storage(GLD, 5)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    game.apply(land_option(Region.ARRAKEEN, REG))
    assert game.state.storage[GLD] == 5
    game = (
        Scenario(FIVE)
        .units(GLD, Region.ARRAKEEN, 1)
        .units(GLD, CARD, 1)
        .active(GLD)
        .at(Phase.LAND_START)
    )
    game.apply(land_option(Region.ARRAKEEN, REG))
    assert n(game, GLD, Region.ARRAKEEN) == 2
    assert game.state.storage[GLD] == 0


def test_gld_1_storage_spent_as_pool_spice_in_own_turn() -> None:
    game = (
        Scenario(FIVE)
        .units(GLD, CARD, 3)
        .storage(GLD, 2)
        .dice(spice=1)
        .active(GLD)
        .at(Phase.LAND_START)
    )
    for _ in range(3):
        game.apply(land_option(POLAR, REG))
    assert n(game, GLD, POLAR) == 3
    assert game.state.storage[GLD] == 0
    assert game.state.pool == 0


def test_gld_1_guild_cannot_give_its_storage_away() -> None:
    game = (
        Scenario(FIVE)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, CARD, 3)
        .storage(GLD, 3)
        .dice(spice=1)
        .active(ATR)
        .ally(GLD)
        .at(Phase.LAND_START)
    )
    expect(game, DecisionKind.LAND, ATR)  # no SPICE_GIFT
    game.apply(land_option(Region.ARRAKEEN, REG))
    assert game.state.pool == 0
    assert game.state.storage[GLD] == 4  # 3 kept, +1 income from its ally's landing
    assert game.pending is None or game.pending.kind != DecisionKind.LAND


def test_gld_2_guild_wins_when_nobody_has_won_by_the_end_of_round_6() -> None:
    game = (
        Scenario([ATR, HAR, GLD])
        .units(ATR, Region.ARRAKEEN, 2)
        .round(6)
        .first(ATR)
        .active(GLD)
        .at(Phase.END_TURN)
    )
    assert game.terminal
    assert game.winners == [2]
    assert game.rewards == [-1.0, -1.0, 1.0]


def test_gld_2_not_before_the_end_of_round_6() -> None:
    game = Scenario([ATR, HAR, GLD]).round(5).first(ATR).active(GLD).at(Phase.END_TURN)
    assert not game.terminal
    assert game.state.round == 6
    game = Scenario([ATR, HAR, GLD]).round(6).first(ATR).active(HAR).at(Phase.END_TURN)
    assert not game.terminal  # round 6 is not over until the last seat's turn ends


def test_gld_3_storm_victims_go_to_the_card() -> None:
    game = (
        Scenario([ATR, HAR, GLD])
        .units(GLD, Region.GREAT_FLAT, 2)
        .units(HAR, Region.GREAT_FLAT, 1)
        .storm(3)
        .dice(region=2, spice=3)
        .active(ATR)
        .at(Phase.STORM)
    )
    assert game.state.storm_sector == 2
    assert n(game, GLD, Region.GREAT_FLAT) == 1
    assert n(game, GLD, CARD) == 1
    assert n(game, GLD, RESERVE) == 10
    assert n(game, HAR, RESERVE) == 12  # others go to the reserve


def test_gld_3_uncommitted_units_of_a_lost_battle_go_to_the_card() -> None:
    game = (
        Scenario([ATR, HAR, GLD])
        .units(ATR, Region.ARRAKEEN, 3)
        .units(GLD, Region.ARRAKEEN, 3)
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    bid(game, ATR, *[unit_option(ATR, REG)] * 3)
    bid(game, GLD, unit_option(GLD, REG))
    assert last_battle(game) == (3, 1, ATTACKER_WINS)
    assert n(game, GLD, Region.ARRAKEEN) == 0
    assert n(game, GLD, CARD) == 2  # the uncommitted two
    assert n(game, GLD, RESERVE) == 10  # the committed one


def test_gld_3_evacuation_when_the_guild_attacks_and_loses() -> None:
    """GLD-3: the Guild's uncommitted units lost in a lost battle go to its card, not reserve."""
    game = (
        Scenario([ATR, HAR, GLD])
        .units(GLD, Region.ARRAKEEN, 3)
        .units(ATR, Region.ARRAKEEN, 2)
        .active(GLD)
        .at(Phase.BATTLE_SELECT)
    )
    bid(game, GLD, unit_option(GLD, REG))
    bid(game, ATR, unit_option(ATR, REG))
    assert last_battle(game) == (1, 1, DEFENDER_WINS)
    assert n(game, GLD, CARD) == 2
    assert n(game, GLD, RESERVE) == 10


# --- Bene Gesserit ---------------------------------------------------------------------------


def test_bg_0_setup_leader_three_units_on_polar_cap_and_hidden_prediction() -> None:
    game = setup_game(ATR, HAR, FRE, COR, BG)
    game.apply(Region.MINOR_ERG)  # ATR-0
    game.apply(Region.GREAT_FLAT)  # HAR-0
    options = expect(game, DecisionKind.BG_PREDICTION, BG)
    # Any faction in the game but BG itself, and the Guild even though nobody plays it.
    assert options == (ATR, HAR, FRE, COR, GLD)
    game.apply(COR)
    s = game.state
    assert s.bg_prediction == COR
    assert n(game, BG, POLAR) == 3
    assert s.leaders[BG] == [1, 0]
    assert n(game, BG, RESERVE) == 9
    made = [e for e in s.events if e[0] == EventKind.PREDICTION_MADE]
    assert made == [(EventKind.PREDICTION_MADE,)]  # the public log does not say which


def _atreides_holds_three(prediction: int) -> Game:
    return (
        Scenario([ATR, HAR, FRE, COR, BG])
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, Region.CARTHAG, 1)
        .units(ATR, Region.TUEKS_SIETCH, 1)
        .prediction(prediction)
        .active(ATR)
        .at(Phase.END_TURN)
    )


def test_bg_1_predicted_solo_winner_loses_the_victory_to_the_bene_gesserit() -> None:
    game = _atreides_holds_three(ATR)
    assert game.terminal
    assert game.winners == [4]
    assert game.rewards == [-1.0, -1.0, -1.0, -1.0, 1.0]


def test_bg_1_wrong_prediction_takes_nothing() -> None:
    game = _atreides_holds_three(HAR)
    assert game.winners == [0]


def test_bg_1_alliance_victory_is_never_taken() -> None:
    game = (
        Scenario([ATR, HAR, FRE, COR, BG])
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, Region.CARTHAG, 1)
        .units(HAR, Region.TUEKS_SIETCH, 1)
        .units(HAR, Region.SIETCH_TABR, 1)
        .prediction(ATR)
        .active(ATR)
        .ally(HAR)
        .at(Phase.END_TURN)
    )
    assert game.terminal
    assert game.winners == [0, 1]


@pytest.mark.parametrize(
    "factions",
    [[ATR, HAR, FRE, COR, BG], [ATR, HAR, FRE, GLD, BG]],
    ids=["guild-not-played", "guild-played"],
)
def test_bg_1_predicted_guild_time_out_victory_goes_to_the_bene_gesserit(
    factions: list[int],
) -> None:
    game = Scenario(factions).prediction(GLD).round(6).first(ATR).active(BG).at(Phase.END_TURN)
    assert game.terminal
    assert game.winners == [4]


def test_bg_2_the_voice_offer_cannot_be_declined() -> None:
    bg_game = (
        Scenario([ATR, HAR, FRE, COR, BG], skip_forced_decisions=False)
        .dice(factions=[ATR, ATR, HAR, HAR])
        .active(BG)
        .at(Phase.ALLY_OFFER)
    )
    bg_game.apply(offer_option(ATR, ATR))
    assert expect(bg_game, DecisionKind.ALLY_ANSWER, ATR) == (1,)
    other = (
        Scenario([ATR, HAR, FRE, COR, BG], skip_forced_decisions=False)
        .dice(factions=[ATR, ATR, HAR, HAR])
        .active(HAR)
        .at(Phase.ALLY_OFFER)
    )
    other.apply(offer_option(ATR, ATR))
    assert expect(other, DecisionKind.ALLY_ANSWER, ATR) == (0, 1)


@pytest.mark.parametrize("active", [BG, ATR])
def test_bg_2_no_consent_needed_to_land_in_the_allys_regions(active: int) -> None:
    game = (
        Scenario([ATR, HAR, FRE, COR, BG])
        .units(active, CARD, 2)
        .units(HAR, Region.CARTHAG, 1)
        .pool(2)
        .active(active)
        .ally(HAR)
        .at(Phase.LAND_START)
    )
    if active == BG:
        assert land_option(Region.CARTHAG, REG) in expect(game, DecisionKind.LAND, BG)
    else:
        expect(game, DecisionKind.LAND_CONSENT, HAR)


@pytest.mark.parametrize(
    ("face", "bg_targetable"),
    [(KanlyFace.POISON, False), (KanlyFace.CRYSKNIFE, True), (KanlyFace.HUNTER_SEEKER, True)],
)
def test_bg_3_prana_bindu_poison_cannot_target_bene_gesserit(
    face: int, bg_targetable: bool
) -> None:
    """BG-3 (the specification's KANLY-3 numbers this rule one higher, a slip: the Bene Gesserit
    rules end at BG-3): Poison never targets Bene Gesserit units; the other Kanly faces may."""
    game = (
        Scenario([ATR, HAR, FRE, COR, BG])
        .units(BG, Region.ARRAKEEN, 1)
        .units(BG, POLAR, 1)
        .units(HAR, Region.ARRAKEEN, 1)
        .dice(kanly=face)
        .active(ATR)
        .at(Phase.KANLY)
    )
    options = expect(game, DecisionKind.KANLY, ATR)
    assert kanly_kill_option(Region.ARRAKEEN, HAR, REG) in options
    assert (kanly_kill_option(Region.ARRAKEEN, BG, REG) in options) == bg_targetable
    assert (kanly_kill_option(POLAR, BG, REG) in options) == bg_targetable


# --- Smugglers -------------------------------------------------------------------------------


def test_smg_0_setup_leader_on_card_three_units_on_polar_cap() -> None:
    game = six_player_setup()
    assert n(game, SMG, POLAR) == 3
    assert n(game, SMG, CARD) == 0
    assert game.state.leaders[SMG] == [1, 0]
    assert n(game, SMG, RESERVE) == 9


def test_smg_1_smugglers_skip_the_recruit_step() -> None:
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .units(SMG, Region.ARRAKEEN, 1)
        .dice(factions=[ATR, HAR, COR, GLD], kanly=KanlyFace.SHIELD)
        .active(SMG)
        .at(Phase.RECRUIT_ACTIVE)
    )
    assert n(game, SMG, CARD) == 0
    assert game.state.recruit_dice == []
    assert expect(game, DecisionKind.KANLY, SMG) == (KANLY_NONE, KANLY_TAKE)


def test_smg_1_land_from_reserve_polar_cap_2_elsewhere_1_leader_2() -> None:
    game = Scenario(SIX).units(SMG, Region.ARRAKEEN, 1).pool(5).active(SMG).at(Phase.LAND_START)
    s = game.state
    options = expect(game, DecisionKind.LAND, SMG)
    assert land_option(POLAR, REG) in options
    assert land_option(Region.ARRAKEEN, REG) in options
    assert LAND_SMUGGLERS_LEADER in options
    game.apply(land_option(POLAR, REG))
    assert s.pool == 3
    game.apply(land_option(Region.ARRAKEEN, REG))
    assert s.pool == 2
    game.apply(LAND_SMUGGLERS_LEADER)
    assert s.pool == 0
    assert s.leaders[SMG] == [1, 0]
    assert n(game, SMG, POLAR) == 1
    assert n(game, SMG, Region.ARRAKEEN) == 2
    assert n(game, SMG, RESERVE) == 9  # both landed units came from the reserve
    assert n(game, SMG, CARD) == 0


def test_smg_1_polar_cap_and_leader_need_two_spice() -> None:
    game = Scenario(SIX).units(SMG, Region.ARRAKEEN, 1).pool(1).active(SMG).at(Phase.LAND_START)
    assert expect(game, DecisionKind.LAND, SMG) == (
        LAND_STOP,
        land_option(Region.ARRAKEEN, REG),
    )


def test_smg_2_running_rat_any_unoccupied_region_as_target() -> None:
    """SMG-2: the Smugglers may take any unoccupied region not in the storm as their movement
    target instead of the die's."""
    game = (
        Scenario(SIX)
        .units(SMG, Region.SIETCH_TABR, 2)
        .units(HAR, Region.ARRAKEEN, 1)
        .storm(1)
        .dice(region=4)
        .active(SMG)
        .at(Phase.MOVE_TARGET)
    )
    options = expect(game, DecisionKind.MOVE_TARGET, SMG)
    assert set(options) == {
        Region.GREAT_FLAT,
        Region.HABBANYA_SIETCH,
        Region.CARTHAG,
        Region.BROKEN_LAND,
        Region.MINOR_ERG,
        Region.TUEKS_SIETCH,
        POLAR,
    }  # not the occupied Sietch Tabr / Arrakeen, not Cielago Plain in the storm
    game.apply(Region.HABBANYA_SIETCH)
    assert move_option(Region.SIETCH_TABR, REG) in expect(game, DecisionKind.MOVE, SMG)
    game.apply(move_option(Region.SIETCH_TABR, REG))
    game.apply(move_option(Region.SIETCH_TABR, REG))
    assert n(game, SMG, Region.HABBANYA_SIETCH) == 2


def test_smg_2_others_only_get_the_dies_sector() -> None:
    game = (
        Scenario(SIX)
        .units(HAR, Region.SIETCH_TABR, 2)
        .storm(1)
        .dice(region=4)
        .active(HAR)
        .at(Phase.MOVE_TARGET)
    )
    assert expect(game, DecisionKind.MOVE_TARGET, HAR) == (
        Region.CARTHAG,
        Region.BROKEN_LAND,
        POLAR,
    )


def test_smg_3_anyone_may_offer_the_smugglers_an_alliance() -> None:
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .dice(factions=[HAR, HAR, HAR, HAR])
        .active(HAR)
        .at(Phase.ALLY_OFFER)
    )
    options = expect(game, DecisionKind.ALLY_OFFER, HAR)
    assert offer_option(SMG, SMG) in options
    assert offer_option(COR, COR) not in options  # no Corrino symbol showing
    game.apply(offer_option(SMG, SMG))
    expect(game, DecisionKind.ALLY_ANSWER, SMG)
    game.apply(1)
    assert game.state.ally == SMG
