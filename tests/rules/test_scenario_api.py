"""The public scenario and query API (docs/scenarios.md): neutral Scenario defaults, one dice
convention, input validation, `engine.options`, the read accessors and `Game.run_until`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dune_env.engine import (
    CARD,
    NEUTRAL_DICE,
    RESERVE,
    WORM,
    BattleResult,
    DecisionKind,
    DecisionPendingError,
    Die,
    Game,
    GameConfig,
    IllegalOptionError,
    KanlyFace,
    Phase,
    PhaseNotReachedError,
    Region,
    Scenario,
    ScenarioError,
    Token,
    UnitType,
)
from dune_env.engine import options as opt
from dune_env.engine.decisions import (
    OPTION_COUNTS,
    bid_leader_option,
    kanly_kill_option,
    land_option,
    move_option,
    offer_option,
    unit_option,
)
from dune_env.policies.heuristics import AggressivePolicy

from .common import ATR, COR, ELITE, FRE, GLD, HAR, POLAR, REG, SMG

DOCS = Path(__file__).resolve().parents[2] / "docs" / "scenarios.md"
THREE = [ATR, HAR, COR]
FIVE = [ATR, HAR, FRE, COR, GLD]


def test_docs_worked_example_runs() -> None:
    """docs/scenarios.md's worked example (LAND-2, MOVE-1/2, BATTLE-3/5/6/7, PROP-1, TURN-2),
    executed as written: it uses only the public API."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## Worked example", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    assert "state" not in code.group(1)  # no engine internals
    exec(compile(code.group(1), str(DOCS), "exec"), {})


# --- neutral defaults -----------------------------------------------------------------------


def test_neutral_defaults_force_no_movement_target_and_kill_nobody() -> None:
    """MOVE-1 / KANLY-1: with the default dice and storm the target is a real choice (the
    region die's sector is not under the storm) and the Kanly die kills nobody."""
    game = (
        Scenario(THREE, skip_forced_decisions=False)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(HAR, Region.CARTHAG, 1)
        .active(ATR)
        .at(Phase.KANLY)
    )
    assert game.pending.kind == DecisionKind.KANLY
    assert set(game.pending.options) == {opt.NO_KANLY, opt.TAKE_TOKEN}  # Thumper, no kills
    game.apply(opt.NO_KANLY)  # nothing on the card: no landing is asked
    assert game.pending.kind == DecisionKind.MOVE_TARGET
    assert game.pending.options == (Region.CARTHAG, Region.BROKEN_LAND, POLAR)
    assert game.storm_sector == 1 and game.pool == 1
    assert NEUTRAL_DICE["kanly"] == KanlyFace.THUMPER and NEUTRAL_DICE["region"] == 4


def test_dice_keeps_the_dice_not_given_and_old_calls_work() -> None:
    """Scenario.dice: named values; dice left out keep their value; the old full call and
    "worm" still work."""
    scenario = Scenario(THREE).dice(spice=WORM).dice(region=2)
    s = scenario.state
    assert s.dice_faces[Die.SPICE] == 5 and s.dice_faces[Die.REGION] == 1
    assert s.dice_faces[Die.KANLY] == KanlyFace.THUMPER
    old = Scenario(THREE).dice([ATR, ATR, COR, HAR], 4, 1, KanlyFace.SNOOPER)
    assert old.state.dice_faces == [0, 0, 1, 2, 3, 0, 3]


def test_next_roll_uses_the_dice_convention() -> None:
    """ROLL-1/ROLL-2: next_roll queues a roll by name; equal to the raw force() faces."""
    named = (
        Scenario(THREE)
        .units(ATR, Region.ARRAKEEN, 1)
        .active(ATR)
        .next_roll(factions=[ATR, COR, HAR, GLD], region=6, spice=WORM, kanly=KanlyFace.SHIELD)
        .at_turn_start()
    )
    raw = (
        Scenario(THREE)
        .units(ATR, Region.ARRAKEEN, 1)
        .active(ATR)
        .force(0, 1, 2, 3, 5, 5, 4)
        .at_turn_start()
    )
    assert named.state.dice_faces == raw.state.dice_faces == [0, 1, 2, 3, 5, 5, 4]
    # A reroll: fix the spice die (a worm must be fixed, ROLL-3); the rest is rerolled.
    scenario = Scenario(THREE).units(ATR, Region.ARRAKEEN, 1).active(ATR)
    scenario.next_roll(factions=[ATR] * 4, region=1, spice=WORM, kanly=KanlyFace.POISON)
    scenario.next_roll(factions=[HAR] * 4, region=3, kanly=KanlyFace.SNOOPER)
    game = scenario.at_turn_start()
    game.apply(opt.fix_dice([Die.SPICE]))
    assert game.state.dice_faces == [2, 2, 2, 2, 2, 5, 3]


# --- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda s: s.storage(COR, 6), "0..5"),
        (lambda s: s.storage(ATR, 2), "only Corrino and the Guild"),
        (lambda s: s.units(ATR, Region.ARRAKEEN, 13), "only 12 units"),
        (lambda s: s.units(ATR, CARD, 1, unit_type=ELITE), "Sardaukar"),
        (lambda s: s.units(COR, CARD, 5, unit_type=ELITE), "only 4 Sardaukar"),
        (lambda s: s.units(SMG, Region.ARRAKEEN, 1), "not in this game"),
        (lambda s: s.units(ATR, RESERVE, 1), "Region or to CARD"),
        (lambda s: s.leaders(HAR, 2), "0..1"),
        (lambda s: s.token(POLAR, Token.HARVESTER), "Polar Cap"),
        (lambda s: s.thumper(ATR).thumper(ATR), "nobody holds two"),
        (lambda s: s.ally(HAR), "5 or more players"),
        (lambda s: s.prediction(ATR), "not in this game"),
        (lambda s: s.storm(0), "1..6"),
        (lambda s: s.round(7), "1..6"),
        (lambda s: s.dice(region=7), "sector 1 to 6"),
        (lambda s: s.dice(spice=6), "1 to 5"),
        (lambda s: s.dice(factions=[SMG, ATR, ATR, ATR]), "Tleilax and Smugglers"),
        (lambda s: s.dice(factions=[ATR]), "4 faction dice"),
        (lambda s: s.force(6), "0..5"),
        (lambda s: s.pool(-1), "0..99"),
        (lambda s: s.target(12), "not a Region"),
        (lambda s: s.at(Phase.GAME_OVER), "ROLL..END_TURN"),
    ],
)
def test_scenario_rejects_impossible_positions(build, message: str) -> None:
    """COMP-4 (limited pieces), COR-2 / GLD-1 (storage 0..5), MAP-4, KANLY-5, ALLY-1, BG-0,
    DEF-3: an impossible input raises ScenarioError naming it, when it is given."""
    with pytest.raises(ScenarioError, match=message):
        build(Scenario(THREE))


def test_scenario_checks_the_alliance_against_the_active_player() -> None:
    """ALLY-2: nobody allies with themselves."""
    with pytest.raises(ScenarioError, match="its own ally"):
        Scenario(FIVE).ally(ATR).active(ATR).at(Phase.LAND_START)


def test_scenario_error_is_a_value_error_and_leaves_the_position_unchanged() -> None:
    scenario = Scenario(THREE).units(ATR, Region.ARRAKEEN, 10)
    with pytest.raises(ValueError):
        scenario.units(ATR, Region.CARTHAG, 3)
    game = scenario.active(ATR).at(Phase.END_TURN)
    assert game.units(ATR, Region.ARRAKEEN) == 10 and game.units(ATR, RESERVE) == 2


# --- options ---------------------------------------------------------------------------------


def test_options_builders_match_the_engine_encoders() -> None:
    """Every builder is the engine's own encoding (DecisionKind comments in decisions.py)."""
    assert opt.offer(COR) == offer_option(COR, COR)
    assert opt.offer(SMG, symbol=HAR) == offer_option(SMG, HAR)
    assert opt.kanly_kill(Region.CARTHAG, HAR) == kanly_kill_option(Region.CARTHAG, HAR, REG)
    assert opt.land(Region.ARRAKEEN, ELITE) == land_option(Region.ARRAKEEN, ELITE)
    assert opt.move(Region.CARTHAG) == move_option(Region.CARTHAG, REG)
    assert opt.face_dancer(HAR) == unit_option(HAR, REG)
    assert opt.bid_unit(COR, ELITE) == unit_option(COR, ELITE)
    assert opt.bid_leader(ATR) == bid_leader_option(ATR)
    assert opt.fortress_victim(COR, ELITE) == unit_option(COR, ELITE) - 1
    assert opt.fix_dice([Die.FACTION_1, Die.KANLY]) == 0b1000001
    assert opt.reorganize(Token.ORNITHOPTER) == 3
    assert opt.yes_no(True) == 1 and opt.yes_no(False) == 0
    with pytest.raises(ValueError, match="at least one die"):
        opt.fix_dice([])


@pytest.mark.parametrize("kind", list(DecisionKind))
def test_every_option_of_every_kind_has_a_unique_name_and_comes_back(kind: DecisionKind) -> None:
    """options.names / by_name: a name per option, unique within its kind, and invertible."""
    names = opt.names(kind)
    assert len(names) == OPTION_COUNTS[kind]
    assert len(set(names.values())) == len(names)
    for option, name in names.items():
        assert opt.by_name(kind, name) == option


def test_by_name_error_lists_similar_names() -> None:
    with pytest.raises(ValueError, match="land unit in Arrakeen"):
        opt.by_name(DecisionKind.LAND, "land unit in Arakeen")


def test_fortress_victim_option_names_the_unit() -> None:
    """BATTLE-3: the fortress victim option, built by name, removes that unit."""
    game = (
        Scenario(FIVE, skip_forced_decisions=False)
        .units(COR, Region.CARTHAG, 1)
        .units(COR, Region.CARTHAG, 1, unit_type=ELITE)
        .units(HAR, Region.CARTHAG, 1)
        .token(Region.CARTHAG, Token.FORTRESS)
        .active(COR)
        .at(Phase.BATTLE_SELECT)
    )
    game.apply(opt.region(Region.CARTHAG))
    assert game.pending.kind == DecisionKind.FORTRESS_VICTIM
    assert opt.name(DecisionKind.FORTRESS_VICTIM, opt.fortress_victim(COR, ELITE)) == (
        "remove Corrino Sardaukar"
    )
    game.apply(opt.fortress_victim(COR, ELITE))
    assert game.units(COR, Region.CARTHAG, UnitType.ELITE) == 0
    assert game.units(COR, Region.CARTHAG, UnitType.REGULAR) == 1


# --- accessors -------------------------------------------------------------------------------


def test_read_accessors() -> None:
    """game.units / leaders / storage / pool / token / region labels."""
    game = (
        Scenario(FIVE)
        .units(COR, Region.ARRAKEEN, 2)
        .units(COR, Region.ARRAKEEN, 1, unit_type=ELITE)
        .units(COR, CARD, 1)
        .leaders(ATR, 1)
        .storage(COR, 4)
        .token(Region.ARRAKEEN, Token.HARVESTER)
        .pool(3)
        .active(ATR)
        .ally(COR)
        .at(Phase.END_TURN)
    )
    assert game.units(COR, Region.ARRAKEEN) == 3
    assert game.units(COR, Region.ARRAKEEN, UnitType.ELITE) == 1
    assert game.units(COR, CARD) == 1 and game.units(COR, RESERVE) == 12 - 4
    assert game.leaders(ATR) == (1, 1) and game.leaders(ATR).on_card == 1
    assert game.storage(COR) == 4 and game.storage(ATR) == 0
    assert game.token(Region.ARRAKEEN) == Token.HARVESTER and game.token(Region.CARTHAG) is None
    assert game.last_battle is None
    assert Region.label(Region.TUEKS_SIETCH) == "Tuek's Sietch"
    assert Region.from_label("tuek's sietch") == Region.TUEKS_SIETCH
    assert [Region.label(r) for r in Region.ALL][-1] == "Polar Cap"
    with pytest.raises(ValueError, match="faction=9"):
        game.units(9, Region.ARRAKEEN)
    with pytest.raises(ValueError, match="no region is named"):
        Region.from_label("Caladan")


def test_shared_tokens_seats_and_prediction_accessors_comp_2_setup_5_bg_0() -> None:
    """COMP-2, SETUP-5, KANLY-4/5, BG-0: the Shield and Snooper holders, the Thumpers, the
    token supply, the seats' factions, the first seat and the prediction are read without
    `game.state`, at every decision of a game; the prediction only by the Bene Gesserit."""
    import random

    from dune_env.engine.constants import NUM_FACTIONS, NUM_TOKEN_TYPES, Faction

    game = Game(GameConfig(num_players=5, faction_mode="draft"), seed=4)
    rng = random.Random(4)
    seen_prediction = False
    while not game.terminal:
        state = game.state
        assert game.shield_holder == state.shield_holder
        assert game.snooper_holder == state.snooper_holder
        assert game.thumper_supply == state.thumper_supply
        assert [game.has_thumper(f) for f in range(NUM_FACTIONS)] == [t > 0 for t in state.thumpers]
        assert [game.token_supply(t) for t in range(NUM_TOKEN_TYPES)] == state.token_supply
        assert game.seat_factions == state.seat_faction
        assert game.seat_factions is not state.seat_faction  # a copy, never the state's list
        assert game.first_seat == state.first_seat
        for seat, faction in enumerate(game.seat_factions):
            if faction == Faction.BENE_GESSERIT:
                assert game.prediction(seat) == state.bg_prediction
                seen_prediction |= state.bg_prediction >= 0
            else:
                with pytest.raises(ValueError, match="hidden from it"):
                    game.prediction(seat)
        game.apply(rng.choice(game.legal_options()))
    with pytest.raises(ValueError, match="token=3"):
        game.token_supply(3)
    assert Faction.BENE_GESSERIT in game.seat_factions and seen_prediction


def test_pool_and_ally_accessors_during_a_turn() -> None:
    game = Scenario(FIVE).units(ATR, CARD, 2).pool(3).active(ATR).ally(COR).at(Phase.LAND_START)
    assert game.pool == 3 and game.ally == COR and game.active_faction == ATR
    assert game.phase == Phase.LAND_ACTIVE and game.round == 1


def test_last_battle_record_matches_the_packed_list() -> None:
    """BATTLE-5/6/7: the typed record of the last battle (committed units and leaders per
    faction, strengths, the winner; a tie goes to the defender)."""
    game = (
        Scenario(FIVE)
        .units(ATR, Region.CARTHAG, 3)
        .units(COR, Region.CARTHAG, 2)
        .units(HAR, Region.CARTHAG, 4)
        .leaders(HAR, 1)
        .active(ATR)
        .ally(COR)
        .at(Phase.BATTLE_SELECT)
    )
    if game.pending.kind == DecisionKind.LEND_LEADER:
        game.apply(opt.yes_no(False))
    for option in (opt.bid_unit(ATR), opt.bid_unit(ATR), opt.bid_unit(COR), opt.BID_COMPLETE):
        game.apply(option)
    for option in (opt.bid_leader(HAR), opt.BID_COMPLETE):
        game.apply(option)
    battle = game.last_battle
    assert isinstance(battle, BattleResult)
    assert battle.region == Region.CARTHAG
    assert (battle.attacker.faction, battle.defender.faction) == (ATR, HAR)
    assert battle.attacker.units == {ATR: (2, 0), COR: (1, 0)} and battle.attacker.leaders == {}
    assert battle.defender.units == {} and battle.defender.leaders == {HAR: 1}
    assert (battle.attacker.strength, battle.defender.strength) == (3, 4)
    assert not battle.attacker_won and battle.winner == HAR
    packed = game.state.last_battle
    assert (battle.attacker.strength, battle.defender.strength, int(not battle.attacker_won)) == (
        packed[3],
        packed[4],
        packed[5],
    )


# --- run_until -------------------------------------------------------------------------------


def _end_of_turn_win() -> Scenario:
    """Atreides hold 3 strategic regions: END-1 at the end of their turn."""
    return (
        Scenario(THREE)
        .units(ATR, Region.CARTHAG, 1)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, Region.SIETCH_TABR, 1)
        .active(ATR)
    )


def test_run_until_end_turn_stops_before_the_victory_check() -> None:
    """TURN-1 / END-1: run_until(END_TURN) stops after step 9, before step 10 declares the
    winner; advance() then runs step 10."""
    game = _end_of_turn_win().at(Phase.PROPERTY, run=False)
    assert game.pending is None and game.phase == Phase.PROPERTY
    game.run_until(Phase.END_TURN, policy=lambda g: opt.KEEP_PROPERTY)
    assert game.phase == Phase.END_TURN and game.pending is None and not game.terminal
    assert game.winners == []
    game.advance()
    assert game.terminal and game.winners == [0]


def test_run_until_without_policy_names_the_pending_decision() -> None:
    game = Scenario(THREE).units(ATR, CARD, 2).pool(2).active(ATR).at(Phase.ALLY_OFFER)
    with pytest.raises(DecisionPendingError, match="RECRUIT of seat 0"):
        game.run_until(Phase.END_TURN)


def test_run_until_raises_when_the_game_ends_first() -> None:
    game = _end_of_turn_win().at(Phase.STORM, run=False)
    with pytest.raises(PhaseNotReachedError, match="ROLL"):
        game.run_until(Phase.ROLL)
    assert game.terminal
    game = _end_of_turn_win().at(Phase.STORM, run=False)
    assert game.run_until(Phase.GAME_OVER).winners == [0]


def test_run_until_rejects_an_illegal_option_from_the_policy() -> None:
    game = Scenario(THREE).units(ATR, CARD, 2).pool(2).active(ATR).at(Phase.LAND_START)
    with pytest.raises(IllegalOptionError, match="not legal for decision LAND"):
        game.run_until(Phase.MOVE_TARGET, policy=lambda g: opt.land(Region.CARTHAG))


def test_apply_while_stopped_between_steps_says_what_to_do() -> None:
    game = Scenario(THREE).active(ATR).at(Phase.PROPERTY, run=False)
    game.run_until(Phase.END_TURN)
    with pytest.raises(IllegalOptionError, match="advance"):
        game.apply(0)


def test_run_until_with_a_harness_policy_plays_through_turns() -> None:
    """run_until accepts the harness's policies (act(game, seat)); stopping at each
    END_TURN of a whole game gives the same game as playing it straight through."""
    config = GameConfig(num_players=4, faction_mode="assigned", factions=(ATR, HAR, FRE, COR))
    straight = Game(config, seed=11)
    policy = AggressivePolicy(seed=0)
    while not straight.terminal:
        straight.apply(policy.act(straight, straight.pending.seat))
    stepped = Game(config, seed=11)
    policy = AggressivePolicy(seed=0)
    stops = 0
    while not stepped.terminal:
        try:
            stepped.run_until(Phase.END_TURN, policy=policy)
        except PhaseNotReachedError:
            break
        stops += 1
    assert stops > 4
    assert stepped.winners == straight.winners
    assert stepped.chosen_options() == straight.chosen_options()


def test_run_until_stops_between_battles_not_inside_a_step_loop() -> None:
    """BATTLE-1: BATTLE_SELECT is re-entered after each battle; run_until stops there, never
    after a single landing or movement of a step's own loop."""
    game = (
        Scenario(THREE)
        .units(ATR, CARD, 3)
        .units(ATR, Region.CARTHAG, 1)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(HAR, Region.CARTHAG, 1)
        .units(HAR, Region.ARRAKEEN, 1)
        .pool(3)
        .active(ATR)
        .at(Phase.LAND_START)
    )

    def policy(g: Game) -> int:
        return g.pending.options[-1] if g.pending.kind == DecisionKind.LAND else 0

    game.run_until(Phase.MOVE_TARGET, policy=policy)
    assert game.units(ATR, CARD) == 0  # all three landed before the stop
    game.run_until(Phase.BATTLE_SELECT, policy=lambda g: g.pending.options[0])
    assert game.last_battle is None
    game.run_until(Phase.BATTLE_SELECT, policy=lambda g: g.pending.options[0])
    assert game.last_battle is not None and game.pending is None


def test_snapshot_of_a_stopped_game_asks_to_advance_first() -> None:
    """A game stopped between steps has no pending decision; snapshots need one."""
    game = Scenario(THREE).active(ATR).at(Phase.PROPERTY, run=False)
    with pytest.raises(ValueError, match="advance"):
        game.to_json()
    clone = game.clone()  # clones work as they are
    game.advance()
    restored = Game.from_json(game.to_json())
    assert restored.pending == game.pending
    clone.advance()
    assert clone.pending == game.pending


def test_leaders_start_in_reserve_unless_asked() -> None:
    """DEF-1 / DEF-2: a Scenario's leaders are in the reserve unless put on the card, for all
    factions at once with leaders_on_card=True."""
    game = Scenario(THREE).active(ATR).at(Phase.PROPERTY, run=False)
    assert [game.leaders(f) for f in THREE] == [(0, 2), (0, 1), (0, 1)]
    game = Scenario(THREE, leaders_on_card=True).active(ATR).at(Phase.PROPERTY, run=False)
    assert [game.leaders(f) for f in THREE] == [(2, 0), (1, 0), (1, 0)]
