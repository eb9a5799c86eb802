"""The game's story as `dune-play` tells it: the public events with the notices of what the
engine did for you in their places (`PlaySession` keeps both), condensed for reading.

- `StoryLine`: one event (its engine tuple and text) or one notice (`event` None);
- `Teller.tell` (part by part) and `tell` (at once): the lines to show, in order: another
  faction's dice rolling condensed into one line (how many rolls, what it kept), a run of the
  same line (units landed one by one) in one, your own fixes left out (your move says them),
  and the lines that hit you (a unit of yours killed, a token taken from you, your battles)
  marked;
- `hits`: the marked lines alone, to repeat just above your next decision, each saying whose
  turn it happened in (who killed your unit, who attacked you).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from ..engine.constants import FACTION_NAMES, NO_ONE, STORAGE_CAP
from ..engine.events import EventKind, describe_dice, event_args, render
from ..engine.map_data import DEFAULT_MAP


class StoryLine(NamedTuple):
    """One line of the story: an event of the log, or a notice (event None)."""

    text: str
    event: tuple[int, ...] | None = None

    @classmethod
    def of_event(cls, event: tuple[int, ...]) -> StoryLine:
        return cls(render(event), tuple(event))


class ToldLine(NamedTuple):
    """A line as shown: its text, whether it hits you, whether it is a notice, and when it
    happened (`when`: "round 2, Fremen's turn"; "" if the teller did not see the turn start)."""

    text: str
    mine: bool = False
    note: bool = False
    when: str = ""

    @property
    def hit_text(self) -> str:
        """The line as repeated away from its place in the story: it says when it happened,
        and so who did it (a Kanly kill is the active player's; a battle names its sides)."""
        return f"{self.when[:1].upper()}{self.when[1:]}: {self.text}" if self.when else self.text


_ROLLING: Final = (EventKind.ROLL, EventKind.FIX)
# Events whose named argument is the faction they hit.
_HIT_FIELD: Final[dict[int, str]] = {
    EventKind.KANLY_KILL: "faction",
    EventKind.LOSS: "faction",
    EventKind.STORM_LOSS: "faction",
    EventKind.FORTRESS: "faction",
    EventKind.FACE_DANCER: "faction",
    EventKind.LEADER_LOST: "faction",
    EventKind.KANLY_TAKE: "previous",
    EventKind.ALLY_OFFER: "target",
}


def _hits(event: tuple[int, ...], you: int) -> bool:
    field = _HIT_FIELD.get(event[0])
    return field is not None and you != NO_ONE and event_args(event)[field] == you


class Teller:
    """Tells the story to faction `you` (NO_ONE before it has one), part after part: whose
    turn it is and whether a battle of yours is on carry over from one part to the next."""

    def __init__(self, you: int = NO_ONE) -> None:
        self.you = you
        self.turn = NO_ONE  # whose turn the events are of
        self.round = 0
        self.in_your_battle = False
        self.fortress_region = -1  # a fortress has just acted there: does its battle go on?

    def tell(self, lines: Sequence[StoryLine], condense: bool = True) -> list[ToldLine]:
        """The lines to show, the lines that hit you marked; `condense`d: another faction's
        rolling in one line, your own fixes left out (else every event, as the log has it)."""
        you = self.you
        told: list[ToldLine] = []
        rolls = 0
        faces: tuple[int, ...] = ()

        def close_rolling() -> None:
            nonlocal rolls
            if rolls:
                times = "once" if rolls == 1 else f"{rolls} times"
                who = FACTION_NAMES[self.turn]
                told.append(ToldLine(f"{who} rolls {times} and keeps: {describe_dice(faces)}."))
            rolls = 0

        for line in lines:
            event = line.event
            if event is None:
                close_rolling()
                told.append(ToldLine(line.text, note=True))
                continue
            kind = event[0]
            if self.fortress_region >= 0 and kind not in _BATTLE_GOES_ON:
                # BATTLE-3: the fortress took the attacker's last unit; the engine says nothing.
                region = DEFAULT_MAP.names[self.fortress_region]
                told.append(
                    ToldLine(
                        f"No battle is left in {region}: the fortress took the attacker's last "
                        "unit there (BATTLE-3).",
                        mine=self.in_your_battle,
                        when=self._when() if self.in_your_battle else "",
                    )
                )
                self.in_your_battle = False
            self.fortress_region = -1
            if condense and kind in _ROLLING and self.turn not in (NO_ONE, you):
                if kind == EventKind.ROLL:
                    rolls += 1
                    faces = tuple(event_args(event)["faces"])
                continue
            close_rolling()
            args = event_args(event)
            if condense and kind == EventKind.FIX and args["faction"] == you:
                continue  # "You: fix ..." (or the engine's notice) said it already
            if kind == EventKind.TURN_START:
                self.turn = args["faction"]
                self.round = args["round"]
                self.in_your_battle = False
            elif kind == EventKind.BATTLE_START:
                self.in_your_battle = you in (args["attacker"], args["defender"])
            elif kind == EventKind.FORTRESS:
                self.fortress_region = args["region"]
            text = line.text
            if condense and kind == EventKind.CHOAM:
                text = text[:-1] + f" (the storage holds at most {STORAGE_CAP}; the rest is lost)."
            mine = _hits(event, you) or (self.in_your_battle and kind in _BATTLE)
            told.append(ToldLine(text, mine=mine, when=self._when() if mine else ""))
            if kind == EventKind.BATTLE_RESULT:
                self.in_your_battle = False
        close_rolling()
        return _repeats(told) if condense else told

    def _when(self) -> str:
        """The turn the events are of, as the lines that hit you say it."""
        if self.turn == NO_ONE:
            return ""
        whose = "your" if self.turn == self.you else f"{FACTION_NAMES[self.turn]}'s"
        return f"round {self.round}, {whose} turn"


def _repeats(told: list[ToldLine]) -> list[ToldLine]:
    """Runs of the same line (units landed or moved one at a time) as one line: "... (3
    times)"."""
    out: list[ToldLine] = []
    count = 0
    for i, line in enumerate(told):
        count += 1
        if i + 1 < len(told) and told[i + 1] == line and not line.note:
            continue
        out.append(line if count == 1 else line._replace(text=f"{line.text} ({count} times)"))
        count = 0
    return out


_BATTLE: Final = (EventKind.BATTLE_START, EventKind.BATTLE_BIDS, EventKind.BATTLE_RESULT)
# What follows a fortress's removal when its battle goes on (BATTLE-4, BATTLE-5, TLX-4).
_BATTLE_GOES_ON: Final = (EventKind.LEND, EventKind.FACE_DANCER, EventKind.BATTLE_BIDS)


def tell(lines: Sequence[StoryLine], you: int) -> list[ToldLine]:
    """The story lines to show to faction `you`, condensed (`Teller.tell` from the start)."""
    return Teller(you).tell(lines)


def hits(told: Sequence[ToldLine]) -> list[str]:
    """The told lines that hit you, in order, each saying when it happened and so who did it
    ("Round 2, Fremen's turn: Kanly (Crysknife): a Harkonnen unit in Sietch Tabr dies.")."""
    return [line.hit_text for line in told if line.mine]


def other_turns(lines: Sequence[StoryLine], you_seat: int) -> bool:
    """The story holds another seat's turn (its start), or the game's end: the bots have
    played a while, and the player should read before deciding again."""
    for line in lines:
        event = line.event
        if event is None:
            continue
        if event[0] == EventKind.TURN_START and event_args(event)["seat"] != you_seat:
            return True
        if event[0] == EventKind.VICTORY:
            return True
    return False
