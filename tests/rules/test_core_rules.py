"""Rule tests for the core rules: COMP, MAP, DEF, SETUP, END, TURN, ROLL and SPICE.

Every test cites the RULES.md rule ID(s) it checks in its name and docstring.  Positions are
built with `Scenario`; dice are fixed with `.dice(...)` or forced with `.force(...)`.
"""

from __future__ import annotations

from itertools import combinations

import pytest

from dune_env.engine import (
    CARD,
    DEFAULT_MAP,
    NO_ONE,
    RESERVE,
    ConfigError,
    DecisionKind,
    EventKind,
    Faction,
    Game,
    GameConfig,
    KanlyFace,
    Phase,
    Region,
    Scenario,
    Token,
)
from dune_env.engine.constants import (
    FACTION_DIE_SYMBOLS,
    LEADER_COUNTS,
    UNIT_COUNTS,
    available_factions,
)
from dune_env.engine.decisions import (
    BID_DONE,
    KANLY_NONE,
    KANLY_TAKE,
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
from dune_env.engine.game import advance
from dune_env.engine.records import opening_row
from dune_env.engine.state import GameState
from dune_env.engine.steps.setup import begin_setup

from .common import ELITE, REG

F = Faction
R = Region
SPICE_BIT = 1 << 5  # the spice die is die 5
ALL_DICE = 0b1111111
THREE = [F.ATREIDES, F.HARKONNEN, F.FREMEN]
FIVE = [F.ATREIDES, F.HARKONNEN, F.FREMEN, F.CORRINO, F.GUILD]
FIVE_BG = [F.ATREIDES, F.HARKONNEN, F.FREMEN, F.CORRINO, F.BENE_GESSERIT]
STRATEGIC = [R.HABBANYA_SIETCH, R.SIETCH_TABR, R.CARTHAG, R.ARRAKEEN, R.TUEKS_SIETCH]


# --- helpers -----------------------------------------------------------------------------------


def setup_game(config: GameConfig, forced: list[int] | tuple[int, ...] = (), seed: int = 0) -> Game:
    """A new game whose set-up chance draws are forced: storm die, 5 token-shuffle draws,
    first seat, then (random mode) the faction shuffle, then the first roll."""
    state = GameState(config, seed)
    state.rng.forced.extend(forced)
    state.history.append(opening_row())
    begin_setup(state)
    advance(state)
    return Game.from_state(state)


def events_of(game: Game, kind: EventKind) -> list[tuple[int, ...]]:
    return [e for e in game.state.events if e[0] == kind]


def units_at(game: Game, faction: int, location: int, unit_type: int | None = None) -> int:
    if unit_type is None:
        return game.state.count(faction, location)
    return game.state.units[faction][location * 2 + unit_type]


def kind(game: Game) -> DecisionKind | None:
    return None if game.pending is None else game.pending.kind


def storm_after(sector: int, region: int, spice: int | str = 3, **config: object) -> int:
    """Where the storm stands after step 9 with the given region and spice dice."""
    game = (
        Scenario(THREE, **config)
        .storm(sector)
        .dice(region=region, spice=spice)
        .active(F.ATREIDES)
        .at(Phase.STORM)
    )
    return game.state.storm_sector


def battle(game: Game, attacker_bid: list[int], defender_bid: list[int]) -> None:
    """Play one battle (game built with skip_forced_decisions=False) up to its resolution."""
    while kind(game) in (DecisionKind.BATTLE_ORDER, DecisionKind.LEND_LEADER):
        game.apply(game.pending.options[0] if kind(game) == DecisionKind.BATTLE_ORDER else 0)
    assert kind(game) == DecisionKind.BID
    for option in attacker_bid:
        game.apply(option)
    game.apply(BID_DONE)
    assert kind(game) == DecisionKind.BID
    for option in defender_bid:
        game.apply(option)
    game.apply(BID_DONE)


def one_on_one(attacker: int, defender: int, **config: object) -> Scenario:
    """All eight factions (seat = faction id); attacker and defender one unit each in Carthag."""
    return (
        Scenario(list(F), skip_forced_decisions=False, **config)
        .units(attacker, R.CARTHAG, 1)
        .units(defender, R.CARTHAG, 1)
        .active(attacker)
        .axolotl(F.ATREIDES)
    )


# ===============================================================================================
# COMP: components
# ===============================================================================================


def test_comp_1_faction_die_faces_are_six_symbols_without_tleilax_and_smugglers():
    """COMP-1: faction-die faces, left to right: Atreides, Corrino, Harkonnen, Guild, BG,
    Fremen.  Tleilax and Smugglers have no symbol."""
    assert FACTION_DIE_SYMBOLS == (
        F.ATREIDES,
        F.CORRINO,
        F.HARKONNEN,
        F.GUILD,
        F.BENE_GESSERIT,
        F.FREMEN,
    )
    assert F.TLEILAX not in FACTION_DIE_SYMBOLS
    assert F.SMUGGLERS not in FACTION_DIE_SYMBOLS


def test_comp_1_rolled_faction_faces_name_the_right_factions():
    """COMP-1 (with ALLY-2): forced faces 1 and 2 are Corrino and Harkonnen, so only they can be
    offered an alliance; Fremen (face 5) and Guild (face 3) are not showing."""
    game = Scenario(FIVE).active(F.ATREIDES).force(1, 2, 2, 1, 0, 0, 3).at_turn_start()
    game.apply(ALL_DICE)
    assert kind(game) == DecisionKind.ALLY_OFFER
    assert set(game.pending.options) == {
        0,
        offer_option(F.CORRINO, F.CORRINO),
        offer_option(F.HARKONNEN, F.HARKONNEN),
    }


@pytest.mark.parametrize(("region", "expected"), [(1, 4), (2, 2), (3, 2), (4, 4), (5, 2), (6, 2)])
def test_comp_1_region_die_faces_1_and_4_show_west(region, expected):
    """COMP-1 / CL-1: region-die faces 1 and 4 show W (storm to sector + 1), faces 2, 3, 5, 6
    show E (storm to sector - 1).  Storm starts on 3, spice 3 shows the storm symbol."""
    assert storm_after(3, region) == expected


def test_comp_1_region_die_west_faces_are_configurable():
    """COMP-1 / CL-1 [variant]: region_die_west_faces selects which faces show W."""
    assert storm_after(3, 2, region_die_west_faces=(2, 6)) == 4
    assert storm_after(3, 1, region_die_west_faces=(2, 6)) == 2


@pytest.mark.parametrize(
    ("spice", "moves"), [(1, False), (2, False), (3, True), (4, True), (5, True), ("worm", False)]
)
def test_comp_1_spice_die_storm_symbol_only_on_3_4_5(spice, moves):
    """COMP-1 (STORM-1): spice faces 3, 4, 5 show the storm symbol; 1, 2 and Shai-Hulud not."""
    assert (storm_after(3, 2, spice=spice) != 3) is moves


@pytest.mark.parametrize(("face", "value"), [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)])
def test_comp_1_spice_die_faces_are_1_to_5_and_shai_hulud(face, value):
    """COMP-1 / SPICE-1: spice faces give 1..5 spice; the sixth is Shai-Hulud (no spice)."""
    game = Scenario(THREE).active(F.ATREIDES).force(0, 0, 0, 0, 0, face, 3).at_turn_start()
    game.apply(ALL_DICE)
    assert game.state.pool == value


@pytest.mark.parametrize("face", list(KanlyFace))
def test_comp_1_kanly_die_six_faces(face):
    """COMP-1 / KANLY: Poison, Crysknife, Hunter-seeker kill a unit; Snooper, Shield and
    Thumper take a token."""
    game = (
        Scenario(THREE)
        .units(F.HARKONNEN, R.ARRAKEEN, 1)
        .dice(factions=[F.HARKONNEN] * 4, kanly=face)
        .active(F.ATREIDES)
        .at(Phase.KANLY)
    )
    assert kind(game) == DecisionKind.KANLY
    kill = kanly_kill_option(R.ARRAKEEN, F.HARKONNEN, REG)
    if face in (KanlyFace.POISON, KanlyFace.CRYSKNIFE, KanlyFace.HUNTER_SEEKER):
        assert set(game.pending.options) == {KANLY_NONE, kill}
    else:
        assert set(game.pending.options) == {KANLY_NONE, KANLY_TAKE}


def test_comp_2_common_tokens_at_game_start():
    """COMP-2: 1 Shield, 1 Snooper, 4 Thumpers, 2 each of Fortress, Harvester, Ornithopter."""
    game = Game(GameConfig(num_players=5), seed=3)
    s = game.state
    for token in Token:
        assert s.token_supply[token] + s.region_token.count(token) == 2
    assert sum(s.token_supply) + sum(1 for t in s.region_token if t != NO_ONE) == 6
    assert s.thumper_supply == 4 and sum(s.thumpers) == 0
    assert s.shield_holder == NO_ONE and s.snooper_holder == NO_ONE


def test_comp_2_single_shield_is_taken_not_duplicated():
    """COMP-2 / KANLY-4: there is one Shield; taking it moves it from its holder."""
    game = (
        Scenario(THREE)
        .shield(F.HARKONNEN)
        .dice(factions=[F.HARKONNEN] * 4, kanly=KanlyFace.SHIELD)
        .active(F.ATREIDES)
        .at(Phase.KANLY)
    )
    game.apply(KANLY_TAKE)
    assert game.shield_holder == F.ATREIDES


@pytest.mark.parametrize("faction", list(F))
def test_comp_3_faction_pieces(faction):
    """COMP-3: 12 units (Fremen 8; Corrino 8 + 4 Sardaukar), one leader (Atreides two)."""
    game = Scenario(list(F)).active(F.ATREIDES).at(Phase.END_TURN)
    s = game.state
    expected = {F.FREMEN: (8, 0), F.CORRINO: (8, 4)}.get(faction, (12, 0))
    assert (units_at(game, faction, RESERVE, REG), units_at(game, faction, RESERVE, ELITE)) == (
        expected
    )
    assert UNIT_COUNTS[faction] == expected
    assert sum(s.leaders[faction]) == (2 if faction == F.ATREIDES else 1) == LEADER_COUNTS[faction]


def test_comp_3_component_totals_match_the_rulebook():
    """COMP-3 (Czech contents list): 92 unit cubes, 80 small and 12 large (8 Fremen + 4
    Sardaukar), and 9 leader cylinders (8 leaders + Duncan Idaho)."""
    game = Scenario(list(F)).active(F.ATREIDES).at(Phase.END_TURN)
    s = game.state
    regular = sum(s.count(f, RESERVE) for f in F) - units_at(game, F.CORRINO, RESERVE, ELITE)
    large = units_at(game, F.FREMEN, RESERVE) + units_at(game, F.CORRINO, RESERVE, ELITE)
    assert sum(s.count(f, RESERVE) for f in F) == 92
    assert regular - units_at(game, F.FREMEN, RESERVE) == 80
    assert large == 12
    assert sum(sum(pair) for pair in s.leaders) == 9


@pytest.mark.parametrize(
    ("faction", "leaders", "strength"),
    [
        (F.ATREIDES, 1, 3),
        (F.ATREIDES, 2, 5),
        (F.HARKONNEN, 1, 4),
        (F.FREMEN, 1, 3),
        (F.TLEILAX, 1, 2),
        (F.CORRINO, 1, 3),
        (F.GUILD, 1, 2),
        (F.BENE_GESSERIT, 1, 3),
        (F.SMUGGLERS, 1, 3),
    ],
)
def test_comp_3_leader_strengths_in_battle(faction, leaders, strength):
    """COMP-3: Leto 3 (with Duncan Idaho 5), Baron 4, Liet 3, Scytale 2, Shaddam 3, Edrik 2,
    Mohiam 3, Esmar Tuek 3 (BATTLE-6)."""
    defender = F.GUILD if faction != F.GUILD else F.HARKONNEN
    game = one_on_one(faction, defender).leaders(faction, leaders).at(Phase.BATTLE_SELECT)
    battle(game, [bid_leader_option(faction)] * leaders, [])
    assert game.state.last_battle.attacker_strength == strength
    assert game.state.last_battle.defender_strength == 0


def test_comp_4_no_recruiting_with_an_empty_reserve():
    """COMP-4 / RECRUIT-1: with no unit and no leader in reserve, nothing can be recruited."""
    game = (
        Scenario(THREE, skip_forced_decisions=False)
        .units(F.ATREIDES, R.ARRAKEEN, 12)
        .leaders(F.ATREIDES, 2)
        .dice(factions=[F.ATREIDES] * 4)
        .active(F.ATREIDES)
        .at(Phase.RECRUIT_ACTIVE)
    )
    assert kind(game) != DecisionKind.RECRUIT
    assert units_at(game, F.ATREIDES, CARD) == 0


def test_comp_4_recruit_options_follow_the_reserve():
    """COMP-4: a unit is offered only while one is in reserve; the leader only while it is."""
    game = (
        Scenario(THREE)
        .units(F.ATREIDES, R.ARRAKEEN, 11)
        .leaders(F.ATREIDES, 2)
        .dice(factions=[F.ATREIDES] * 4)
        .active(F.ATREIDES)
        .at(Phase.RECRUIT_ACTIVE)
    )
    assert game.pending.options == (RECRUIT_STOP, RECRUIT_UNIT)
    game.apply(RECRUIT_UNIT)
    assert units_at(game, F.ATREIDES, CARD) == 1
    assert kind(game) != DecisionKind.RECRUIT  # the reserve is empty: no further recruiting


def test_comp_4_sardaukar_are_limited_to_four():
    """COMP-4 / COR-1: with all 4 Sardaukar out of the reserve, none can be recruited."""
    game = (
        Scenario(FIVE)
        .units(F.CORRINO, R.ARRAKEEN, 4, ELITE)
        .dice(factions=[F.CORRINO] * 4)
        .active(F.CORRINO)
        .at(Phase.RECRUIT_ACTIVE)
    )
    assert RECRUIT_ELITE not in game.pending.options
    assert RECRUIT_UNIT in game.pending.options


def test_comp_4_no_thumper_when_the_supply_is_empty():
    """COMP-4 / KANLY-5: the four Thumpers are all held by others: none can be taken."""
    scen = Scenario(FIVE, skip_forced_decisions=False)
    for faction in (F.HARKONNEN, F.FREMEN, F.CORRINO, F.GUILD):
        scen.thumper(faction)
    game = scen.dice(kanly=KanlyFace.THUMPER).active(F.ATREIDES).at(Phase.KANLY)
    assert kind(game) != DecisionKind.KANLY
    assert not game.has_thumper(F.ATREIDES)


def test_comp_4_thumper_taken_from_a_non_empty_supply():
    """COMP-4 / KANLY-5 (control case): with a Thumper left in the supply it can be taken."""
    scen = Scenario(FIVE)
    for faction in (F.HARKONNEN, F.FREMEN, F.CORRINO):
        scen.thumper(faction)
    game = scen.dice(kanly=KanlyFace.THUMPER).active(F.ATREIDES).at(Phase.KANLY)
    game.apply(KANLY_TAKE)
    assert game.has_thumper(F.ATREIDES) and game.thumper_supply == 0


def _reorganise_scenario(tokens_on_map: int) -> Game:
    scen = Scenario(THREE, skip_forced_decisions=False).units(F.ATREIDES, R.ARRAKEEN, 1)
    regions = [
        R.HABBANYA_SIETCH,
        R.SIETCH_TABR,
        R.CARTHAG,
        R.BROKEN_LAND,
        R.MINOR_ERG,
        R.GREAT_FLAT,
    ]
    for region, token in list(zip(regions, [0, 0, 1, 1, 2, 2], strict=True))[:tokens_on_map]:
        scen.token(region, token)
    return scen.target(R.ARRAKEEN).dice(region=5).active(F.ATREIDES).at(Phase.PROPERTY)


def test_comp_4_no_property_token_from_an_empty_supply():
    """COMP-4 / PROP-1: all six property tokens are on the map: no reorganising."""
    assert kind(_reorganise_scenario(6)) != DecisionKind.REORGANIZE
    game = _reorganise_scenario(5)
    assert kind(game) == DecisionKind.REORGANIZE
    assert game.pending.options == (0, 1 + Token.ORNITHOPTER)


# ===============================================================================================
# MAP
# ===============================================================================================

SPEC_REGIONS = {
    # region: (sector, strategic, desert)
    R.CIELAGO_PLAIN: (1, False, True),
    R.GREAT_FLAT: (2, False, True),
    R.HABBANYA_SIETCH: (2, True, True),
    R.SIETCH_TABR: (3, True, True),
    R.CARTHAG: (4, True, False),
    R.BROKEN_LAND: (4, False, True),
    R.ARRAKEEN: (5, True, False),
    R.MINOR_ERG: (6, False, False),
    R.TUEKS_SIETCH: (6, True, False),
    R.POLAR_CAP: (0, False, False),
}

SPEC_ADJACENCY = {
    R.POLAR_CAP: {
        R.CIELAGO_PLAIN,
        R.GREAT_FLAT,
        R.SIETCH_TABR,
        R.CARTHAG,
        R.ARRAKEEN,
        R.MINOR_ERG,
    },
    R.CIELAGO_PLAIN: {R.POLAR_CAP, R.GREAT_FLAT, R.HABBANYA_SIETCH, R.MINOR_ERG, R.TUEKS_SIETCH},
    R.GREAT_FLAT: {R.POLAR_CAP, R.CIELAGO_PLAIN, R.HABBANYA_SIETCH, R.SIETCH_TABR},
    R.HABBANYA_SIETCH: {R.GREAT_FLAT, R.CIELAGO_PLAIN, R.SIETCH_TABR},
    R.SIETCH_TABR: {R.POLAR_CAP, R.GREAT_FLAT, R.HABBANYA_SIETCH, R.CARTHAG, R.BROKEN_LAND},
    R.CARTHAG: {R.POLAR_CAP, R.SIETCH_TABR, R.BROKEN_LAND, R.ARRAKEEN},
    R.BROKEN_LAND: {R.CARTHAG, R.SIETCH_TABR, R.ARRAKEEN},
    R.ARRAKEEN: {R.POLAR_CAP, R.CARTHAG, R.BROKEN_LAND, R.MINOR_ERG, R.TUEKS_SIETCH},
    R.MINOR_ERG: {R.POLAR_CAP, R.ARRAKEEN, R.TUEKS_SIETCH, R.CIELAGO_PLAIN},
    R.TUEKS_SIETCH: {R.MINOR_ERG, R.ARRAKEEN, R.CIELAGO_PLAIN},
}


def test_map_1_region_table():
    """MAP-1: ten regions, their sectors, strategic and desert flags (table of RULES.md)."""
    assert DEFAULT_MAP.num_regions == 10
    for region, (sector, strategic, desert) in SPEC_REGIONS.items():
        assert DEFAULT_MAP.sectors[region] == sector, DEFAULT_MAP.names[region]
        assert DEFAULT_MAP.strategic[region] is strategic, DEFAULT_MAP.names[region]
        assert DEFAULT_MAP.desert[region] is desert, DEFAULT_MAP.names[region]
    assert sorted(DEFAULT_MAP.strategic_regions) == sorted(STRATEGIC)
    for sector in (1, 3, 5):
        assert len(DEFAULT_MAP.regions_in_sector(sector)) == 1
    for sector in (2, 4, 6):
        assert len(DEFAULT_MAP.regions_in_sector(sector)) == 2


@pytest.mark.parametrize("sector", [1, 2, 3, 4, 5, 6])
def test_map_1_movement_targets_are_the_regions_of_the_die_sector(sector):
    """MAP-1 / MOVE-1: the region die's sector offers its one or two regions (and the Polar
    Cap)."""
    storm = 3 if sector == 1 else 1
    game = Scenario(THREE).storm(storm).dice(region=sector).active(F.ATREIDES).at(Phase.MOVE_TARGET)
    expected = {r for r, (s, _, _) in SPEC_REGIONS.items() if s == sector} | {R.POLAR_CAP}
    assert set(game.pending.options) == expected


def test_map_1_storm_hits_desert_but_not_other_regions_of_its_sector():
    """MAP-1 (desert flag, STORM-2): sector 4 holds Carthag (no X) and Broken Land (X)."""
    game = (
        Scenario(THREE)
        .units(F.ATREIDES, R.CARTHAG, 2)
        .units(F.HARKONNEN, R.BROKEN_LAND, 2)
        .storm(5)
        .dice(region=2, spice=3)  # E: 5 -> 4
        .active(F.ATREIDES)
        .at(Phase.STORM)
    )
    assert game.state.storm_sector == 4
    assert units_at(game, F.ATREIDES, R.CARTHAG) == 2
    assert units_at(game, F.HARKONNEN, R.BROKEN_LAND) == 1


def test_map_1_only_strategic_regions_count_for_victory():
    """MAP-1 / END-1: holding 3 non-strategic regions wins nothing."""
    scen = Scenario(THREE)
    for region in (R.GREAT_FLAT, R.BROKEN_LAND, R.MINOR_ERG):
        scen.units(F.ATREIDES, region, 1)
    game = scen.active(F.ATREIDES).at(Phase.END_TURN)
    assert not game.terminal


def test_map_2_adjacency_table():
    """MAP-2: the adjacency table of RULES.md, symmetric."""
    for region, neighbours in SPEC_ADJACENCY.items():
        assert set(DEFAULT_MAP.adjacency[region]) == neighbours, DEFAULT_MAP.names[region]
        for other in neighbours:
            assert region in DEFAULT_MAP.adjacency[other]


@pytest.mark.parametrize("target", [R.CARTHAG, R.TUEKS_SIETCH, R.SIETCH_TABR])
def test_map_2_units_move_in_only_from_adjacent_regions(target):
    """MAP-2 / MOVE-2: with a unit in every region, only adjacent ones may move in."""
    sector = SPEC_REGIONS[target][0]
    storm = 1 if sector != 1 and target not in SPEC_ADJACENCY[R.CIELAGO_PLAIN] else 4
    scen = Scenario(THREE).storm(storm)
    for region in R.__dict__.values():
        if isinstance(region, int) and region != target:
            scen.units(F.ATREIDES, region, 1)
    game = scen.dice(region=sector).active(F.ATREIDES).at(Phase.MOVE_TARGET)
    game.apply(target)
    assert kind(game) == DecisionKind.MOVE
    expected = {
        r for r in SPEC_ADJACENCY[target] if DEFAULT_MAP.sectors[r] != game.state.storm_sector
    }
    assert set(game.pending.options) == {0} | {move_option(r, REG) for r in expected}


@pytest.mark.parametrize(
    ("sector", "region", "expected"),
    [
        (5, 6, 4),  # the rulebook's example: storm on 5, region die 6 (E), moves to 4
        (5, 2, 4),
        (1, 3, 6),  # E wraps 1 -> 6
        (6, 1, 1),  # W wraps 6 -> 1
        (2, 4, 3),  # W: + 1
    ],
)
def test_map_3_storm_direction(sector, region, expected):
    """MAP-3: E moves the storm counter-clockwise (sector - 1), W clockwise (sector + 1)."""
    assert storm_after(sector, region) == expected


@pytest.mark.parametrize("storm", [1, 2, 3, 4, 5, 6])
def test_map_4_polar_cap_is_always_a_landing_and_movement_target(storm):
    """MAP-4: never in the storm; always a legal landing destination and movement target."""
    game = (
        Scenario(THREE)
        .units(F.ATREIDES, CARD, 2)
        .storm(storm)
        .dice(region=storm, spice=2)
        .active(F.ATREIDES)
        .at(Phase.LAND_START)
    )
    assert kind(game) == DecisionKind.LAND
    assert land_option(R.POLAR_CAP, REG) in game.pending.options
    game.apply(land_option(R.POLAR_CAP, REG))
    game.apply(LAND_STOP)
    # The die's sector is under the storm: only the Polar Cap is left, taken without asking.
    assert events_of(game, EventKind.TARGET) == [(EventKind.TARGET, R.POLAR_CAP)]


def test_map_4_no_battle_on_the_polar_cap():
    """MAP-4 / BATTLE-1: enemies sharing the Polar Cap do not fight."""
    game = (
        Scenario(THREE, skip_forced_decisions=False)
        .units(F.ATREIDES, R.POLAR_CAP, 2)
        .units(F.HARKONNEN, R.POLAR_CAP, 2)
        .active(F.ATREIDES)
        .at(Phase.BATTLE_SELECT)
    )
    assert kind(game) != DecisionKind.BATTLE_ORDER
    assert units_at(game, F.ATREIDES, R.POLAR_CAP) == 2
    assert units_at(game, F.HARKONNEN, R.POLAR_CAP) == 2


def test_map_4_polar_cap_does_not_count_for_victory():
    """MAP-4: nobody controls the Polar Cap; 2 strategic regions + the Polar Cap is no win."""
    game = (
        Scenario(THREE)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.ATREIDES, R.POLAR_CAP, 5)
        .active(F.ATREIDES)
        .at(Phase.END_TURN)
    )
    assert not game.terminal


def test_map_4_polar_cap_holds_no_property_token():
    """MAP-4 / PROP-1: the Polar Cap, held alone, cannot be reorganised."""
    game = (
        Scenario(THREE, skip_forced_decisions=False)
        .units(F.ATREIDES, R.POLAR_CAP, 2)
        .target(R.POLAR_CAP)
        .active(F.ATREIDES)
        .at(Phase.PROPERTY)
    )
    assert kind(game) != DecisionKind.REORGANIZE
    assert game.state.region_token[R.POLAR_CAP] == NO_ONE


# ===============================================================================================
# DEF: definitions
# ===============================================================================================


def test_def_1_killed_unit_goes_to_its_owners_reserve():
    """DEF-1 / KANLY-1: pieces removed from play go back to their owner's reserve."""
    game = (
        Scenario(THREE)
        .units(F.HARKONNEN, R.ARRAKEEN, 2)
        .units(F.HARKONNEN, CARD, 1)
        .dice(factions=[F.HARKONNEN] * 4, kanly=KanlyFace.HUNTER_SEEKER)
        .active(F.ATREIDES)
        .at(Phase.KANLY)
    )
    game.apply(kanly_kill_option(R.ARRAKEEN, F.HARKONNEN, REG))
    assert units_at(game, F.HARKONNEN, R.ARRAKEEN) == 1
    assert units_at(game, F.HARKONNEN, RESERVE) == 10
    assert units_at(game, F.HARKONNEN, CARD) == 1


def test_def_1_fortress_returns_to_the_common_supply():
    """DEF-1 / BATTLE-3: the common supply holds the tokens nobody holds and no region holds."""
    game = (
        Scenario(THREE, skip_forced_decisions=False)
        .units(F.ATREIDES, R.CARTHAG, 2)
        .units(F.FREMEN, R.CARTHAG, 1)
        .token(R.CARTHAG, Token.FORTRESS)
        .active(F.ATREIDES)
        .at(Phase.BATTLE_SELECT)
    )
    assert game.token_supply(Token.FORTRESS) == 1
    game.apply(R.CARTHAG)
    assert kind(game) == DecisionKind.FORTRESS_VICTIM
    game.apply(F.ATREIDES * 2 + REG)
    assert game.token_supply(Token.FORTRESS) == 2
    assert game.state.region_token[R.CARTHAG] == NO_ONE
    assert units_at(game, F.ATREIDES, RESERVE) == 11


def test_def_2_recruits_go_to_the_faction_card():
    """DEF-2 / RECRUIT-1: recruited units and leaders wait on the faction card."""
    game = (
        Scenario(THREE)
        .dice(factions=[F.ATREIDES, F.ATREIDES, F.HARKONNEN, F.FREMEN])
        .active(F.ATREIDES)
        .at(Phase.RECRUIT_ACTIVE)
    )
    game.apply(RECRUIT_UNIT)
    game.apply(RECRUIT_LEADER)
    assert units_at(game, F.ATREIDES, CARD) == 1
    assert units_at(game, F.ATREIDES, RESERVE) == 11
    assert game.state.leaders[F.ATREIDES] == [1, 1]


def test_def_2_leaders_never_land_on_the_map():
    """DEF-2: leaders never go on the map: with only leaders on the card there is nothing to
    land, and they stay on the card."""
    game = (
        Scenario(THREE, skip_forced_decisions=False)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .leaders(F.ATREIDES, 2)
        .dice(spice=5)
        .active(F.ATREIDES)
        .at(Phase.LAND_START)
    )
    assert kind(game) != DecisionKind.LAND
    assert game.state.leaders[F.ATREIDES] == [2, 0]
    assert game.state.pool == 5


def test_def_3_a_round_is_one_turn_of_every_player_and_at_most_six_rounds():
    """DEF-3 / TURN-2: each round has one turn per player; the game stops after round 6."""
    game = Game(GameConfig(num_players=4), seed=11)
    choices = [0]
    while not game.terminal:
        options = game.pending.options
        choices[0] = (choices[0] * 31 + 7) % 1009
        game.apply(options[choices[0] % len(options)])
    starts = events_of(game, EventKind.TURN_START)
    rounds = [e[1] for e in starts]
    assert max(rounds) <= 6
    assert rounds == sorted(rounds)
    last = rounds[-1]
    for r in range(1, last):
        seats = [e[2] for e in starts if e[1] == r]
        assert sorted(seats) == [0, 1, 2, 3]
    victory = events_of(game, EventKind.VICTORY)
    assert len(victory) == 1
    if victory[0][1] in (2, 3):  # time-out: all 6 rounds were played
        assert len(starts) == 24


def test_def_3_a_turn_is_steps_1_to_10_in_order():
    """DEF-3 / TURN: one full turn runs Roll, Ally, Recruit, Kanly, Landing, Movement, Battle,
    Property, Storm, End of turn, in that order, then the next seat rolls."""
    game = (
        Scenario(FIVE)
        .units(F.ATREIDES, R.ARRAKEEN, 2)
        .units(F.HARKONNEN, R.CARTHAG, 1)
        .units(F.HARKONNEN, R.POLAR_CAP, 1)
        .active(F.ATREIDES)
        .force(0, 0, 2, 2, 3, 2, 2)  # ATR ATR HAR HAR, region 4 (W), spice 3, Hunter-seeker
        .at_turn_start()
    )
    steps = [
        (DecisionKind.FIX_DICE, ALL_DICE),
        (DecisionKind.ALLY_OFFER, 0),
        (DecisionKind.RECRUIT, RECRUIT_UNIT),
        (DecisionKind.RECRUIT, RECRUIT_UNIT),
        (DecisionKind.KANLY, kanly_kill_option(R.POLAR_CAP, F.HARKONNEN, REG)),
        (DecisionKind.LAND, land_option(R.ARRAKEEN, REG)),
        (DecisionKind.LAND, land_option(R.ARRAKEEN, REG)),
        (DecisionKind.MOVE_TARGET, R.CARTHAG),
        (DecisionKind.MOVE, move_option(R.ARRAKEEN, REG)),
        (DecisionKind.MOVE, move_option(R.ARRAKEEN, REG)),
        (DecisionKind.MOVE, move_option(R.ARRAKEEN, REG)),
        (DecisionKind.MOVE, 0),
        (DecisionKind.BID, unit_option(F.ATREIDES, REG)),
        (DecisionKind.BID, BID_DONE),
        (DecisionKind.BID, BID_DONE),
        (DecisionKind.REORGANIZE, 1 + Token.FORTRESS),
    ]
    for expected_kind, option in steps:
        assert kind(game) == expected_kind
        game.apply(option)
    order = [
        EventKind.TURN_START,
        EventKind.ROLL,
        EventKind.FIX,
        EventKind.ALLY_OFFER,
        EventKind.RECRUIT,
        EventKind.KANLY_KILL,
        EventKind.LAND,
        EventKind.TARGET,
        EventKind.MOVE,
        EventKind.BATTLE_START,
        EventKind.BATTLE_RESULT,
        EventKind.PROPERTY,
        EventKind.STORM_MOVE,
        EventKind.TURN_END,
    ]
    kinds = [e[0] for e in game.state.events]
    positions = [kinds.index(k) for k in order]
    assert positions == sorted(positions)
    starts = [i for i, k in enumerate(kinds) if k == EventKind.TURN_START]
    assert len(starts) == 2 and kinds.index(EventKind.TURN_END) < starts[1]
    s = game.state
    assert s.storm_sector == 2
    assert units_at(game, F.ATREIDES, R.CARTHAG) == 2
    assert s.region_token[R.CARTHAG] == Token.FORTRESS
    assert s.active_seat == 1 and kind(game) == DecisionKind.FIX_DICE


def test_def_4_declined_offer_leaves_an_enemy():
    """DEF-4 / ALLY-3: the ally is the player who *accepted* the offer; after a decline that
    player stays an enemy (Kanly can hit it), after an accept it does not."""

    def kanly_targets(accept: int) -> set[int]:
        game = (
            Scenario(FIVE)
            .units(F.HARKONNEN, R.ARRAKEEN, 1)
            .units(F.FREMEN, R.CARTHAG, 1)
            .dice(factions=[F.HARKONNEN] * 4, kanly=KanlyFace.HUNTER_SEEKER)
            .active(F.ATREIDES)
            .at(Phase.ALLY_OFFER)
        )
        game.apply(offer_option(F.HARKONNEN, F.HARKONNEN))
        assert kind(game) == DecisionKind.ALLY_ANSWER and game.pending.faction == F.HARKONNEN
        game.apply(accept)
        while kind(game) == DecisionKind.RECRUIT:
            game.apply(RECRUIT_STOP)
        assert kind(game) == DecisionKind.KANLY
        return set(game.pending.options)

    harkonnen = kanly_kill_option(R.ARRAKEEN, F.HARKONNEN, REG)
    fremen = kanly_kill_option(R.CARTHAG, F.FREMEN, REG)
    assert kanly_targets(0) == {KANLY_NONE, harkonnen, fremen}
    assert kanly_targets(1) == {KANLY_NONE, fremen}


def test_def_4_kanly_spares_the_ally_but_hits_every_other_faction():
    """DEF-4 / KANLY-2: the ally is not an enemy; every other faction is."""
    game = (
        Scenario(FIVE)
        .units(F.HARKONNEN, R.ARRAKEEN, 1)
        .units(F.FREMEN, R.CARTHAG, 1)
        .units(F.GUILD, R.POLAR_CAP, 1)
        .ally(F.HARKONNEN)
        .dice(factions=[F.HARKONNEN] * 4, kanly=KanlyFace.HUNTER_SEEKER)
        .active(F.ATREIDES)
        .at(Phase.KANLY)
    )
    assert set(game.pending.options) == {
        KANLY_NONE,
        kanly_kill_option(R.CARTHAG, F.FREMEN, REG),
        kanly_kill_option(R.POLAR_CAP, F.GUILD, REG),
    }


def test_def_4_ally_units_are_no_battle():
    """DEF-4 / BATTLE-1: sharing a region with the ally is no battle; with an enemy it is."""
    scen = (
        Scenario(FIVE, skip_forced_decisions=False)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.HARKONNEN, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.FREMEN, R.ARRAKEEN, 1)
        .ally(F.HARKONNEN)
        .active(F.ATREIDES)
    )
    game = scen.at(Phase.BATTLE_SELECT)
    assert kind(game) == DecisionKind.BATTLE_ORDER
    assert game.pending.options == (R.ARRAKEEN,)


def test_def_5_one_unit_is_presence_for_landing():
    """DEF-5 / LAND-2: one unit (a Sardaukar counts too) makes a faction present."""
    game = (
        Scenario(FIVE)
        .units(F.CORRINO, R.ARRAKEEN, 1, ELITE)
        .units(F.CORRINO, CARD, 2)
        .dice(spice=3)
        .active(F.CORRINO)
        .at(Phase.LAND_START)
    )
    assert set(game.pending.options) == {
        LAND_STOP,
        land_option(R.ARRAKEEN, REG),
        land_option(R.POLAR_CAP, REG),
    }


def _three_strategic(**config: object) -> Scenario:
    return (
        Scenario(THREE, **config)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.ATREIDES, R.TUEKS_SIETCH, 1)
        .units(F.HARKONNEN, R.TUEKS_SIETCH, 3)
        .active(F.ATREIDES)
    )


def test_def_6_control_is_presence_even_with_another_faction():
    """DEF-6 / CL-3: a faction sharing a region with another still controls it."""
    game = _three_strategic().at(Phase.END_TURN)
    assert game.terminal
    assert game.winners == [0]


def test_def_6_strict_control_variant():
    """DEF-6 / CL-3 [variant] strict_control: another faction present breaks control."""
    game = _three_strategic(strict_control=True).at(Phase.END_TURN)
    assert not game.terminal


def test_def_6_strict_control_allows_the_ally_for_alliance_victory():
    """DEF-6 [variant]: under strict control the ally's presence does not break the alliance's
    control (END-2), but does break solo control (END-1)."""
    game = (
        Scenario(FIVE, strict_control=True)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.ATREIDES, R.TUEKS_SIETCH, 1)
        .units(F.HARKONNEN, R.TUEKS_SIETCH, 1)
        .units(F.HARKONNEN, R.SIETCH_TABR, 1)
        .ally(F.HARKONNEN)
        .active(F.ATREIDES)
        .at(Phase.END_TURN)
    )
    assert game.terminal
    assert game.winners == [0, 1]
    assert events_of(game, EventKind.VICTORY)[0][1] == 1  # alliance, not solo


def test_def_7_every_region_of_the_storm_sector_is_a_storm_region():
    """DEF-7 / KANLY-2: both regions of sector 2 are under the storm."""
    game = (
        Scenario(THREE)
        .units(F.HARKONNEN, R.GREAT_FLAT, 1)
        .units(F.HARKONNEN, R.HABBANYA_SIETCH, 1)
        .units(F.HARKONNEN, R.SIETCH_TABR, 1)
        .storm(2)
        .dice(factions=[F.HARKONNEN] * 4, kanly=KanlyFace.HUNTER_SEEKER)
        .active(F.ATREIDES)
        .at(Phase.KANLY)
    )
    assert set(game.pending.options) == {
        KANLY_NONE,
        kanly_kill_option(R.SIETCH_TABR, F.HARKONNEN, REG),
    }


def test_def_7_no_landing_into_either_storm_region_of_sector_4():
    """DEF-7 / LAND-3: storm on 4: neither Carthag nor Broken Land can be landed into."""
    game = (
        Scenario(THREE, desert_landing=True)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.BROKEN_LAND, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.ATREIDES, CARD, 3)
        .storm(4)
        .dice(spice=3)
        .active(F.ATREIDES)
        .at(Phase.LAND_START)
    )
    assert set(game.pending.options) == {
        LAND_STOP,
        land_option(R.ARRAKEEN, REG),
        land_option(R.POLAR_CAP, REG),
    }


@pytest.mark.parametrize(
    ("faction", "unit_type", "strength"),
    [
        (F.ATREIDES, REG, 1),
        (F.HARKONNEN, REG, 1),
        (F.FREMEN, REG, 2),
        (F.CORRINO, REG, 1),
        (F.CORRINO, ELITE, 2),
        (F.GUILD, REG, 1),
    ],
)
def test_def_8_unit_strength(faction, unit_type, strength):
    """DEF-8: a unit is 1; a Fremen unit 2; a Sardaukar 2."""
    defender = F.SMUGGLERS
    game = (
        Scenario(list(F), skip_forced_decisions=False)
        .units(faction, R.CARTHAG, 1, unit_type)
        .units(defender, R.CARTHAG, 1)
        .active(faction)
        .at(Phase.BATTLE_SELECT)
    )
    battle(game, [unit_option(faction, unit_type)], [])
    assert game.state.last_battle.attacker_strength == strength


def test_def_9_play_passes_clockwise():
    """DEF-9 / TURN-2: play passes to the next seat number, wrapping around."""
    game = Scenario(FIVE).first(F.ATREIDES).active(F.FREMEN).at(Phase.END_TURN)
    assert game.state.active_seat == 3
    game = Scenario(FIVE).first(F.HARKONNEN).active(F.GUILD).at(Phase.END_TURN)
    assert game.state.active_seat == 0


@pytest.mark.parametrize(
    ("active", "expected"),
    [(F.HARKONNEN, F.ATREIDES), (F.ATREIDES, F.GUILD), (F.CORRINO, F.FREMEN)],
)
def test_def_9_defender_is_the_nearest_enemy_counter_clockwise(active, expected):
    """DEF-9 / BATTLE-2: the defender is the previous seat's faction among those present."""
    # Seats: 0 Atreides, 1 Harkonnen, 2 Fremen, 3 Corrino, 4 Guild.
    scen = Scenario(FIVE, skip_forced_decisions=False)
    for faction in (F.ATREIDES, F.HARKONNEN, F.FREMEN, F.GUILD):
        scen.units(faction, R.CARTHAG, 1)
    if active == F.CORRINO:
        scen.units(F.CORRINO, R.CARTHAG, 1)
    game = scen.active(active).at(Phase.BATTLE_SELECT)
    game.apply(R.CARTHAG)
    assert game.state.battle_defender == expected
    game.apply(BID_DONE)  # the attacker commits nothing
    assert kind(game) == DecisionKind.BID
    assert game.pending.faction == expected


# ===============================================================================================
# SETUP
# ===============================================================================================


def _setup_forced(storm_face: int = 0, first_seat: int = 0) -> list[int]:
    return [storm_face, 0, 0, 0, 0, 0, first_seat]


@pytest.mark.parametrize("storm_face", [0, 2, 5])
def test_setup_1_round_one_and_storm_on_the_rolled_sector(storm_face):
    """SETUP-1: round marker on 1; the region die's roll places the storm marker."""
    config = GameConfig(num_players=3, faction_mode="assigned", factions=(0, 2, 5))
    game = setup_game(config, _setup_forced(storm_face))
    game.apply(R.GREAT_FLAT if storm_face != 1 else R.BROKEN_LAND)  # Atreides start
    assert game.state.round == 1
    assert game.state.storm_sector == storm_face + 1
    assert events_of(game, EventKind.SETUP_STORM) == [(EventKind.SETUP_STORM, storm_face + 1)]


def test_setup_1_no_storm_damage_at_setup():
    """SETUP-1: the storm starts on sector 1 over the Atreides' desert start: no losses."""
    config = GameConfig(num_players=3, faction_mode="assigned", factions=(0, 1, 5))
    game = setup_game(config, _setup_forced(0))
    assert game.state.storm_sector == 1
    game.apply(R.CIELAGO_PLAIN)  # Atreides start in the storm (sector 1, desert)
    game.apply(R.GREAT_FLAT)  # Harkonnen
    assert units_at(game, F.ATREIDES, R.CIELAGO_PLAIN) == 2
    assert not events_of(game, EventKind.STORM_LOSS)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_setup_2_one_random_token_on_each_strategic_region(seed):
    """SETUP-2: one property token on each of the 5 strategic regions, the sixth in supply."""
    config = GameConfig(num_players=3, faction_mode="assigned", factions=(0, 2, 5))
    game = Game(config, seed=seed)
    s = game.state
    for region in range(10):
        if region in STRATEGIC:
            assert s.region_token[region] != NO_ONE
        else:
            assert s.region_token[region] == NO_ONE
    assert sum(s.token_supply) == 1


def test_setup_2_tokens_are_shuffled():
    """SETUP-2: the placement is random: different seeds give different layouts."""
    config = GameConfig(num_players=3, faction_mode="assigned", factions=(0, 2, 5))
    layouts = {tuple(Game(config, seed=seed).state.region_token) for seed in range(12)}
    assert len(layouts) > 1


def test_setup_3_shield_snooper_thumpers_in_the_common_supply():
    """SETUP-3: Shield, Snooper and the 4 Thumpers start in the common supply, so the first
    Kanly Shield is taken from the common supply."""
    config = GameConfig(num_players=5, faction_mode="assigned", factions=tuple(FIVE))
    game = setup_game(config, _setup_forced(0))
    game.apply(R.GREAT_FLAT)  # Atreides
    game.apply(R.BROKEN_LAND)  # Harkonnen
    s = game.state
    assert kind(game) == DecisionKind.FIX_DICE
    assert s.shield_holder == NO_ONE and s.snooper_holder == NO_ONE
    assert s.thumper_supply == 4 and s.thumpers == [0] * 8


@pytest.mark.parametrize("first", [0, 2, 4])
def test_setup_4_random_first_player_is_the_first_active_player(first):
    """SETUP-4: the first player (a chance draw) takes the first turn."""
    config = GameConfig(num_players=5, faction_mode="assigned", factions=tuple(FIVE))
    game = setup_game(config, _setup_forced(0, first))
    game.apply(R.GREAT_FLAT)
    game.apply(R.BROKEN_LAND)
    assert game.first_seat == first
    assert kind(game) == DecisionKind.FIX_DICE
    assert game.pending.seat == first
    assert events_of(game, EventKind.TURN_START)[0][2] == first


def test_setup_4_first_player_varies_with_the_seed():
    """SETUP-4: the first player is picked at random."""
    firsts = {Game(GameConfig(num_players=5), seed=s).first_seat for s in range(30)}
    assert len(firsts) > 2


@pytest.mark.parametrize(
    ("players", "expected"),
    [
        (3, {F.ATREIDES, F.HARKONNEN, F.FREMEN, F.CORRINO, F.GUILD}),
        (4, {F.ATREIDES, F.HARKONNEN, F.FREMEN, F.CORRINO, F.GUILD}),
        (5, {F.ATREIDES, F.HARKONNEN, F.FREMEN, F.CORRINO, F.GUILD, F.BENE_GESSERIT}),
        (6, set(F)),
        (8, set(F)),
    ],
)
def test_setup_5_available_factions_by_player_count(players, expected):
    """SETUP-5: 3-4 players: ATR, HAR, FRE, COR, GLD; 5: + BG; 6-8: + Tleilax and Smugglers."""
    assert set(available_factions(players)) == expected
    game = setup_game(GameConfig(num_players=players, faction_mode="draft"), _setup_forced())
    assert kind(game) == DecisionKind.CHOOSE_FACTION
    assert set(game.pending.options) == expected


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_setup_5_random_factions_come_from_the_available_ones(players):
    """SETUP-5: factions assigned by the configuration ("random") respect the player count."""
    allowed = set(available_factions(players))
    seen: set[int] = set()
    for seed in range(15):
        factions = Game(GameConfig(num_players=players), seed=seed).seat_factions
        assert len(set(factions)) == players
        assert set(factions) <= allowed
        seen |= set(factions)
    assert seen == allowed


def test_setup_5_unavailable_faction_cannot_be_assigned():
    """SETUP-5: Bene Gesserit needs 5 players, Tleilax and Smugglers 6."""
    with pytest.raises(ConfigError):
        GameConfig(num_players=4, faction_mode="assigned", factions=(0, 1, 2, F.BENE_GESSERIT))
    with pytest.raises(ConfigError):
        GameConfig(num_players=5, faction_mode="assigned", factions=(0, 1, 2, 4, F.SMUGGLERS))


def test_setup_5_draft_order_ends_with_the_first_player():
    """SETUP-5: the player to the right of the first player chooses first, then counter-
    clockwise; the first player chooses last."""
    game = setup_game(GameConfig(num_players=4, faction_mode="draft"), _setup_forced(0, 1))
    order = []
    picks = [F.GUILD, F.FREMEN, F.ATREIDES, F.HARKONNEN]
    for pick in picks:
        assert kind(game) == DecisionKind.CHOOSE_FACTION
        order.append(game.pending.seat)
        assert pick in game.pending.options
        game.apply(pick)
    assert order == [0, 3, 2, 1]
    assert game.seat_factions == [F.GUILD, F.HARKONNEN, F.ATREIDES, F.FREMEN]


def test_setup_5_draft_options_exclude_taken_factions():
    """SETUP-5: a faction already chosen cannot be chosen again."""
    game = setup_game(GameConfig(num_players=3, faction_mode="draft"), _setup_forced(0, 0))
    game.apply(F.CORRINO)
    assert F.CORRINO not in game.pending.options
    assert len(game.pending.options) == 4


def test_setup_6_factions_set_up_in_setup_order():
    """SETUP-6 / COMP-3 order: Atreides, Harkonnen, Fremen, Tleilax, Corrino, Guild, BG,
    Smugglers, whatever the seats; Fremen fill the non-strategic regions left empty."""
    seats = (F.SMUGGLERS, F.BENE_GESSERIT, F.GUILD, F.CORRINO, F.TLEILAX, F.FREMEN)
    seats += (F.HARKONNEN, F.ATREIDES)
    config = GameConfig(num_players=8, faction_mode="assigned", factions=seats)
    game = setup_game(config, _setup_forced(2))
    assert kind(game) == DecisionKind.ATREIDES_START and game.pending.seat == 7
    assert set(game.pending.options) == {
        R.CIELAGO_PLAIN,
        R.GREAT_FLAT,
        R.BROKEN_LAND,
        R.MINOR_ERG,
    }
    game.apply(R.GREAT_FLAT)
    assert kind(game) == DecisionKind.HARKONNEN_START and game.pending.seat == 6
    assert R.GREAT_FLAT not in game.pending.options  # HAR-0: an empty region
    game.apply(R.BROKEN_LAND)
    assert kind(game) == DecisionKind.BG_PREDICTION and game.pending.seat == 1
    game.apply(F.ATREIDES)
    setup_units = events_of(game, EventKind.SETUP_UNITS)
    order = [e[1] for e in setup_units]
    assert order == sorted(order)
    s = game.state
    # FRE-0: one unit in each non-strategic region still empty (2 here).
    assert units_at(game, F.FREMEN, R.CIELAGO_PLAIN) == 1
    assert units_at(game, F.FREMEN, R.MINOR_ERG) == 1
    assert units_at(game, F.FREMEN, R.GREAT_FLAT) == 0
    assert units_at(game, F.FREMEN, R.BROKEN_LAND) == 0
    assert s.leaders[F.FREMEN] == [1, 0]
    # ATR-0, HAR-0, TLX-0, COR-0, GLD-0, BG-0, SMG-0.
    assert units_at(game, F.ATREIDES, R.GREAT_FLAT) == 2 and s.leaders[F.ATREIDES] == [2, 0]
    assert units_at(game, F.HARKONNEN, R.BROKEN_LAND) == 2
    assert s.region_token[R.BROKEN_LAND] != NO_ONE and sum(s.token_supply) == 0
    assert units_at(game, F.TLEILAX, R.POLAR_CAP) == 2 and units_at(game, F.TLEILAX, CARD) == 2
    assert units_at(game, F.CORRINO, CARD, REG) == 1
    assert units_at(game, F.CORRINO, CARD, ELITE) == 1
    assert s.storage[F.CORRINO] == 3
    assert units_at(game, F.GUILD, CARD) == 3 and s.storage[F.GUILD] == 0
    assert units_at(game, F.BENE_GESSERIT, R.POLAR_CAP) == 3
    assert units_at(game, F.SMUGGLERS, R.POLAR_CAP) == 3
    for faction in (F.TLEILAX, F.CORRINO, F.GUILD, F.BENE_GESSERIT, F.SMUGGLERS):
        assert s.leaders[faction] == [1, 0]
    assert s.bg_prediction == F.ATREIDES


def test_setup_6_fremen_count_depends_on_atreides_and_harkonnen():
    """SETUP-6 / FRE-0: without Atreides and Harkonnen the Fremen take all 4 regions."""
    config = GameConfig(num_players=3, faction_mode="assigned", factions=(2, 4, 5))
    game = setup_game(config, _setup_forced(0))
    assert game.state.count(F.FREMEN, RESERVE) == 4
    for region in (R.CIELAGO_PLAIN, R.GREAT_FLAT, R.BROKEN_LAND, R.MINOR_ERG):
        assert units_at(game, F.FREMEN, region) == 1


@pytest.mark.parametrize("first", [F.HARKONNEN, F.GUILD])
def test_setup_7_play_goes_clockwise_from_the_first_player(first):
    """SETUP-7 / TURN-2: after the first player comes the next seat; the round advances only
    when the dice come back to the first player."""
    game = Scenario(FIVE).first(first).active(first).at(Phase.END_TURN)
    seat = FIVE.index(first)
    assert game.state.active_seat == (seat + 1) % 5
    assert game.state.round == 1


# ===============================================================================================
# END: goal and end of the game
# ===============================================================================================


def test_end_1_solo_victory_with_three_strategic_regions():
    """END-1: at the end of their turn the active player holding 3 strategic regions wins."""
    game = (
        Scenario(FIVE)
        .units(F.HARKONNEN, R.CARTHAG, 1)
        .units(F.HARKONNEN, R.SIETCH_TABR, 1)
        .units(F.HARKONNEN, R.HABBANYA_SIETCH, 1)
        .active(F.HARKONNEN)
        .at(Phase.END_TURN)
    )
    assert game.terminal
    assert game.winners == [1]
    assert events_of(game, EventKind.VICTORY)[0][1] == 0


def test_end_1_regions_under_the_storm_still_count():
    """END-1 (with STORM-3): a strategic region under the storm still counts for victory."""
    game = (
        Scenario(FIVE)
        .units(F.HARKONNEN, R.CARTHAG, 1)
        .units(F.HARKONNEN, R.SIETCH_TABR, 1)
        .units(F.HARKONNEN, R.ARRAKEEN, 1)
        .storm(4)
        .active(F.HARKONNEN)
        .at(Phase.END_TURN)
    )
    assert game.winners == [1]


def test_end_1_two_strategic_regions_are_not_enough():
    """END-1: 2 strategic regions do not win."""
    game = (
        Scenario(FIVE)
        .units(F.HARKONNEN, R.CARTHAG, 3)
        .units(F.HARKONNEN, R.SIETCH_TABR, 3)
        .active(F.HARKONNEN)
        .at(Phase.END_TURN)
    )
    assert not game.terminal


def test_end_1_only_at_the_end_of_ones_own_turn():
    """END-1: a player holding 3 strategic regions does not win at the end of another's turn."""
    game = (
        Scenario(FIVE)
        .units(F.HARKONNEN, R.CARTHAG, 1)
        .units(F.HARKONNEN, R.SIETCH_TABR, 1)
        .units(F.HARKONNEN, R.HABBANYA_SIETCH, 1)
        .active(F.ATREIDES)
        .at(Phase.END_TURN)
    )
    assert not game.terminal
    assert game.state.active_seat == 1


def _alliance(third_in: int | None = None, **config: object) -> Game:
    scen = (
        Scenario(FIVE, **config)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.HARKONNEN, R.TUEKS_SIETCH, 1)
        .units(F.HARKONNEN, R.SIETCH_TABR, 1)
        .ally(F.HARKONNEN)
        .active(F.ATREIDES)
    )
    if third_in is not None:
        scen.units(F.FREMEN, third_in, 1)
    return scen.at(Phase.END_TURN)


def test_end_2_alliance_victory_with_four_strategic_regions():
    """END-2: the active player and the ally together hold 4 strategic regions: both win."""
    game = _alliance()
    assert game.terminal
    assert game.winners == [0, 1]
    assert game.rewards == [1.0, 1.0, -1.0, -1.0, -1.0]


def test_end_2_regions_with_a_third_faction_do_not_count():
    """END-2: a region shared with a third faction does not count for the alliance."""
    game = _alliance(third_in=R.TUEKS_SIETCH)
    assert not game.terminal


def test_end_2_shared_region_of_active_and_ally_counts_once():
    """END-2: only 3 distinct strategic regions between the allies is not a victory."""
    game = (
        Scenario(FIVE)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.HARKONNEN, R.CARTHAG, 1)
        .units(F.HARKONNEN, R.TUEKS_SIETCH, 1)
        .ally(F.HARKONNEN)
        .active(F.ATREIDES)
        .at(Phase.END_TURN)
    )
    assert not game.terminal


def test_end_2_only_with_an_ally():
    """END-2: without an alliance this turn, 4 regions split between two players win nothing."""
    game = (
        Scenario(FIVE)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.HARKONNEN, R.TUEKS_SIETCH, 1)
        .units(F.HARKONNEN, R.SIETCH_TABR, 1)
        .active(F.ATREIDES)
        .at(Phase.END_TURN)
    )
    assert not game.terminal


def test_end_3_solo_victory_before_alliance_victory():
    """END-3: an active player who could win alone wins alone, even with the alliance's 4."""
    game = (
        Scenario(FIVE)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.ATREIDES, R.TUEKS_SIETCH, 1)
        .units(F.HARKONNEN, R.SIETCH_TABR, 1)
        .ally(F.HARKONNEN)
        .active(F.ATREIDES)
        .at(Phase.END_TURN)
    )
    assert game.winners == [0]
    assert game.rewards[1] == -1.0


def test_end_4_three_players_never_win_together():
    """END-4: the allies' 3 regions plus a third player's region are no shared victory."""
    game = (
        Scenario(FIVE)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.HARKONNEN, R.TUEKS_SIETCH, 1)
        .units(F.FREMEN, R.SIETCH_TABR, 1)
        .ally(F.HARKONNEN)
        .active(F.ATREIDES)
        .at(Phase.END_TURN)
    )
    assert not game.terminal


def test_end_4_alliance_victory_has_exactly_two_winners():
    """END-4: a third faction on the map never joins an alliance victory."""
    game = (
        Scenario(FIVE)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.HARKONNEN, R.TUEKS_SIETCH, 1)
        .units(F.HARKONNEN, R.SIETCH_TABR, 1)
        .units(F.FREMEN, R.POLAR_CAP, 1)
        .units(F.FREMEN, R.GREAT_FLAT, 1)
        .ally(F.HARKONNEN)
        .active(F.ATREIDES)
        .at(Phase.END_TURN)
    )
    assert game.winners == [0, 1]
    assert game.rewards[2] == -1.0


def test_end_2_a_fifth_region_shared_with_a_third_faction_is_just_not_counted():
    """END-2 (spec reading): regions shared with a third faction are not counted, but do not
    forbid the victory when 4 other regions are clean.  (The Czech "Žádný ze spojenců nesmí
    sdílet region se třetím hráčem" could be read more strictly; see the report.)"""
    game = (
        Scenario(FIVE)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.HARKONNEN, R.TUEKS_SIETCH, 1)
        .units(F.HARKONNEN, R.SIETCH_TABR, 1)
        .units(F.HARKONNEN, R.HABBANYA_SIETCH, 1)
        .units(F.FREMEN, R.HABBANYA_SIETCH, 1)
        .ally(F.HARKONNEN)
        .active(F.ATREIDES)
        .at(Phase.END_TURN)
    )
    assert game.winners == [0, 1]


def _rulebook_end_example(active: int) -> Game:
    """The rulebook's END example (p. 8): Atreides and Harkonnen allied; region 1 Atreides,
    region 2 Harkonnen, region 3 both, region 4 Harkonnen with Corrino."""
    ally = F.HARKONNEN if active == F.ATREIDES else F.ATREIDES
    return (
        Scenario(FIVE)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.HARKONNEN, R.ARRAKEEN, 1)
        .units(F.ATREIDES, R.TUEKS_SIETCH, 1)
        .units(F.HARKONNEN, R.TUEKS_SIETCH, 1)
        .units(F.HARKONNEN, R.SIETCH_TABR, 1)
        .units(F.CORRINO, R.SIETCH_TABR, 1)
        .ally(ally)
        .active(active)
        .at(Phase.END_TURN)
    )


def test_end_2_rulebook_example_third_faction_blocks_the_alliance():
    """END-2 (rulebook example): the 4th region is shared with Corrino, so the alliance does
    not win at the end of the Atreides' turn (the Atreides hold only 2 regions)."""
    game = _rulebook_end_example(F.ATREIDES)
    assert not game.terminal


def test_end_3_rulebook_example_harkonnen_wins_alone():
    """END-1/END-3/DEF-6 (rulebook example): at the end of the Harkonnen's turn they hold 3
    regions (one shared with Corrino still counts) and win alone."""
    game = _rulebook_end_example(F.HARKONNEN)
    assert game.winners == [1]
    assert events_of(game, EventKind.VICTORY)[0][1] == 0


def test_end_5_guild_wins_at_the_end_of_round_6():
    """END-5 / GLD-2: nobody won by the end of round 6: the Guild wins."""
    game = Scenario(FIVE).round(6).first(F.HARKONNEN).active(F.ATREIDES).at(Phase.END_TURN)
    assert game.terminal
    assert game.winners == [4]
    assert game.rewards == [-1.0, -1.0, -1.0, -1.0, 1.0]
    assert events_of(game, EventKind.VICTORY)[0][1] == 2


def test_end_5_no_time_out_before_the_last_turn_of_round_6():
    """END-5: round 6 is over only when every player has had the turn."""
    game = Scenario(FIVE).round(6).first(F.HARKONNEN).active(F.GUILD).at(Phase.END_TURN)
    assert not game.terminal
    assert game.state.active_seat == 0
    game = Scenario(FIVE).round(5).first(F.HARKONNEN).active(F.ATREIDES).at(Phase.END_TURN)
    assert not game.terminal
    assert game.state.round == 6


def test_end_5_without_the_guild_everybody_loses():
    """END-5: with no one playing the Guild, every player loses at the time-out."""
    game = Scenario(THREE).round(6).first(F.ATREIDES).active(F.FREMEN).at(Phase.END_TURN)
    assert game.terminal
    assert game.winners == []
    assert game.rewards == [-1.0, -1.0, -1.0]


def test_end_5_last_turn_victory_beats_the_time_out():
    """END-5: a victory at the end of the last turn of round 6 is a victory, not a time-out."""
    game = (
        Scenario(FIVE)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.ATREIDES, R.TUEKS_SIETCH, 1)
        .round(6)
        .first(F.HARKONNEN)
        .active(F.ATREIDES)
        .at(Phase.END_TURN)
    )
    assert game.winners == [0]


def _bg_game(prediction: int, factions: list[int] = FIVE_BG) -> Scenario:
    return Scenario(factions).prediction(prediction)


def test_end_6_bene_gesserit_take_a_predicted_solo_win():
    """END-6 / BG-1: the predicted faction wins alone: the Bene Gesserit win instead."""
    game = (
        _bg_game(F.ATREIDES)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.ATREIDES, R.TUEKS_SIETCH, 1)
        .active(F.ATREIDES)
        .at(Phase.END_TURN)
    )
    assert game.terminal
    assert game.winners == [4]
    assert game.rewards == [-1.0, -1.0, -1.0, -1.0, 1.0]


def test_end_6_wrong_prediction_takes_nothing():
    """END-6: a solo win of a faction the BG did not predict stands."""
    game = (
        _bg_game(F.HARKONNEN)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.ATREIDES, R.TUEKS_SIETCH, 1)
        .active(F.ATREIDES)
        .at(Phase.END_TURN)
    )
    assert game.winners == [0]


def test_end_6_alliance_victory_is_never_taken():
    """END-6: the predicted faction winning in alliance keeps its victory."""
    game = (
        _bg_game(F.ATREIDES)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.HARKONNEN, R.TUEKS_SIETCH, 1)
        .units(F.HARKONNEN, R.SIETCH_TABR, 1)
        .ally(F.HARKONNEN)
        .active(F.ATREIDES)
        .at(Phase.END_TURN)
    )
    assert game.winners == [0, 1]


def test_end_6_predicted_guild_time_out_when_the_guild_is_played():
    """END-6: the Guild, predicted, wins by time-out: the Bene Gesserit win instead."""
    factions = [F.ATREIDES, F.HARKONNEN, F.GUILD, F.CORRINO, F.BENE_GESSERIT]
    game = (
        _bg_game(F.GUILD, factions)
        .round(6)
        .first(F.ATREIDES)
        .active(F.BENE_GESSERIT)
        .at(Phase.END_TURN)
    )
    assert game.winners == [4]
    assert game.rewards[2] == -1.0


def test_end_6_predicted_guild_time_out_when_no_one_plays_the_guild():
    """END-6: the BG predicted the Guild, nobody plays it: the BG win the time-out."""
    game = _bg_game(F.GUILD).round(6).first(F.ATREIDES).active(F.BENE_GESSERIT).at(Phase.END_TURN)
    assert game.winners == [4]
    assert game.rewards == [-1.0, -1.0, -1.0, -1.0, 1.0]


def test_end_6_unpredicted_guild_time_out_without_guild_nobody_wins():
    """END-6 / END-5: BG predicted someone else, no Guild: everybody loses, BG included."""
    game = _bg_game(F.CORRINO).round(6).first(F.ATREIDES).active(F.BENE_GESSERIT).at(Phase.END_TURN)
    assert game.terminal
    assert game.winners == []


def test_end_6_bg_prediction_may_name_the_guild_when_unplayed():
    """END-6 / BG-0: the Guild can be predicted even when nobody plays it; never the BG."""
    config = GameConfig(num_players=5, faction_mode="assigned", factions=tuple(FIVE_BG))
    game = setup_game(config, _setup_forced(0))
    game.apply(R.GREAT_FLAT)
    game.apply(R.BROKEN_LAND)
    assert kind(game) == DecisionKind.BG_PREDICTION
    assert set(game.pending.options) == {
        F.ATREIDES,
        F.HARKONNEN,
        F.FREMEN,
        F.CORRINO,
        F.GUILD,
    }


def test_end_7_default_rewards():
    """END-7 / CL-4: +1 to each winner, -1 to every other player."""
    game = _alliance()
    assert game.rewards == [1.0, 1.0, -1.0, -1.0, -1.0]


def test_end_7_rewards_are_configurable():
    """END-7 / CL-4: win_reward and loss_reward come from the configuration."""
    game = _alliance(win_reward=3.0, loss_reward=-0.5)
    assert game.rewards == [3.0, 3.0, -0.5, -0.5, -0.5]


# ===============================================================================================
# TURN
# ===============================================================================================


def test_turn_1_victory_won_during_the_turn_counts_at_its_end():
    """TURN-1: moving into a third strategic region during the turn wins at step 10."""
    game = (
        Scenario(THREE)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.TUEKS_SIETCH, 1)
        .units(F.ATREIDES, R.POLAR_CAP, 2)
        .dice(region=5, spice=1)
        .active(F.ATREIDES)
        .at(Phase.MOVE_TARGET)
    )
    game.apply(R.ARRAKEEN)
    game.apply(move_option(R.POLAR_CAP, REG))
    game.apply(0)  # stop moving
    assert kind(game) == DecisionKind.REORGANIZE
    game.apply(0)
    assert game.terminal
    assert game.winners == [0]


def test_turn_1_victory_is_checked_after_the_storm():
    """TURN-1: three strategic regions at the start of the turn but one lost to the storm at
    step 9: no victory at step 10."""
    game = (
        Scenario(THREE)
        .units(F.ATREIDES, R.HABBANYA_SIETCH, 1)  # desert, sector 2
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .storm(3)
        .dice(region=2, spice=3)  # E: 3 -> 2
        .active(F.ATREIDES)
        .at(Phase.STORM)
    )
    assert game.state.storm_sector == 2
    assert units_at(game, F.ATREIDES, R.HABBANYA_SIETCH) == 0
    assert not game.terminal


def test_turn_2_alliance_ends_and_dice_pass_clockwise():
    """TURN-2: no victory: the alliance ends and the next seat takes the dice."""
    game = Scenario(FIVE).ally(F.CORRINO).first(F.ATREIDES).active(F.FREMEN).at(Phase.END_TURN)
    s = game.state
    assert s.active_seat == 3
    assert s.ally == NO_ONE
    assert s.round == 1
    assert kind(game) == DecisionKind.FIX_DICE and game.pending.seat == 3


def test_turn_2_round_advances_when_the_dice_reach_the_first_player():
    """TURN-2: the round marker advances when the dice come back to the first player."""
    game = Scenario(FIVE).round(3).first(F.FREMEN).active(F.HARKONNEN).at(Phase.END_TURN)
    assert game.state.active_seat == 2
    assert game.state.round == 4
    assert events_of(game, EventKind.TURN_START)[-1][1:] == (4, 2, F.FREMEN)


# ===============================================================================================
# ROLL
# ===============================================================================================


def _roll_game(*faces: int, thumper: bool = False, **config: object) -> Game:
    scen = Scenario(THREE, **config).active(F.ATREIDES).force(*faces)
    if thumper:
        scen.thumper(F.ATREIDES)
    return scen.at_turn_start()


def _nonempty_subsets(mask: int) -> set[int]:
    bits = [1 << i for i in range(7) if mask >> i & 1]
    return {sum(c) for n in range(1, len(bits) + 1) for c in combinations(bits, n)}


def test_roll_1_all_seven_dice_are_rolled():
    """ROLL-1: the turn starts with a roll of all 7 dice."""
    game = _roll_game(1, 2, 3, 4, 5, 1, 2)
    assert game.state.dice_faces == [1, 2, 3, 4, 5, 1, 2]
    roll = events_of(game, EventKind.ROLL)[-1]
    assert roll[1:8] == (1, 2, 3, 4, 5, 1, 2)
    assert roll[8] == ALL_DICE
    assert game.state.dice_fixed == [False] * 7


def test_roll_2_fix_at_least_one_die():
    """ROLL-2: the options are the non-empty subsets of the dice just rolled."""
    game = _roll_game(0, 0, 0, 0, 0, 0, 0)
    assert kind(game) == DecisionKind.FIX_DICE
    assert set(game.pending.options) == _nonempty_subsets(ALL_DICE)
    assert 0 not in game.pending.options


def test_roll_2_reroll_unfixed_until_all_are_fixed():
    """ROLL-2: unfixed dice are rerolled; the step ends when all 7 are fixed."""
    game = _roll_game(0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2)
    game.apply(0b0000001)
    assert game.state.dice_faces == [0, 1, 1, 1, 1, 1, 1]
    assert set(game.pending.options) == _nonempty_subsets(0b1111110)
    game.apply(0b0001110)
    assert game.state.dice_faces == [0, 1, 1, 1, 2, 2, 2]
    assert set(game.pending.options) == _nonempty_subsets(0b1110000)
    game.apply(0b1110000)
    assert all(game.state.dice_fixed)
    assert kind(game) != DecisionKind.FIX_DICE
    assert game.state.phase > Phase.ROLL
    assert len(events_of(game, EventKind.ROLL)) == 3


def test_roll_3_shai_hulud_must_be_fixed():
    """ROLL-3: a rolled Shai-Hulud must be fixed: every option includes the spice die."""
    game = _roll_game(0, 0, 0, 0, 0, 5, 0)
    options = set(game.pending.options)
    assert all(option & SPICE_BIT for option in options)
    assert options == {m | SPICE_BIT for m in _nonempty_subsets(ALL_DICE & ~SPICE_BIT)} | {
        SPICE_BIT
    }


def test_roll_3_fixing_the_worm_alone_is_enough():
    """ROLL-3: fixing only the Shai-Hulud is a legal fix; the six others are rerolled."""
    game = _roll_game(0, 0, 0, 0, 0, 5, 0, 1, 1, 1, 1, 1, 1)
    game.apply(SPICE_BIT)
    assert game.state.dice_faces == [1, 1, 1, 1, 1, 5, 1]
    assert game.state.dice_fixed == [False] * 5 + [True, False]


def test_roll_3_worm_fixed_earlier_is_not_rolled_again():
    """ROLL-3: only a *rolled* worm forces a fix: once fixed, later fixes are free."""
    game = _roll_game(0, 0, 0, 0, 0, 5, 0, 1, 1, 1, 1, 1, 1)
    game.apply(SPICE_BIT)
    assert set(game.pending.options) == _nonempty_subsets(ALL_DICE & ~SPICE_BIT)


def test_roll_4_thumper_leaves_the_worm_unfixed():
    """ROLL-4: with a Thumper, the worm may stay unfixed if another die is fixed; the Thumper
    goes back to the common supply and the spice die is rerolled."""
    game = _roll_game(0, 0, 0, 0, 0, 5, 0, 1, 1, 1, 1, 2, 1, thumper=True)
    assert set(game.pending.options) == _nonempty_subsets(ALL_DICE)
    assert game.thumper_supply == 3
    game.apply(0b0000001)
    s = game.state
    assert s.thumpers[F.ATREIDES] == 0
    assert s.thumper_supply == 4
    assert not s.dice_fixed[5]
    assert s.dice_faces[5] == 2
    assert events_of(game, EventKind.THUMPER_USED) == [(EventKind.THUMPER_USED, F.ATREIDES)]


def test_roll_4_fixing_the_worm_keeps_the_thumper():
    """ROLL-4: the Thumper is only discarded when the worm is left unfixed."""
    game = _roll_game(0, 0, 0, 0, 0, 5, 0, thumper=True)
    game.apply(SPICE_BIT | 1)
    assert game.has_thumper(F.ATREIDES)
    assert game.thumper_supply == 3


def test_roll_4_no_thumper_option_without_a_thumper():
    """ROLL-4: without a Thumper, no option leaves the worm unfixed."""
    game = _roll_game(0, 0, 0, 0, 0, 5, 0)
    assert 1 not in game.pending.options


def test_roll_4_no_thumper_when_the_spice_die_is_the_only_die_rolled():
    """ROLL-4: not allowed when the spice die was the only die rolled."""
    game = _roll_game(0, 0, 0, 0, 0, 1, 0, 5, thumper=True, skip_forced_decisions=False)
    game.apply(ALL_DICE & ~SPICE_BIT)
    assert game.state.dice_faces[5] == 5
    assert kind(game) == DecisionKind.FIX_DICE
    assert game.pending.options == (SPICE_BIT,)
    game.apply(SPICE_BIT)
    assert game.has_thumper(F.ATREIDES)


def test_roll_5_fixed_dice_are_never_rerolled():
    """ROLL-5: fixed dice keep their faces; their bits never reappear in later options; each
    roll is public in the event log."""
    game = _roll_game(3, 4, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 2, 2, 2, 2)
    game.apply(0b0000011)
    assert game.state.dice_faces[:2] == [3, 4]
    assert all(not option & 0b11 for option in game.pending.options)
    game.apply(0b0000100)
    assert game.state.dice_faces[:3] == [3, 4, 4]
    assert game.state.dice_faces[3:] == [2, 2, 2, 2]
    rolls = events_of(game, EventKind.ROLL)
    assert [r[8] for r in rolls] == [ALL_DICE, 0b1111100, 0b1111000]
    assert rolls[-1][1:8] == tuple(game.state.dice_faces)


# ===============================================================================================
# SPICE
# ===============================================================================================


def test_spice_1_pool_is_the_spice_die_after_the_roll():
    """SPICE-1: at the end of step 1 the pool holds the spice die's value."""
    game = _roll_game(0, 0, 0, 0, 0, 3, 0)
    assert game.state.pool == 0  # not before the end of step 1
    game.apply(ALL_DICE)
    assert game.state.pool == 4


def test_spice_1_shai_hulud_gives_no_spice():
    """SPICE-1: a Shai-Hulud spice die gives 0."""
    game = _roll_game(0, 0, 0, 0, 0, 5, 0)
    game.apply(ALL_DICE)
    assert game.state.pool == 0


def _harvest(spice: int | str, storm: int = 1) -> Game:
    return (
        Scenario(THREE)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.ATREIDES, R.CARTHAG, 1)
        .units(F.ATREIDES, CARD, 9)
        .units(F.HARKONNEN, R.TUEKS_SIETCH, 1)
        .token(R.ARRAKEEN, Token.HARVESTER)
        .token(R.CARTHAG, Token.HARVESTER)
        .storm(storm)
        .dice(region=3, spice=spice)
        .active(F.ATREIDES)
        .at(Phase.LAND_START)
    )


def test_spice_1_harvesters_add_to_the_pool_at_landing():
    """SPICE-1 / LAND-1: +2 per harvester in a region where the active player has a unit."""
    assert _harvest(2).state.pool == 2 + 4


def test_spice_1_no_harvester_income_in_the_storm():
    """SPICE-1 / LAND-1: a harvester in a storm region gives nothing."""
    assert _harvest(2, storm=4).state.pool == 2 + 2


def test_spice_1_no_harvester_income_on_shai_hulud():
    """SPICE-1 / LAND-1: on Shai-Hulud, no spice at all (and a harvester is lost)."""
    game = _harvest("worm")
    assert kind(game) == DecisionKind.HARVESTER_DISCARD
    game.apply(R.CARTHAG)
    assert game.state.pool == 0
    assert game.state.region_token[R.CARTHAG] == NO_ONE


@pytest.mark.parametrize("faction", [F.CORRINO, F.GUILD])
def test_land_1_stored_spice_stays_spendable_on_a_shai_hulud_turn(faction: int) -> None:
    """LAND-1 / SPICE-4 (docs/rules-notes.md, item 21): on Shai-Hulud the turn has no income,
    but the Corrino's and the Guild's stored spice still pays for landing."""
    game = (
        Scenario(FIVE)
        .units(faction, CARD, 2)
        .storage(faction, 2)
        .dice(spice="worm")
        .active(faction)
        .at(Phase.LAND_START)
    )
    assert game.state.pool == 0
    assert kind(game) == DecisionKind.LAND
    game.apply(land_option(R.POLAR_CAP, REG))
    game.apply(land_option(R.POLAR_CAP, REG))
    assert game.state.storage[faction] == 0
    assert game.state.count(faction, R.POLAR_CAP) == 2


def test_spice_1_spice_given_by_the_corrino_ally_joins_the_pool():
    """SPICE-1 / COR-3: spice given by the Corrino ally this turn joins the pool."""
    game = (
        Scenario(FIVE)
        .units(F.ATREIDES, CARD, 5)
        .storage(F.CORRINO, 4)
        .ally(F.CORRINO)
        .dice(factions=[F.CORRINO] * 4, spice=1)
        .active(F.ATREIDES)
        .at(Phase.LAND_START)
    )
    assert kind(game) == DecisionKind.SPICE_GIFT
    game.apply(3)
    assert game.state.pool == 4
    assert game.state.storage[F.CORRINO] == 1


def test_spice_2_landing_spends_one_spice_per_unit():
    """SPICE-2 / LAND-2: each landed unit costs 1 spice; no landing beyond the pool."""
    game = (
        Scenario(THREE)
        .units(F.ATREIDES, R.ARRAKEEN, 1)
        .units(F.ATREIDES, CARD, 5)
        .dice(region=3, spice=2)
        .active(F.ATREIDES)
        .at(Phase.LAND_START)
    )
    game.apply(land_option(R.ARRAKEEN, REG))
    assert game.state.pool == 1
    game.apply(land_option(R.POLAR_CAP, REG))
    assert game.state.pool == 0
    assert kind(game) != DecisionKind.LAND  # nothing left to pay with
    assert units_at(game, F.ATREIDES, CARD) == 3
    assert units_at(game, F.ATREIDES, R.ARRAKEEN) == 2


def test_spice_2_recruiting_does_not_spend_spice():
    """SPICE-2: only landing uses spice for units; recruiting is free."""
    game = (
        Scenario(THREE)
        .dice(factions=[F.ATREIDES] * 4, spice=3)
        .active(F.ATREIDES)
        .at(Phase.RECRUIT_ACTIVE)
    )
    for _ in range(4):
        game.apply(RECRUIT_UNIT)
    assert units_at(game, F.ATREIDES, CARD) == 4
    assert game.state.pool == 3


def test_spice_3_unspent_pool_is_lost_at_the_end_of_the_turn():
    """SPICE-3: unspent pool spice is lost; it is not stored (Guild: no conversion either)
    and the next player's pool is their own spice die only."""
    game = (
        Scenario(FIVE)
        .dice(spice=5)
        .storage(F.GUILD, 1)
        .first(F.ATREIDES)
        .active(F.GUILD)
        .force(0, 0, 0, 0, 0, 1, 0)  # the Atreides' roll: spice 2
        .at(Phase.END_TURN)
    )
    assert game.state.pool == 0
    assert game.state.storage[F.GUILD] == 1
    assert game.state.active_seat == 0
    game.apply(ALL_DICE)
    assert game.state.pool == 2


def test_spice_3_corrino_keeps_unspent_pool_as_storage():
    """SPICE-3 (but see COR-2): Corrino stores 2 per unspent pool spice, capped at 5."""
    game = Scenario(FIVE).dice(spice=1).storage(F.CORRINO, 1).active(F.CORRINO)
    game = game.at(Phase.END_TURN)
    assert game.state.storage[F.CORRINO] == 3
    game = Scenario(FIVE).dice(spice=4).storage(F.CORRINO, 1).active(F.CORRINO)
    game = game.at(Phase.END_TURN)
    assert game.state.storage[F.CORRINO] == 5


def _storage_lander(faction: int, pool: int, stored: int) -> Game:
    return (
        Scenario(FIVE)
        .units(faction, R.ARRAKEEN, 1)
        .units(faction, CARD, 3)
        .storage(faction, stored)
        .dice(region=3, spice=max(pool, 1))
        .pool(pool)
        .active(faction)
        .at(Phase.LAND_START)
    )


def test_spice_4_corrino_spends_storage_first():
    """SPICE-4 / CL-5: Corrino spends its storage before its pool."""
    game = _storage_lander(F.CORRINO, pool=1, stored=3)
    game.apply(land_option(R.ARRAKEEN, REG))
    assert game.state.storage[F.CORRINO] == 2
    assert game.state.pool == 1
    game.apply(LAND_STOP)
    while kind(game) != DecisionKind.FIX_DICE:  # play out the turn doing nothing
        game.apply(game.pending.options[0] if kind(game) != DecisionKind.MOVE_TARGET else 9)
    assert game.state.storage[F.CORRINO] == 4  # 2 + 2 x 1 unspent pool (COR-2)


def test_spice_4_guild_spends_pool_first():
    """SPICE-4 / CL-5: the Guild spends its pool before its storage."""
    game = _storage_lander(F.GUILD, pool=1, stored=3)
    game.apply(land_option(R.ARRAKEEN, REG))
    assert game.state.pool == 0
    assert game.state.storage[F.GUILD] == 3
    game.apply(land_option(R.ARRAKEEN, REG))
    assert game.state.storage[F.GUILD] == 2


def test_spice_4_storage_is_spendable_in_ones_own_turn():
    """SPICE-4: stored spice is spent like pool spice in one's own turn (pool 0 here)."""
    game = _storage_lander(F.GUILD, pool=0, stored=2)
    assert kind(game) == DecisionKind.LAND
    game.apply(land_option(R.ARRAKEEN, REG))
    game.apply(land_option(R.ARRAKEEN, REG))
    assert game.state.storage[F.GUILD] == 0
    assert units_at(game, F.GUILD, R.ARRAKEEN) == 3
    assert kind(game) != DecisionKind.LAND
