"""A replay as data for the viewer: one frame per decision, computed by the engine.

Each frame is the public board before a decision (or at the end), the decision with its legal
options and the option chosen, and what each seat privately knows at that moment.  What a seat
knows is read from its own `dune_v1` observation (the observer decides what is private: a
side's bid in progress is in the observation of that side's decider only, the Bene Gesserit
prediction in the Bene Gesserit's only), so the viewer's "seen from seat s" shows exactly what
an agent in seat s could have seen.  The chosen options of the hidden decisions
(`dune_env.engine.information.HIDDEN_DECISIONS`: BID, BATTLE-5; BG_PREDICTION, BG-0) are shown
to their decider only; the event log is public (events.py).
"""

from __future__ import annotations

import math
from typing import Any, Final

from ..engine import Game
from ..engine.constants import (
    FACTION_DIE_SYMBOLS,
    FACTION_NAMES,
    KANLY_NAMES,
    LEADER_NAMES,
    MAX_ROUNDS,
    TOKEN_NAMES,
)
from ..engine.decisions import DecisionKind, describe_option
from ..engine.events import dice_numbers, render
from ..engine.game import IllegalOptionError
from ..engine.information import HIDDEN_DECISIONS, bid_in_progress
from ..engine.map_data import DEFAULT_MAP
from ..engine.rules import next_storm_sector
from ..engine.state import GameState, Phase
from ..environment.action_table import ACTIONS, action_ids, action_of
from ..environment.observer import OBS_LAYOUT, Observer
from ..environment.render import FACTION_COLOURS
from .record import ReplayError, ReplayRecord

MAP_SIZE = 560


def board(state: GameState) -> dict[str, Any]:
    """The public board of `state` (everything every seat sees; no bid in progress, no
    prediction)."""
    s = state
    return {
        "round": s.round,
        "storm": s.storm_sector,
        "phase": Phase(s.phase).name,
        "active": s.active_seat,
        "first": s.first_seat,
        "factions": list(s.seat_faction),
        "dice": list(s.dice_faces),
        "fixed": [int(f) for f in s.dice_fixed],
        "rolled": int(s.phase > Phase.SETUP_PLACE),  # before the first turn the dice mean nothing
        # STORM-1: the sector the storm enters at the end of this turn (0: it stays, or the
        # roll is not over yet).
        "stormNext": next_storm_sector(s) if Phase.ROLL < s.phase < Phase.GAME_OVER else 0,
        "pool": s.pool,
        "ally": s.ally,
        "target": s.target,
        "battle": [s.battle_region, s.battle_defender],
        "units": [list(u) for u in s.units],
        "leaders": [list(x) for x in s.leaders],
        "tokens": list(s.region_token),
        "supply": list(s.token_supply),
        "shield": s.shield_holder,
        "snooper": s.snooper_holder,
        "thumpers": list(s.thumpers),
        "thumperSupply": s.thumper_supply,
        "storage": list(s.storage),
        "lastBattle": [] if s.last_battle is None else s.last_battle.to_list(),
        "winners": list(s.winners),
        "rewards": list(s.rewards),
        "over": int(s.phase == Phase.GAME_OVER),
    }


def seat_knowledge(observer: Observer, state: GameState, seat: int) -> dict[str, Any] | None:
    """The hidden information `seat` holds, decoded from its own observation: its side's bid in
    progress (units by faction*2+type, leader tokens by faction) and the BG prediction."""
    obs = observer.observe(state, state.decision_count, seat)
    n = state.num_players
    units = OBS_LAYOUT.raw(obs, "own_bid_units").reshape(-1, 2)
    leaders = OBS_LAYOUT.raw(obs, "own_bid_leaders").reshape(-1)
    prediction = OBS_LAYOUT.raw(obs, "bg_prediction").reshape(-1)
    bid_units = [0] * 16
    bid_leaders = [0] * 8
    for rel in range(n):
        faction = state.seat_faction[(seat + rel) % n]
        if faction < 0:
            continue
        for unit_type in (0, 1):
            bid_units[faction * 2 + unit_type] = int(round(float(units[rel, unit_type])))
        bid_leaders[faction] = int(round(float(leaders[rel])))
    known: dict[str, Any] = {}
    if any(bid_units) or any(bid_leaders):
        known["bid"] = [bid_units, bid_leaders]
    if prediction.max() > 0:
        known["prediction"] = int(prediction.argmax())
    return known or None


def omniscient_knowledge(state: GameState) -> dict[str, Any] | None:
    """Every hidden value: both bids in progress and the BG prediction."""
    known: dict[str, Any] = {}
    if bid_in_progress(state):
        known["bids"] = [
            [list(state.bid_units[side]), list(state.bid_leaders[side])] for side in (0, 1)
        ]
    if state.bg_prediction >= 0:
        known["prediction"] = state.bg_prediction
    return known or None


def build_frames(record: ReplayRecord) -> dict[str, Any]:
    """The viewer's data: static `meta` and one frame per chosen option plus the last position."""
    game = record.start()
    n = game.config.num_players
    observer = Observer(n)
    names: dict[str, str] = {}
    frames: list[dict[str, Any]] = []
    options = list(record.options)
    for step in range(len(options) + 1):
        state = game.state
        frame = board(state)
        frame["ev"] = len(state.events)
        frame["n"] = state.decision_count
        frame["know"] = {str(seat): seat_knowledge(observer, state, seat) for seat in range(n)}
        frame["know"]["all"] = omniscient_knowledge(state)
        if state.pending_kind >= 0:
            kind = DecisionKind(state.pending_kind)
            legal = game.legal_options()
            for option in legal:
                names.setdefault(str(action_of(kind, option)), option_text(kind, option))
            chosen = options[step] if step < len(options) else None
            frame["decision"] = {
                "seat": state.pending_seat,
                "kind": kind.name,
                "hidden": int(kind in HIDDEN_DECISIONS),
                "legal": action_ids(kind, legal),
                "chosen": None if chosen is None else action_of(kind, chosen),
            }
        frames.append(frame)
        if step == len(options):
            break
        if game.terminal:
            raise ReplayError(
                f"the replay has {len(options) - step} option(s) after the game ended"
            )
        try:
            game.apply(options[step])
        except IllegalOptionError as exc:
            raise ReplayError(f"option {step} of the replay is not legal: {exc}") from exc
        except (ValueError, IndexError) as exc:  # a recorded chance outcome the dice cannot give
            raise ReplayError(f"option {step} of the replay does not replay: {exc}") from None
    events = [render(e) for e in game.state.events]
    return {"meta": meta(record, game), "frames": frames, "events": events, "names": names}


# Where a turn stands, for people: the step of RULES.md §6 each engine phase belongs to.
_STEPS: Final = (
    ("SETUP", "set-up"),
    ("ROLL", "step 1, the dice"),
    ("PITER", "step 1, the dice"),
    ("AXOLOTL", "step 1, the dice"),
    ("ALLY", "step 2, alliance"),
    ("RECRUIT", "step 3, recruiting"),
    ("GHOLA", "step 3, recruiting"),
    ("KANLY", "step 4, Kanly"),
    ("LAND", "step 5, landing"),
    ("MOVE", "step 6, movement"),
    ("BATTLE", "step 7, battles"),
    ("PROPERTY", "step 8, property"),
    ("STORM", "step 9, the storm"),
    ("END_TURN", "step 10, end of the turn"),
    ("GAME_OVER", "game over"),
)
PHASE_NAMES: Final = {
    phase.name: next(text for prefix, text in _STEPS if phase.name.startswith(prefix))
    for phase in Phase
}


def option_text(kind: DecisionKind, option: int) -> str:
    """An option's name for people: the engine's name, but dice numbered 1-7 as the event log
    and the board number them ("fix dice 1, 5"; the action table's names keep the engine's
    indices 0-6)."""
    if kind == DecisionKind.FIX_DICE:
        return f"fix {dice_numbers(option)}"
    return describe_option(kind, option)


def meta(record: ReplayRecord, game: Game) -> dict[str, Any]:
    """Static data: the map geometry (from map_data, drawn as the rgb frame draws it), names."""
    from ..environment.render import anchor, region_geometry

    regions = []
    for region in range(DEFAULT_MAP.num_regions):
        x, y = anchor(region)
        if region == DEFAULT_MAP.polar_cap:
            from ..environment.render import R_POLAR

            c = MAP_SIZE / 2
            path = (
                f"M {c - R_POLAR} {c} a {R_POLAR} {R_POLAR} 0 1 0 {2 * R_POLAR} 0 "
                f"a {R_POLAR} {R_POLAR} 0 1 0 {-2 * R_POLAR} 0 Z"
            )
        else:
            path = _ring_path(*region_geometry(region))
        regions.append(
            {
                "name": DEFAULT_MAP.names[region],
                "sector": DEFAULT_MAP.sectors[region],
                "strategic": int(DEFAULT_MAP.strategic[region]),
                "desert": int(DEFAULT_MAP.desert[region]),
                "path": path,
                "anchor": [round(x, 1), round(y, 1)],
            }
        )
    from ..environment.render import R_OUTER, R_POLAR

    storm_paths = [
        _ring_path(-120 + (sector - 1) * 60, -60 + (sector - 1) * 60, R_POLAR, R_OUTER)
        for sector in range(1, 7)
    ]
    sector_labels = []
    for sector in range(1, 7):
        angle = math.radians(-90 + (sector - 1) * 60)
        sector_labels.append(
            [
                round(MAP_SIZE / 2 + (R_OUTER + 12) * math.cos(angle), 1),
                round(MAP_SIZE / 2 + (R_OUTER + 12) * math.sin(angle), 1),
            ]
        )
    return {
        "title": record.title or "Dune, the Dice Game: a replay",
        "policies": list(record.policies),
        "numPlayers": game.config.num_players,
        "seed": record.seed,
        "config": record.config,
        "mapSize": MAP_SIZE,
        "regions": regions,
        "stormPaths": storm_paths,
        "sectorLabels": sector_labels,
        "factionNames": list(FACTION_NAMES),
        "factionColours": ["#{:02x}{:02x}{:02x}".format(*c) for c in FACTION_COLOURS],
        "leaderNames": list(LEADER_NAMES),
        "tokenNames": list(TOKEN_NAMES),
        "dieSymbols": [int(f) for f in FACTION_DIE_SYMBOLS],
        "kanlyNames": list(KANLY_NAMES),
        "maxRounds": MAX_ROUNDS,
        "phaseNames": PHASE_NAMES,
    }


def _ring_path(a0: float, a1: float, r0: float, r1: float) -> str:
    """An SVG path of the ring segment between angles a0..a1 (degrees, clockwise from east) and
    radii r0..r1, centred on the map."""
    c = MAP_SIZE / 2

    def point(radius: float, angle: float) -> str:
        a = math.radians(angle)
        return f"{c + radius * math.cos(a):.1f} {c + radius * math.sin(a):.1f}"

    large = 1 if a1 - a0 > 180 else 0
    return (
        f"M {point(r1, a0)} A {r1} {r1} 0 {large} 1 {point(r1, a1)} "
        f"L {point(r0, a1)} A {r0} {r0} 0 {large} 0 {point(r0, a0)} Z"
    )


def action_name(action_id: int) -> str:
    """The action table's name of an action id (for tests and tools)."""
    return ACTIONS[action_id].name
