"""Who may see what: the single home of the game's visibility rules, and `resample` for search.

Everything in a `GameState` is public except:

- **The Bene Gesserit prediction** (BG-0, `bg_prediction`): only the Bene Gesserit's seat sees
  it (`sees_prediction`).
- **A battle bid in progress** (BATTLE-5, `bid_units` / `bid_leaders` while the phase is one of
  `BID_PHASES`): a side's bid is seen only by the seat that decides it, the attacker (the active
  seat) or the defender (`bid_decider`, `sees_bid`, `known_bid_side`).  While the attacker bids,
  the defender has not started; while the defender bids, the attacker's complete bid stays
  hidden from everyone but the attacker.  Once the battle is resolved both bids are revealed
  (`last_battle`).
- **The chosen options of hidden decisions** (`HIDDEN_DECISIONS`: BID, BG_PREDICTION), so the
  history rows, the decision counter (it counts bid steps) and a replay's chosen options of
  those kinds are seen by their decider only.  The event log holds no hidden value (events.py).
- **Future dice**: the chance generator's state (`rng`) lets anyone who reads it foresee rolls.

`resample(game_or_state, seat, rng)` returns a copy in which everything `seat` cannot know is
re-drawn from `rng` (OpenSpiel's `resample_from_infostate`, as used by its IS-MCTS), so that a
search run on it can neither read nor foresee hidden information:

- the prediction, unless `seat` is the Bene Gesserit: drawn uniformly among the legal
  predictions (every faction in the game but the BG, and the Guild);
- a bid of the other battle side: replaced by a random feasible bid of that side: a probability
  q is drawn uniformly from {0, 1/4, 1/2, 3/4, 1} and each piece the side could commit (unit or
  leader token) is committed independently with probability q (a hidden partial bid is drawn
  the same way: any subset is a feasible partial bid);
- future dice: the copy gets a fresh generator seeded from `rng`, and queued forced outcomes
  are dropped.

The copy's history is rewritten to match (the prediction's row names the drawn prediction; the
current battle's hidden bid rows encode the drawn bid, and the decision counter follows), so
that no field of the copy depends on the hidden values.
"""

from __future__ import annotations

import random
from typing import Final, overload

from . import options
from .constants import NO_ONE, Faction
from .decisions import SPECS, DecisionKind
from .game import Game
from .records import HistoryRow, frozen_history, history_row
from .rng import ChanceRng, DiceRng
from .rules import ATTACKER, DEFENDER, legal_prediction, side_factions, side_leader_owners
from .state import GameState, Phase

Rng = DiceRng | random.Random

BID_PHASES: Final[tuple[Phase, Phase]] = (Phase.BATTLE_BID_ATTACKER, Phase.BATTLE_BID_DEFENDER)
"""The phases in which a battle bid is in progress (BATTLE-5)."""

HIDDEN_DECISIONS: Final[frozenset[DecisionKind]] = frozenset(
    spec.kind for spec in SPECS if spec.hidden
)
"""Decision kinds whose legal and chosen options only their decider sees (BATTLE-5, BG-0):
those whose `DecisionSpec` is marked hidden."""

NO_SIDE: Final = -1
# Plain ints for the hot paths (observers ask at every step; enum attribute access is slow).
_ATTACKER_BIDS: Final = int(Phase.BATTLE_BID_ATTACKER)
_DEFENDER_BIDS: Final = int(Phase.BATTLE_BID_DEFENDER)
_BENE_GESSERIT: Final = int(Faction.BENE_GESSERIT)
_BID_PROBABILITIES: Final = (0.0, 0.25, 0.5, 0.75, 1.0)


# --- visibility rules ---------------------------------------------------------------------------


def sees_prediction(state: GameState, seat: int) -> bool:
    """BG-0: whether `seat` may see the Bene Gesserit prediction (the BG's own seat only)."""
    return state.seat_faction[seat] == _BENE_GESSERIT


def bid_in_progress(state: GameState) -> bool:
    """BATTLE-5: a battle's bids are being decided (they are hidden until revealed)."""
    phase = state.phase
    return phase == _ATTACKER_BIDS or phase == _DEFENDER_BIDS


def bid_decider(state: GameState, side: int) -> int:
    """The seat that decides `side`'s bid of the current battle: the attacker is the active
    seat, the defender the defending faction's seat (BATTLE-2)."""
    if side == ATTACKER:
        return state.active_seat
    return state.faction_seat[state.battle_defender]


def known_bid_side(state: GameState, seat: int) -> int:
    """BATTLE-5: the battle side whose bid in progress `seat` may see (the side it decides for),
    or NO_SIDE.  The defender's bid exists only from the defender's bidding phase on."""
    phase = state.phase
    if phase == _ATTACKER_BIDS:
        return ATTACKER if seat == state.active_seat else NO_SIDE
    if phase == _DEFENDER_BIDS:
        if seat == state.active_seat:
            return ATTACKER
        if state.faction_seat[state.battle_defender] == seat:
            return DEFENDER
    return NO_SIDE


def sees_bid(state: GameState, seat: int, side: int) -> bool:
    """BATTLE-5: whether `seat` may see `side`'s bid in progress (no bid is hidden outside the
    bidding phases: there is none)."""
    if not bid_in_progress(state):
        return True
    if side == DEFENDER and state.phase == Phase.BATTLE_BID_ATTACKER:
        return True  # not started: empty
    return known_bid_side(state, seat) == side


def holds_secret(state: GameState, seat: int) -> bool:
    """Whether `seat` sees anything hidden from others right now: a bid in progress it
    decides (BATTLE-5) or the Bene Gesserit prediction (BG-0).  Observers skip the private
    fields when it does not."""
    phase = state.phase
    if phase == _ATTACKER_BIDS or phase == _DEFENDER_BIDS:
        if known_bid_side(state, seat) != NO_SIDE:
            return True
    return state.bg_prediction != NO_ONE and state.seat_faction[seat] == _BENE_GESSERIT


def sees_decision(kind: int, decider: int, seat: int) -> bool:
    """Whether `seat` may see the options and the choice of a decision of `kind` by `decider`."""
    return kind not in HIDDEN_DECISIONS or seat == decider


# --- resampling for search ----------------------------------------------------------------------


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


@overload
def resample(game_or_state: Game, seat: int, rng: Rng) -> Game: ...
@overload
def resample(game_or_state: GameState, seat: int, rng: Rng) -> GameState: ...
def resample(game_or_state: Game | GameState, seat: int, rng: Rng) -> Game | GameState:
    """A copy of a game (or of a state) with every secret of the other seats re-drawn from
    `rng` (see the module docstring).  The argument is not modified."""
    if isinstance(game_or_state, Game):
        return Game.from_state(_resampled_state(game_or_state.state, seat, rng))
    return _resampled_state(game_or_state, seat, rng)


def _resampled_state(source: GameState, seat: int, rng: Rng) -> GameState:
    state = source.clone()
    _redraw_prediction(state, seat, rng)
    _redraw_bids(state, seat, rng)
    state.rng = ChanceRng(_u64(rng), turn_roll=state.rng.turn_roll)  # unknown future dice
    return state


def _redraw_prediction(state: GameState, seat: int, rng: Rng) -> None:
    bg_seat = state.faction_seat[Faction.BENE_GESSERIT]
    if bg_seat == NO_ONE or state.bg_prediction == NO_ONE or sees_prediction(state, seat):
        return
    predictions = legal_prediction(state)
    prediction = predictions[_below(rng, len(predictions))]
    state.bg_prediction = prediction
    history = state.history
    for i, row in enumerate(history):
        if _row_kind(row) == DecisionKind.BG_PREDICTION:
            history[i] = _with_option(row, prediction)


def _redraw_bids(state: GameState, seat: int, rng: Rng) -> None:
    if not bid_in_progress(state):
        return
    attacker_seat = bid_decider(state, ATTACKER)
    defender_seat = bid_decider(state, DEFENDER)
    hide_attacker = not sees_bid(state, seat, ATTACKER)
    hide_defender = not sees_bid(state, seat, DEFENDER)
    if not hide_attacker and not hide_defender:
        return
    # The current battle's bid rows are the trailing BID rows: the attacker's, then the
    # defender's (a BATTLE_ORDER row, forced or not, always precedes them).
    history = state.history
    start = len(history)
    while start > 0 and _row_kind(history[start - 1]) == DecisionKind.BID:
        start -= 1
    rows = history[start:]
    attacker_rows = [r for r in rows if _row_seat(r) == attacker_seat]
    defender_rows = [r for r in rows if _row_seat(r) != attacker_seat]
    if hide_attacker:
        complete = state.phase == Phase.BATTLE_BID_DEFENDER
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
    chosen: list[int] = []
    for faction in side_factions(state, side):
        for unit_type in (0, 1):
            for _ in range(state.units[faction][2 * region + unit_type]):
                if _uniform(rng) < q:
                    units[2 * faction + unit_type] += 1
                    chosen.append(options.bid_unit(faction, unit_type))
    for faction in side_leader_owners(state, side):
        for _ in range(state.leaders[faction][0]):
            if _uniform(rng) < q:
                leaders[faction] += 1
                chosen.append(options.bid_leader(faction))
    state.bid_units[side] = units
    state.bid_leaders[side] = leaders
    rows: list[HistoryRow] = [_new_row(seat, DecisionKind.BID, o) for o in sorted(chosen)]
    if complete:
        rows.append(_new_row(seat, DecisionKind.BID, options.BID_COMPLETE))
    return rows


# History rows (`HistoryRow` records) are read and written only here.


def _row_seat(row: HistoryRow) -> int:
    return row.seat


def _row_kind(row: HistoryRow) -> int:
    return row.kind


def _new_row(seat: int, kind: int, option: int) -> HistoryRow:
    return history_row(seat, int(kind), option, 0, ())


def _with_option(row: HistoryRow, option: int) -> HistoryRow:
    """A copy of a history row naming another option (records are immutable and shared by
    clones; the state was cloned, so an open chance list is already this state's own)."""
    return row._replace(option=option)


__all__ = [
    "BID_PHASES",
    "HIDDEN_DECISIONS",
    "NO_SIDE",
    "bid_decider",
    "bid_in_progress",
    "holds_secret",
    "known_bid_side",
    "resample",
    "sees_bid",
    "sees_decision",
    "sees_prediction",
]
