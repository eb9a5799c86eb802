"""Start of a turn and step 10, end of turn (TURN-1, TURN-2, END-1..7, COR-2)."""

from __future__ import annotations

from ..constants import (
    FACES_PER_DIE,
    MAX_ROUNDS,
    NO_ONE,
    NUM_DICE,
    NUM_FACTIONS,
    SHAI_HULUD_FACE,
    Die,
    Faction,
)
from ..core import clear_pending, draw, emit, goto, runner
from ..events import EventKind
from ..queries import add_storage, strategic_controlled
from ..rng import TURN_ROLL
from ..rules import alliance_regions
from ..state import GameState, Phase


def reset_turn(state: GameState) -> None:
    state.pool = 0
    state.ally = NO_ONE
    state.offer_target = NO_ONE
    state.offer_symbol = NO_ONE
    state.axolotl_symbol = NO_ONE
    state.dice_used = [False] * 4
    state.recruit_dice = []
    state.ally_dice = []
    state.leader_recruited = False
    state.ghola_declined = False
    state.land_consent = False
    state.grant = 0
    state.guild_paid = [False] * NUM_FACTIONS
    state.target = NO_ONE
    state.battle_region = NO_ONE
    state.battle_defender = NO_ONE
    state.battle_fortress_stage = 0
    state.face_dancer_done = False
    state.lend_queue = []
    state.lent = [False] * NUM_FACTIONS
    state.dice_fixed = [False] * NUM_DICE


def start_turn(state: GameState) -> None:
    """ROLL-1: the active player rolls all seven dice."""
    reset_turn(state)
    state.rng.turn_roll = 0
    emit(state, EventKind.TURN_START, state.round, state.active_seat, state.active_faction)
    roll_unfixed(state)
    goto(state, Phase.ROLL)


def roll_unfixed(state: GameState) -> None:
    """Roll the unfixed dice.  Each die's face is keyed on (round, active seat, roll of this
    turn, die), so it does not depend on any earlier choice (docs/engine.md, Chance)."""
    rng = state.rng
    event = rng.prefix(TURN_ROLL, state.round, state.active_seat, rng.turn_roll)
    rng.turn_roll += 1
    mask = 0
    for die in range(NUM_DICE):
        if not state.dice_fixed[die]:
            state.dice_faces[die] = draw(state, FACES_PER_DIE, event, die)
            mask |= 1 << die
    emit(state, EventKind.ROLL, *state.dice_faces, mask)


# --- Step 10 -------------------------------------------------------------------------------


def finish(state: GameState, winner_factions: list[int], kind: int) -> None:
    """Declare the winners (END-6 applied by the caller) and the END-7 rewards."""
    winners = sorted(state.faction_seat[f] for f in winner_factions if state.in_game(f))
    state.winners = winners
    cfg = state.config
    state.rewards = [
        float(cfg.win_reward if seat in winners else cfg.loss_reward)
        for seat in range(state.num_players)
    ]
    emit(state, EventKind.VICTORY, 3 if not winners else kind, *winners)
    clear_pending(state)
    goto(state, Phase.GAME_OVER)


def bene_gesserit_steal(state: GameState, solo_winner: int) -> int:
    """END-6 / BG-1: a predicted solo winner's victory goes to the Bene Gesserit."""
    if state.in_game(Faction.BENE_GESSERIT) and state.bg_prediction == solo_winner:
        emit(state, EventKind.BG_TAKES, solo_winner)
        return int(Faction.BENE_GESSERIT)
    return solo_winner


@runner(Phase.END_TURN)
def run_end_turn(state: GameState) -> None:
    active = state.active_faction
    if active == Faction.CORRINO and state.pool > 0:
        # COR-2 CHOAM: +2 for each unspent spice *rolled on the spice die* (the Czech text;
        # harvester income does not count).  Harvester spice is taken as spent first, the
        # order never worse for the owner (SPICE-4).
        die = state.dice_faces[Die.SPICE]
        rolled = 0 if die == SHAI_HULUD_FACE else die + 1
        unspent_rolled = min(state.pool, rolled)
        if unspent_rolled:
            added = add_storage(state, active, 2 * unspent_rolled)
            emit(state, EventKind.CHOAM, added)
    state.pool = 0
    # TURN-1: END-1 before END-2 (END-3).
    if strategic_controlled(state, active) >= 3:
        finish(state, [bene_gesserit_steal(state, active)], 0)
        return
    ally = state.ally
    if ally != NO_ONE and alliance_regions(state, active, ally) >= 4:
        finish(state, [active, ally], 1)  # END-6: an alliance victory is never taken
        return
    emit(state, EventKind.TURN_END, state.active_seat)
    # TURN-2: the dice pass clockwise; the round advances when they reach the first player.
    state.active_seat = (state.active_seat + 1) % state.num_players
    if state.active_seat == state.first_seat:
        if state.round >= MAX_ROUNDS:
            # END-5 / GLD-2: the Guild wins, played or not; END-6 applies to it too.
            winner = bene_gesserit_steal(state, int(Faction.GUILD))
            finish(state, [winner], 2)
            return
        state.round += 1
    start_turn(state)
