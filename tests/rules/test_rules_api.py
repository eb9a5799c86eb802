"""The public rules API (`dune_env.engine.rules`): the answers the rules give, and no query
ever changes the state."""

from __future__ import annotations

import copy

from dune_env.engine import (
    Faction,
    Game,
    GameConfig,
    GameState,
    KanlyFace,
    Phase,
    Region,
    Scenario,
    Token,
    rules,
)
from dune_env.engine.constants import CARD, UnitType
from dune_env.engine.rng import DiceRng

ATR, HAR, FRE, COR, GLD, BG = (
    Faction.ATREIDES,
    Faction.HARKONNEN,
    Faction.FREMEN,
    Faction.CORRINO,
    Faction.GUILD,
    Faction.BENE_GESSERIT,
)


def _five(**config: object) -> Scenario:
    return Scenario([ATR, HAR, FRE, COR, GLD], **config)  # type: ignore[arg-type]


def test_def_8_unit_strength_and_atr_1_leaders() -> None:
    """DEF-8: a unit 1, a Fremen unit or a Sardaukar 2; ATR-1: Atreides tokens 3, both 5."""
    game = (
        _five()
        .units(FRE, Region.CARTHAG, 3)
        .units(COR, Region.CARTHAG, 2)
        .units(COR, Region.CARTHAG, 1, UnitType.ELITE)
        .units(ATR, Region.CARTHAG, 2)
        .leaders(ATR, 2)
        .at(Phase.MOVE_TARGET, run=False)
    )
    s = game.state
    assert rules.strength(s, FRE, Region.CARTHAG) == 6
    assert rules.strength(s, COR, Region.CARTHAG) == 4
    assert rules.strength(s, ATR, Region.CARTHAG) == 2
    assert rules.strength(s, HAR, Region.CARTHAG) == 0
    assert rules.leader_strength(s, ATR) == 5
    assert [rules.UNIT_STRENGTHS[f][t] for f in (ATR, FRE, COR) for t in (0, 1)] == [
        1,
        2,
        2,
        2,
        1,
        2,
    ]


def test_def_6_cl_3_control_by_presence_and_strict_control() -> None:
    """CL-3: presence is control; with strict_control another faction (not the ally) breaks it;
    MAP-4: nobody controls the Polar Cap."""
    for strict in (False, True):
        game = (
            _five(strict_control=strict)
            .units(ATR, Region.CARTHAG, 1)
            .units(HAR, Region.CARTHAG, 1)
            .units(ATR, Region.ARRAKEEN, 1)
            .units(ATR, Region.POLAR_CAP, 1)
            .at(Phase.MOVE_TARGET, run=False)
        )
        s = game.state
        assert rules.controls(s, ATR, Region.CARTHAG) is not strict
        assert rules.controls(s, ATR, Region.CARTHAG, ally=HAR)
        assert rules.controls(s, ATR, Region.ARRAKEEN)
        assert not rules.controls(s, ATR, Region.POLAR_CAP)
        assert rules.strategic_controlled(s, ATR) == (1 if strict else 2)


def test_end_2_alliance_regions() -> None:
    """END-2: strategic regions held by the two allies with no third faction present."""
    game = (
        _five()
        .units(ATR, Region.CARTHAG, 1)
        .units(HAR, Region.ARRAKEEN, 1)
        .units(ATR, Region.SIETCH_TABR, 1)
        .units(FRE, Region.SIETCH_TABR, 1)
        .at(Phase.MOVE_TARGET, run=False)
    )
    assert rules.alliance_regions(game.state, ATR, HAR) == 2


def test_kanly_3_protections() -> None:
    """KANLY-3 / BG-3 / FRE-2: Poison spares the Snooper holder and the Bene Gesserit,
    Crysknife the Shield holder and the Fremen; the Hunter-seeker spares no one."""
    game = (
        Scenario([ATR, HAR, FRE, COR, GLD, BG])
        .snooper(COR)
        .shield(GLD)
        .at(Phase.MOVE_TARGET, run=False)
    )
    s = game.state
    protected = {
        face: {f for f in (ATR, HAR, FRE, COR, GLD, BG) if rules.kanly_protected(s, face, f)}
        for face in (KanlyFace.POISON, KanlyFace.CRYSKNIFE, KanlyFace.HUNTER_SEEKER)
    }
    assert protected == {
        KanlyFace.POISON: {COR, BG},
        KanlyFace.CRYSKNIFE: {GLD, FRE},
        KanlyFace.HUNTER_SEEKER: set(),
    }


def test_storm_1_map_3_next_storm_sector() -> None:
    """STORM-1: only spice faces 3-5 move the storm; MAP-3 / CL-1: W is sector + 1, E - 1."""
    assert rules.next_sector(6, west=True) == 1 and rules.next_sector(1, west=False) == 6
    for spice, moves in ((1, False), (2, False), (3, True), (5, True), ("worm", False)):
        game = _five().storm(3).dice(region=1, spice=spice).at(Phase.MOVE_TARGET, run=False)
        s = game.state
        assert rules.storm_will_move(s) is moves
        expected = rules.next_sector(3, rules.storm_moves_west(s)) if moves else 0
        assert rules.next_storm_sector(s) == expected
        assert rules.next_storm_sector(s) in ((2, 4) if moves else (0,))
        assert rules.regions_in_storm(s) == (Region.SIETCH_TABR,)
        assert rules.in_storm(s, Region.SIETCH_TABR) and not rules.in_storm(s, Region.POLAR_CAP)


def test_move_2_4_fre_3_can_move() -> None:
    """MOVE-2: from an adjacent region; PROP-4: from an ornithopter's region; FRE-3: the
    Fremen from anywhere on a worm; never out of the storm (MOVE-4)."""
    base = (
        _five()
        .storm(1)
        .units(ATR, Region.POLAR_CAP, 1)
        .units(ATR, Region.TUEKS_SIETCH, 1)
        .units(ATR, Region.CIELAGO_PLAIN, 1)
        .units(FRE, Region.TUEKS_SIETCH, 1)
    )
    s = base.dice(spice="worm").at(Phase.MOVE_TARGET, run=False).state
    target = Region.CARTHAG
    assert rules.can_move(s, ATR, Region.POLAR_CAP, target)  # adjacent
    assert not rules.can_move(s, ATR, Region.TUEKS_SIETCH, target)
    assert rules.can_move(s, FRE, Region.TUEKS_SIETCH, target)  # worm riding
    assert not rules.can_move(s, ATR, Region.CIELAGO_PLAIN, Region.POLAR_CAP)  # in the storm
    assert rules.move_sources(s, ATR, target) == [Region.POLAR_CAP]
    s = base.token(Region.TUEKS_SIETCH, Token.ORNITHOPTER).at(Phase.MOVE_TARGET, run=False).state
    assert rules.can_move(s, ATR, Region.TUEKS_SIETCH, target)
    assert rules.ADJACENT[Region.POLAR_CAP] == tuple(sorted(rules.MAP.adjacency[Region.POLAR_CAP]))


def test_battle_2_5_sides_and_their_maximum_strength() -> None:
    """BATTLE-2: the active player and its ally against every enemy present; BATTLE-5: a
    side's maximum is its units there plus the leaders it may commit."""
    game = (
        _five()
        .units(ATR, Region.CARTHAG, 2)
        .units(HAR, Region.CARTHAG, 1)
        .units(FRE, Region.CARTHAG, 1)
        .leaders(ATR, 2)
        .leaders(HAR, 1)
        .leaders(FRE, 1)
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    s = game.state
    assert rules.battle_regions(s) == [Region.CARTHAG]
    while s.phase not in (Phase.BATTLE_BID_ATTACKER, Phase.GAME_OVER):
        game.apply(game.legal_options()[0])  # the only battle; no fortress, no lending
    assert rules.side_factions(s, rules.ATTACKER) == [ATR]
    assert sorted(rules.side_factions(s, rules.DEFENDER)) == [HAR, FRE]
    defender = rules.defender_of(s, Region.CARTHAG)
    assert rules.side_leader_owners(s, rules.DEFENDER) == [defender]
    assert rules.side_max_strength(s, rules.ATTACKER) == 2 + 5
    defender_leader = 4 if defender == HAR else 3
    assert rules.side_max_strength(s, rules.DEFENDER) == 1 + 2 + defender_leader


def test_units_accessors() -> None:
    game = (
        _five()
        .units(COR, CARD, 2)
        .units(COR, Region.CARTHAG, 1, UnitType.ELITE)
        .at(Phase.MOVE_TARGET, run=False)
    )
    s = game.state
    assert rules.units(s, COR, Region.CARTHAG) == 1
    assert rules.units(s, COR, Region.CARTHAG, UnitType.ELITE) == 1
    assert rules.units(s, COR, Region.CARTHAG, UnitType.REGULAR) == 0
    assert rules.units_on_map(s, COR) == sum(rules.units(s, COR, r) for r in rules.REGIONS)


def test_no_query_changes_the_state() -> None:
    """Every query of the API, asked at every decision of varied random games, leaves the
    state exactly as it was."""
    chooser = DiceRng(3)
    for seed in range(6):
        config = GameConfig(num_players=3 + seed, strict_control=seed % 2 == 1, record_events=False)
        game = Game(config, seed=seed)
        while not game.terminal:
            s = game.state
            before = copy.deepcopy(s.to_dict())
            _ask_everything(s)
            assert s.to_dict() == before
            options = game.legal_options()
            game.apply(options[chooser.below(len(options))])


def _ask_everything(s: GameState) -> None:
    factions = [f for f in s.seat_faction]
    for f in factions:
        rules.strategic_controlled(s, f)
        rules.leader_strength(s, f)
        rules.units_on_map(s, f)
        for r in rules.REGIONS:
            rules.controls(s, f, r, ally=s.ally)
            rules.strength(s, f, r)
            rules.move_sources(s, f, r)
        for face in KanlyFace:
            rules.kanly_protected(s, face, f)
    rules.alliance_regions(s, factions[0], factions[1])
    rules.next_storm_sector(s)
    rules.regions_in_storm(s)
    rules.battle_regions(s)
    if s.battle_region >= 0:
        for side in (rules.ATTACKER, rules.DEFENDER):
            rules.side_max_strength(s, side)
