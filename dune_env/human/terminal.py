"""The terminal front end of `dune-play`: the board as text, your options by number.

Each decision comes with a line on what it means and its rule IDs (`guide.explain`); dice are
fixed one at a time (the menu composes the subset, played as one FIX_DICE action); what the
engine did for you is said after your move (`guide.auto_notices`)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from ..engine.constants import FACTION_NAMES
from ..engine.decisions import DecisionKind
from ..environment.action_table import action_of, option_of
from ..environment.render import render_ansi
from . import guide
from .session import PlayError, PlaySession

HELP = f"""Commands:
  NUMBER        play that option (the number in front of it); when fixing dice, pick a
                die (or put it back) by its number
  d, done       when fixing dice: fix the dice picked; a, all: fix every die just rolled
  u, undo       put back the die picked last, else take back your last decision
  s, save FILE  save the game in progress (JSON)
  l, load FILE  continue a saved game
  b, board      show the board again
  h, help       this help
  q, quit       leave the game

{guide.HOW_TO_PLAY}"""


def _faction_name(faction: int) -> str:
    return FACTION_NAMES[faction] if faction >= 0 else "no faction yet"


@dataclass(frozen=True)
class MenuItem:
    """One numbered line: an option to play (`action`) or a die to pick or put back (`pick`)."""

    label: str
    action: int | None = None
    pick: int | None = None


def _dice(session: PlaySession) -> dict[str, Any]:
    fix = DecisionKind.FIX_DICE
    dice = guide.dice_state(session.game, [option_of(fix, a) for a, _ in session.options()])
    dice["offset"] = action_of(fix, 0)  # the action id of fixing no die; a subset adds its mask
    return dice


def menu(session: PlaySession, picked: list[int]) -> list[MenuItem]:
    """Your numbered choices.  FIX_DICE lists the dice just rolled, one number each that stays
    the same while you pick (the subset is played with `d`, see `fix_command`)."""
    if session.decision_name() != "FIX_DICE":
        return [MenuItem(name, action=action) for action, name in session.options()]
    dice = _dice(session)
    return [
        MenuItem(
            f"[{'x' if die in picked else ' '}] {guide.DIE_NAMES[die]}: {dice['labels'][die]}",
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
    if "bid" in known:
        units, leaders = known["bid"]
        parts = [
            f"{n} {FACTION_NAMES[i // 2]} {'Sardaukar' if i % 2 else 'unit(s)'}"
            for i, n in enumerate(units)
            if n
        ] + [f"{n} {FACTION_NAMES[f]} leader(s)" for f, n in enumerate(leaders) if n]
        lines.append("Your bid so far: " + ", ".join(parts))
    if "prediction" in known:
        lines.append(f"Your secret prediction: {FACTION_NAMES[known['prediction']]}")
    return lines


def show_board(session: PlaySession, out: TextIO) -> None:
    print(render_ansi(session.game.state), file=out)
    for line in describe_knowledge(session):
        print(line, file=out)


def show_options(session: PlaySession, picked: list[int], out: TextIO) -> None:
    state = session.game.state
    kind = state.pending_kind
    you = f"seat {session.you}, {_faction_name(state.seat_faction[session.you])}"
    print(f"\nYour decision ({you}): {guide.decision_title(kind)}", file=out)
    print(
        textwrap.fill(guide.explain(kind), 98, initial_indent="  ", subsequent_indent="  "),
        file=out,
    )
    dice = _dice(session) if session.decision_name() == "FIX_DICE" else None
    if dice is not None:
        faction = state.seat_faction[session.you]
        print(
            textwrap.fill(
                guide.dice_uses(faction), 98, initial_indent="  ", subsequent_indent="  "
            ),
            file=out,
        )
        fixed = ((1 << len(guide.DIE_NAMES)) - 1) & ~dice["rolled"]
        if fixed:
            print(f"  Fixed before: {guide.dice_list(fixed, dice['labels'])}", file=out)
        print(
            "  Type a die's number to pick it (again to put it back), d when done, a to fix all:",
            file=out,
        )
    for number, item in enumerate(menu(session, picked), start=1):
        print(f"  {number:>3}. {item.label}", file=out)
    if dice is not None and picked:
        mask = sum(1 << d for d in picked)
        if guide.can_fix(dice["legal"], mask):
            done = guide.fix_text(mask, dice["rolled"], dice["labels"], dice["thumper"])
            print(f"  d: {done}", file=out)
        else:
            print(f"  ({guide.missing_text(dice['legal'], mask)})", file=out)


def show_notices(session: PlaySession, out: TextIO) -> None:
    for line in guide.auto_notices(session.game, session.you):
        print(f"Note: {line}", file=out)


def narrate(session: PlaySession, out: TextIO) -> None:
    for line in session.new_events():
        print(f"  | {line}", file=out)


def run(session: PlaySession, read: Callable[[], str | None], out: TextIO) -> int:
    """The game loop: `read()` returns the next input line, or None at the end of the input."""
    seats = ", ".join(
        f"seat {s}: {'you' if p is None else p}" for s, p in enumerate(session.seat_policies)
    )
    print(
        f"Dune, the Dice Game - {session.num_players} players ({seats}), seed {session.seed}",
        file=out,
    )
    print("Type h for help.", file=out)
    session.play_bots()
    _show_move(session, out)
    shown = -1  # the decision whose options were printed last
    picked: list[int] = []  # the dice picked so far, while fixing dice
    while not session.over:
        if session.game.state.decision_count != shown:
            picked = []
            show_options(session, picked, out)
            shown = session.game.state.decision_count
        line = read()
        if line is None:
            print(
                "\nInput ended before the game did (save with 's FILE' to continue later).",
                file=out,
            )
            return 1
        command, _, argument = line.strip().partition(" ")
        try:
            step = _command(session, command, argument.strip(), picked, out)
        except PlayError as exc:
            print(f"! {exc}", file=out)
            continue
        if step == _QUIT:
            return 0
        if step == _SHOWN_BOARD:
            shown = -1
    _show_result(session, out)
    return 0


# What a command asks of the game loop besides its own output.
_QUIT = "quit"
_SHOWN_BOARD = "shown board"  # the board was printed: print the options again


def _command(
    session: PlaySession, command: str, argument: str, picked: list[int], out: TextIO
) -> str | None:
    """Carry out one command line (`command` and its `argument`); PlayError if it is wrong.
    Returns _QUIT, _SHOWN_BOARD or None."""
    if command.isdigit():
        _choose_item(session, int(command), picked, out)
    elif command in ("d", "done", "a", "all"):
        action = fix_command(session, picked, everything=command in ("a", "all"))
        labels = guide.die_labels(list(session.game.state.dice_faces))
        mask = option_of(DecisionKind.FIX_DICE, action)
        print(f"You: fix {guide.dice_list(mask, labels)}", file=out)
        session.choose(action)
        _show_move(session, out)
    elif command in ("u", "undo") and picked:
        print(f"Put back {guide.DIE_NAMES[picked.pop()]}.", file=out)
        show_options(session, picked, out)
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
        print(f"Loaded {argument}.", file=out)
        _show_move(session, out)
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


def _choose_item(session: PlaySession, number: int, picked: list[int], out: TextIO) -> None:
    """Menu item `number`: pick (or put back) a die, or play the option."""
    items = menu(session, picked)
    if not 1 <= number <= len(items):
        raise PlayError(f"choose a number from 1 to {len(items)}")
    item = items[number - 1]
    if item.pick is not None:
        toggle_die(session, picked, item.pick)
        show_options(session, picked, out)
        return
    assert item.action is not None
    print(f"You: {item.label}", file=out)
    session.choose(item.action)
    _show_move(session, out)


def _show_move(session: PlaySession, out: TextIO) -> None:
    """What happened since the last input: the bots' moves, the engine's notices, the board."""
    narrate(session, out)
    show_notices(session, out)
    show_board(session, out)


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
