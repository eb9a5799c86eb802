"""The terminal front end of `dune-play`: the board as text, your options by number."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from ..engine.constants import FACTION_DIE_SYMBOLS, FACTION_NAMES, KANLY_NAMES
from ..environment.render import render_ansi
from .session import PlayError, PlaySession

HELP = """Commands:
  NUMBER        play that option (the number in front of it)
  u, undo       take back your last decision
  s, save FILE  save the game in progress (JSON)
  l, load FILE  continue a saved game
  b, board      show the board again
  h, help       this help
  q, quit       leave the game"""


def _faction_name(faction: int) -> str:
    return FACTION_NAMES[faction] if faction >= 0 else "no faction yet"


def numbered_dice(faces: list[int]) -> str:
    """The seven dice with the numbers the FIX_DICE options use."""
    spice = "Shai-Hulud" if faces[5] == 5 else f"spice {faces[5] + 1}"
    labels = [FACTION_NAMES[FACTION_DIE_SYMBOLS[f]] for f in faces[:4]]
    labels += [f"region {faces[4] + 1}", spice, f"Kanly {KANLY_NAMES[faces[6]]}"]
    return ", ".join(f"{i} {label}" for i, label in enumerate(labels))


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


def show_options(session: PlaySession, out: TextIO) -> None:
    state = session.game.state
    you = f"seat {session.you}, {_faction_name(state.seat_faction[session.you])}"
    print(f"\nYour decision ({you}): {session.decision_name()}", file=out)
    if session.decision_name() == "FIX_DICE":
        print(f"  Dice by number: {numbered_dice(state.dice_faces)}", file=out)
    for number, (_action, name) in enumerate(session.options(), start=1):
        print(f"  {number:>3}. {name}", file=out)


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
    narrate(session, out)
    show_board(session, out)
    shown = -1  # the decision whose options were printed last
    while not session.over:
        if session.game.state.decision_count != shown:
            show_options(session, out)
            shown = session.game.state.decision_count
        line = read()
        if line is None:
            print(
                "\nInput ended before the game did (save with 's FILE' to continue later).",
                file=out,
            )
            return 1
        command, _, argument = line.strip().partition(" ")
        argument = argument.strip()
        try:
            if command.isdigit():
                options = session.options()
                number = int(command)
                if not 1 <= number <= len(options):
                    raise PlayError(f"choose a number from 1 to {len(options)}")
                print(f"You: {options[number - 1][1]}", file=out)
                session.choose(options[number - 1][0])
                narrate(session, out)
                show_board(session, out)
            elif command in ("u", "undo"):
                session.undo()
                print("Took back your last decision.", file=out)
                show_board(session, out)
                shown = -1
            elif command in ("s", "save"):
                if not argument:
                    raise PlayError("save needs a file name: s FILE")
                print(f"Saved to {session.save(argument)}.", file=out)
            elif command in ("l", "load"):
                if not argument:
                    raise PlayError("load needs a file name: l FILE")
                session.load(argument)
                print(f"Loaded {argument}.", file=out)
                narrate(session, out)
                show_board(session, out)
                shown = -1
            elif command in ("b", "board"):
                show_board(session, out)
                shown = -1
            elif command in ("h", "help", "?"):
                print(HELP, file=out)
            elif command in ("q", "quit", "exit"):
                print("Bye.", file=out)
                return 0
            elif command:
                raise PlayError(f"unknown command {command!r} (h for help)")
        except PlayError as exc:
            print(f"! {exc}", file=out)
    state = session.game.state
    print("\nGame over.", file=out)
    for seat, faction in enumerate(state.seat_faction):
        who = "you" if seat == session.you else session.seat_policies[seat]
        result = "wins" if seat in state.winners else "loses"
        reward = state.rewards[seat]
        print(
            f"  seat {seat} {_faction_name(faction):<14} ({who}) {result}, reward {reward:+.1f}",
            file=out,
        )
    return 0
