"""A seated game's log: the option chosen at each of its decisions, replayed from the deal.

The benchmark's workers send a game's chosen options (forced decisions excluded: what
`Game.chosen_options` lists), the benchmark replays them on its own engine (`replay`;
harness/replayed.py), and keeps them in its run folder, one line a game (`decisions_line`,
`read_decisions`: `decisions.jsonl`), from which `--resume` and `dune-replay --benchmark`
replay every game.  Everything read here is bounded: at most MAX_GAME_OPTIONS small options a
game, lines of at most MAX_DECISIONS_LINE bytes (`bounded_lines`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from .engine import Game
from .engine.game import IllegalOptionError
from .engine.state import GameState, Phase
from .match import DEFAULT_MAX_DECISIONS, GameSpec

DECISIONS_FILE: Final = "decisions.jsonl"
# A game's chosen options: games end by round 6 (END-5) after a few hundred decisions; the
# harness's own cap on decisions is DEFAULT_MAX_DECISIONS.
MAX_GAME_OPTIONS: Final = DEFAULT_MAX_DECISIONS
MAX_OPTION: Final = 1 << 20  # options are small indices (engine/decisions.py)
MAX_DECISIONS_LINE: Final = 32 + 8 * MAX_GAME_OPTIONS  # bytes: an option is at most 7 digits
_GAME_OVER: Final = int(Phase.GAME_OVER)


class NotReplayed(ValueError):
    """A game's log (a worker's record, a line or a file of them) that cannot be read within
    its bounds, or whose options the engine does not replay."""


def checked_options(options: Any) -> tuple[int, ...]:
    """A game's chosen options as read from a message or a file: a list of at most
    MAX_GAME_OPTIONS small non-negative integers (NotReplayed otherwise)."""
    if not isinstance(options, list):
        raise NotReplayed("its options are not a list")
    if len(options) > MAX_GAME_OPTIONS:
        raise NotReplayed(f"it has {len(options)} options, more than {MAX_GAME_OPTIONS}")
    for option in options:
        if isinstance(option, bool) or not isinstance(option, int) or not 0 <= option < MAX_OPTION:
            raise NotReplayed("its options are not all small non-negative integers")
    return tuple(options)


def roll_key(state: GameState) -> tuple[int, int, int]:
    """Where the engine's next roll is keyed: (round, active seat, rolls so far this turn)."""
    return int(state.round), int(state.active_seat), int(state.rng.turn_roll)


def rolled(before: tuple[int, int, int], state: GameState) -> bool:
    """Whether the dice were rolled since `roll_key` gave `before`: every roll of a turn
    advances the turn's roll counter (`engine/steps/turn.py`), reset when a turn starts."""
    if state.phase == _GAME_OVER:
        return False
    return state.rng.turn_roll > 0 and roll_key(state) != before


def replay(spec: GameSpec, options: Sequence[int]) -> tuple[Game, int]:
    """The game of `spec` played to its end with `options` on this process's engine, and the
    number of dice rolls it made (counted only when the game measures luck; else 0).
    NotReplayed if an option is illegal where it is played, or the game is not over exactly
    after the last one."""
    game = Game(spec.game_config(), seed=spec.seed)
    count = bool(spec.luck_samples)
    rolls = 0
    for number, option in enumerate(options, start=1):
        if game.terminal:
            raise NotReplayed(
                f"the game is over after decision {number - 1}, but {len(options)} were sent"
            )
        before = roll_key(game.state) if count else None
        try:
            game.apply(option)
        except IllegalOptionError as exc:
            raise NotReplayed(f"decision {number} does not replay: {exc}"[:600]) from None
        if before is not None:
            rolls += rolled(before, game.state)
    if not game.terminal:
        raise NotReplayed(f"the game is not over after its {len(options)} decisions")
    return game, rolls


# --- decisions.jsonl ------------------------------------------------------------------------


def decisions_line(game: int, seed: int, options: Sequence[int]) -> str:
    """The decisions.jsonl line of a finished game (with its line end)."""
    record = {"game": game, "seed": seed, "options": list(options)}
    return json.dumps(record, separators=(",", ":")) + "\n"


def parse_decisions_line(text: str, specs: Sequence[GameSpec]) -> tuple[int, tuple[int, ...]]:
    """(game, options) of one decisions.jsonl line, checked against the run's schedule."""
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):
        raise NotReplayed("not a JSON object") from None
    if not isinstance(record, dict) or set(record) != {"game", "seed", "options"}:
        raise NotReplayed("not an object with game, seed and options")
    game, seed = record["game"], record["seed"]
    if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game < len(specs):
        raise NotReplayed(f"game {str(game)[:30]} is not a game of this run")
    if seed != specs[game].seed:
        raise NotReplayed(f"seed {str(seed)[:30]}, but game {game} is dealt by {specs[game].seed}")
    return game, checked_options(record["options"])


def bounded_lines(path: Path, max_line: int, max_lines: int) -> list[str]:
    """The complete lines of the text file `path` (a last line without its line end, cut
    short by a crash, is left out), each at most `max_line` bytes, at most `max_lines` of
    them.  NotReplayed, naming the file and line, for anything longer: checked before the file
    is read whole."""
    size = path.stat().st_size
    if size > max_line * max_lines:
        raise NotReplayed(
            f"{path.name} has {size} bytes, more than its {max_lines} lines of at most "
            f"{max_line} bytes can hold"
        )
    lines: list[str] = []
    with path.open("rb") as handle:
        while line := handle.readline(max_line + 1):
            if len(line) > max_line:
                raise NotReplayed(
                    f"{path.name} line {len(lines) + 1} is longer than {max_line} bytes"
                )
            if not line.endswith(b"\n"):
                break  # cut short by a crash while it was written: its game is played again
            if len(lines) == max_lines:
                raise NotReplayed(f"{path.name} has more than the run's {max_lines} lines")
            lines.append(line.decode("utf-8"))
    return lines


def read_decisions(path: Path, specs: Sequence[GameSpec]) -> dict[int, tuple[int, ...]]:
    """Each game's options in the decisions file `path` (read with `bounded_lines`), every
    line checked against the run's schedule `specs`; {} when there is no such file.
    NotReplayed names the file and the first bad line."""
    if not path.exists():
        return {}
    if path.is_symlink():
        raise NotReplayed(f"{path.name} is a symbolic link; refusing to read it")
    games: dict[int, tuple[int, ...]] = {}
    for number, line in enumerate(bounded_lines(path, MAX_DECISIONS_LINE, len(specs)), 1):
        try:
            game, options = parse_decisions_line(line, specs)
        except NotReplayed as exc:
            raise NotReplayed(f"{path.name} line {number}: {exc}") from None
        if game in games:
            raise NotReplayed(f"{path.name} line {number}: a second line for game {game}")
        games[game] = options
    return games
