"""What the position means for the decision at hand, for both front ends of `dune-play`.

- `storm_forecast`: where the storm goes at the end of this turn, which way, and who dies
  there (STORM-1, STORM-2), once the dice are fixed;
- `decision_context`: a few lines beside a decision (the forecast on LAND / MOVE_TARGET / MOVE,
  the movement target on MOVE - also for the ally, the bid's running total on BID, what a
  reorganisation swaps, the spice there is to spend);
- `option_label`: an option's name with what it means here (who can move into a target, a
  landing into the storm's path, a bid's strength, a token swap);
- `shown_options`: the legal options a person is offered: all of them, less the reorganising
  swaps that change nothing (a token replaced by one of its own type: "keep" does the same).

Everything here is public, or the deciding seat's own (its bid in progress), so it may be
shown to the seat that decides.
"""

from __future__ import annotations

from typing import Final

from ..engine import Game
from ..engine.constants import (
    FACTION_NAMES,
    KANLY_NAMES,
    NO_ONE,
    STORAGE_CAP,
    STORAGE_FACTIONS,
    TOKEN_NAMES,
    Die,
    Faction,
    KanlyFace,
    Token,
    leaders_strength,
    unit_strength,
)
from ..engine.decision_spec import UNIT_TYPE_NAMES
from ..engine.decisions import DecisionKind, decode_option, describe_option
from ..engine.map_data import DEFAULT_MAP
from ..engine.rules import (
    ATTACKER,
    DEFENDER,
    move_sources,
    next_sector,
    next_storm_sector,
    side_max_strength,
    storm_moves_west,
    storm_will_move,
)
from ..engine.state import GameState, Phase

MAP: Final = DEFAULT_MAP
_SPICE_DECISIONS: Final = (DecisionKind.LAND, DecisionKind.ALLY_GRANT, DecisionKind.GHOLA)
_STORM_DECISIONS: Final = (DecisionKind.LAND, DecisionKind.MOVE_TARGET, DecisionKind.MOVE)


def _region_list(regions: list[int]) -> str:
    return ", ".join(MAP.names[r] for r in regions)


def dice_settled(state: GameState) -> bool:
    """The roll of this turn is over (the dice that decide the storm are fixed)."""
    return Phase.ROLL < state.phase < Phase.GAME_OVER


def storm_deaths(state: GameState, sector: int) -> list[int]:
    """STORM-2: the regions of `sector` where the storm kills (desert, no fortress)."""
    return [
        r
        for r in MAP.regions_in_sector(sector)
        if MAP.desert[r] and state.region_token[r] != Token.FORTRESS
    ]


def storm_forecast(state: GameState, faction: int = NO_ONE) -> str:
    """Where the storm goes at the end of this turn (STORM-1), which way, and where it kills
    (STORM-2); '' before the dice are fixed.  `faction`: whose units to count there."""
    if not dice_settled(state):
        return ""
    old = state.storm_sector
    new = next_storm_sector(state)
    if not new:
        return (
            f"The storm stays over sector {old} this turn: only a spice die of 3, 4 or 5 moves "
            "it (STORM-1)."
        )
    way = "west" if storm_moves_west(state) else "east"
    text = (
        f"Storm warning: at the end of this turn the storm moves {way}, from sector {old} to "
        f"sector {new} (STORM-1)"
    )
    deadly = storm_deaths(state, new)
    if not deadly:
        return f"{text}; nobody dies there (no desert region without a fortress, STORM-2)."
    text += (
        f": in {_region_list(deadly)} every faction but the Fremen loses one unit, and an "
        "ornithopter there is lost (STORM-2)"
    )
    if faction >= 0 and faction != Faction.FREMEN:
        yours = [r for r in deadly if state.count(faction, r)]
        if yours:
            text += f" - you have units in {_region_list(yours)}"
    return text + "."


def storm_on_the_dice(state: GameState) -> str:
    """While the dice are rolled: which way the region die's face (public, as every die's)
    sends the storm if it moves (STORM-1, MAP-3, CL-1: the faces of `region_die_west_faces`
    show W).  Whether it moves is the spice die's, which may still be rolled again."""
    old = state.storm_sector
    if state.dice_fixed[Die.SPICE] and not storm_will_move(state):
        return (
            f"Storm: it stays over sector {old} this turn: the spice die is fixed without the "
            "storm symbol (3, 4 or 5) (STORM-1)."
        )
    west = storm_moves_west(state)
    way = "west (W)" if west else "east (E)"
    region_die = "fixed" if state.dice_fixed[Die.REGION] else "as it shows now"
    move = f"from sector {old} to sector {next_sector(old, west)}"
    if state.dice_fixed[Die.SPICE]:
        return (
            f"Storm: the spice die is fixed on the storm symbol and the region die ({region_die}) "
            f"points {way}: the storm moves {way} at the end of the turn, {move} (STORM-1, MAP-3)."
        )
    return (
        f"Storm: the region die ({region_die}) points {way}: if the spice die ends on 3, 4 or 5, "
        f"the storm moves {way} at the end of the turn, {move} (STORM-1, MAP-3)."
    )


def _storm_hits(state: GameState, region: int, faction: int) -> bool:
    """A unit of `faction` in `region` dies when the storm moves at the end of this turn."""
    sector = next_storm_sector(state) if dice_settled(state) else 0
    return bool(sector) and faction != Faction.FREMEN and region in storm_deaths(state, sector)


def _decider(state: GameState) -> int:
    seat = state.pending_seat
    return state.seat_faction[seat] if seat >= 0 else NO_ONE


def bid_side(state: GameState) -> int:
    return ATTACKER if state.phase == Phase.BATTLE_BID_ATTACKER else DEFENDER


def bid_strength(units: list[int], leaders: list[int]) -> int:
    """BATTLE-6: the strength of a bid (units by faction * 2 + type, leader tokens by faction)."""
    total = sum(n * unit_strength(i // 2, i % 2) for i, n in enumerate(units) if n)
    return total + sum(leaders_strength(f, n) for f, n in enumerate(leaders))


def _bid_text(units: list[int], leaders: list[int]) -> str:
    parts = [
        f"{n} {FACTION_NAMES[i // 2]} {'Sardaukar' if i % 2 else 'unit(s)'}"
        for i, n in enumerate(units)
        if n
    ] + [f"{n} {FACTION_NAMES[f]} leader(s)" for f, n in enumerate(leaders) if n]
    return ", ".join(parts) or "nothing yet"


def decision_context(game: Game, own_bid: list[list[int]] | None = None) -> list[str]:
    """Lines on what the position means for the pending decision, for the seat deciding.
    `own_bid`: that seat's side's bid in progress [units, leaders] (what it knows itself)."""
    state = game.state
    if state.pending_kind < 0 or game.terminal:
        return []
    kind = DecisionKind(state.pending_kind)
    faction = _decider(state)
    lines = []
    if kind in _STORM_DECISIONS:
        forecast = storm_forecast(state, faction)
        if forecast:
            lines.append(forecast)
    if kind == DecisionKind.FIX_DICE:
        lines.append(storm_on_the_dice(state))
    if kind == DecisionKind.MOVE:
        active = FACTION_NAMES[state.active_faction]
        who = "you" if faction == state.active_faction else f"the active player, {active}"
        lines.append(f"Movement target: {MAP.names[state.target]} (chosen by {who}).")
    if kind in _SPICE_DECISIONS and faction == state.active_faction:
        store = state.storage[faction]
        text = f"Spice to spend: {state.pool + store} (pool {state.pool}"
        if faction in STORAGE_FACTIONS:
            text += f", storage {store} of at most {STORAGE_CAP}"
        lines.append(text + ").")
        if faction == Faction.CORRINO:
            lines.append(
                "CHOAM: spice rolled on the spice die that you leave unspent adds 2 each to "
                f"your storage at the end of your turn, up to {STORAGE_CAP} (COR-2)."
            )
    if state.battle_region >= 0 and kind in (
        DecisionKind.FORTRESS_VICTIM,
        DecisionKind.LEND_LEADER,
        DecisionKind.BID,
        DecisionKind.FACE_DANCER,
        DecisionKind.INFILTRATION,
    ):
        lines.append(
            f"Battle in {MAP.names[state.battle_region]}: {FACTION_NAMES[state.active_faction]} "
            f"attacks, {FACTION_NAMES[state.battle_defender]} defends."
        )
    if kind == DecisionKind.FORTRESS_VICTIM:
        if game.config.battle_survives_fortress:
            lines.append(
                "If you remove your own last unit here the battle still takes place: your "
                "ally's units and the leaders may fight (battle_survives_fortress, BATTLE-3)."
            )
        else:
            lines.append(
                "If you remove your own last unit here, no battle is left in this region "
                "(BATTLE-3)."
            )
    if kind == DecisionKind.BID:
        side = bid_side(state)
        units, leaders = own_bid if own_bid is not None else ([0] * 16, [0] * 8)
        mine = bid_strength(units, leaders)
        most = side_max_strength(state, side)
        lines.append(
            f"Your bid so far: {_bid_text(units, leaders)} = strength {mine} (you can reach "
            f"{most}). The other side can bid at most {side_max_strength(state, 1 - side)}; "
            "a tie goes to the defender (BATTLE-6)."
        )
    if kind == DecisionKind.REORGANIZE:
        token = state.region_token[state.target]
        holds = f"holds the {TOKEN_NAMES[token]}" if token >= 0 else "holds no token"
        supply = ", ".join(f"{n} {TOKEN_NAMES[t]}" for t, n in enumerate(state.token_supply) if n)
        lines.append(f"{MAP.names[state.target]} {holds}; the common supply has {supply}.")
    if kind == DecisionKind.RECRUIT:
        dice = ", ".join(str(d + 1) for d in state.recruit_dice)
        n = len(state.recruit_dice)
        lines.append(
            f"Faction dice left to recruit with: {n} ({'die' if n == 1 else 'dice'} {dice})."
        )
    if kind == DecisionKind.KANLY:
        face = state.dice_faces[6]
        lines.append(f"The Kanly die shows {KANLY_NAMES[face]}: {_KANLY_MEANING[face]}")
    return lines


_KANLY_MEANING: Final[dict[int, str]] = {
    KanlyFace.POISON: "kill one enemy unit, not of whoever holds the Snooper nor a Bene "
    "Gesserit one (KANLY-1, KANLY-3).",
    KanlyFace.CRYSKNIFE: "kill one enemy unit, not of whoever holds the Shield nor a Fremen one "
    "(KANLY-1, KANLY-3).",
    KanlyFace.HUNTER_SEEKER: "kill one enemy unit; nothing protects from it (KANLY-1).",
    KanlyFace.SNOOPER: "take the Snooper: Poison cannot kill your units while you hold it "
    "(KANLY-4).",
    KanlyFace.SHIELD: "take the Shield: Crysknife cannot kill your units while you hold it "
    "(KANLY-4).",
    KanlyFace.THUMPER: "take a Thumper: discard it later to leave a Shai-Hulud unfixed "
    "(KANLY-5, ROLL-4).",
}


def option_label(game: Game, option: int) -> str:
    """The pending decision's `option` named for the seat deciding, with what it means here."""
    state = game.state
    kind = DecisionKind(state.pending_kind)
    name = describe_option(kind, option)
    faction = _decider(state)
    decoded = decode_option(kind, option)
    if kind == DecisionKind.MOVE_TARGET:
        sources = move_sources(state, faction, option)
        there = state.count(faction, option)
        if sources:
            found = ", ".join(f"{state.count(faction, r)} from {MAP.names[r]}" for r in sources)
            name += f" - your units that can move in: {found}"
        else:
            name += " - none of your units can move in"
        if there:
            name += f" (you have {there} there already)"
        if _storm_hits(state, option, faction):
            name += "; the storm kills a unit there at the end of this turn"
    elif kind == DecisionKind.LAND and decoded.block == "land":
        if _storm_hits(state, decoded["region"], faction):
            name += " (the storm kills a unit there at the end of this turn)"
    elif kind == DecisionKind.MOVE and decoded.block == "move":
        if _storm_hits(state, state.target, faction):
            name += " (into the storm's path: it kills a unit there at the end of this turn)"
    elif kind == DecisionKind.RECRUIT and decoded.block == "sardaukar":
        name += " (uses 2 dice; strength 2, COR-1)"
    elif kind == DecisionKind.RECRUIT and decoded.block == "unit":
        if faction == Faction.FREMEN and state.phase == Phase.RECRUIT_ACTIVE:
            name += " (uses 2 dice, FRE-1)"
    elif kind == DecisionKind.BID and decoded.block == "unit":
        name += f" (+{unit_strength(decoded['faction'], decoded['unit_type'])})"
    elif kind == DecisionKind.BID and decoded.block == "leader":
        owner = decoded["faction"]
        name += f" (+{leaders_strength(owner, 1)})"
    elif kind == DecisionKind.REORGANIZE:
        token = state.region_token[state.target]
        if decoded.block == "keep":
            kept = f"the {TOKEN_NAMES[token]} stays" if token >= 0 else "it stays without a token"
            name += f" ({kept})"
        elif token >= 0:
            name += f" (the {TOKEN_NAMES[token]} goes back to the supply)"
    elif kind == DecisionKind.FORTRESS_VICTIM:
        owner, unit_type = decoded["faction"], decoded["unit_type"]
        left = state.count(owner, state.battle_region)
        name = f"remove a {FACTION_NAMES[owner]} {UNIT_TYPE_NAMES[unit_type]} ({left} there)"
    return name


def shown_options(game: Game) -> list[int]:
    """The legal options offered to a person, in engine order: every one but a reorganising
    swap that changes nothing (the token placed is of the type already there)."""
    state = game.state
    options = game.legal_options()
    if state.pending_kind == DecisionKind.REORGANIZE:
        current = state.region_token[state.target]
        options = [
            o
            for o in options
            if not (
                decode_option(DecisionKind.REORGANIZE, o).block == "place"
                and decode_option(DecisionKind.REORGANIZE, o)["token"] == current
            )
        ]
    return options
