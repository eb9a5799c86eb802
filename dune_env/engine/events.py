"""Structured events and their one-line English rendering.

An event is a tuple of ints: (EventKind, *args).  Hidden information (the Bene Gesserit
prediction, bids before the reveal) is never put in an event: the log is public.
"""

from __future__ import annotations

from enum import IntEnum

from .constants import FACTION_NAMES, KANLY_NAMES, NO_ONE, TOKEN_NAMES
from .map_data import DEFAULT_MAP


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
