"""visible_game: a determinised clone in which a seat's unknowns are re-drawn (BG-0 prediction,
BATTLE-5 hidden bids, future dice), never depending on the hidden values."""

from __future__ import annotations

import random

import pytest

from dune_env.engine import DecisionKind, Faction, Game, GameConfig, Phase
from dune_env.engine.decisions import BID_DONE
from dune_env.engine.information import resample as visible_game
from dune_env.engine.rng import DiceRng
from dune_env.policies.base import RandomPolicy

BG = Faction.BENE_GESSERIT
FACTIONS = (Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN, Faction.CORRINO, BG)


def _to_prediction(seed: int = 3) -> Game:
    """A 5-player game stopped at the Bene Gesserit's prediction (BG-0)."""
    game = Game(GameConfig(num_players=5, faction_mode="assigned", factions=FACTIONS), seed=seed)
    chooser = RandomPolicy(seed)
    while game.pending is not None and game.pending.kind != DecisionKind.BG_PREDICTION:
        game.apply(chooser.act(game, game.pending.seat))
    assert game.pending is not None
    return game


def _continue(game: Game, seed: int, decisions: int) -> Game:
    chooser = RandomPolicy(seed)
    for _ in range(decisions):
        if game.terminal:
            break
        assert game.pending is not None
        game.apply(chooser.act(game, game.pending.seat))
    return game


def test_prediction_is_redrawn_for_other_seats() -> None:
    """BG-0: two games differing only in the prediction look identical to every other seat."""
    base = _to_prediction()
    a, b = base.clone(), base.clone()
    a.apply(int(Faction.GUILD))
    b.apply(int(Faction.ATREIDES))
    _continue(a, 9, 40)
    _continue(b, 9, 40)
    assert a.state.bg_prediction != b.state.bg_prediction
    bg_seat = a.state.faction_seat[BG]
    for seat in range(5):
        va = visible_game(a, seat, DiceRng(77)).to_json()
        vb = visible_game(b, seat, DiceRng(77)).to_json()
        if seat == bg_seat:
            assert va != vb  # the Bene Gesserit knows its own prediction
        else:
            assert va == vb


def test_prediction_draws_cover_the_legal_predictions() -> None:
    game = _to_prediction()
    game.apply(int(Faction.GUILD))
    other = (game.state.faction_seat[BG] + 1) % 5
    rng = DiceRng(1)
    drawn = {visible_game(game, other, rng).state.bg_prediction for _ in range(200)}
    assert drawn == {int(f) for f in FACTIONS if f != BG} | {int(Faction.GUILD)}
    # The history row of the prediction follows the drawn value.
    for _ in range(20):
        v = visible_game(game, other, rng)
        rows = [r for r in v.state.history if r[1] == DecisionKind.BG_PREDICTION]
        assert rows and rows[0][2] == v.state.bg_prediction


def test_original_game_is_untouched() -> None:
    game = _to_prediction()
    game.apply(int(Faction.CORRINO))
    _continue(game, 4, 30)
    before = game.to_json()
    other = (game.state.faction_seat[BG] + 1) % 5
    for seed in range(10):
        visible_game(game, other, DiceRng(seed))
    assert game.to_json() == before


def _to_bid(phase: Phase, seed_range: range = range(200)) -> Game:
    """A random game stopped at a bid of the given side with at least one piece to commit."""
    for seed in seed_range:
        game = Game(GameConfig(num_players=4), seed=seed)
        chooser = RandomPolicy(seed)
        while not game.terminal:
            pending = game.pending
            assert pending is not None
            if (
                pending.kind == DecisionKind.BID
                and game.state.phase == phase
                and len(pending.options) > 2
            ):
                return game
            game.apply(chooser.act(game, pending.seat))
    raise AssertionError("no suitable bid found")  # pragma: no cover


def _bid_some(game: Game, pieces: int) -> None:
    for _ in range(pieces):
        options = [o for o in game.legal_options() if o != BID_DONE]
        game.apply(options[0])


@pytest.mark.parametrize("pieces", [1, 2])
def test_attacker_bid_hidden_from_the_defender(pieces: int) -> None:
    """BATTLE-5: the attacker's bid (complete, the defender to bid) never shows."""
    base = _to_bid(Phase.BATTLE_BID_ATTACKER)
    attacker = base.state.active_seat
    a, b = base.clone(), base.clone()
    a.apply(BID_DONE)
    _bid_some(b, pieces)
    if b.state.phase == Phase.BATTLE_BID_ATTACKER:
        b.apply(BID_DONE)
    assert a.state.phase == b.state.phase == Phase.BATTLE_BID_DEFENDER
    assert a.state.bid_units != b.state.bid_units or a.state.bid_leaders != b.state.bid_leaders
    for seat in range(4):
        va = visible_game(a, seat, DiceRng(5)).to_json()
        vb = visible_game(b, seat, DiceRng(5)).to_json()
        if seat == attacker:
            assert va != vb
        else:
            assert va == vb
    # The re-drawn bid is feasible: the defender can bid and the battle resolves.
    v = visible_game(a, a.state.pending_seat, DiceRng(6))
    v.apply(BID_DONE)
    assert v.state.phase != Phase.BATTLE_BID_DEFENDER


def test_partial_bids_hidden_from_the_other_seats() -> None:
    """A bid in progress is known only to the seat making it."""
    base = _to_bid(Phase.BATTLE_BID_ATTACKER)
    a, b = base.clone(), base.clone()
    _bid_some(b, 1)
    attacker = base.state.active_seat
    for seat in range(4):
        same = (
            visible_game(a, seat, DiceRng(8)).to_json()
            == visible_game(b, seat, DiceRng(8)).to_json()
        )
        assert same == (seat != attacker)
    base = _to_bid(Phase.BATTLE_BID_DEFENDER)
    defender = base.state.pending_seat
    a, b = base.clone(), base.clone()
    _bid_some(b, 1)
    assert b.state.phase == Phase.BATTLE_BID_DEFENDER
    for seat in range(4):
        same = (
            visible_game(a, seat, DiceRng(8)).to_json()
            == visible_game(b, seat, DiceRng(8)).to_json()
        )
        assert same == (seat != defender)


def test_future_dice_are_not_foreseen() -> None:
    """The clone's dice come from `rng`: the real generator state (and any forced outcomes)
    leave no trace, and different rngs roll differently."""
    game = Game(GameConfig(num_players=4), seed=12)
    other = game.clone()
    other.state.rng.seed ^= 0xDEADBEEF
    other.state.rng.forced = [1, 2, 3]
    assert (
        visible_game(game, 0, DiceRng(4)).to_json() == visible_game(other, 0, DiceRng(4)).to_json()
    )
    rolls = set()
    for seed in range(8):
        v = visible_game(game, game.state.pending_seat, DiceRng(seed))
        rolls.add(tuple(v.state.rng.below(6, v.state.rng.prefix(9), i) for i in range(6)))
    assert len(rolls) == 8


def test_python_random_generator_accepted_and_playable() -> None:
    base = _to_bid(Phase.BATTLE_BID_DEFENDER)
    v = visible_game(base, base.state.active_seat, random.Random(3))
    chooser = RandomPolicy(2)
    while not v.terminal:
        assert v.pending is not None
        v.apply(chooser.act(v, v.pending.seat))
    assert len(v.rewards) == 4
