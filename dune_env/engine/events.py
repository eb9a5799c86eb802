"""Structured events and their one-line English rendering.

An event is a tuple of ints: (EventKind, *args), the arguments of each kind named by the
registry EVENT_FIELDS (from which snapshot validation and `event_args` derive).  Hidden
information (the Bene Gesserit prediction, bids before the reveal) is never put in an event:
the log is public.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from .constants import (
    CARD,
    FACES_PER_DIE,
    FACTION_NAMES,
    KANLY_NAMES,
    NO_ONE,
    NUM_DICE,
    NUM_FACTIONS,
    NUM_REGIONS,
    NUM_TOKEN_TYPES,
    NUM_UNIT_TYPES,
    RESERVE,
    TOKEN_NAMES,
)
from .map_data import DEFAULT_MAP, NUM_SECTORS
from .records import ANY_LENGTH, RecordField, check_flat


class EventKind(IntEnum):
    SETUP_STORM = 0  # sector
    SETUP_TOKEN = 1  # region, token
    FIRST_PLAYER = 2  # seat
    FACTION = 3  # seat, faction
    SETUP_UNITS = 4  # faction, region, count
    PREDICTION_MADE = 5  # (BG wrote a hidden prediction)
    TURN_START = 6  # round, seat, faction
    ROLL = 7  # faces of all 7 dice (after the roll), mask of dice rolled
    FIX = 8  # faction, mask fixed
    THUMPER_USED = 9  # faction
    PITER = 10  # faction
    AXOLOTL = 11  # symbol
    ALLY_OFFER = 12  # active faction, target, symbol (target NO_ONE: no offer)
    ALLY_ANSWER = 13  # target, accepted
    DICE_SPLIT = 14  # dice given
    RECRUIT = 15  # faction, what (1 unit, 2 leader, 3 Sardaukar)
    GHOLA = 16  # faction
    KANLY_KILL = 17  # face, region, faction, unit type
    KANLY_TAKE = 18  # face, taker, previous holder
    HARVEST = 19  # spice added
    HARVESTER_LOST = 20  # region
    SPICE_GIFT = 21  # giver, amount
    CONSENT = 22  # ally, yes
    LAND = 23  # faction, region, unit type, cost
    SMUGGLERS_LEADER = 24  # faction
    GRANT = 25  # amount
    GUILD_INCOME = 26  # amount added, lander
    TARGET = 27  # region
    MOVE = 28  # faction, from region, to region, unit type
    BATTLE_START = 29  # region, attacker, defender
    FORTRESS = 30  # region, faction, unit type (of the removed attacker)
    INFILTRATION = 31  # region
    FACE_DANCER = 32  # region, faction, unit type replaced
    LEND = 33  # faction, lent
    BATTLE_BIDS = 34  # side (0 att, 1 def), strength, units..., then leaders... (revealed)
    BATTLE_RESULT = 35  # region, attacker strength, defender strength, winner side
    LOSS = 36  # faction, region, unit type, count, destination (CARD/RESERVE)
    LEADER_LOST = 37  # faction, count
    PROPERTY = 38  # region, old token, new token
    STORM_MOVE = 39  # from sector, to sector
    STORM_LOSS = 40  # region, faction, unit type, destination
    ORNITHOPTER_LOST = 41  # region
    CHOAM = 42  # amount added to Corrino storage
    VICTORY = 43  # kind (0 solo, 1 alliance, 2 time-out, 3 none), winner seats...
    TURN_END = 44  # seat
    BG_TAKES = 45  # predicted faction whose win the BG takes


def _fields(*spec: tuple[str, int, int] | tuple[str, int, int, int]) -> tuple[RecordField, ...]:
    """(name, lo, hi) for an int argument, (name, width, lo, hi) for a run of them."""
    return tuple(RecordField(s[0], 1, s[1], s[2]) if len(s) == 3 else RecordField(*s) for s in spec)


_FAC = (0, NUM_FACTIONS - 1)
_ANY_FAC = (NO_ONE, NUM_FACTIONS - 1)
_REG = (0, NUM_REGIONS - 1)
_SEAT = (0, 7)
_UT = (0, NUM_UNIT_TYPES - 1)
_N = (0, 255)  # counts, amounts and strengths (generous bounds)
_DEST = (CARD, RESERVE)

# The registry: each kind's argument names and bounds, in order.
EVENT_FIELDS: Final[dict[int, tuple[RecordField, ...]]] = {
    EventKind.SETUP_STORM: _fields(("sector", 1, NUM_SECTORS)),
    EventKind.SETUP_TOKEN: _fields(("region", *_REG), ("token", 0, NUM_TOKEN_TYPES - 1)),
    EventKind.FIRST_PLAYER: _fields(("seat", *_SEAT)),
    EventKind.FACTION: _fields(("seat", *_SEAT), ("faction", *_FAC)),
    EventKind.SETUP_UNITS: _fields(("faction", *_FAC), ("region", *_REG), ("count", *_N)),
    EventKind.PREDICTION_MADE: (),
    EventKind.TURN_START: _fields(("round", 1, 6), ("seat", *_SEAT), ("faction", *_FAC)),
    EventKind.ROLL: _fields(("faces", NUM_DICE, 0, FACES_PER_DIE - 1), ("mask", 0, 127)),
    EventKind.FIX: _fields(("faction", *_FAC), ("mask", 0, 127)),
    EventKind.THUMPER_USED: _fields(("faction", *_FAC)),
    EventKind.PITER: _fields(("faction", *_FAC)),
    EventKind.AXOLOTL: _fields(("symbol", *_FAC)),
    EventKind.ALLY_OFFER: _fields(("faction", *_FAC), ("target", *_ANY_FAC), ("symbol", *_ANY_FAC)),
    EventKind.ALLY_ANSWER: _fields(("target", *_FAC), ("accepted", 0, 1)),
    EventKind.DICE_SPLIT: _fields(("dice", 0, 4)),
    EventKind.RECRUIT: _fields(("faction", *_FAC), ("what", 1, 3)),
    EventKind.GHOLA: _fields(("faction", *_FAC)),
    EventKind.KANLY_KILL: _fields(
        ("face", 0, FACES_PER_DIE - 1), ("region", *_REG), ("faction", *_FAC), ("unit_type", *_UT)
    ),
    EventKind.KANLY_TAKE: _fields(
        ("face", 0, FACES_PER_DIE - 1), ("taker", *_FAC), ("previous", *_ANY_FAC)
    ),
    EventKind.HARVEST: _fields(("spice", *_N)),
    EventKind.HARVESTER_LOST: _fields(("region", *_REG)),
    EventKind.SPICE_GIFT: _fields(("giver", *_FAC), ("amount", *_N)),
    EventKind.CONSENT: _fields(("ally", *_FAC), ("yes", 0, 1)),
    EventKind.LAND: _fields(
        ("faction", *_FAC), ("region", *_REG), ("unit_type", *_UT), ("cost", *_N)
    ),
    EventKind.SMUGGLERS_LEADER: _fields(("faction", *_FAC)),
    EventKind.GRANT: _fields(("amount", *_N)),
    EventKind.GUILD_INCOME: _fields(("amount", *_N), ("lander", *_FAC)),
    EventKind.TARGET: _fields(("region", *_REG)),
    EventKind.MOVE: _fields(
        ("faction", *_FAC), ("from_region", *_REG), ("to_region", *_REG), ("unit_type", *_UT)
    ),
    EventKind.BATTLE_START: _fields(("region", *_REG), ("attacker", *_FAC), ("defender", *_FAC)),
    EventKind.FORTRESS: _fields(("region", *_REG), ("faction", *_FAC), ("unit_type", *_UT)),
    EventKind.INFILTRATION: _fields(("region", *_REG)),
    EventKind.FACE_DANCER: _fields(("region", *_REG), ("faction", *_FAC), ("unit_type", *_UT)),
    EventKind.LEND: _fields(("faction", *_FAC), ("lent", 0, 1)),
    EventKind.BATTLE_BIDS: _fields(
        ("side", 0, 1),
        ("strength", *_N),
        ("units", NUM_FACTIONS * NUM_UNIT_TYPES, *_N),
        ("leaders", NUM_FACTIONS, *_N),
    ),
    EventKind.BATTLE_RESULT: _fields(
        ("region", *_REG),
        ("attacker_strength", *_N),
        ("defender_strength", *_N),
        ("winner_side", 0, 1),
    ),
    EventKind.LOSS: _fields(
        ("faction", *_FAC),
        ("region", *_REG),
        ("unit_type", *_UT),
        ("count", *_N),
        ("destination", *_DEST),
    ),
    EventKind.LEADER_LOST: _fields(("faction", *_FAC), ("count", *_N)),
    EventKind.PROPERTY: _fields(
        ("region", *_REG),
        ("old_token", NO_ONE, NUM_TOKEN_TYPES - 1),
        ("new_token", 0, NUM_TOKEN_TYPES - 1),
    ),
    EventKind.STORM_MOVE: _fields(("from_sector", 1, NUM_SECTORS), ("to_sector", 1, NUM_SECTORS)),
    EventKind.STORM_LOSS: _fields(
        ("region", *_REG), ("faction", *_FAC), ("unit_type", *_UT), ("destination", *_DEST)
    ),
    EventKind.ORNITHOPTER_LOST: _fields(("region", *_REG)),
    EventKind.CHOAM: _fields(("amount", *_N)),
    EventKind.VICTORY: _fields(("kind", 0, 3), ("winners", ANY_LENGTH, *_SEAT)),
    EventKind.TURN_END: _fields(("seat", *_SEAT)),
    EventKind.BG_TAKES: _fields(("faction", *_FAC)),
}


def check_event(event: list[int] | tuple[int, ...], what: str = "event") -> str:
    """'' if `event` is a valid event (per EVENT_FIELDS), else what is wrong with it."""
    if not event or event[0] not in EVENT_FIELDS:
        return f"{what} must start with an EventKind 0..{len(EVENT_FIELDS) - 1}"
    fields = EVENT_FIELDS[event[0]]
    if not fields:
        return "" if len(event) == 1 else f"{what} ({EventKind(event[0]).name}) has no arguments"
    return check_flat(list(event[1:]), fields, f"{what} ({EventKind(event[0]).name})")


def event_args(event: tuple[int, ...]) -> dict[str, int | tuple[int, ...]]:
    """An event's arguments by name (EVENT_FIELDS), e.g. `event_args(e)["faction"]`."""
    args: dict[str, int | tuple[int, ...]] = {}
    start = 1
    for field in EVENT_FIELDS[event[0]]:
        if field.width == 1:
            args[field.name] = event[start]
            start += 1
        else:
            stop = len(event) if field.width == ANY_LENGTH else start + field.width
            args[field.name] = tuple(event[start:stop])
            start = stop
    return args


_R = DEFAULT_MAP.names
_F = FACTION_NAMES
_UNIT = ("unit", "Sardaukar")
_WHAT = ("", "a unit", "a leader", "a Sardaukar")
_VICTORY = ("alone", "in alliance", "by time-out (END-5)", "")


def _a(noun: str) -> str:
    """The noun with its indefinite article ("an Ornithopter", "a Fortress")."""
    return f"{'an' if noun[0] in 'AEIOUaeiou' else 'a'} {noun}"


def _f(faction: int) -> str:
    return "the common supply" if faction == NO_ONE else _F[faction]


def render(event: tuple[int, ...]) -> str:
    """One line of English for one event."""
    k = EventKind(event[0])
    a = event[1:]
    if k == EventKind.SETUP_STORM:
        return f"Setup: the storm starts over sector {a[0]}."
    if k == EventKind.SETUP_TOKEN:
        return f"Setup: {_a(TOKEN_NAMES[a[1]])} is placed in {_R[a[0]]}."
    if k == EventKind.FIRST_PLAYER:
        return f"Setup: seat {a[0]} is the first player."
    if k == EventKind.FACTION:
        return f"Setup: seat {a[0]} plays {_F[a[1]]}."
    if k == EventKind.SETUP_UNITS:
        return f"Setup: {_F[a[0]]} puts {a[2]} unit(s) in {_R[a[1]]}."
    if k == EventKind.PREDICTION_MADE:
        return "Setup: the Bene Gesserit secretly write down a prediction."
    if k == EventKind.TURN_START:
        return f"--- Round {a[0]}, seat {a[1]} ({_F[a[2]]}) takes the dice."
    if k == EventKind.ROLL:
        faces, mask = a[:7], a[7]
        rolled = [i for i in range(7) if mask >> i & 1]
        return f"Roll of dice {rolled}: {describe_dice(faces)}."
    if k == EventKind.FIX:
        return f"{_F[a[0]]} fixes dice {[i for i in range(7) if a[1] >> i & 1]}."
    if k == EventKind.THUMPER_USED:
        return f"{_F[a[0]]} discards a Thumper to leave Shai-Hulud unfixed."
    if k == EventKind.PITER:
        return f"{_F[a[0]]} uses Piter De Vries: the Kanly die turns to Poison."
    if k == EventKind.AXOLOTL:
        return f"Tleilax chooses the {_F[a[0]]} symbol for the axolotl tanks."
    if k == EventKind.ALLY_OFFER:
        if a[1] == NO_ONE:
            return f"{_F[a[0]]} offers no alliance."
        return f"{_F[a[0]]} offers an alliance to {_F[a[1]]} (symbol {_F[a[2]]})."
    if k == EventKind.ALLY_ANSWER:
        return f"{_F[a[0]]} {'accepts' if a[1] else 'declines'} the alliance."
    if k == EventKind.DICE_SPLIT:
        return f"{a[0]} shared die/dice go to the ally's recruiting."
    if k == EventKind.RECRUIT:
        return f"{_F[a[0]]} recruits {_WHAT[a[1]]} to its card."
    if k == EventKind.GHOLA:
        return f"{_F[a[0]]} pays 1 spice: ghola, the leader returns to the card."
    if k == EventKind.KANLY_KILL:
        return f"Kanly ({KANLY_NAMES[a[0]]}): {_a(_F[a[2]])} {_UNIT[a[3]]} in {_R[a[1]]} dies."
    if k == EventKind.KANLY_TAKE:
        return f"Kanly: {_F[a[1]]} takes the {KANLY_NAMES[a[0]]} from {_f(a[2])}."
    if k == EventKind.HARVEST:
        return f"Harvesters add {a[0]} spice to the pool."
    if k == EventKind.HARVESTER_LOST:
        return f"Shai-Hulud swallows the harvester in {_R[a[0]]}."
    if k == EventKind.SPICE_GIFT:
        return f"{_F[a[0]]} gives {a[1]} stored spice to its ally."
    if k == EventKind.CONSENT:
        return f"{_F[a[0]]} {'consents' if a[1] else 'refuses'} to landing in its regions."
    if k == EventKind.LAND:
        return f"{_F[a[0]]} lands a {_UNIT[a[2]]} in {_R[a[1]]} for {a[3]} spice."
    if k == EventKind.SMUGGLERS_LEADER:
        return f"{_F[a[0]]} pays 2 spice to put Esmar Tuek on the card."
    if k == EventKind.GRANT:
        return f"The active player grants {a[0]} spice to the ally for landing."
    if k == EventKind.GUILD_INCOME:
        return f"Spacing Guild storage +{a[0]} ({_F[a[1]]} landed outside the Polar Cap)."
    if k == EventKind.TARGET:
        return f"Movement target: {_R[a[0]]}."
    if k == EventKind.MOVE:
        return f"{_F[a[0]]} moves a {_UNIT[a[3]]} from {_R[a[1]]} to {_R[a[2]]}."
    if k == EventKind.BATTLE_START:
        return f"Battle in {_R[a[0]]}: {_F[a[1]]} attacks, {_F[a[2]]} defends."
    if k == EventKind.FORTRESS:
        return f"The fortress of {_R[a[0]]} destroys {_a(_F[a[1]])} {_UNIT[a[2]]}."
    if k == EventKind.INFILTRATION:
        return f"Harkonnen infiltration: the fortress of {_R[a[0]]} is ignored."
    if k == EventKind.FACE_DANCER:
        return f"Face dancer: {_a(_F[a[1]])} {_UNIT[a[2]]} in {_R[a[0]]} becomes Tleilaxu."
    if k == EventKind.LEND:
        return f"{_F[a[0]]} {'lends' if a[1] else 'keeps'} its leader."
    if k == EventKind.BATTLE_BIDS:
        side = ("Attacker", "Defender")[a[0]]
        units = a[2:18]
        leaders = a[18:26]
        parts = [f"{n} {_F[i // 2]} {_UNIT[i % 2]}" for i, n in enumerate(units) if n] + [
            f"{n} {_F[i]} leader(s)" for i, n in enumerate(leaders) if n
        ]
        return f"{side} reveals strength {a[1]}: {', '.join(parts) or 'nothing'}."
    if k == EventKind.BATTLE_RESULT:
        who = ("attacker", "defender")[a[3]]
        return f"Battle in {_R[a[0]]}: {a[1]} against {a[2]}, the {who} wins."
    if k == EventKind.LOSS:
        dest = "card" if a[4] == 10 else "reserve"
        return f"{_F[a[0]]} loses {a[3]} {_UNIT[a[2]]}(s) in {_R[a[1]]} to its {dest}."
    if k == EventKind.LEADER_LOST:
        return f"{_F[a[0]]} sends {a[1]} committed leader(s) to its reserve."
    if k == EventKind.PROPERTY:
        old = "nothing" if a[1] == NO_ONE else TOKEN_NAMES[a[1]]
        return f"Reorganisation in {_R[a[0]]}: {old} replaced by {TOKEN_NAMES[a[2]]}."
    if k == EventKind.STORM_MOVE:
        return f"The storm moves from sector {a[0]} to sector {a[1]}."
    if k == EventKind.STORM_LOSS:
        dest = "card" if a[3] == 10 else "reserve"
        return f"The storm kills {_a(_F[a[1]])} {_UNIT[a[2]]} in {_R[a[0]]} (to its {dest})."
    if k == EventKind.ORNITHOPTER_LOST:
        return f"The storm returns the ornithopter of {_R[a[0]]} to the common supply."
    if k == EventKind.CHOAM:
        return f"CHOAM: Corrino storage +{a[0]}."
    if k == EventKind.VICTORY:
        if a[0] == 3:
            return "Round 6 is over and nobody wins (no Guild and no prediction of it)."
        return f"Victory {_VICTORY[a[0]]}: seat(s) {list(a[1:])}."
    if k == EventKind.TURN_END:
        return f"Seat {a[0]} ends its turn."
    if k == EventKind.BG_TAKES:
        return f"The Bene Gesserit predicted {_F[a[0]]}: they take the victory."
    raise ValueError(f"unknown event {event!r}")  # pragma: no cover


_KANLY_SHORT = ("Poison", "Crysknife", "Hunter", "Snooper", "Shield", "Thumper")


def describe_dice(faces: tuple[int, ...] | list[int]) -> str:
    from .constants import FACTION_DIE_SYMBOLS

    fac = "/".join(_F[FACTION_DIE_SYMBOLS[f]].split()[-1] for f in faces[:4])
    spice = "Shai-Hulud" if faces[5] == 5 else str(faces[5] + 1)
    return f"factions {fac}, region {faces[4] + 1}, spice {spice}, Kanly {_KANLY_SHORT[faces[6]]}"
