"""Rule tests of turn steps 2-9: ALLY, RECRUIT, KANLY, LAND, MOVE, BATTLE, PROP, STORM.

Every test names the rule ID(s) of RULES.md it checks.  Positions are built with `Scenario`;
by default decisions with a single legal option are applied without asking, so the helper
`act` always checks which decision is pending (kind and deciding faction) before applying.
"""

from __future__ import annotations

import pytest

from dune_env.engine import (
    CARD,
    RESERVE,
    DecisionKind,
    EventKind,
    Game,
    KanlyFace,
    Phase,
    Region,
    Scenario,
    Token,
)
from dune_env.engine.constants import NO_ONE, PROPERTY_TOKENS_PER_TYPE
from dune_env.engine.decisions import (
    BID_DONE,
    KANLY_NONE,
    KANLY_TAKE,
    LAND_STOP,
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
from dune_env.engine.queries import in_storm

from .common import ATR, BG, COR, ELITE, FRE, GLD, HAR, POLAR, REG, SMG, TLX

CIELAGO = Region.CIELAGO_PLAIN
GREAT_FLAT = Region.GREAT_FLAT
HABBANYA = Region.HABBANYA_SIETCH
SIETCH_TABR = Region.SIETCH_TABR
CARTHAG = Region.CARTHAG
BROKEN_LAND = Region.BROKEN_LAND
ARRAKEEN = Region.ARRAKEEN
MINOR_ERG = Region.MINOR_ERG
TUEKS = Region.TUEKS_SIETCH

FOUR = [ATR, HAR, FRE, COR]  # no alliances (ALLY-1)
FIVE = [ATR, HAR, FRE, COR, GLD]


# --- helpers --------------------------------------------------------------------------------


def act(game: Game, kind: DecisionKind, faction: int, option: int) -> None:
    """Apply `option` after checking who is asked what, and that the option is legal."""
    pending = game.pending
    assert pending is not None, "no decision pending"
    assert (pending.kind, pending.faction) == (kind, faction), pending
    assert option in pending.options, (option, pending.options)
    game.apply(option)


def pending_is(game: Game, kind: DecisionKind, faction: int) -> bool:
    pending = game.pending
    return pending is not None and (pending.kind, pending.faction) == (kind, faction)


def options(game: Game, kind: DecisionKind, faction: int) -> set[int]:
    assert pending_is(game, kind, faction), game.pending
    return set(game.pending.options)


def units(game: Game, faction: int, location: int, unit_type: int | None = None) -> int:
    if unit_type is None:
        return game.state.count(faction, location)
    return game.state.units[faction][location * 2 + unit_type]


def event_kinds(game: Game) -> list[int]:
    return [e[0] for e in game.state.events]


def events_of(game: Game, kind: EventKind) -> list[tuple[int, ...]]:
    return [e[1:] for e in game.state.events if e[0] == kind]


def bid(game: Game, faction: int, commits: list[int]) -> None:
    """Commit the given BID options, then say "done" unless that was forced already."""
    for option in commits:
        act(game, DecisionKind.BID, faction, option)
    if pending_is(game, DecisionKind.BID, faction):
        act(game, DecisionKind.BID, faction, BID_DONE)


# === Step 2: ALLY ===========================================================================


def test_ally_1_no_alliance_step_below_five_players() -> None:
    """ALLY-1: with 4 players no offer is asked; with 5 the same dice give an offer."""
    four = (
        Scenario(FOUR)
        .dice(factions=[HAR, HAR, COR, FRE], kanly=KanlyFace.THUMPER)
        .active(ATR)
        .at(Phase.ALLY_OFFER)
    )
    assert not pending_is(four, DecisionKind.ALLY_OFFER, ATR)
    assert pending_is(four, DecisionKind.KANLY, ATR)
    assert EventKind.ALLY_OFFER not in event_kinds(four)
    assert four.state.ally == NO_ONE

    five = (
        Scenario(FIVE)
        .dice(factions=[HAR, HAR, COR, FRE], kanly=KanlyFace.THUMPER)
        .active(ATR)
        .at(Phase.ALLY_OFFER)
    )
    assert offer_option(HAR, HAR) in options(five, DecisionKind.ALLY_OFFER, ATR)


def test_ally_2_offer_only_to_factions_whose_symbol_shows() -> None:
    """ALLY-2: offers go to factions showing on a faction die (or nobody)."""
    game = Scenario(FIVE).dice(factions=[HAR, COR, COR, ATR]).active(ATR).at(Phase.ALLY_OFFER)
    assert options(game, DecisionKind.ALLY_OFFER, ATR) == {
        0,
        offer_option(HAR, HAR),
        offer_option(COR, COR),
    }


def test_ally_2_tleilax_and_smugglers_can_be_offered_with_any_symbol() -> None:
    """ALLY-2 (TLX-3, SMG-3): no Tleilax/Smugglers symbol exists, yet both can be offered."""
    seats = [ATR, HAR, TLX, SMG, COR, GLD]
    game = Scenario(seats).dice(factions=[HAR, HAR, FRE, FRE]).active(ATR).at(Phase.ALLY_OFFER)
    offers = options(game, DecisionKind.ALLY_OFFER, ATR)
    assert offers == {
        0,
        offer_option(HAR, HAR),
        offer_option(TLX, HAR),
        offer_option(TLX, FRE),
        offer_option(SMG, SMG),
    }
    assert offer_option(COR, COR) not in offers and offer_option(GLD, GLD) not in offers


@pytest.mark.parametrize("accept", [0, 1])
def test_ally_3_offered_player_accepts_or_declines(accept: int) -> None:
    """ALLY-3: the offered player decides; on a decline nothing happens (no ally, the Corrino
    dice recruit nobody); on an accept the Corrino recruits with its dice (RECRUIT-2)."""
    game = (
        Scenario(FIVE)
        .dice(factions=[COR, COR, HAR, HAR], kanly=KanlyFace.THUMPER)
        .active(ATR)
        .at(Phase.ALLY_OFFER)
    )
    act(game, DecisionKind.ALLY_OFFER, ATR, offer_option(COR, COR))
    assert options(game, DecisionKind.ALLY_ANSWER, COR) == {0, 1}
    act(game, DecisionKind.ALLY_ANSWER, COR, accept)
    if accept:
        assert game.state.ally == COR
        assert pending_is(game, DecisionKind.RECRUIT, COR)
    else:
        assert game.state.ally == NO_ONE
        assert pending_is(game, DecisionKind.KANLY, ATR)  # the active player goes on alone
        assert units(game, COR, CARD) == 0


def test_ally_3_bene_gesserit_offer_cannot_be_declined() -> None:
    """ALLY-3 / BG-2: accepting is the only legal answer to a Bene Gesserit offer."""
    game = (
        Scenario([BG, ATR, HAR, COR, GLD], skip_forced_decisions=False)
        .dice(factions=[ATR, HAR, HAR, HAR])
        .active(BG)
        .at(Phase.ALLY_OFFER)
    )
    act(game, DecisionKind.ALLY_OFFER, BG, offer_option(ATR, ATR))
    assert options(game, DecisionKind.ALLY_ANSWER, ATR) == {1}
    act(game, DecisionKind.ALLY_ANSWER, ATR, 1)
    assert game.state.ally == ATR


@pytest.mark.parametrize("atreides_die", [False, True])
def test_ally_4_alliance_ends_with_the_turn_renewal_needs_a_new_offer(atreides_die: bool) -> None:
    """ALLY-4: the alliance ends with the turn; the next player renews it only by ALLY-2,
    i.e. only if an Atreides die shows in its own roll."""
    # Corrino's roll, die faces 0-5: faction dice, region, spice, Kanly.
    first_die = 0 if atreides_die else 3  # Atreides or Guild
    roll = (first_die, 1, 2, 5, 0, 0, 3)
    game = (
        Scenario([ATR, COR, HAR, FRE, GLD])
        .ally(COR)
        .units(ATR, ARRAKEEN, 1)
        .units(COR, CARTHAG, 1)
        .dice(factions=[ATR, COR, COR, HAR], spice=1)
        .active(ATR)
        .first(ATR)
        .force(*roll)
        .at(Phase.END_TURN)
    )
    assert game.state.active_faction == COR
    assert game.state.ally == NO_ONE
    act(game, DecisionKind.FIX_DICE, COR, 0b1111111)
    offers = options(game, DecisionKind.ALLY_OFFER, COR)
    assert (offer_option(ATR, ATR) in offers) is atreides_die


def test_ally_5_active_player_uses_the_allys_alliance_ability() -> None:
    """ALLY-5 (with COR-3): the Corrino ally gives stored spice to the active player."""
    game = (
        Scenario(FIVE)
        .ally(COR)
        .storage(COR, 3)
        .units(ATR, CARD, 2)
        .dice(spice=2)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    assert options(game, DecisionKind.SPICE_GIFT, COR) == {0, 1, 2, 3}
    act(game, DecisionKind.SPICE_GIFT, COR, 2)
    assert game.state.pool == 4 and game.state.storage[COR] == 1
    assert pending_is(game, DecisionKind.LAND, ATR)


def test_ally_5_no_alliance_ability_without_alliance_nor_for_oneself() -> None:
    """ALLY-5: no Corrino gift when the Corrino is not the ally, nor in the Corrino's own turn
    (its alliance ability never helps itself)."""
    not_allied = (
        Scenario(FIVE)
        .storage(COR, 3)
        .units(ATR, CARD, 2)
        .dice(spice=2)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    assert pending_is(not_allied, DecisionKind.LAND, ATR)
    assert not_allied.state.pool == 2 and not_allied.state.storage[COR] == 3

    own_turn = (
        Scenario(FIVE)
        .ally(ATR)
        .storage(COR, 3)
        .units(COR, CARD, 2)
        .dice(spice=2)
        .active(COR)
        .at(Phase.LAND_START)
    )
    assert pending_is(own_turn, DecisionKind.LAND, COR)
    assert EventKind.SPICE_GIFT not in event_kinds(own_turn)
    assert own_turn.state.storage[COR] == 3


# === Step 3: RECRUIT ========================================================================


def test_recruit_1_one_unit_or_the_leader_per_own_symbol() -> None:
    """RECRUIT-1: each die with your symbol moves a unit or your leader from the reserve to the
    card; dice of other symbols recruit nothing for you."""
    game = (
        Scenario(FOUR, skip_forced_decisions=False)
        .dice(factions=[HAR, ATR, HAR, COR])
        .active(HAR)
        .at(Phase.RECRUIT_ACTIVE)
    )
    assert options(game, DecisionKind.RECRUIT, HAR) == {
        RECRUIT_STOP,
        RECRUIT_UNIT,
        RECRUIT_LEADER,
    }
    act(game, DecisionKind.RECRUIT, HAR, RECRUIT_LEADER)
    assert game.state.leaders[HAR] == [1, 0]
    assert options(game, DecisionKind.RECRUIT, HAR) == {RECRUIT_STOP, RECRUIT_UNIT}
    act(game, DecisionKind.RECRUIT, HAR, RECRUIT_UNIT)
    # Both Harkonnen dice are used: recruiting is over.
    assert not pending_is(game, DecisionKind.RECRUIT, HAR)
    assert units(game, HAR, CARD) == 1 and units(game, HAR, RESERVE) == 11
    assert units(game, ATR, CARD) == 0


def test_recruit_2_ally_recruits_units_but_not_its_leader() -> None:
    """RECRUIT-2: the ally recruits one unit per die with its symbol, deciding itself (no
    consent), and cannot recruit its leader."""
    game = (
        Scenario(FIVE)
        .ally(COR)
        .dice(factions=[ATR, COR, COR, HAR])
        .active(ATR)
        .at(Phase.RECRUIT_ACTIVE)
    )
    act(game, DecisionKind.RECRUIT, ATR, RECRUIT_UNIT)
    ally_options = options(game, DecisionKind.RECRUIT, COR)
    assert game.pending.seat == game.state.faction_seat[COR]
    assert RECRUIT_LEADER not in ally_options
    assert game.state.leaders[COR] == [0, 1]  # its leader is in the reserve, yet not offered
    act(game, DecisionKind.RECRUIT, COR, RECRUIT_UNIT)
    act(game, DecisionKind.RECRUIT, COR, RECRUIT_UNIT)
    assert units(game, COR, CARD, REG) == 2
    assert units(game, ATR, CARD) == 1


def test_recruit_3_each_die_recruits_once_and_recruiting_is_optional() -> None:
    """RECRUIT-3: three own dice recruit at most three pieces, and the player may stop."""
    scenario = (
        Scenario(FOUR)
        .dice(factions=[HAR, HAR, HAR, ATR], kanly=KanlyFace.THUMPER)
        .leaders(HAR, 1)
        .active(HAR)
    )
    game = scenario.at(Phase.RECRUIT_ACTIVE)
    for _ in range(3):
        act(game, DecisionKind.RECRUIT, HAR, RECRUIT_UNIT)
    assert pending_is(game, DecisionKind.KANLY, HAR)  # no fourth recruit
    assert units(game, HAR, CARD) == 3

    game = (
        Scenario(FOUR)
        .dice(factions=[HAR, HAR, HAR, ATR], kanly=KanlyFace.THUMPER)
        .leaders(HAR, 1)
        .active(HAR)
        .at(Phase.RECRUIT_ACTIVE)
    )
    act(game, DecisionKind.RECRUIT, HAR, RECRUIT_UNIT)
    act(game, DecisionKind.RECRUIT, HAR, RECRUIT_STOP)
    assert pending_is(game, DecisionKind.KANLY, HAR)
    assert units(game, HAR, CARD) == 1


def test_recruit_4_units_on_the_map_are_never_taken_back_to_the_card() -> None:
    """RECRUIT-4 (COMP-4): with the reserve empty, own dice recruit nothing from the map."""
    game = (
        Scenario(FOUR)
        .units(HAR, POLAR, 6)
        .units(HAR, MINOR_ERG, 5)
        .leaders(HAR, 1)
        .dice(factions=[HAR, HAR, HAR, HAR], kanly=KanlyFace.THUMPER)
        .active(HAR)
        .at(Phase.RECRUIT_ACTIVE)
    )
    # One unit is left in the reserve: it can be recruited, and then nothing more.
    act(game, DecisionKind.RECRUIT, HAR, RECRUIT_UNIT)
    assert pending_is(game, DecisionKind.KANLY, HAR)
    assert units(game, HAR, CARD) == 1
    assert units(game, HAR, POLAR) == 6 and units(game, HAR, MINOR_ERG) == 5
    assert events_of(game, EventKind.RECRUIT) == [(HAR, RECRUIT_UNIT)]


# === Step 4: KANLY ==========================================================================


def test_kanly_1_kill_an_enemy_unit_anywhere_including_the_polar_cap() -> None:
    """KANLY-1: the unit (region, faction, type) goes to its owner's reserve."""
    game = (
        Scenario(FOUR)
        .units(COR, POLAR, 1, ELITE)
        .units(COR, CARTHAG, 1)
        .units(ATR, ARRAKEEN, 2)
        .dice(kanly=KanlyFace.HUNTER_SEEKER)
        .active(ATR)
        .at(Phase.KANLY)
    )
    assert options(game, DecisionKind.KANLY, ATR) == {
        KANLY_NONE,
        kanly_kill_option(POLAR, COR, ELITE),
        kanly_kill_option(CARTHAG, COR, REG),
    }
    act(game, DecisionKind.KANLY, ATR, kanly_kill_option(POLAR, COR, ELITE))
    assert units(game, COR, POLAR) == 0
    assert units(game, COR, RESERVE, ELITE) == 4
    assert units(game, COR, CARTHAG) == 1


def test_kanly_2_never_in_the_storm_never_a_leader_never_the_ally() -> None:
    """KANLY-2: units in a storm region, the ally's units and leaders are no targets."""
    game = (
        Scenario(FIVE)
        .ally(COR)
        .storm(5)  # Arrakeen
        .units(HAR, ARRAKEEN, 2)
        .units(HAR, CARTHAG, 1)
        .units(COR, CARTHAG, 2)
        .units(ATR, CARTHAG, 1)
        .leaders(HAR, 1)
        .leaders(COR, 1)
        .dice(kanly=KanlyFace.HUNTER_SEEKER)
        .active(ATR)
        .at(Phase.KANLY)
    )
    assert options(game, DecisionKind.KANLY, ATR) == {
        KANLY_NONE,
        kanly_kill_option(CARTHAG, HAR, REG),
    }
    act(game, DecisionKind.KANLY, ATR, kanly_kill_option(CARTHAG, HAR, REG))
    assert game.state.leaders[HAR] == [1, 0]


@pytest.mark.parametrize(
    ("face", "targets"),
    [
        (KanlyFace.POISON, {FRE, COR}),  # not the Snooper holder (HAR), not the BG
        (KanlyFace.CRYSKNIFE, {HAR, BG}),  # not the Shield holder (COR), not the Fremen
        (KanlyFace.HUNTER_SEEKER, {HAR, FRE, COR, BG}),
    ],
)
def test_kanly_3_poison_and_crysknife_protections(face: int, targets: set[int]) -> None:
    """KANLY-3 (BG-3, FRE-2): Snooper/BG immune to Poison, Shield/Fremen to Crysknife."""
    scenario = Scenario([ATR, HAR, FRE, COR, BG]).snooper(HAR).shield(COR)
    for faction in (HAR, FRE, COR, BG):
        scenario.units(faction, POLAR, 1)
    game = scenario.dice(kanly=face).active(ATR).at(Phase.KANLY)
    assert options(game, DecisionKind.KANLY, ATR) == {KANLY_NONE} | {
        kanly_kill_option(POLAR, f, REG) for f in targets
    }


@pytest.mark.parametrize(
    ("face", "holder"),
    [
        (KanlyFace.SNOOPER, NO_ONE),
        (KanlyFace.SNOOPER, HAR),
        (KanlyFace.SHIELD, NO_ONE),
        (KanlyFace.SHIELD, COR),
    ],
)
def test_kanly_4_take_snooper_or_shield_from_anyone(face: int, holder: int) -> None:
    """KANLY-4: the token is taken from its holder or from the common supply."""
    scenario = Scenario(FOUR)
    if holder != NO_ONE:
        (scenario.snooper if face == KanlyFace.SNOOPER else scenario.shield)(holder)
    game = scenario.dice(kanly=face).active(ATR).at(Phase.KANLY)
    act(game, DecisionKind.KANLY, ATR, KANLY_TAKE)
    s = game.state
    assert (s.snooper_holder if face == KanlyFace.SNOOPER else s.shield_holder) == ATR
    assert events_of(game, EventKind.KANLY_TAKE) == [(face, ATR, holder)]


def test_kanly_5_thumper_from_the_common_supply_only() -> None:
    """KANLY-5: a Thumper comes from the supply; never from a player; at most one each."""
    game = Scenario(FOUR).dice(kanly=KanlyFace.THUMPER).active(ATR).at(Phase.KANLY)
    act(game, DecisionKind.KANLY, ATR, KANLY_TAKE)
    assert game.has_thumper(ATR) and game.thumper_supply == 3

    holds_one = Scenario(FOUR).thumper(ATR).dice(kanly=KanlyFace.THUMPER).active(ATR)
    game = holds_one.at(Phase.KANLY)
    assert EventKind.KANLY_TAKE not in event_kinds(game)
    assert game.has_thumper(ATR) and game.thumper_supply == 3

    seats = [ATR, HAR, FRE, COR, GLD]
    all_held = Scenario(seats).dice(kanly=KanlyFace.THUMPER).active(ATR)
    for faction in (HAR, FRE, COR, GLD):
        all_held.thumper(faction)
    game = all_held.at(Phase.KANLY)
    assert EventKind.KANLY_TAKE not in event_kinds(game)
    assert game.state.thumpers == [0, 1, 1, 0, 1, 1, 0, 0]
    assert game.thumper_supply == 0


# === Step 5: LAND ===========================================================================


def harvest_scenario(spice: int | str = 2, storm: int = 1) -> Scenario:
    return (
        Scenario(FOUR)
        .units(ATR, CARD, 1)
        .units(ATR, ARRAKEEN, 1)
        .units(ATR, CARTHAG, 1)
        .token(ARRAKEEN, Token.HARVESTER)
        .token(CARTHAG, Token.HARVESTER)
        .storm(storm)
        .dice(spice=spice)
        .active(ATR)
    )


def test_land_1_two_spice_per_harvester_where_you_have_units() -> None:
    """LAND-1 / PROP-5: +2 per harvester in a region with your units at the landing start."""
    game = harvest_scenario().at(Phase.LAND_START)
    assert pending_is(game, DecisionKind.LAND, ATR)
    assert game.state.pool == 2 + 2 + 2
    assert events_of(game, EventKind.HARVEST) == [(4,)]


def test_land_1_no_harvest_from_a_storm_region() -> None:
    """LAND-1 / STORM-3: the harvester of Arrakeen (in the storm) gives nothing."""
    game = harvest_scenario(storm=5).at(Phase.LAND_START)
    assert game.state.pool == 2 + 2


def test_land_1_no_harvest_without_own_units_there() -> None:
    """LAND-1: a harvester in a region held only by someone else gives nothing."""
    game = (
        Scenario(FOUR)
        .units(ATR, CARD, 1)
        .units(ATR, ARRAKEEN, 1)
        .units(HAR, CARTHAG, 1)
        .token(CARTHAG, Token.HARVESTER)
        .dice(spice=2)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    assert game.state.pool == 2


def test_land_1_shai_hulud_no_spice_and_one_harvester_lost() -> None:
    """LAND-1: on Shai-Hulud no spice at all, and one of your harvesters (your choice) goes
    back to the common supply."""
    game = harvest_scenario(spice="worm").at(Phase.LAND_START)
    assert options(game, DecisionKind.HARVESTER_DISCARD, ATR) == {ARRAKEEN, CARTHAG}
    act(game, DecisionKind.HARVESTER_DISCARD, ATR, CARTHAG)
    s = game.state
    assert s.region_token[CARTHAG] == NO_ONE
    assert s.region_token[ARRAKEEN] == Token.HARVESTER
    assert s.token_supply[Token.HARVESTER] == 1
    assert s.pool == 0
    assert EventKind.HARVEST not in event_kinds(game)
    assert units(game, ATR, CARD) == 1  # nothing to pay with: no landing


def test_land_1_shai_hulud_spares_harvesters_of_others() -> None:
    """LAND-1: the lost harvester must come from a region where you have a unit."""
    game = (
        Scenario(FOUR)
        .units(ATR, ARRAKEEN, 1)
        .units(HAR, CARTHAG, 1)
        .token(CARTHAG, Token.HARVESTER)
        .dice(spice="worm")
        .active(ATR)
        .at(Phase.LAND_START)
    )
    assert EventKind.HARVESTER_LOST not in event_kinds(game)
    assert game.state.region_token[CARTHAG] == Token.HARVESTER


def test_land_2_one_spice_per_unit_onto_polar_cap_or_own_regions() -> None:
    """LAND-2: one unit at a time, 1 spice each, onto the Polar Cap or a region you hold."""
    game = (
        Scenario(FOUR)
        .units(ATR, CARD, 3)
        .units(ATR, ARRAKEEN, 1)
        .units(ATR, MINOR_ERG, 1)
        .units(HAR, TUEKS, 1)
        .dice(region=4, spice=2)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    assert options(game, DecisionKind.LAND, ATR) == {
        LAND_STOP,
        land_option(POLAR, REG),
        land_option(ARRAKEEN, REG),
        land_option(MINOR_ERG, REG),
    }
    act(game, DecisionKind.LAND, ATR, land_option(ARRAKEEN, REG))
    assert game.state.pool == 1
    assert units(game, ATR, ARRAKEEN) == 2 and units(game, ATR, CARD) == 2
    act(game, DecisionKind.LAND, ATR, land_option(POLAR, REG))
    # The pool is empty: landing is over with one unit left on the card.
    assert game.state.pool == 0
    assert units(game, ATR, POLAR) == 1 and units(game, ATR, CARD) == 1
    assert pending_is(game, DecisionKind.MOVE_TARGET, ATR)


@pytest.mark.parametrize("desert_landing", [False, True])
def test_land_3_never_into_the_storm_desert_by_default(desert_landing: bool) -> None:
    """LAND-3 / CL-6 (rev. 2): no landing into a storm region; desert regions are allowed
    unless the `desert_landing=False` variant is chosen."""
    game = (
        Scenario(FOUR, desert_landing=desert_landing)
        .storm(5)  # Arrakeen
        .units(ATR, CARD, 2)
        .units(ATR, ARRAKEEN, 1)
        .units(ATR, SIETCH_TABR, 1)
        .units(ATR, CARTHAG, 1)
        .dice(spice=3)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    expected = {LAND_STOP, land_option(POLAR, REG), land_option(CARTHAG, REG)}
    if desert_landing:
        expected.add(land_option(SIETCH_TABR, REG))
    assert options(game, DecisionKind.LAND, ATR) == expected


@pytest.mark.parametrize("consent", [0, 1])
def test_land_4_landing_in_the_allys_region_needs_its_consent(consent: int) -> None:
    """LAND-4: a region where only the ally has units is open only with the ally's consent."""
    game = (
        Scenario(FIVE)
        .ally(COR)
        .units(ATR, CARD, 2)
        .units(ATR, ARRAKEEN, 1)
        .units(COR, CARTHAG, 1)
        .dice(spice=2)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    act(game, DecisionKind.LAND_CONSENT, COR, consent)
    land_options = options(game, DecisionKind.LAND, ATR)
    assert (land_option(CARTHAG, REG) in land_options) is bool(consent)
    if consent:
        act(game, DecisionKind.LAND, ATR, land_option(CARTHAG, REG))
        assert units(game, ATR, CARTHAG) == 1


def test_land_5_ally_lands_within_the_grant_and_the_active_player_pays() -> None:
    """LAND-5 / CL-7: the ally lands onto the Polar Cap or where it or you have units, within
    the spice you grant; you pay; the unused rest of the grant stays yours."""
    game = (
        Scenario(FIVE)
        .ally(COR)
        .units(ATR, CARD, 1)
        .units(ATR, ARRAKEEN, 1)
        .units(COR, CARD, 3)
        .units(COR, MINOR_ERG, 1)
        .dice(region=4, spice=4)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    act(game, DecisionKind.LAND_CONSENT, COR, 0)
    act(game, DecisionKind.LAND, ATR, land_option(ARRAKEEN, REG))
    # The active player's card is empty: the grant is asked next.
    assert options(game, DecisionKind.ALLY_GRANT, ATR) == {0, 1, 2, 3}
    act(game, DecisionKind.ALLY_GRANT, ATR, 2)
    assert options(game, DecisionKind.LAND, COR) == {
        LAND_STOP,
        land_option(POLAR, REG),
        land_option(ARRAKEEN, REG),  # only the active player's units there
        land_option(MINOR_ERG, REG),
    }
    act(game, DecisionKind.LAND, COR, land_option(ARRAKEEN, REG))
    assert game.state.pool == 2  # the active player paid
    act(game, DecisionKind.LAND, COR, LAND_STOP)
    assert game.state.pool == 2 and game.state.grant == 0
    assert units(game, COR, ARRAKEEN) == 1 and units(game, COR, CARD) == 2
    assert pending_is(game, DecisionKind.MOVE_TARGET, ATR)


def test_land_5_ally_cannot_land_beyond_the_grant() -> None:
    """LAND-5: with a grant of 1 the ally lands one unit, however much the pool holds."""
    game = (
        Scenario(FIVE)
        .ally(COR)
        .units(COR, CARD, 3)
        .units(COR, MINOR_ERG, 1)
        .dice(region=4, spice=5)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    act(game, DecisionKind.ALLY_GRANT, ATR, 1)
    act(game, DecisionKind.LAND, COR, land_option(MINOR_ERG, REG))
    assert pending_is(game, DecisionKind.MOVE_TARGET, ATR)
    assert units(game, COR, CARD) == 2 and game.state.pool == 4


def test_land_6_units_land_only_in_the_landing_step() -> None:
    """LAND-6: units left on the card stay there for the rest of the turn: no movement,
    battle or later step puts them on the map."""
    game = (
        Scenario(FOUR)
        .units(ATR, CARD, 2)
        .units(ATR, ARRAKEEN, 1)
        .units(HAR, CARTHAG, 1)
        .dice(factions=[FRE, FRE, FRE, FRE], region=4, spice=1)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    act(game, DecisionKind.LAND, ATR, LAND_STOP)
    act(game, DecisionKind.MOVE_TARGET, ATR, CARTHAG)
    assert options(game, DecisionKind.MOVE, ATR) == {0, move_option(ARRAKEEN, REG)}
    act(game, DecisionKind.MOVE, ATR, move_option(ARRAKEEN, REG))
    assert options(game, DecisionKind.BID, ATR) == {BID_DONE, unit_option(ATR, REG)}
    bid(game, ATR, [unit_option(ATR, REG)])
    bid(game, HAR, [])
    # The turn is over (Harkonnen rolls); the two units never left the card.
    assert game.state.active_faction == HAR
    assert units(game, ATR, CARD) == 2
    assert not events_of(game, EventKind.LAND)


# === Step 6: MOVE ===========================================================================


@pytest.mark.parametrize(
    ("region_die", "storm", "targets"),
    [
        (4, 1, {CARTHAG, BROKEN_LAND, POLAR}),
        (3, 1, {SIETCH_TABR, POLAR}),
        (6, 1, {MINOR_ERG, TUEKS, POLAR}),
        (4, 4, {POLAR}),  # the die's sector is in the storm
    ],
)
def test_move_1_target_is_in_the_dice_sector_or_the_polar_cap(
    region_die: int, storm: int, targets: set[int]
) -> None:
    """MOVE-1: a region of the die's sector or the Polar Cap; never a storm region."""
    game = (
        Scenario(FOUR, skip_forced_decisions=False)
        .units(ATR, ARRAKEEN, 1)
        .storm(storm)
        .dice(region=region_die)
        .active(ATR)
        .at(Phase.MOVE_TARGET)
    )
    assert options(game, DecisionKind.MOVE_TARGET, ATR) == targets


def test_move_2_from_adjacent_regions_and_ornithopter_regions_free() -> None:
    """MOVE-2 / PROP-4: any number of units move free into the target from adjacent regions
    and from a region holding an ornithopter, but not from other distant regions."""
    game = (
        Scenario(FOUR)
        .units(ATR, ARRAKEEN, 2)
        .units(ATR, BROKEN_LAND, 1)
        .units(ATR, POLAR, 1)
        .units(ATR, TUEKS, 1)
        .units(ATR, HABBANYA, 1)
        .token(HABBANYA, Token.ORNITHOPTER)
        .dice(region=4, spice=2)
        .active(ATR)
        .at(Phase.MOVE_TARGET)
    )
    act(game, DecisionKind.MOVE_TARGET, ATR, CARTHAG)
    assert options(game, DecisionKind.MOVE, ATR) == {
        0,
        move_option(ARRAKEEN, REG),
        move_option(BROKEN_LAND, REG),
        move_option(POLAR, REG),
        move_option(HABBANYA, REG),
    }
    for origin in (ARRAKEEN, ARRAKEEN, HABBANYA, POLAR):
        act(game, DecisionKind.MOVE, ATR, move_option(origin, REG))
    act(game, DecisionKind.MOVE, ATR, 0)
    assert units(game, ATR, CARTHAG) == 4
    assert units(game, ATR, ARRAKEEN) == 0 and units(game, ATR, TUEKS) == 1
    assert units(game, ATR, BROKEN_LAND) == 1
    assert game.state.pool == 2  # free


def test_move_3_then_the_ally_moves_into_the_same_target() -> None:
    """MOVE-3: after the active player, the ally moves its own units into the same target,
    deciding alone."""
    game = (
        Scenario(FIVE)
        .ally(COR)
        .units(ATR, ARRAKEEN, 1)
        .units(COR, SIETCH_TABR, 2)
        .units(COR, TUEKS, 1)
        .dice(region=4)
        .active(ATR)
        .at(Phase.MOVE_TARGET)
    )
    act(game, DecisionKind.MOVE_TARGET, ATR, CARTHAG)
    act(game, DecisionKind.MOVE, ATR, move_option(ARRAKEEN, REG))
    # Arrakeen is empty: the active player is done, and the ally is asked.
    assert options(game, DecisionKind.MOVE, COR) == {0, move_option(SIETCH_TABR, REG)}
    act(game, DecisionKind.MOVE, COR, move_option(SIETCH_TABR, REG))
    act(game, DecisionKind.MOVE, COR, 0)
    assert units(game, COR, CARTHAG) == 1 and units(game, COR, SIETCH_TABR) == 1
    assert units(game, ATR, CARTHAG) == 1
    assert game.state.target == CARTHAG


def test_move_4_no_unit_moves_out_of_a_storm_region() -> None:
    """MOVE-4 (STORM-3): units in the storm stay, even adjacent or with an ornithopter."""
    game = (
        Scenario(FOUR)
        .storm(5)  # Arrakeen
        .units(ATR, ARRAKEEN, 2)
        .token(ARRAKEEN, Token.ORNITHOPTER)
        .units(ATR, SIETCH_TABR, 1)
        .dice(region=4)
        .active(ATR)
        .at(Phase.MOVE_TARGET)
    )
    act(game, DecisionKind.MOVE_TARGET, ATR, CARTHAG)
    assert options(game, DecisionKind.MOVE, ATR) == {0, move_option(SIETCH_TABR, REG)}


def test_move_4_no_unit_moves_into_a_storm_region() -> None:
    """MOVE-4 (STORM-3): with the die's sector in the storm, only the Polar Cap is a target."""
    game = (
        Scenario(FOUR)
        .storm(5)
        .units(ATR, CARTHAG, 2)
        .dice(region=5)
        .active(ATR)
        .at(Phase.MOVE_TARGET)
    )
    assert game.state.target == POLAR  # the only legal target, taken without asking
    act(game, DecisionKind.MOVE, ATR, move_option(CARTHAG, REG))
    assert units(game, ATR, ARRAKEEN) == 0 and units(game, ATR, POLAR) == 1


# === Step 7: BATTLE =========================================================================


def test_battle_1_every_contested_region_is_fought_in_the_chosen_order() -> None:
    """BATTLE-1: every region out of the Polar Cap and the storm where the active player (not
    the ally) meets an enemy is a battle; all are fought, in the order chosen."""
    game = (
        Scenario(FIVE)
        .ally(GLD)
        .storm(3)  # Sietch Tabr
        .units(ATR, CARTHAG, 1)
        .units(HAR, CARTHAG, 1)
        .units(ATR, ARRAKEEN, 1)
        .units(FRE, ARRAKEEN, 1)
        .units(ATR, POLAR, 1)
        .units(COR, POLAR, 1)  # Polar Cap: no battle
        .units(ATR, SIETCH_TABR, 1)
        .units(COR, SIETCH_TABR, 1)  # storm: no battle
        .units(ATR, MINOR_ERG, 1)
        .units(GLD, MINOR_ERG, 1)  # the ally: no battle
        .units(GLD, BROKEN_LAND, 1)
        .units(HAR, BROKEN_LAND, 1)  # the ally's, not the active player's: no battle
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    assert options(game, DecisionKind.BATTLE_ORDER, ATR) == {CARTHAG, ARRAKEEN}
    act(game, DecisionKind.BATTLE_ORDER, ATR, ARRAKEEN)
    bid(game, ATR, [])
    bid(game, FRE, [])
    # The remaining battle follows (the only choice left, taken without asking).
    bid(game, ATR, [])
    bid(game, HAR, [])
    starts = events_of(game, EventKind.BATTLE_START)
    assert [(region, defender) for region, _, defender in starts] == [
        (ARRAKEEN, FRE),
        (CARTHAG, HAR),
    ]
    for region, faction in [(POLAR, COR), (SIETCH_TABR, COR), (MINOR_ERG, GLD)]:
        assert units(game, faction, region) == 1 and units(game, ATR, region) == 1
    assert units(game, GLD, BROKEN_LAND) == 1 and units(game, HAR, BROKEN_LAND) == 1


@pytest.mark.parametrize("atreides_there", [False, True])
def test_battle_2_defender_is_the_nearest_enemy_counter_clockwise(atreides_there: bool) -> None:
    """BATTLE-2: the ally's units fight with the attacker; the defender is the enemy present
    nearest counter-clockwise, and it bids for every enemy unit in the region."""
    # Seats clockwise: ATR 0, HAR 1 (active), FRE 2, COR 3 (ally), GLD 4.
    # Counter-clockwise from Harkonnen: Atreides, Guild, Corrino, Fremen.
    scenario = (
        Scenario(FIVE)
        .ally(COR)
        .units(HAR, CARTHAG, 1)
        .units(COR, CARTHAG, 1)
        .units(GLD, CARTHAG, 1)
        .units(FRE, CARTHAG, 1)
        .active(HAR)
    )
    if atreides_there:
        scenario.units(ATR, CARTHAG, 1)
    game = scenario.at(Phase.BATTLE_SELECT)
    defender = ATR if atreides_there else GLD
    assert game.state.battle_defender == defender
    assert options(game, DecisionKind.BID, HAR) == {
        BID_DONE,
        unit_option(HAR, REG),
        unit_option(COR, REG),
    }
    bid(game, HAR, [unit_option(HAR, REG)])
    enemy_units = {unit_option(f, REG) for f in (GLD, FRE)}
    if atreides_there:
        enemy_units.add(unit_option(ATR, REG))
    assert options(game, DecisionKind.BID, defender) == {BID_DONE} | enemy_units
    bid(game, defender, [unit_option(FRE, REG)])  # a Fremen unit counts 2
    assert game.state.last_battle[3:6] == (1, 2, 1)
    # The attacking side lost: the ally's uncommitted unit is lost too; the defending side's
    # uncommitted units stay.
    assert units(game, COR, CARTHAG) == 0 and units(game, HAR, CARTHAG) == 0
    assert units(game, GLD, CARTHAG) == 1 and units(game, FRE, CARTHAG) == 0
    assert units(game, ATR, CARTHAG) == int(atreides_there)


def test_battle_3_fortress_removes_an_attacking_unit_then_goes_to_the_supply() -> None:
    """BATTLE-3 / PROP-3: the active player removes one attacking unit (its own or the
    ally's), then the fortress returns to the common supply."""
    game = (
        Scenario(FIVE)
        .ally(COR)
        .token(CARTHAG, Token.FORTRESS)
        .units(ATR, CARTHAG, 2)
        .units(COR, CARTHAG, 1)
        .units(HAR, CARTHAG, 2)
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    victims = options(game, DecisionKind.FORTRESS_VICTIM, ATR)
    assert victims == {unit_option(ATR, REG) - 1, unit_option(COR, REG) - 1}
    act(game, DecisionKind.FORTRESS_VICTIM, ATR, unit_option(COR, REG) - 1)
    s = game.state
    assert units(game, COR, CARTHAG) == 0 and units(game, COR, RESERVE, REG) == 8
    assert units(game, HAR, CARTHAG) == 2  # defenders are untouched
    assert s.region_token[CARTHAG] == NO_ONE
    assert s.token_supply[Token.FORTRESS] == PROPERTY_TOKENS_PER_TYPE
    assert options(game, DecisionKind.BID, ATR) == {BID_DONE, unit_option(ATR, REG)}


def test_battle_3_fortress_taking_the_last_attacker_ends_the_battle() -> None:
    """BATTLE-3: when the fortress removes the attacker's only unit, no battle is left."""
    game = (
        Scenario(FOUR)
        .token(CARTHAG, Token.FORTRESS)
        .units(ATR, CARTHAG, 1)
        .units(HAR, CARTHAG, 1)
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    assert units(game, ATR, CARTHAG) == 0 and units(game, HAR, CARTHAG) == 1
    assert EventKind.BATTLE_RESULT not in event_kinds(game)
    assert game.token_supply(Token.FORTRESS) == PROPERTY_TOKENS_PER_TYPE


@pytest.mark.parametrize(("ally_lends", "helper_lends"), [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_battle_4_other_factions_leaders_only_when_lent(ally_lends: int, helper_lends: int) -> None:
    """BATTLE-4: each side uses its own leader; the attacker's ally (even with no units in the
    region) and other defending factions add theirs only if they lend them."""
    # Seats clockwise ATR, FRE, COR, GLD, HAR: counter-clockwise from Atreides the Harkonnen
    # comes first, so it defends and the Fremen helps it.
    game = (
        Scenario([ATR, FRE, COR, GLD, HAR])
        .ally(COR)
        .units(ATR, CARTHAG, 1)
        .units(HAR, CARTHAG, 1)
        .units(FRE, CARTHAG, 1)
        .leaders(COR, 1)
        .leaders(HAR, 1)
        .leaders(FRE, 1)
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    assert game.state.battle_defender == HAR
    act(game, DecisionKind.LEND_LEADER, COR, ally_lends)
    act(game, DecisionKind.LEND_LEADER, FRE, helper_lends)
    att = options(game, DecisionKind.BID, ATR)
    assert (bid_leader_option(COR) in att) is bool(ally_lends)
    assert bid_leader_option(ATR) not in att  # Atreides leaders are in the reserve
    commits = [unit_option(ATR, REG)] + ([bid_leader_option(COR)] if ally_lends else [])
    bid(game, ATR, commits)
    dfn = options(game, DecisionKind.BID, HAR)
    assert bid_leader_option(HAR) in dfn
    assert (bid_leader_option(FRE) in dfn) is bool(helper_lends)
    bid(game, HAR, [bid_leader_option(HAR)])
    # A committed lent leader goes to its owner's reserve (BATTLE-7).
    assert game.state.leaders[COR] == ([0, 1] if ally_lends else [1, 0])
    assert game.state.leaders[FRE] == [1, 0]


def test_battle_5_bids_are_hidden_and_independent() -> None:
    """BATTLE-5: any commitment, zero included, is legal; the defender's choices do not depend
    on the attacker's bid, and nothing is revealed before both bids are in."""
    base = (
        Scenario(FOUR)
        .units(ATR, CARTHAG, 3)
        .units(HAR, CARTHAG, 2)
        .leaders(ATR, 2)
        .leaders(HAR, 1)
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    assert BID_DONE in options(base, DecisionKind.BID, ATR)
    big, nothing = base.clone(), base.clone()
    bid(big, ATR, [unit_option(ATR, REG)] * 3 + [bid_leader_option(ATR)] * 2)
    bid(nothing, ATR, [])
    for game in (big, nothing):
        assert game.state.last_battle is None
        assert EventKind.BATTLE_BIDS not in event_kinds(game)
    assert options(big, DecisionKind.BID, HAR) == options(nothing, DecisionKind.BID, HAR)
    assert options(big, DecisionKind.BID, HAR) == {
        BID_DONE,
        unit_option(HAR, REG),
        bid_leader_option(HAR),
    }
    bid(nothing, HAR, [])  # zero against zero
    assert nothing.state.last_battle[3:6] == (0, 0, 1)
    bid(big, HAR, [])
    assert big.state.last_battle[3:6] == (8, 0, 0)  # 3 units + Leto and Duncan (5, ATR-1)


@pytest.mark.parametrize(
    ("active", "defender", "att_pieces", "def_pieces", "strengths", "winner"),
    [
        # 2 units against 2 units: a tie goes to the defender.
        (ATR, HAR, [(ATR, REG)] * 2, [(HAR, REG)] * 2, (2, 2), 1),
        (ATR, HAR, [(ATR, REG)] * 3, [(HAR, REG)] * 2, (3, 2), 0),
        # Sardaukar and Fremen units count 2 (DEF-8).
        (COR, FRE, [(COR, ELITE), (COR, REG)], [(FRE, REG)], (3, 2), 0),
        (COR, FRE, [(COR, ELITE)], [(FRE, REG)], (2, 2), 1),
        # Leaders add their strength: Leto 3 against 2 units.
        (ATR, HAR, [(ATR, "leader")], [(HAR, REG)] * 2, (3, 2), 0),
        # Baron Vladimir 4 against 2 Fremen units (4): tie, the defender wins.
        (HAR, FRE, [(HAR, "leader")], [(FRE, REG)] * 2, (4, 4), 1),
    ],
)
def test_battle_6_strength_higher_side_wins_tie_goes_to_defender(
    active: int,
    defender: int,
    att_pieces: list[tuple[int, object]],
    def_pieces: list[tuple[int, object]],
    strengths: tuple[int, int],
    winner: int,
) -> None:
    """BATTLE-6: units (DEF-8) plus leaders; the higher side wins; a tie goes to the
    defender."""
    scenario = Scenario(FOUR).active(active)
    commits: dict[int, list[int]] = {active: [], defender: []}
    for side_owner, pieces in ((active, att_pieces), (defender, def_pieces)):
        for faction, kind in pieces:
            if kind == "leader":
                scenario.leaders(faction, 1)
                commits[side_owner].append(bid_leader_option(faction))
            else:
                scenario.units(faction, CARTHAG, 1, kind)
                commits[side_owner].append(unit_option(faction, kind))
    if not any(kind != "leader" for _, kind in att_pieces):
        scenario.units(active, CARTHAG, 1)  # present, but not committed
    game = scenario.at(Phase.BATTLE_SELECT)
    bid(game, active, commits[active])
    bid(game, defender, commits[defender])
    region, attacker, dfn, att, dstr, won = game.state.last_battle[:6]
    assert (region, attacker, dfn) == (CARTHAG, active, defender)
    assert (att, dstr) == strengths
    assert won == winner


def test_battle_7_losses_when_the_attacker_wins() -> None:
    """BATTLE-7: committed units and leaders of both sides go to the reserves; uncommitted
    leaders stay on their cards; the loser's uncommitted units go to the reserve; the
    winner's uncommitted units (the ally's too) stay."""
    game = (
        Scenario(FIVE)
        .ally(COR)
        .units(ATR, CARTHAG, 3)
        .units(COR, CARTHAG, 2)
        .units(HAR, CARTHAG, 3)
        .leaders(ATR, 1)
        .leaders(COR, 1)
        .leaders(HAR, 1)
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    act(game, DecisionKind.LEND_LEADER, COR, 0)
    bid(game, ATR, [unit_option(ATR, REG)] * 2 + [unit_option(COR, REG)])
    bid(game, HAR, [unit_option(HAR, REG)])
    s = game.state
    assert s.last_battle[3:6] == (3, 1, 0)
    assert units(game, ATR, CARTHAG) == 1 and units(game, ATR, RESERVE) == 11
    assert units(game, COR, CARTHAG) == 1 and units(game, COR, RESERVE, REG) == 7
    assert units(game, HAR, CARTHAG) == 0 and units(game, HAR, RESERVE) == 12
    assert s.leaders[ATR] == [1, 1] and s.leaders[COR] == [1, 0] and s.leaders[HAR] == [1, 0]


def test_battle_7_losses_when_the_attacker_loses() -> None:
    """BATTLE-7: the losing attacker loses every unit there (the ally's too); the defender
    keeps its uncommitted units; committed leaders go to the reserves."""
    game = (
        Scenario(FIVE)
        .ally(COR)
        .units(ATR, CARTHAG, 3)
        .units(COR, CARTHAG, 2)
        .units(HAR, CARTHAG, 3)
        .leaders(ATR, 1)
        .leaders(HAR, 1)
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    bid(game, ATR, [unit_option(ATR, REG), bid_leader_option(ATR)])
    bid(game, HAR, [unit_option(HAR, REG), bid_leader_option(HAR)])
    s = game.state
    assert s.last_battle[3:6] == (4, 5, 1)
    assert units(game, ATR, CARTHAG) == 0 and units(game, ATR, RESERVE) == 12
    assert units(game, COR, CARTHAG) == 0 and units(game, COR, RESERVE, REG) == 8
    assert units(game, HAR, CARTHAG) == 2 and units(game, HAR, RESERVE) == 10
    assert s.leaders[ATR] == [0, 2] and s.leaders[HAR] == [0, 1]


def test_battle_7_region_may_end_empty() -> None:
    """BATTLE-7: the winner committing all its units leaves the region empty."""
    game = (
        Scenario(FOUR)
        .units(ATR, CARTHAG, 2)
        .units(HAR, CARTHAG, 1)
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    bid(game, ATR, [unit_option(ATR, REG)] * 2)
    bid(game, HAR, [])
    assert game.state.last_battle.winner_side == 0
    assert units(game, ATR, CARTHAG) == 0 and units(game, HAR, CARTHAG) == 0


# === Step 8: PROP ===========================================================================


def test_prop_1_reorganise_the_target_held_alone() -> None:
    """PROP-1: the target held by you alone: its token goes back, one of your choice from the
    common supply comes in."""
    game = (
        Scenario(FOUR)
        .units(ATR, CARTHAG, 1)
        .token(CARTHAG, Token.FORTRESS)
        .target(CARTHAG)
        .active(ATR)
        .at(Phase.PROPERTY)
    )
    # 0 keeps; 1 + token type places it (the fortress itself would go back and return).
    assert options(game, DecisionKind.REORGANIZE, ATR) == {0, 1, 2, 3}
    act(game, DecisionKind.REORGANIZE, ATR, 1 + Token.HARVESTER)
    s = game.state
    assert s.region_token[CARTHAG] == Token.HARVESTER
    assert s.token_supply[Token.FORTRESS] == 2 and s.token_supply[Token.HARVESTER] == 1


@pytest.mark.parametrize("with_active", [False, True])
def test_prop_1_the_allys_region_can_be_reorganised(with_active: bool) -> None:
    """PROP-1: held by the ally (alone or with you) counts as well."""
    scenario = Scenario(FIVE).ally(COR).units(COR, CARTHAG, 1).target(CARTHAG).active(ATR)
    if with_active:
        scenario.units(ATR, CARTHAG, 1)
    game = scenario.at(Phase.PROPERTY)
    act(game, DecisionKind.REORGANIZE, ATR, 1 + Token.ORNITHOPTER)
    assert game.state.region_token[CARTHAG] == Token.ORNITHOPTER


def _full_map(scenario: Scenario) -> Scenario:
    """All six property tokens on the map, none in the common supply."""
    for region, token in [
        (HABBANYA, Token.FORTRESS),
        (SIETCH_TABR, Token.FORTRESS),
        (TUEKS, Token.HARVESTER),
        (ARRAKEEN, Token.HARVESTER),
        (MINOR_ERG, Token.ORNITHOPTER),
        (CARTHAG, Token.ORNITHOPTER),
    ]:
        scenario.token(region, token)
    return scenario


@pytest.mark.parametrize("with_ally", [False, True])
def test_prop_1_control_is_enough_even_with_an_enemy_present(with_ally: bool) -> None:
    """PROP-1 (rev. 2): the target controlled (DEF-6) by you or by your ally can be
    reorganised; an enemy faction also present does not prevent it (no further condition)."""
    holder = COR if with_ally else ATR
    scenario = Scenario(FIVE).units(holder, CARTHAG, 1).units(HAR, CARTHAG, 1).active(ATR)
    if with_ally:
        scenario.ally(COR)
    game = scenario.target(CARTHAG).at(Phase.PROPERTY)
    act(game, DecisionKind.REORGANIZE, ATR, 1 + Token.HARVESTER)
    assert game.state.region_token[CARTHAG] == Token.HARVESTER


def test_prop_1_with_strict_control_an_enemy_breaks_control() -> None:
    """PROP-1 with the CL-3 `strict_control` variant: control (DEF-6) needs no enemy present,
    so a shared target is not reorganised; the ally does not break it."""
    game = (
        Scenario(FIVE, strict_control=True)
        .units(ATR, CARTHAG, 1)
        .units(HAR, CARTHAG, 1)
        .target(CARTHAG)
        .active(ATR)
        .at(Phase.PROPERTY)
    )
    assert DecisionKind.REORGANIZE not in [row[1] for row in game.state.history[1:]]
    game = (
        Scenario(FIVE, strict_control=True)
        .units(ATR, CARTHAG, 1)
        .units(COR, CARTHAG, 1)
        .ally(COR)
        .target(CARTHAG)
        .active(ATR)
        .at(Phase.PROPERTY)
    )
    assert options(game, DecisionKind.REORGANIZE, ATR) == {0, 1, 2, 3}


@pytest.mark.parametrize("case", ["enemy_only", "polar", "storm", "no_supply", "not_target"])
def test_prop_1_no_reorganising_otherwise(case: str) -> None:
    """PROP-1 / STORM-3 / MAP-4: not a target held only by an enemy, not the Polar Cap, not in
    the storm, not with an empty common supply, and only the (held) target region."""
    held = POLAR if case == "polar" else CARTHAG
    target = ARRAKEEN if case == "not_target" else held  # Arrakeen: empty
    holder = HAR if case == "enemy_only" else ATR
    scenario = Scenario(FOUR).units(holder, held, 1).target(target).active(ATR)
    if case == "storm":
        scenario.storm(4)
    elif case == "no_supply":
        _full_map(scenario)
    tokens = list(scenario.state.region_token)
    game = scenario.at(Phase.PROPERTY)
    assert EventKind.PROPERTY not in event_kinds(game)
    assert DecisionKind.REORGANIZE not in [row[1] for row in game.state.history[1:]]
    assert game.state.region_token == tokens


def test_prop_2_one_token_per_region_and_tokens_stay_with_the_region() -> None:
    """PROP-2: a token stays in its region whoever wins it; reorganising swaps, never adds."""
    game = (
        Scenario(FOUR)
        .units(ATR, CARTHAG, 2)
        .units(HAR, CARTHAG, 1)
        .token(CARTHAG, Token.HARVESTER)
        .target(CARTHAG)
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    bid(game, ATR, [unit_option(ATR, REG)])
    bid(game, HAR, [])
    assert units(game, ATR, CARTHAG) == 1 and units(game, HAR, CARTHAG) == 0
    assert game.state.region_token[CARTHAG] == Token.HARVESTER  # changed hands, stayed
    act(game, DecisionKind.REORGANIZE, ATR, 1 + Token.FORTRESS)
    s = game.state
    assert s.region_token[CARTHAG] == Token.FORTRESS
    for token in Token:
        assert s.region_token.count(token) + s.token_supply[token] == PROPERTY_TOKENS_PER_TYPE


@pytest.mark.parametrize("fortress", [False, True])
def test_prop_3_fortress_shields_its_desert_region_from_the_storm(fortress: bool) -> None:
    """PROP-3 / STORM-2: the storm entering desert Sietch Tabr kills nobody there if it holds
    a fortress."""
    scenario = (
        Scenario(FOUR)
        .storm(4)
        .units(ATR, SIETCH_TABR, 2)
        .units(HAR, SIETCH_TABR, 1)
        .dice(region=2, spice=3)  # storm symbol, E: 4 -> 3
        .active(ATR)
    )
    if fortress:
        scenario.token(SIETCH_TABR, Token.FORTRESS)
    game = scenario.at(Phase.STORM)
    assert game.state.storm_sector == 3
    assert units(game, ATR, SIETCH_TABR) == (2 if fortress else 1)
    assert units(game, HAR, SIETCH_TABR) == (1 if fortress else 0)
    assert game.state.region_token[SIETCH_TABR] == (Token.FORTRESS if fortress else NO_ONE)


def test_prop_4_ornithopter_lets_all_units_of_its_region_reach_a_distant_target() -> None:
    """PROP-4: from a region with an ornithopter, any faction's units (here the active
    player's and the ally's) reach the target though not adjacent."""
    game = (
        Scenario(FIVE)
        .ally(COR)
        .units(ATR, HABBANYA, 1)
        .units(COR, HABBANYA, 1)
        .units(ATR, GREAT_FLAT, 1)  # distant, no ornithopter
        .token(HABBANYA, Token.ORNITHOPTER)
        .dice(region=5)
        .active(ATR)
        .at(Phase.MOVE_TARGET)
    )
    act(game, DecisionKind.MOVE_TARGET, ATR, ARRAKEEN)
    assert options(game, DecisionKind.MOVE, ATR) == {0, move_option(HABBANYA, REG)}
    act(game, DecisionKind.MOVE, ATR, move_option(HABBANYA, REG))
    act(game, DecisionKind.MOVE, COR, move_option(HABBANYA, REG))
    assert units(game, ATR, ARRAKEEN) == 1 and units(game, COR, ARRAKEEN) == 1
    assert units(game, ATR, GREAT_FLAT) == 1


@pytest.mark.parametrize("spice", [1, 3, 5])
def test_prop_5_harvester_adds_two_spice(spice: int) -> None:
    """PROP-5 / LAND-1: one harvester where you have a unit adds 2 to the spice die."""
    game = (
        Scenario(FOUR)
        .units(ATR, CARD, 1)
        .units(ATR, TUEKS, 1)
        .token(TUEKS, Token.HARVESTER)
        .dice(spice=spice)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    assert game.state.pool == spice + 2


# === Step 9: STORM ==========================================================================


@pytest.mark.parametrize(
    ("start", "region_die", "spice", "end"),
    [
        (5, 6, 3, 4),  # the rulebook's example: E moves 5 -> 4
        (4, 2, 4, 3),  # E
        (4, 1, 5, 5),  # W (CL-1: faces 1 and 4 show W)
        (4, 4, 3, 5),  # W
        (6, 1, 3, 1),  # W wraps 6 -> 1
        (1, 3, 5, 6),  # E wraps 1 -> 6
        (4, 2, 1, 4),  # spice 1 and 2 show no storm symbol
        (4, 2, 2, 4),
        (4, 1, "worm", 4),  # nor does Shai-Hulud
    ],
)
def test_storm_1_moves_one_sector_only_on_the_storm_symbol(
    start: int, region_die: int, spice: int | str, end: int
) -> None:
    """STORM-1 / MAP-3: spice 3-5 move the storm one sector, E to sector-1, W to sector+1."""
    game = (
        Scenario(FOUR).storm(start).dice(region=region_die, spice=spice).active(ATR).at(Phase.STORM)
    )
    assert game.state.storm_sector == end
    moved = events_of(game, EventKind.STORM_MOVE)
    assert moved == ([] if start == end else [(start, end)])


def test_storm_2_entering_a_desert_sector_kills_one_unit_per_faction() -> None:
    """STORM-2 / CL-8: in each desert region of the sector entered (no fortress), every faction
    present loses one unit (the weaker type first) and an ornithopter returns to the supply."""
    game = (
        Scenario(FOUR)
        .storm(3)
        .units(ATR, GREAT_FLAT, 3)
        .units(HAR, GREAT_FLAT, 1)
        .units(COR, HABBANYA, 1, REG)
        .units(COR, HABBANYA, 1, ELITE)
        .token(HABBANYA, Token.ORNITHOPTER)
        .dice(region=3, spice=3)  # E: 3 -> 2 (Great Flat and Habbanya Sietch, both desert)
        .active(ATR)
        .at(Phase.STORM)
    )
    s = game.state
    assert s.storm_sector == 2
    assert units(game, ATR, GREAT_FLAT) == 2 and units(game, ATR, RESERVE) == 10
    assert units(game, HAR, GREAT_FLAT) == 0 and units(game, HAR, RESERVE) == 12
    assert units(game, COR, HABBANYA, REG) == 0 and units(game, COR, HABBANYA, ELITE) == 1
    assert s.region_token[HABBANYA] == NO_ONE
    assert s.token_supply[Token.ORNITHOPTER] == PROPERTY_TOKENS_PER_TYPE


def test_storm_2_only_desert_regions_suffer() -> None:
    """STORM-2: entering sector 4, desert Broken Land loses units, Carthag (not desert) keeps
    its units and its ornithopter."""
    game = (
        Scenario(FOUR)
        .storm(5)
        .units(ATR, CARTHAG, 2)
        .token(CARTHAG, Token.ORNITHOPTER)
        .units(HAR, BROKEN_LAND, 2)
        .token(BROKEN_LAND, Token.ORNITHOPTER)
        .dice(region=2, spice=4)  # E: 5 -> 4
        .active(ATR)
        .at(Phase.STORM)
    )
    s = game.state
    assert s.storm_sector == 4
    assert units(game, ATR, CARTHAG) == 2 and s.region_token[CARTHAG] == Token.ORNITHOPTER
    assert units(game, HAR, BROKEN_LAND) == 1 and s.region_token[BROKEN_LAND] == NO_ONE


def test_storm_2_a_storm_that_stays_kills_nobody() -> None:
    """STORM-2: losses happen when the storm enters a sector, not while it stays."""
    game = (
        Scenario(FOUR)
        .storm(2)
        .units(ATR, GREAT_FLAT, 2)
        .dice(region=3, spice=2)
        .active(ATR)
        .at(Phase.STORM)
    )
    assert game.state.storm_sector == 2
    assert units(game, ATR, GREAT_FLAT) == 2


def test_storm_3_storm_regions_are_cut_off_but_still_count_for_victory() -> None:
    """STORM-3: in the storm (Carthag): no harvest, no Kanly, no landing, no movement in or
    out, no battle; yet Carthag still counts for the active player's solo victory (END-1)."""
    game = (
        Scenario(FOUR)
        .storm(4)  # Carthag and Broken Land
        .units(ATR, CARTHAG, 2)
        .units(HAR, CARTHAG, 2)
        .token(CARTHAG, Token.HARVESTER)
        .units(ATR, ARRAKEEN, 1)
        .units(ATR, TUEKS, 1)
        .units(ATR, CARD, 2)
        .units(HAR, POLAR, 1)
        .dice(region=4, spice=2, kanly=KanlyFace.HUNTER_SEEKER)
        .active(ATR)
        .at(Phase.KANLY)
    )
    assert options(game, DecisionKind.KANLY, ATR) == {
        KANLY_NONE,
        kanly_kill_option(POLAR, HAR, REG),
    }
    act(game, DecisionKind.KANLY, ATR, KANLY_NONE)
    assert game.state.pool == 2  # no harvest from the storm
    land_options = options(game, DecisionKind.LAND, ATR)
    assert land_option(CARTHAG, REG) not in land_options
    act(game, DecisionKind.LAND, ATR, LAND_STOP)
    # Sector 4 is in the storm: the Polar Cap is the only target (taken without asking).
    assert game.state.target == POLAR
    assert options(game, DecisionKind.MOVE, ATR) == {0, move_option(ARRAKEEN, REG)}
    act(game, DecisionKind.MOVE, ATR, 0)
    # No battle in Carthag; at the end of the turn Carthag, Arrakeen and Tuek's Sietch count.
    assert EventKind.BATTLE_START not in event_kinds(game)
    assert units(game, HAR, CARTHAG) == 2
    assert game.terminal
    assert game.winners == [game.state.faction_seat[ATR]]


@pytest.mark.parametrize("start", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("region_die", [1, 2])  # W, E
def test_storm_4_never_enters_the_polar_cap(start: int, region_die: int) -> None:
    """STORM-4 / MAP-4: the storm moves around the six sectors, never onto the Polar Cap;
    units there never suffer."""
    game = (
        Scenario(FOUR)
        .storm(start)
        .units(ATR, POLAR, 2)
        .units(HAR, POLAR, 1)
        .dice(region=region_die, spice=3)
        .active(ATR)
        .at(Phase.STORM)
    )
    s = game.state
    assert 1 <= s.storm_sector <= 6 and s.storm_sector != start
    assert not in_storm(s, POLAR)
    assert units(game, ATR, POLAR) == 2 and units(game, HAR, POLAR) == 1
