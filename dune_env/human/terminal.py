"""The terminal front end of `dune-play`: the board as text, your options by number.

Each decision comes with a line on what it means and its rule IDs (`guide.explain`) and what
the position means for it (`situation.decision_context`: the storm's forecast, the movement
target, the bid's running total); dice are numbered 1-7 and fixed one at a time (the menu
composes the subset, played as one FIX_DICE action).  The story of the game is told as it
goes (`story.Teller`: the bots' rolls condensed, what hit you marked with `!`, the notices of
what the engine did for you in their places).

When the bots have played a turn, the game stops until you press Enter, so that you read what
they did; what you typed while they played is dropped (`drop_typeahead`), never taken as your
next decision."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TextIO

from ..engine.constants import (
    CARD,
    FACTION_NAMES,
    MAX_ROUNDS,
    NO_ONE,
    RESERVE,
    STORAGE_CAP,
    STORAGE_FACTIONS,
    TOKEN_NAMES,
)
from ..engine.decisions import DecisionKind
from ..engine.map_data import DEFAULT_MAP
from ..engine.state import GameState, Phase, uidx
from ..environment.action_table import action_of, option_of
from ..environment.render import units_text
from . import guide, story
from .session import PlayError, PlaySession
from .situation import storm_forecast

HELP = f"""Commands:
  NUMBER        play that option (the number in front of it); when fixing dice, pick a
                die (or put it back) by its number, 1-7, or several at once: 1 6
  d, done       when fixing dice: fix the dice picked; a, all: fix every die just rolled
  u, undo       put back the die picked last, else take back your last decision (not
                past a roll: the dice rolled since are known)
  s, save FILE  save the game in progress (JSON)
  l, load FILE  continue a saved game
  b, board      show the board again
  h, help       this help
  q, quit       leave the game

{guide.HOW_TO_PLAY}"""

WIDTH: Final = 98
MAP = DEFAULT_MAP
# Region names short enough for the board's neighbours column ("Cielago", "Tuek's").
NEIGHBOUR_NAMES: Final = tuple(
    name.replace(" Plain", "").replace(" Sietch", "") for name in MAP.names
)


def _faction_name(faction: int) -> str:
    return FACTION_NAMES[faction] if faction >= 0 else "no faction yet"


@dataclass(frozen=True)
class MenuItem:
    """One numbered line: an option to play (`action`) or a die to pick or put back (`pick`)."""

    number: int
    label: str
    action: int | None = None
    pick: int | None = None


def _dice(session: PlaySession) -> dict[str, Any]:
    fix = DecisionKind.FIX_DICE
    dice = guide.dice_state(session.game, [option_of(fix, a) for a, _ in session.options()])
    dice["offset"] = action_of(fix, 0)  # the action id of fixing no die; a subset adds its mask
    return dice


def menu(session: PlaySession, picked: list[int]) -> list[MenuItem]:
    """Your numbered choices.  FIX_DICE lists the dice just rolled, each under its own number
    1-7, as the board and the log number them (the subset is played with `d`, see
    `fix_command`); other decisions number their options from 1."""
    if session.decision_name() != "FIX_DICE":
        return [
            MenuItem(number, name, action=action)
            for number, (action, name) in enumerate(session.options(), start=1)
        ]
    dice = _dice(session)
    return [
        MenuItem(
            die + 1,
            f"[{'x' if die in picked else ' '}] {guide.DIE_KINDS[die]}: {dice['labels'][die]}",
            pick=die,
        )
        for die in range(len(guide.DIE_NAMES))
        if dice["rolled"] >> die & 1
    ]


def toggle_die(session: PlaySession, picked: list[int], die: int) -> None:
    """Pick a die, or put it back if it was picked."""
    if die in picked:
        picked.remove(die)
        return
    dice = _dice(session)
    if die not in guide.pickable_dice(dice["legal"], sum(1 << d for d in picked)):
        raise PlayError(f"{guide.DIE_NAMES[die]} cannot be fixed together with the dice picked")
    picked.append(die)


def fix_command(session: PlaySession, picked: list[int], everything: bool) -> int:
    """The FIX_DICE action of `d` (the dice picked) or `a` (every die just rolled)."""
    if session.decision_name() != "FIX_DICE":
        raise PlayError("d and a are for fixing dice; now choose an option by its number")
    dice = _dice(session)
    mask = dice["rolled"] if everything else sum(1 << d for d in picked)
    if not mask:
        raise PlayError("pick at least one die first (its number), or a to fix them all")
    if not guide.can_fix(dice["legal"], mask):
        raise PlayError(guide.missing_text(dice["legal"], mask) or "that set of dice is not legal")
    return int(dice["offset"] + mask)


def describe_knowledge(session: PlaySession) -> list[str]:
    known = session.your_knowledge() or {}
    lines = []
    if "prediction" in known:
        lines.append(f"Your secret prediction: {FACTION_NAMES[known['prediction']]}")
    return lines


# --- the board -------------------------------------------------------------------------------


def _dice_line(session: PlaySession) -> str:
    state = session.game.state
    if state.phase <= Phase.SETUP_PLACE:
        return "Dice: not rolled yet (the first turn starts after the set-up)"
    labels = guide.die_labels(list(state.dice_faces))
    faction_dice = ", ".join(f"{d + 1} {labels[d]}" for d in range(4))
    others = " | ".join(f"{d + 1} {labels[d]}" for d in range(4, 7))
    fixed = [str(d + 1) for d in range(7) if state.dice_fixed[d]]
    kept = f"   (fixed: {', '.join(fixed)})" if fixed and len(fixed) < 7 else ""
    return f"Dice: {faction_dice} | {others}{kept}"


def _wrap(text: str) -> list[str]:
    """A board line wrapped to the terminal's width (continued lines indented); none if ''."""
    return textwrap.wrap(text, WIDTH, subsequent_indent="  ")


def board_text(session: PlaySession) -> str:
    """The public board as text, seen from your seat: the dice numbered 1-7, the storm and
    where it goes, each region with its sector, marks (* strategic, x desert, ~ storm), token,
    units and neighbours, the seats, and the tokens and terms explained."""
    state = session.game.state
    lines = _board_head(session) + [""] + _region_table(state) + [""] + _seat_table(session)
    lb = state.last_battle
    if lb is not None:
        lines += _wrap(
            f"Last battle: {MAP.names[lb.region]}, {FACTION_NAMES[lb.attacker]} "
            f"{lb.attacker_strength} against {FACTION_NAMES[lb.defender]} "
            f"{lb.defender_strength}, the {('attacker', 'defender')[lb.winner_side]} won."
        )
    if state.phase == Phase.GAME_OVER:
        winners = ", ".join(f"seat {s}" for s in state.winners) or "nobody"
        lines.append(f"Game over. Winners: {winners}.")
    return "\n".join(lines)


def _board_head(session: PlaySession) -> list[str]:
    """Round, seats, dice, the storm's forecast, the common supply."""
    state = session.game.state
    you = session.you
    lines = _wrap(
        f"Dune - round {state.round}/{MAX_ROUNDS} - you are seat {you} "
        f"({_faction_name(state.seat_faction[you])}) - storm over sector {state.storm_sector}"
    )
    active = state.active_seat
    who = "-" if active < 0 else f"seat {active} ({_faction_name(state.seat_faction[active])})"
    if state.phase == Phase.GAME_OVER:
        who = "nobody (game over)"
    ally = FACTION_NAMES[state.ally] if state.ally >= 0 else "-"
    target = MAP.names[state.target] if state.target >= 0 else "-"
    lines += _wrap(
        f"Active: {who}   first player: seat {state.first_seat}   ally: {ally}   "
        f"pool: {state.pool} spice   movement target: {target}"
    )
    lines += _wrap(_dice_line(session))
    lines += _wrap(storm_forecast(state, state.seat_faction[you]))

    def holder(faction: int) -> str:
        return "nobody" if faction == NO_ONE else FACTION_NAMES[faction]

    supply = ", ".join(f"{TOKEN_NAMES[t]} {n}" for t, n in enumerate(state.token_supply))
    lines += _wrap(
        f"Common supply: {supply}; Thumpers {state.thumper_supply}.   Shield: "
        f"{holder(state.shield_holder)}   Snooper: {holder(state.snooper_holder)}"
    )
    return lines


def _region_table(state: GameState) -> list[str]:
    """Each region: sector, marks, token, units, neighbours; then what marks and tokens mean."""
    units = [units_text(state, region) for region in range(MAP.num_regions)]
    width = max(7, *(len(u) + 2 for u in units))
    lines = [f"{'Region':<16}{'Sec':>3} {'':<3} {'Token':<12}{'Units':<{width}}Neighbours"]
    for region in range(MAP.num_regions):
        sector = MAP.sectors[region]
        token = state.region_token[region]
        marks = (
            ("*" if MAP.strategic[region] else " ")
            + ("x" if MAP.desert[region] else " ")
            + ("~" if sector and sector == state.storm_sector else " ")
        )
        neighbours = ", ".join(NEIGHBOUR_NAMES[r] for r in sorted(MAP.adjacency[region]))
        head = (
            f"{MAP.names[region]:<16}{sector if sector else '-':>3} {marks} "
            f"{TOKEN_NAMES[token] if token >= 0 else '-':<12}{units[region]:<{width}}"
        )
        wrapped = textwrap.wrap(neighbours, max(WIDTH - len(head), 24))
        lines.append(head + wrapped[0])
        lines += [" " * len(head) + more for more in wrapped[1:]]
    lines += _wrap(
        "(* strategic: hold 3 at the end of your turn to win; x desert: the storm kills there; "
        "~ under the storm now)"
    )
    lines += _wrap(
        "Fortress: removes 1 attacking unit before a battle there, and keeps the storm off. "
        "Harvester: +2 spice to the active player with a unit there. Ornithopter: units there "
        "may move to any target. (h explains every token and term)"
    )
    return lines


def _seat_table(session: PlaySession) -> list[str]:
    """Each seat: faction, player, card, reserve, leaders, storage and tokens held."""
    state = session.game.state
    lines = [
        f"{'Seat':<5}{'Faction':<15}{'Player':<12}{'Card':>6}{'Reserve':>8}{'Leaders':>8}  Extra"
    ]
    for seat, faction in enumerate(state.seat_faction):
        policy = "you" if seat == session.you else str(session.seat_policies[seat])
        if faction < 0:
            lines.append(f"{seat:<5}{'(not chosen)':<15}{policy:<12}")
            continue
        elite_on_card = state.units[faction][uidx(CARD, 1)]
        card = f"{state.count(faction, CARD)}" + (f"({elite_on_card}S)" if elite_on_card else "")
        leaders = f"{state.leaders[faction][0]}/{state.leaders[faction][1]}"
        extra = []
        if faction in STORAGE_FACTIONS:
            extra.append(f"storage {state.storage[faction]}/{STORAGE_CAP}")
        if state.thumpers[faction]:
            extra.append("Thumper")
        if state.shield_holder == faction:
            extra.append("Shield")
        if state.snooper_holder == faction:
            extra.append("Snooper")
        lines.append(
            f"{seat:<5}{FACTION_NAMES[faction]:<15}{policy[:11]:<12}{card:>6}"
            f"{state.count(faction, RESERVE):>8}{leaders:>8}  {', '.join(extra)}".rstrip()
        )
    lines += _wrap(f"({guide.SEATS_NOTE})")
    return lines


def show_board(session: PlaySession, out: TextIO) -> None:
    print(board_text(session), file=out)
    for line in describe_knowledge(session):
        print(line, file=out)


def _fill(text: str) -> str:
    return textwrap.fill(text, WIDTH, initial_indent="  ", subsequent_indent="  ")


def show_options(
    session: PlaySession,
    picked: list[int],
    out: TextIO,
    hits: list[str] | None = None,
    full: bool = True,
) -> None:
    """Your decision: its title, what it means, the context, the numbered options.  Not
    `full`: the numbered options alone (a die picked or put back)."""
    state = session.game.state
    kind = state.pending_kind
    dice = _dice(session) if session.decision_name() == "FIX_DICE" else None
    if not full:
        _show_menu(session, picked, dice, out)
        return
    if hits:
        print("\nWhat concerns you since your last decision:", file=out)
        for line in hits:
            print(f"  ! {line}", file=out)
    you = f"seat {session.you}, {_faction_name(state.seat_faction[session.you])}"
    print(f"\nYour decision ({you}): {guide.decision_title(kind)}", file=out)
    print(_fill(guide.explain(kind)), file=out)
    for line in session.context():
        print(_fill(line), file=out)
    if dice is not None:
        faction = state.seat_faction[session.you]
        fixed = ((1 << len(guide.DIE_NAMES)) - 1) & ~dice["rolled"]
        if fixed:
            print(f"  Fixed before: {guide.dice_list(fixed, dice['labels'])}", file=out)
        else:  # the first roll of the turn
            print(_fill(guide.dice_uses(faction)), file=out)
        print(
            "  Type a die's number to pick it (again to put it back; several at once: 1 6), "
            "d when done, a to fix all:",
            file=out,
        )
    _show_menu(session, picked, dice, out)


def _show_menu(
    session: PlaySession, picked: list[int], dice: dict[str, Any] | None, out: TextIO
) -> None:
    for item in menu(session, picked):
        print(f"  {item.number:>3}. {item.label}", file=out)
    if dice is not None and picked:
        mask = sum(1 << d for d in picked)
        if guide.can_fix(dice["legal"], mask):
            done = guide.fix_text(mask, dice["rolled"], dice["labels"], dice["thumper"])
            print(f"  d: {done}", file=out)
        else:
            print(f"  ({guide.missing_text(dice['legal'], mask)})", file=out)


def tell(told: list[story.ToldLine], out: TextIO) -> None:
    """The story lines: `|` an event, `!` an event that hits you, `Note:` what the engine did
    for you."""
    for line in told:
        if line.note:
            print(textwrap.fill(f"Note: {line.text}", WIDTH, subsequent_indent="      "), file=out)
        else:
            mark = "!" if line.mine else "|"
            print(
                textwrap.fill(
                    line.text, WIDTH, initial_indent=f"  {mark} ", subsequent_indent="      "
                ),
                file=out,
            )


def run(
    session: PlaySession,
    read: Callable[[], str | None],
    out: TextIO,
    drop_typeahead: Callable[[], bool] = lambda: False,
) -> int:
    """The game loop: `read()` returns the next input line, or None at the end of the input;
    `drop_typeahead()` discards what was typed but not yet read and says whether there was
    anything (a terminal's pending input: `cli.main` passes one for a real terminal)."""
    seats = ", ".join(
        f"seat {s}: {'you' if p is None else p}" for s, p in enumerate(session.seat_policies)
    )
    print(
        f"Dune, the Dice Game - {session.num_players} players ({seats}), seed {session.seed}",
        file=out,
    )
    print("Type h for help: the commands, how to play, every token and term.", file=out)
    session.play_bots()
    loop = _Loop(session, read, out, drop_typeahead)
    if loop.show_move() == _QUIT:
        return 1 if loop.ended else 0
    while not session.over:
        if session.game.state.decision_count != loop.shown:
            loop.picked = []
            show_options(session, loop.picked, out, loop.hits)
            loop.shown = session.game.state.decision_count
            loop.hits = []
        line = loop.read_line()
        if line is None:
            print(
                "\nInput ended before the game did (save with 's FILE' to continue later).",
                file=out,
            )
            return 1
        command, _, argument = line.strip().partition(" ")
        try:
            step = loop.command(command, argument.strip())
        except PlayError as exc:
            print(f"! {exc}", file=out)
            continue
        if step == _QUIT:
            return 1 if loop.ended else 0
        if step == _SHOWN_BOARD:
            loop.shown = -1
    _show_result(session, out)
    return 0


# Decisions taken one piece at a time (one die set, one unit, one bid piece after another).
_PIECE_BY_PIECE: Final = (
    DecisionKind.FIX_DICE,
    DecisionKind.RECRUIT,
    DecisionKind.LAND,
    DecisionKind.MOVE,
    DecisionKind.FACE_DANCER,
    DecisionKind.BID,
)

# What a command asks of the game loop besides its own output.
_QUIT = "quit"
_SHOWN_BOARD = "shown board"  # the board was printed: print the options again


class _Loop:
    """The state of the game loop between two inputs: the decision shown, the dice picked,
    what hit you since your last decision, and what the bots decided since the last input."""

    def __init__(
        self,
        session: PlaySession,
        read: Callable[[], str | None],
        out: TextIO,
        drop_typeahead: Callable[[], bool],
    ) -> None:
        self.session = session
        self._read = read
        self.out = out
        self.drop_typeahead = drop_typeahead
        self.shown = -1  # the decision whose options were printed last
        self.picked: list[int] = []  # the dice picked so far, while fixing dice
        self.hits: list[str] = []
        self.ended = False  # the input ended (at a pause)
        self.teller = story.Teller()
        self._rows_read = 0  # history rows when input was last read

    def drop_typed_ahead(self) -> None:
        """Drop what was typed while the bots played (since input was last read), and say so."""
        history = self.session.game.state.history
        if any(row.seat != self.session.you for row in history[self._rows_read :]):
            if self.drop_typeahead():
                print(
                    "(What you typed while the bots played was dropped: type it again if you "
                    "meant it for this decision.)",
                    file=self.out,
                )

    def read_line(self) -> str | None:
        """The next input line; what was typed while the bots played is dropped first."""
        self.drop_typed_ahead()
        line = self._read()
        self._rows_read = len(self.session.game.state.history)
        return line

    def show_move(self) -> str | None:
        """What happened since the last input: the story (the bots' moves, the engine's
        notices); a pause after the bots' turns; then the board.  _QUIT if the input ended or
        the player quit at the pause."""
        session = self.session
        state = session.game.state
        lines = session.new_story()
        self.teller.you = state.seat_faction[session.you]
        told = self.teller.tell(lines)
        tell(told, self.out)
        self.hits += story.hits(told)
        if story.other_turns(lines, session.you) and not session.over:
            self.drop_typed_ahead()  # (said before the prompt, not after it)
            print(
                "-- The bots have played (above). Press Enter for the board and your decision "
                "(h: help, q: quit) --",
                file=self.out,
            )
            answer = self.read_line()
            if answer is None:
                self.ended = True
                print("\nInput ended before the game did.", file=self.out)
                return _QUIT
            typed = answer.strip()
            if typed in ("q", "quit", "exit"):
                print("Bye.", file=self.out)
                return _QUIT
            if typed in ("h", "help", "?"):
                print(HELP, file=self.out)
            elif typed:
                print(
                    f"(Not played: {typed!r} - the game was waiting for Enter after the bots' "
                    "turns; here is your decision.)",
                    file=self.out,
                )
        if not self._piece_by_piece():
            show_board(session, self.out)
        return None

    def _piece_by_piece(self) -> bool:
        """The same decision of yours goes on, piece by piece (the next die, unit or bid
        piece): the story said what changed, so the board is not printed again (b shows it)."""
        state = self.session.game.state
        last = state.history[-1]
        return (
            state.pending_seat == self.session.you
            and state.pending_kind == last.kind
            and last.seat == self.session.you
            and last.kind in _PIECE_BY_PIECE
        )

    def command(self, command: str, argument: str) -> str | None:
        """Carry out one command line; PlayError if it is wrong.  Returns _QUIT, _SHOWN_BOARD
        or None."""
        session, picked, out = self.session, self.picked, self.out
        numbers = _NUMBERS.fullmatch(f"{command} {argument}".strip())
        if numbers:
            return self._choose_items([int(n) for n in _SEPARATOR.split(numbers.group())])
        if command in ("d", "done", "a", "all"):
            action = fix_command(session, picked, everything=command in ("a", "all"))
            labels = guide.die_labels(list(session.game.state.dice_faces))
            mask = option_of(DecisionKind.FIX_DICE, action)
            print(f"You: fix {guide.dice_list(mask, labels)}", file=out)
            session.choose(action)
            return self.show_move()
        if command in ("u", "undo") and picked:
            print(f"Put back {guide.DIE_NAMES[picked.pop()]}.", file=out)
            show_options(session, picked, out, full=False)
        elif command in ("u", "undo"):
            session.undo()
            print("Took back your last decision.", file=out)
            show_board(session, out)
            return _SHOWN_BOARD
        elif command in ("s", "save"):
            if not argument:
                raise PlayError("save needs a file name: s FILE")
            print(f"Saved to {session.save(argument)}.", file=out)
        elif command in ("l", "load"):
            if not argument:
                raise PlayError("load needs a file name: l FILE")
            session.load(argument)
            self.teller = story.Teller()
            print(f"Loaded {argument}.", file=out)
            if self.show_move() == _QUIT:
                return _QUIT
            return _SHOWN_BOARD
        elif command in ("b", "board"):
            show_board(session, out)
            return _SHOWN_BOARD
        elif command in ("h", "help", "?"):
            print(HELP, file=out)
        elif command in ("q", "quit", "exit"):
            print("Bye.", file=out)
            return _QUIT
        elif command:
            raise PlayError(f"unknown command {command!r} (h for help)")
        return None

    def _choose_items(self, numbers: list[int]) -> str | None:
        """Menu items `numbers`: pick (or put back) the dice, all or none of them; or play the
        one option (several numbers outside the dice are refused, never read as the first)."""
        session, picked = self.session, self.picked
        items = {item.number: item for item in menu(session, picked)}
        for number in numbers:
            if number not in items:
                raise PlayError(f"choose one of {_numbers(sorted(items))}")
        item = items[numbers[0]]
        if item.pick is not None:
            if len(set(numbers)) < len(numbers):
                raise PlayError("each die once, please: a second time puts it back")
            trial = list(picked)
            for number in numbers:
                pick = items[number].pick
                assert pick is not None  # (every item of the dice menu is a die)
                toggle_die(session, trial, pick)
            picked[:] = trial
            show_options(session, picked, self.out, full=False)
            return None
        if len(numbers) > 1:
            raise PlayError(f"one option at a time: choose one of {_numbers(sorted(items))}")
        assert item.action is not None
        print(f"You: {item.label}", file=self.out)
        session.choose(item.action)
        return self.show_move()


# A line of numbers: one option, or dice to pick ("1 6", "1,6").
_NUMBERS: Final = re.compile(r"\d+(?:\s*[ ,]\s*\d+)*")
_SEPARATOR: Final = re.compile(r"\s*[ ,]\s*")


def _numbers(numbers: list[int]) -> str:
    """1..7 for a run of numbers, else the list."""
    if numbers and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"the numbers {numbers[0]} to {numbers[-1]}"
    return "the numbers " + ", ".join(map(str, numbers))


def _show_result(session: PlaySession, out: TextIO) -> None:
    """The end of the game: who won, and every seat's reward."""
    state = session.game.state
    # The board above already says "Game over."; this says why.
    print(f"\n{guide.game_over_text(session.game) or 'Game over.'}", file=out)
    for seat, faction in enumerate(state.seat_faction):
        who = "you" if seat == session.you else session.seat_policies[seat]
        result = "wins" if seat in state.winners else "loses"
        reward = state.rewards[seat]
        print(
            f"  seat {seat} {_faction_name(faction):<14} ({who}) {result}, reward {reward:+.1f}",
            file=out,
        )
