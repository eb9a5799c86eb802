"""What one seat may know: a determinised copy of a game for searching policies.

`visible_game(game, seat, rng)` returns a clone of `game` in which everything `seat` cannot
know is re-drawn with `rng`, so that a search run on it can neither read nor foresee hidden
information:

- **The Bene Gesserit prediction** (BG-0), unless `seat` is the Bene Gesserit: drawn uniformly
  among the legal predictions (every faction in the game but the BG, and the Guild).
- **A bid of the other battle side** (BATTLE-5).  A side's bid is known only to the seat that
  decides it (the attacker, i.e. the active seat, or the defender).  While the attacker bids,
  its partial bid is hidden from every other seat; while the defender bids, the attacker's
  complete bid is hidden from every seat but the attacker, and the defender's partial bid from
  every seat but the defender.  A hidden bid is replaced by a random feasible bid of that side:
  a probability q is drawn uniformly from {0, 1/4, 1/2, 3/4, 1} and each piece the side could
  commit (unit or leader token) is committed independently with probability q.  A hidden
  partial bid is drawn the same way (any subset is a feasible partial bid).
- **Future dice**: the generator state lives in the game state, so a plain clone would roll the
  very dice the real game will roll.  The clone gets a fresh generator seeded from `rng`, and
  any queued forced outcomes are dropped.

The clone's history is rewritten to match: the prediction's row names the drawn prediction,
and the current battle's hidden bid rows are replaced by rows encoding the drawn bid (the
decision counter follows), so that no field of the clone depends on the hidden values.  The
event log holds no hidden information (events.py) and is kept as is.
"""

from __future__ import annotations

import random

from ..engine import Game
from ..engine.constants import NO_ONE, Faction
from ..engine.decisions import BID_DONE, DecisionKind, bid_leader_option, unit_option
from ..engine.records import HistoryRow
from ..engine.rng import ChanceRng, DiceRng
from ..engine.state import GameState, Phase, frozen_history
from ..engine.steps.battle import ATTACKER, DEFENDER, side_factions, side_leader_owners
from ..engine.steps.setup import legal_prediction

Rng = DiceRng | random.Random

_BID_PROBABILITIES = (0.0, 0.25, 0.5, 0.75, 1.0)


def _below(rng: Rng, n: int) -> int:
    if isinstance(rng, DiceRng):
        return rng.below(n)
    return rng.randrange(n)


def _u64(rng: Rng) -> int:
    if isinstance(rng, DiceRng):
        return rng.next_u64()
    return rng.getrandbits(64)


def _uniform(rng: Rng) -> float:
    return _u64(rng) / 2.0**64


def visible_game(game: Game, seat: int, rng: Rng) -> Game:
    """A clone of `game` with every secret of the other seats re-drawn from `rng` (see the
    module docstring).  `game` is not modified."""
    clone = game.clone()
    state = clone.state
    _redraw_prediction(state, seat, rng)
    _redraw_bids(state, seat, rng)
    state.rng = ChanceRng(_u64(rng), turn_roll=state.rng.turn_roll)  # unknown future dice
    return clone


def _redraw_prediction(state: GameState, seat: int, rng: Rng) -> None:
    bg_seat = state.faction_seat[Faction.BENE_GESSERIT]
    if bg_seat == NO_ONE or bg_seat == seat or state.bg_prediction == NO_ONE:
        return
    options = legal_prediction(state)
    prediction = options[_below(rng, len(options))]
    state.bg_prediction = prediction
    history = state.history
    for i, row in enumerate(history):
        if row[1] == DecisionKind.BG_PREDICTION:
            # A new row (rows are immutable records, shared by clones).
            history[i] = row._replace(option=prediction)


def _redraw_bids(state: GameState, seat: int, rng: Rng) -> None:
    phase = state.phase
    if phase not in (Phase.BATTLE_BID_ATTACKER, Phase.BATTLE_BID_DEFENDER):
        return
    attacker_seat = state.active_seat
    defender_seat = state.faction_seat[state.battle_defender]
    hide_attacker = seat != attacker_seat
    hide_defender = phase == Phase.BATTLE_BID_DEFENDER and seat != defender_seat
    if not hide_attacker and not hide_defender:
        return
    # The current battle's bid rows are the trailing BID rows: the attacker's, then the
    # defender's (a BATTLE_ORDER row, forced or not, always precedes them).
    history = state.history
    start = len(history)
    while start > 0 and history[start - 1][1] == DecisionKind.BID:
        start -= 1
    rows = history[start:]
    attacker_rows = [r for r in rows if r[0] == attacker_seat]
    defender_rows = [r for r in rows if r[0] != attacker_seat]
    if hide_attacker:
        complete = phase == Phase.BATTLE_BID_DEFENDER
        attacker_rows = _random_bid(state, ATTACKER, attacker_seat, complete, rng)
    if hide_defender:
        defender_rows = _random_bid(state, DEFENDER, defender_seat, False, rng)
    new_rows = attacker_rows + defender_rows
    state.decision_count += len(new_rows) - len(rows)
    state.history = frozen_history(history[:start] + new_rows)


def _random_bid(
    state: GameState, side: int, seat: int, complete: bool, rng: Rng
) -> list[HistoryRow]:
    """Draw a feasible bid of `side`, write it into the state, and return its history rows."""
    region = state.battle_region
    q = _BID_PROBABILITIES[_below(rng, len(_BID_PROBABILITIES))]
    units = [0] * len(state.bid_units[side])
    leaders = [0] * len(state.bid_leaders[side])
    options: list[int] = []
    for faction in side_factions(state, side):
        for unit_type in (0, 1):
            for _ in range(state.units[faction][2 * region + unit_type]):
                if _uniform(rng) < q:
                    units[2 * faction + unit_type] += 1
                    options.append(unit_option(faction, unit_type))
    for faction in side_leader_owners(state, side):
        for _ in range(state.leaders[faction][0]):
            if _uniform(rng) < q:
                leaders[faction] += 1
                options.append(bid_leader_option(faction))
    state.bid_units[side] = units
    state.bid_leaders[side] = leaders
    kind = int(DecisionKind.BID)
    rows = [HistoryRow(seat, kind, option, 0, ()) for option in sorted(options)]
    if complete:
        rows.append(HistoryRow(seat, kind, BID_DONE, 0, ()))
    return rows


__all__ = ["visible_game"]
