"""The `strategist` heuristic: legal at every decision kind, player count and variant,
deterministic, blind to hidden information, and doing what it is built to do in chosen positions
(garrisons, the Shield for them, Kanly at the leader, alliances that make an alliance win
reachable)."""

from __future__ import annotations

from collections import Counter

import pytest

from dune_env.engine import (
    CARD,
    DecisionKind,
    Faction,
    Game,
    GameConfig,
    KanlyFace,
    Phase,
    Region,
    Scenario,
)
from dune_env.engine.constants import FACTION_DIE_SYMBOLS, Die
from dune_env.engine.decisions import (
    KANLY_TAKE,
    decode_kanly_kill,
    decode_offer,
    land_option,
    offer_option,
)
from dune_env.engine.steps.battle import ATTACKER, DEFENDER
from dune_env.policies import load_policy
from dune_env.policies.base import EnginePolicy, RandomPolicy
from dune_env.policies.heuristics import AggressivePolicy, EconomicPolicy, HeuristicPolicy
from dune_env.policies.heuristics.strategist import StrategistPolicy

from .helpers import play

ATR, HAR, FRE, COR, GLD, BG = (
    Faction.ATREIDES,
    Faction.HARKONNEN,
    Faction.FREMEN,
    Faction.CORRINO,
    Faction.GUILD,
    Faction.BENE_GESSERIT,
)


def _mixed(n: int, game_index: int) -> list[EnginePolicy]:
    kinds = (StrategistPolicy, EconomicPolicy, RandomPolicy, StrategistPolicy)
    return [kinds[(seat + game_index) % 4](game_index * 10 + seat) for seat in range(n)]


def test_registered() -> None:
    assert isinstance(load_policy("strategist", seed=1), StrategistPolicy)


@pytest.mark.parametrize("num_players", range(3, 9))
def test_only_legal_options_at_every_player_count_and_variant(num_players: int) -> None:
    """Mixed with economic and random players, over the rules variants, drafting or not,
    asked even for forced decisions: every option is legal (checked at each decision)."""
    kinds: Counter[str] = Counter()
    for i in range(24):
        config = GameConfig(
            num_players=num_players,
            faction_mode=("random", "draft")[i % 2],
            skip_forced_decisions=i % 3 != 0,
            strict_control=i % 5 == 0,
            desert_landing=i % 7 != 0,
            face_dancers=("dice", "spice")[i % 4 == 0],
            strict_alliance_victory=i % 6 == 1,
            smugglers_land_anywhere=i % 8 == 3,
        )
        policies = _mixed(num_players, i)
        game = Game(config, seed=7000 * num_players + i)
        while not game.terminal:
            decision = game.pending
            assert decision is not None
            option = policies[decision.seat].act(game, decision.seat)
            assert option in decision.options, (decision, option)
            if isinstance(policies[decision.seat], StrategistPolicy):
                kinds[decision.kind.name] += 1
            game.apply(option)
        assert len(game.rewards) == num_players
    for kind in ("CHOOSE_FACTION", "FIX_DICE", "RECRUIT", "LAND", "MOVE_TARGET", "MOVE", "BID"):
        assert kinds[kind] > 0, kind


def test_every_decision_kind_is_played() -> None:
    """Over enough games the strategist decides every kind of decision at least once."""
    seen: set[int] = set()
    for i in range(240):
        n = 3 + i % 6
        config = GameConfig(
            num_players=n, faction_mode="draft", face_dancers=("dice", "spice")[i % 2]
        )
        policies = _mixed(n, i)
        game = Game(config, seed=i)
        while not game.terminal:
            decision = game.pending
            assert decision is not None
            if isinstance(policies[decision.seat], StrategistPolicy):
                seen.add(decision.kind)
            game.apply(policies[decision.seat].act(game, decision.seat))
        if len(seen) == len(DecisionKind):
            break
    missing = {DecisionKind(k).name for k in set(DecisionKind) - seen}
    # Both rare (a Tleilax ghola turn; a worm while holding two harvester regions); every
    # style plays them with the same handlers, tested in test_heuristics.py.
    assert missing <= {"GHOLA", "HARVESTER_DISCARD"}, missing


def test_deterministic_given_seeds() -> None:
    config = GameConfig(num_players=5)
    _, first = play(config, 3, [StrategistPolicy(s) for s in range(5)])
    _, again = play(config, 3, [StrategistPolicy(s) for s in range(5)])
    assert first == again


def test_never_reads_the_other_sides_bid_nor_the_prediction() -> None:
    """BATTLE-5, BG-0: at every decision of many 5-player games, the strategist decides the
    same when the other side's bid in progress and (unless it is the Bene Gesserit) the Bene
    Gesserit prediction are changed in a copy of the game."""
    checked_bids = 0
    checked_predictions = 0
    for i in range(40):
        policies = _mixed(5, i)
        game = Game(GameConfig(num_players=5, faction_mode="draft"), seed=900 + i)
        while not game.terminal:
            decision = game.pending
            assert decision is not None
            policy = policies[decision.seat]
            if isinstance(policy, StrategistPolicy):
                me = game.state.seat_faction[decision.seat]
                choices = {policy.act(game, decision.seat)}
                if me != BG and game.state.bg_prediction >= 0:
                    for other in (ATR, GLD, HAR):
                        probe = game.clone()
                        probe.state.bg_prediction = int(other)
                        choices.add(policy.act(probe, decision.seat))
                    checked_predictions += 1
                if decision.kind == DecisionKind.BID:
                    defending = game.state.phase == Phase.BATTLE_BID_DEFENDER
                    side = ATTACKER if defending else DEFENDER
                    for fill in (0, 1, 5):
                        probe = game.clone()
                        units = probe.state.bid_units[side]
                        probe.state.bid_units[side] = [fill] * len(units)
                        leaders = probe.state.bid_leaders[side]
                        probe.state.bid_leaders[side] = [fill % 2] * len(leaders)
                        choices.add(policy.act(probe, decision.seat))
                    checked_bids += 1
                assert len(choices) == 1, decision
            game.apply(policy.act(game, decision.seat))
    assert checked_bids > 30 and checked_predictions > 500


def _run_own_moves(game: Game, policy: EnginePolicy) -> None:
    seat = game.state.active_seat
    while game.pending is not None and game.pending.kind in (
        DecisionKind.MOVE_TARGET,
        DecisionKind.MOVE,
    ):
        assert game.pending.seat == seat
        game.apply(policy.act(game, seat))


def test_enters_a_strategic_region_with_a_garrison_of_two() -> None:
    """MOVE-1..2: from four units in Arrakeen it takes empty Carthag with two units and
    keeps two in Arrakeen (a sole unit is what Kanly removes)."""
    game = (
        Scenario([ATR, HAR, FRE, COR])
        .units(ATR, Region.ARRAKEEN, 4)
        .units(HAR, Region.CIELAGO_PLAIN, 2)
        .dice(factions=[COR, COR, COR, COR], region=4, spice=1, kanly=KanlyFace.THUMPER)
        .active(ATR)
        .at(Phase.MOVE_TARGET)
    )
    _run_own_moves(game, StrategistPolicy())
    assert game.units(ATR, Region.CARTHAG) >= 2
    assert game.units(ATR, Region.ARRAKEEN) >= 2


def test_lands_to_reinforce_a_thin_garrison() -> None:
    """LAND-2: with one unit in Arrakeen (the other strategic regions held by strong enemies)
    and one unit on the card, it lands in Arrakeen; economic lands elsewhere."""
    game = (
        Scenario([ATR, HAR, FRE, COR])
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, Region.POLAR_CAP, 1)
        .units(ATR, CARD, 1)
        .units(HAR, Region.CARTHAG, 3)
        .units(HAR, Region.SIETCH_TABR, 3)
        .units(FRE, Region.HABBANYA_SIETCH, 3)
        .units(FRE, Region.TUEKS_SIETCH, 3)
        .dice(factions=[COR, COR, COR, COR], region=2, spice=2, kanly=KanlyFace.THUMPER)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    assert game.pending is not None and game.pending.kind == DecisionKind.LAND
    assert EconomicPolicy().act(game, game.pending.seat) != land_option(Region.ARRAKEEN, 0)
    game.apply(StrategistPolicy().act(game, game.pending.seat))
    assert game.units(ATR, Region.ARRAKEEN) == 2


def _shield_position(shield_holder: Faction) -> Game:
    """Atreides holds Arrakeen and Carthag with one unit each; the Kanly die shows the
    Shield (KANLY-4) among rolled dice; Harkonnen units elsewhere could be killed."""
    atr_face = FACTION_DIE_SYMBOLS.index(ATR)
    cor_face = FACTION_DIE_SYMBOLS.index(COR)
    return (
        Scenario([ATR, HAR, FRE, COR])
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, Region.CARTHAG, 1)
        .units(HAR, Region.MINOR_ERG, 3)
        .units(FRE, Region.GREAT_FLAT, 2)
        .shield(shield_holder)
        .force(atr_face, cor_face, cor_face, cor_face, 2, 1, KanlyFace.SHIELD)
        .active(ATR)
        .at_turn_start()
    )


def test_keeps_the_shield_face_when_it_protects_its_garrisons() -> None:
    """ROLL-2, KANLY-3/4: holding two strategic regions with sole units, the strategist
    fixes the Kanly die on the Shield and takes the Shield from the Harkonnen (it protects
    them from the Crysknife); the economic style rerolls that die."""
    game = _shield_position(HAR)
    seat = game.state.pending_seat
    kanly_bit = 1 << Die.KANLY
    assert StrategistPolicy().act(game, seat) & kanly_bit
    assert not EconomicPolicy().act(game, seat) & kanly_bit
    taking = (
        Scenario([ATR, HAR, FRE, COR])
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, Region.CARTHAG, 1)
        .shield(HAR)
        .dice(factions=[COR, COR, COR, COR], region=4, spice=1, kanly=KanlyFace.SHIELD)
        .active(ATR)
        .at(Phase.KANLY)
    )
    assert taking.pending is not None and taking.pending.kind == DecisionKind.KANLY
    taking.apply(StrategistPolicy().act(taking, taking.pending.seat))
    assert taking.shield_holder == ATR


def test_kanly_aims_at_the_player_closest_to_a_win() -> None:
    """KANLY-1: Atreides holds two strategic regions (sole units), Fremen one and Corrino
    one with a bigger garrison; the kill takes one of the Atreides regions."""
    game = (
        Scenario([HAR, ATR, FRE, COR])
        .units(HAR, Region.MINOR_ERG, 2)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, Region.CARTHAG, 1)
        .units(FRE, Region.TUEKS_SIETCH, 1)
        .units(COR, Region.SIETCH_TABR, 2)
        .dice(factions=[COR, COR, COR, COR], region=1, spice=1, kanly=KanlyFace.HUNTER_SEEKER)
        .active(HAR)
        .at(Phase.KANLY)
    )
    option = StrategistPolicy().act(game, game.state.pending_seat)
    assert option != KANLY_TAKE
    region, victim, _ = decode_kanly_kill(option)
    assert victim == ATR and region in (Region.ARRAKEEN, Region.CARTHAG)


def test_kanly_breaks_the_tie_towards_the_bigger_holder() -> None:
    """KANLY-1: Atreides and Fremen both hold two strategic regions; the Atreides hold
    theirs with more units (closer to a win that lasts): a sole Atreides unit is killed."""
    game = (
        Scenario([HAR, FRE, ATR, COR])
        .units(HAR, Region.MINOR_ERG, 2)
        .units(FRE, Region.TUEKS_SIETCH, 1)
        .units(FRE, Region.HABBANYA_SIETCH, 1)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, Region.CARTHAG, 3)
        .dice(factions=[COR, COR, COR, COR], region=1, spice=1, kanly=KanlyFace.HUNTER_SEEKER)
        .storm(4)
        .active(HAR)
        .at(Phase.KANLY)
    )
    option = StrategistPolicy().act(game, game.state.pending_seat)
    region, victim, _ = decode_kanly_kill(option)
    assert (region, victim) == (Region.ARRAKEEN, ATR)


def _offer_position(atr_regions: tuple[int, ...], cor_regions: tuple[int, ...]) -> Game:
    scenario = (
        Scenario([ATR, COR, FRE, HAR, GLD])
        .units(ATR, Region.MINOR_ERG, 2)
        .units(FRE, Region.GREAT_FLAT, 2)
        .dice(factions=[COR, COR, ATR, FRE], region=3, spice=2, kanly=KanlyFace.SHIELD)
        .active(ATR)
    )
    for region in atr_regions:
        scenario.units(ATR, region, 1)
    for region in cor_regions:
        scenario.units(COR, region, 2)
    return scenario.at(Phase.ALLY_OFFER)


def test_offers_an_alliance_that_makes_an_alliance_win_reachable() -> None:
    """ALLY-2, END-2: holding Arrakeen, the strategist offers to the Corrino holding
    Carthag and Tueks Sietch (three together); with the Corrino holding nothing, no offer."""
    game = _offer_position((Region.ARRAKEEN,), (Region.CARTHAG, Region.TUEKS_SIETCH))
    assert game.pending is not None and game.pending.kind == DecisionKind.ALLY_OFFER
    option = StrategistPolicy().act(game, game.pending.seat)
    assert option != 0 and decode_offer(option)[0] == COR
    lone = _offer_position((Region.ARRAKEEN,), ())
    assert lone.pending is not None and lone.pending.kind == DecisionKind.ALLY_OFFER
    assert StrategistPolicy().act(lone, lone.pending.seat) == 0


@pytest.mark.parametrize(
    ("atr_regions", "cor_regions", "expected"),
    [
        # together three (an alliance win reachable), the offering player holds one: accept
        ((Region.ARRAKEEN,), (Region.CARTHAG, Region.TUEKS_SIETCH), 1),
        # the offering player holds two (our help makes its solo win reachable): decline
        ((Region.ARRAKEEN, Region.CARTHAG), (Region.TUEKS_SIETCH,), 0),
        # together four: END-2 at the end of this turn: accept
        ((Region.ARRAKEEN, Region.CARTHAG), (Region.TUEKS_SIETCH, Region.SIETCH_TABR), 1),
    ],
)
def test_answers_an_offer_by_whose_win_it_makes_reachable(
    atr_regions: tuple[int, ...], cor_regions: tuple[int, ...], expected: int
) -> None:
    """ALLY-3: the Corrino strategist answers the Atreides' offer."""
    game = _offer_position(atr_regions, cor_regions)
    game.apply(offer_option(COR, COR))
    assert game.pending is not None and game.pending.kind == DecisionKind.ALLY_ANSWER
    assert StrategistPolicy().act(game, game.pending.seat) == expected


@pytest.mark.parametrize("num_players", [3, 4, 6])
@pytest.mark.parametrize("policy_class", [StrategistPolicy, EconomicPolicy, AggressivePolicy])
def test_dice_tables_kept_for_the_turn_choose_as_fresh_ones(
    num_players: int, policy_class: type[HeuristicPolicy]
) -> None:
    """ROLL-2..5: `fix_dice_in_turn`, keeping the region and Kanly tables from a turn's first
    dice decision to its others (as MCTS rollouts do), fixes exactly what `fix_dice` fixes at
    every dice decision of seeded games (Thumpers returned mid-turn included), in every
    style."""
    from dune_env.engine.decisions import DecisionKind
    from dune_env.policies.heuristics import dice

    policy = policy_class()
    checked = 0
    for seed in range(6):
        game = Game(GameConfig(num_players=num_players), seed=seed)
        turn, tables = -1, {}
        while not game.terminal:
            s = game.state
            seat = s.pending_seat
            if s.pending_kind == DecisionKind.FIX_DICE and len(game.legal_options()) > 1:
                if s.round * 8 + s.active_seat != turn:
                    turn, tables = s.round * 8 + s.active_seat, {}
                options = game.legal_options()
                kept = dice.fix_dice_in_turn(policy.style, s, seat, options, tables)
                assert kept == dice.fix_dice(policy.style, s, seat, options)
                checked += 1
            game.apply(policy.act(game, seat))
    assert checked > 300
