"""Structured events and their one-line English rendering.

An event is a tuple of ints: (EventKind, *args), the arguments of each kind named by the
registry EVENT_FIELDS (from which snapshot validation and `event_args` derive).  Hidden
information (the Bene Gesserit prediction, bids before the reveal) is never put in an event:
the log is public.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import Any, Final

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


_FAC: Final = (0, NUM_FACTIONS - 1)
_ANY_FAC: Final = (NO_ONE, NUM_FACTIONS - 1)
_REG: Final = (0, NUM_REGIONS - 1)
_SEAT: Final = (0, 7)
_UT: Final = (0, NUM_UNIT_TYPES - 1)
_N: Final = (0, 255)  # counts, amounts and strengths (generous bounds)
_DEST: Final = (CARD, RESERVE)

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


def event_args(event: tuple[int, ...]) -> dict[str, Any]:
    """An event's arguments by name (EVENT_FIELDS), e.g. `event_args(e)["faction"]`."""
    args: dict[str, Any] = {}
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


_R: Final = DEFAULT_MAP.names
_F: Final = FACTION_NAMES
_UNIT: Final = ("unit", "Sardaukar")
_WHAT: Final = ("", "a unit", "a leader", "a Sardaukar")
_VICTORY: Final = ("alone", "in alliance", "by time-out (END-5)", "")


def _a(noun: str) -> str:
    """The noun with its indefinite article ("an Ornithopter", "a Fortress")."""
    return f"{'an' if noun[0] in 'AEIOUaeiou' else 'a'} {noun}"


def _f(faction: int) -> str:
    return "the common supply" if faction == NO_ONE else _F[faction]


def _bids(a: dict[str, Any]) -> str:
    side = ("Attacker", "Defender")[a["side"]]
    parts = [f"{n} {_F[i // 2]} {_UNIT[i % 2]}" for i, n in enumerate(a["units"]) if n] + [
        f"{n} {_F[i]} leader(s)" for i, n in enumerate(a["leaders"]) if n
    ]
    return f"{side} reveals strength {a['strength']}: {', '.join(parts) or 'nothing'}."


def _offer(a: dict[str, Any]) -> str:
    if a["target"] == NO_ONE:
        return f"{_F[a['faction']]} offers no alliance."
    return f"{_F[a['faction']]} offers an alliance to {_F[a['target']]} (symbol {_F[a['symbol']]})."


def _victory(a: dict[str, Any]) -> str:
    if a["kind"] == 3:
        return "Round 6 is over and nobody wins (no Guild and no prediction of it)."
    winners = [str(seat) for seat in a["winners"]]
    seats = f"seat {winners[0]}" if len(winners) == 1 else f"seats {', '.join(winners)}"
    return f"Victory {_VICTORY[a['kind']]}: {seats if winners else 'nobody'}."


def dice_numbers(mask: int) -> str:
    """The dice of `mask` as people number them, 1-7 (faction dice 1-4, region die 5, spice
    die 6, Kanly die 7): "die 5", "dice 1, 2, 6".  The engine's die indices are 0-6."""
    numbers = [str(i + 1) for i in range(NUM_DICE) if mask >> i & 1]
    return f"{'die' if len(numbers) == 1 else 'dice'} {', '.join(numbers)}"


def _dest(location: int) -> str:
    return "card" if location == CARD else "reserve"


_K: Final = EventKind
# One line of English per event kind, from the event's named arguments (EVENT_FIELDS).
_TEXT: Final[dict[int, Callable[[dict[str, Any]], str]]] = {
    _K.SETUP_STORM: lambda a: f"Setup: the storm starts over sector {a['sector']}.",
    _K.SETUP_TOKEN: lambda a: (
        f"Setup: {_a(TOKEN_NAMES[a['token']])} is placed in {_R[a['region']]}."
    ),
    _K.FIRST_PLAYER: lambda a: f"Setup: seat {a['seat']} is the first player.",
    _K.FACTION: lambda a: f"Setup: seat {a['seat']} plays {_F[a['faction']]}.",
    _K.SETUP_UNITS: lambda a: (
        f"Setup: {_F[a['faction']]} puts {a['count']} unit(s) in {_R[a['region']]}."
    ),
    _K.PREDICTION_MADE: lambda a: "Setup: the Bene Gesserit secretly write down a prediction.",
    _K.TURN_START: lambda a: (
        f"--- Round {a['round']}, seat {a['seat']} ({_F[a['faction']]}) takes the dice."
    ),
    _K.ROLL: lambda a: f"Roll of {dice_numbers(a['mask'])}: {describe_dice(a['faces'])}.",
    _K.FIX: lambda a: f"{_F[a['faction']]} fixes {dice_numbers(a['mask'])}.",
    _K.THUMPER_USED: lambda a: (
        f"{_F[a['faction']]} discards a Thumper to leave Shai-Hulud unfixed."
    ),
    _K.PITER: lambda a: f"{_F[a['faction']]} uses Piter De Vries: the Kanly die turns to Poison.",
    _K.AXOLOTL: lambda a: f"Tleilax chooses the {_F[a['symbol']]} symbol for the axolotl tanks.",
    _K.ALLY_OFFER: _offer,
    _K.ALLY_ANSWER: lambda a: (
        f"{_F[a['target']]} {'accepts' if a['accepted'] else 'declines'} the alliance."
    ),
    _K.DICE_SPLIT: lambda a: f"{a['dice']} shared die/dice go to the ally's recruiting.",
    _K.RECRUIT: lambda a: f"{_F[a['faction']]} recruits {_WHAT[a['what']]} to its card.",
    _K.GHOLA: lambda a: f"{_F[a['faction']]} pays 1 spice: ghola, the leader returns to the card.",
    _K.KANLY_KILL: lambda a: (
        f"Kanly ({KANLY_NAMES[a['face']]}): {_a(_F[a['faction']])} {_UNIT[a['unit_type']]} "
        f"in {_R[a['region']]} dies."
    ),
    _K.KANLY_TAKE: lambda a: (
        f"Kanly: {_F[a['taker']]} takes the {KANLY_NAMES[a['face']]} from {_f(a['previous'])}."
    ),
    _K.HARVEST: lambda a: f"Harvesters add {a['spice']} spice to the pool.",
    _K.HARVESTER_LOST: lambda a: f"Shai-Hulud swallows the harvester in {_R[a['region']]}.",
    _K.SPICE_GIFT: lambda a: f"{_F[a['giver']]} gives {a['amount']} stored spice to its ally.",
    _K.CONSENT: lambda a: (
        f"{_F[a['ally']]} {'consents' if a['yes'] else 'refuses'} to landing in its regions."
    ),
    _K.LAND: lambda a: (
        f"{_F[a['faction']]} lands a {_UNIT[a['unit_type']]} in {_R[a['region']]} "
        f"for {a['cost']} spice."
    ),
    _K.SMUGGLERS_LEADER: lambda a: (
        f"{_F[a['faction']]} pays 2 spice to put Esmar Tuek on the card."
    ),
    _K.GRANT: lambda a: f"The active player grants {a['amount']} spice to the ally for landing.",
    _K.GUILD_INCOME: lambda a: (
        f"Spacing Guild storage +{a['amount']} ({_F[a['lander']]} landed outside the Polar Cap)."
    ),
    _K.TARGET: lambda a: f"Movement target: {_R[a['region']]}.",
    _K.MOVE: lambda a: (
        f"{_F[a['faction']]} moves a {_UNIT[a['unit_type']]} from {_R[a['from_region']]} "
        f"to {_R[a['to_region']]}."
    ),
    _K.BATTLE_START: lambda a: (
        f"Battle in {_R[a['region']]}: {_F[a['attacker']]} attacks, {_F[a['defender']]} defends."
    ),
    _K.FORTRESS: lambda a: (
        f"The fortress of {_R[a['region']]} destroys {_a(_F[a['faction']])} "
        f"{_UNIT[a['unit_type']]}."
    ),
    _K.INFILTRATION: lambda a: (
        f"Harkonnen infiltration: the fortress of {_R[a['region']]} is ignored."
    ),
    _K.FACE_DANCER: lambda a: (
        f"Face dancer: {_a(_F[a['faction']])} {_UNIT[a['unit_type']]} in {_R[a['region']]} "
        "becomes Tleilaxu."
    ),
    _K.LEND: lambda a: f"{_F[a['faction']]} {'lends' if a['lent'] else 'keeps'} its leader.",
    _K.BATTLE_BIDS: _bids,
    _K.BATTLE_RESULT: lambda a: (
        f"Battle in {_R[a['region']]}: {a['attacker_strength']} against "
        f"{a['defender_strength']}, the {('attacker', 'defender')[a['winner_side']]} wins."
    ),
    _K.LOSS: lambda a: (
        f"{_F[a['faction']]} loses {a['count']} {_UNIT[a['unit_type']]}(s) in "
        f"{_R[a['region']]} to its {_dest(a['destination'])}."
    ),
    _K.LEADER_LOST: lambda a: (
        f"{_F[a['faction']]} sends {a['count']} committed leader(s) to its reserve."
    ),
    _K.PROPERTY: lambda a: (
        f"Reorganisation in {_R[a['region']]}: {_a(TOKEN_NAMES[a['new_token']])} is placed."
        if a["old_token"] == NO_ONE
        else f"Reorganisation in {_R[a['region']]}: the {TOKEN_NAMES[a['old_token']]} is "
        f"replaced by {_a(TOKEN_NAMES[a['new_token']])}."
    ),
    _K.STORM_MOVE: lambda a: (
        f"The storm moves from sector {a['from_sector']} to sector {a['to_sector']}."
    ),
    _K.STORM_LOSS: lambda a: (
        f"The storm kills {_a(_F[a['faction']])} {_UNIT[a['unit_type']]} in {_R[a['region']]} "
        f"(to its {_dest(a['destination'])})."
    ),
    _K.ORNITHOPTER_LOST: lambda a: (
        f"The storm returns the ornithopter of {_R[a['region']]} to the common supply."
    ),
    _K.CHOAM: lambda a: f"CHOAM: Corrino storage +{a['amount']}.",
    _K.VICTORY: _victory,
    _K.TURN_END: lambda a: f"Seat {a['seat']} ends its turn.",
    _K.BG_TAKES: lambda a: (
        f"The Bene Gesserit predicted {_F[a['faction']]}: they take the victory."
    ),
}


def render(event: tuple[int, ...]) -> str:
    """One line of English for one event."""
    text = _TEXT.get(event[0])
    if text is None:
        raise ValueError(f"unknown event {event!r}")
    return text(event_args(event))


_KANLY_SHORT: Final = ("Poison", "Crysknife", "Hunter", "Snooper", "Shield", "Thumper")


def describe_dice(faces: tuple[int, ...] | list[int]) -> str:
    from .constants import FACTION_DIE_SYMBOLS

    fac = "/".join(_F[FACTION_DIE_SYMBOLS[f]].split()[-1] for f in faces[:4])
    spice = "Shai-Hulud" if faces[5] == 5 else str(faces[5] + 1)
    return f"factions {fac}, region {faces[4] + 1}, spice {spice}, Kanly {_KANLY_SHORT[faces[6]]}"
