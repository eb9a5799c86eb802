"""Step 9, Storm (STORM-1..4, MAP-3, CL-8, FRE-2, GLD-3)."""

from __future__ import annotations

from ..constants import CARD, NO_ONE, RESERVE, Faction, Token, UnitType
from ..core import emit, goto, runner
from ..events import EventKind
from ..queries import MAP, factions_in
from ..rules import next_sector, storm_moves_west, storm_will_move
from ..state import GameState, Phase, uidx


@runner(Phase.STORM)
def run_storm(state: GameState) -> None:
    if storm_will_move(state):  # STORM-1
        old = state.storm_sector
        state.storm_sector = next_sector(old, storm_moves_west(state))
        emit(state, EventKind.STORM_MOVE, old, state.storm_sector)
        storm_damage(state)
    goto(state, Phase.END_TURN)


def storm_damage(state: GameState) -> None:
    """STORM-2: in each desert region of the new sector without a fortress, every faction
    present loses one unit (the weaker type first, CL-8); an ornithopter there is lost."""
    for region in MAP.regions_in_sector(state.storm_sector):
        if not MAP.desert[region] or state.region_token[region] == Token.FORTRESS:
            continue
        for faction in factions_in(state, region):
            if faction == Faction.FREMEN:  # FRE-2
                continue
            units = state.units[faction]
            unit_type = UnitType.REGULAR if units[uidx(region, 0)] else UnitType.ELITE
            dest = CARD if faction == Faction.GUILD else RESERVE  # GLD-3
            state.move_units(faction, unit_type, region, dest)
            emit(state, EventKind.STORM_LOSS, region, faction, unit_type, dest)
        if state.region_token[region] == Token.ORNITHOPTER:
            state.region_token[region] = NO_ONE
            state.token_supply[Token.ORNITHOPTER] += 1
            emit(state, EventKind.ORNITHOPTER_LOST, region)
