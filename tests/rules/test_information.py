"""engine.information: who may see what (BATTLE-5 bids, BG-0 prediction, hidden decisions)."""

from __future__ import annotations

from dune_env.engine import DecisionKind, Faction, Game, Phase
from dune_env.engine import information as info
from dune_env.engine.decisions import BID_DONE, unit_option
from dune_env.engine.rng import DiceRng
from dune_env.engine.rules import ATTACKER, DEFENDER
from dune_env.engine.state import GameState

from ..env.scenarios import bid_battle

ATTACKER_SEAT, DEFENDER_SEAT, BG_SEAT = 1, 0, 4  # bid_battle: Harkonnen attacks Atreides


def _at_defender_bid() -> Game:
    game = bid_battle()
    game.apply(unit_option(Faction.HARKONNEN, 0))
    game.apply(BID_DONE)
    assert game.state.phase == Phase.BATTLE_BID_DEFENDER
    return game


def test_battle_5_each_bid_is_seen_by_its_decider_only() -> None:
    game = bid_battle()
    s = game.state
    assert info.bid_in_progress(s)
    assert info.bid_decider(s, ATTACKER) == ATTACKER_SEAT
    assert info.bid_decider(s, DEFENDER) == DEFENDER_SEAT
    assert [info.known_bid_side(s, seat) for seat in range(5)] == [
        info.NO_SIDE,
        ATTACKER,
        info.NO_SIDE,
        info.NO_SIDE,
        info.NO_SIDE,
    ]
    s = _at_defender_bid().state
    assert [info.known_bid_side(s, seat) for seat in range(5)] == [
        DEFENDER,
        ATTACKER,
        info.NO_SIDE,
        info.NO_SIDE,
        info.NO_SIDE,
    ]
    assert not info.sees_bid(s, DEFENDER_SEAT, ATTACKER)
    assert not info.sees_bid(s, ATTACKER_SEAT, DEFENDER)
    assert info.sees_bid(s, ATTACKER_SEAT, ATTACKER)
    for seat in (2, 3, 4):
        assert info.holds_secret(s, seat) == (seat == BG_SEAT)


def test_bg_0_only_the_bene_gesserit_sees_its_prediction() -> None:
    s = bid_battle().state
    assert [info.sees_prediction(s, seat) for seat in range(5)] == [False] * 4 + [True]
    assert info.holds_secret(s, BG_SEAT)


def test_hidden_decisions_are_seen_by_their_decider_only() -> None:
    assert info.sees_decision(DecisionKind.BID, 1, 1)
    assert not info.sees_decision(DecisionKind.BID, 1, 0)
    assert not info.sees_decision(DecisionKind.BG_PREDICTION, 4, 0)
    assert info.sees_decision(DecisionKind.LAND, 1, 0)


def test_resample_takes_a_game_or_a_state_and_changes_neither() -> None:
    """BATTLE-5: the defender's resampled copy has the attacker's bid re-drawn, the real game
    keeps its own; a state in gives a state out, a game in gives a game out."""
    game = _at_defender_bid()
    before = game.to_json()
    copy = info.resample(game, DEFENDER_SEAT, DiceRng(1))
    assert isinstance(copy, Game) and copy.state is not game.state
    state_copy = info.resample(game.state, DEFENDER_SEAT, DiceRng(1))
    assert isinstance(state_copy, GameState)
    assert state_copy.bid_units == copy.state.bid_units  # same generator, same draw
    assert game.to_json() == before
    # Seen from the attacker, its own bid is kept.
    own = info.resample(game, ATTACKER_SEAT, DiceRng(1))
    assert own.state.bid_units[ATTACKER] == game.state.bid_units[ATTACKER]
