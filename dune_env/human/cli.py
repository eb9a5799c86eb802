"""`dune-play`: play Dune, the Dice Game against the built-in bots.

    dune-play --players 4 --you 0 --opponents aggressive economic ppo-4p
    dune-play --web                       # the same in the browser, on http://127.0.0.1:8765/

In the terminal: the board as text, your legal options by number, each decision explained in
one line with its rule IDs (docs/rules.md); dice are numbered 1-7 and picked one at a time.
u undoes your last decision, s FILE saves the game in progress, l FILE loads one, h shows the
commands, how to play and every token and term.  The bots' moves are narrated, and the game
waits for Enter after their turns (keys typed while they play are dropped).  Opponents fill the
other seats in seat order (the list repeats if short).
"""

from __future__ import annotations

import argparse
import array
import sys

from ..exits import refuse
from ..replay.cli import HelpFormatter


def build_parser() -> argparse.ArgumentParser:
    from ..policies.registry import policy_names

    parser = argparse.ArgumentParser(
        prog="dune-play", description=__doc__, formatter_class=HelpFormatter
    )
    parser.add_argument("--players", type=int, default=4, help="3 to 8")
    parser.add_argument("--you", type=int, default=0, help="your seat (0 plays first)")
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["aggressive", "economic", "random"],
        metavar="POLICY",
        help=f"bots for the other seats: {', '.join(policy_names())}, or module:attr",
    )
    parser.add_argument("--seed", type=int, help="game seed (default: a random one, printed)")
    parser.add_argument("--load", metavar="FILE", help="continue a saved game")
    parser.add_argument("--web", action="store_true", help="play in the browser instead")
    parser.add_argument("--port", type=int, default=8765, help="port of --web (127.0.0.1 only)")
    parser.add_argument(
        "--no-browser", action="store_true", help="with --web: do not open a browser window"
    )
    parser.add_argument(
        "--trust-checkpoints",
        action="store_true",
        help="allow pickle-based model opponents (SB3 .zip, RLlib folders): they can run code",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    from ..engine import ConfigError
    from ..policies.registry import PolicyLoadError, trusted
    from .session import PlayError, PlaySession

    args = build_parser().parse_args(argv)
    opponents = [trusted(o) for o in args.opponents] if args.trust_checkpoints else args.opponents
    try:
        session = PlaySession(args.players, args.you, opponents, args.seed)
        if args.load:
            session.load(args.load)
    except (PlayError, PolicyLoadError, ConfigError) as exc:
        return refuse("dune-play", exc)
    if args.web:
        from .web import serve

        return serve(session, port=args.port, open_browser=not args.no_browser)
    from .terminal import run

    def read() -> str | None:
        try:
            return input("> ")
        except EOFError:
            return None

    try:
        return run(session, read, sys.stdout, drop_typeahead)
    except KeyboardInterrupt:
        print("\nInterrupted.")
        return 130


def drop_typeahead() -> bool:
    """Discard what was typed on the terminal but not read yet (keys pressed while the bots
    played), so that it never lands on the next decision; True if anything was there.  Does
    nothing when the input is not a terminal (a script's lines are all meant)."""
    if not sys.stdin.isatty():
        return False
    try:
        import fcntl
        import termios
    except ImportError:  # pragma: no cover - not a POSIX terminal
        return False
    try:
        waiting = array.array("i", [0])
        fcntl.ioctl(sys.stdin.fileno(), termios.FIONREAD, waiting)
        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    except OSError:
        return False
    return waiting[0] > 0


if __name__ == "__main__":
    raise SystemExit(main())
