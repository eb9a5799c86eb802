"""`--resume` trusts no row of an earlier results.csv: each is checked against the run's
schedule, and every game against the replay of its decisions, before it counts as played.

A row must parse, belong to a scheduled game (its seed, player count, and its seat's policy and
faction as scheduled), be the only row of its seat in that game, and agree with the game's other
rows (win kind, rounds, decisions) and with END-7's rewards (`won` exactly when the reward is the
win reward; a solo win has one winner, no win none).  The first row that does not is refused,
named by its line.  Then each complete game is replayed from its line of decisions.jsonl
(harness/replayed.py) on this process's engine, and every field of its rows must be what the
replay gives (`check_replayed`; in a luck-adjusted run the luck is measured again): a row that
is internally consistent but not what the game's decisions produce (a win moved to another
seat, a game nobody won turned into a win, a changed round count) is refused, naming the game,
the seat, the field and both values.

The files are read with bounds: results.csv no longer than the run's rows can be, each line at
most MAX_ROW_BYTES, decisions.jsonl lines at most `game_log.MAX_DECISIONS_LINE` bytes.  Only
the last line of either file may be cut short (no line end: a crash while it was written); its
game is played again, as is any game missing a seat's row.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from ..engine import GameConfig
from ..engine.constants import FACTION_NAMES
from ..game_log import NotReplayed, bounded_lines
from .runner import WIN_KINDS, GameSpec, SeatResult

_FIELDS = {f.name: f.type for f in fields(SeatResult)}
_SAME_IN_A_GAME = ("win_kind", "bg_took", "rounds", "decisions")
# Columns added later, with the value a file written before them means (results.csv files of
# earlier versions resume).
_OPTIONAL = {"luck_win": "0.0", "luck_control": "0.0"}


class BadRow(ValueError):
    """A row of results.csv that the run's schedule cannot have produced."""


MAX_ROW_BYTES = 64 << 10  # a results.csv line: a policy's spec (a path) is its longest field


def read_checked_results(path: Path, specs: Sequence[GameSpec]) -> list[SeatResult]:
    """The rows of the complete games in `path`, every row checked (see the module doc).
    Raises BadRow naming the file's first bad line."""
    most = max((s.num_players for s in specs), default=0)
    # Room for the run's rows twice over: a few rows too many are named one by one below.
    try:
        text = bounded_lines(path, MAX_ROW_BYTES, 2 * (1 + len(specs) * most) + 100)
    except NotReplayed as exc:
        raise BadRow(str(exc)) from None
    lines = list(csv.reader(text))
    if not lines:
        return []
    header = lines[0]
    missing = [name for name in _FIELDS if name not in header and name not in _OPTIONAL]
    if missing:
        raise BadRow(f"{path.name} has no column {', '.join(missing)}: not a benchmark's results")
    rows: list[tuple[int, SeatResult]] = []
    for number, cells in enumerate(lines[1:], start=2):
        if not cells:
            continue
        if len(cells) != len(header):
            raise BadRow(f"{path.name} line {number}: {len(cells)} cells, not {len(header)}")
        record = dict(zip(header, cells, strict=True))
        try:
            row = _parse(record)
        except BadRow as exc:
            where = f"(game {record['game']}, seat {record['seat']})"
            raise BadRow(f"{path.name} line {number} {where}: {exc}") from None
        rows.append((number, row))
    _check(rows, specs, path.name)
    seats: dict[int, int] = {}
    for _, row in rows:
        seats[row.game] = seats.get(row.game, 0) + 1
    return [row for _, row in rows if seats[row.game] == row.num_players]


def _parse(record: dict[str, str]) -> SeatResult:
    values: dict[str, Any] = {}
    for name, kind in _FIELDS.items():
        raw = record[name] if name in record else _OPTIONAL[name]
        if kind in (int, "int"):
            try:
                values[name] = int(raw)
            except ValueError:
                raise BadRow(f"{name}={raw!r} is not an integer") from None
        elif kind in (float, "float"):
            try:
                values[name] = float(raw)
            except ValueError:
                raise BadRow(f"{name}={raw!r} is not a number") from None
            if not math.isfinite(values[name]):
                raise BadRow(f"{name}={raw!r} is not a finite number")
        else:
            values[name] = raw
    return SeatResult(**values)


def _check(rows: list[tuple[int, SeatResult]], specs: Sequence[GameSpec], name: str) -> None:
    if not specs:
        return
    first = specs[0]
    config = GameConfig(
        num_players=first.num_players,
        faction_mode="assigned",
        factions=first.factions,
        **dict(first.config),
    )
    rewards = (float(config.win_reward), float(config.loss_reward))
    by_game: dict[int, list[tuple[int, SeatResult]]] = {}
    for number, row in rows:
        try:
            _check_row(row, specs, rewards)
            earlier = by_game.setdefault(row.game, [])
            _check_against(row, earlier)
        except BadRow as exc:
            raise BadRow(
                f"{name} line {number} (game {row.game}, seat {row.seat}): {exc}"
            ) from None
        earlier.append((number, row))


def _check_row(row: SeatResult, specs: Sequence[GameSpec], rewards: tuple[float, float]) -> None:
    if not 0 <= row.game < len(specs):
        raise BadRow(f"game {row.game} is not in this run (games 0 to {len(specs) - 1})")
    spec = specs[row.game]
    if row.seed != spec.seed:
        raise BadRow(f"seed {row.seed} but game {row.game} is played with seed {spec.seed}")
    if row.num_players != spec.num_players:
        raise BadRow(f"num_players {row.num_players} but the run has {spec.num_players}")
    if not 0 <= row.seat < spec.num_players:
        raise BadRow(f"seat {row.seat} is not a seat of a {spec.num_players}-player game")
    policy = spec.seat_policies[row.seat]
    if row.policy != policy:
        raise BadRow(f"policy {row.policy!r} but the schedule seats {policy!r} there")
    faction = FACTION_NAMES[spec.factions[row.seat]]
    if row.faction != faction:
        raise BadRow(f"faction {row.faction!r} but the schedule deals {faction!r} there")
    if row.win_kind not in WIN_KINDS:
        raise BadRow(f"win_kind {row.win_kind!r} is not one of {', '.join(WIN_KINDS)}")
    if row.won not in (0, 1) or row.bg_took not in (0, 1):
        raise BadRow(f"won={row.won}, bg_took={row.bg_took}: each must be 0 or 1")
    win, loss = rewards
    if row.reward != (win if row.won else loss):
        raise BadRow(
            f"won={row.won} but its reward is {row.reward:g} (END-7 gives {win:g} to a winner "
            f"and {loss:g} to the others)"
        )
    if row.win_kind == "none" and row.won:
        raise BadRow("won=1 in a game nobody won (win_kind 'none')")
    if row.rounds < 1 or row.decisions < 0:
        raise BadRow(f"rounds={row.rounds}, decisions={row.decisions}: not a played game")


def _check_against(row: SeatResult, earlier: list[tuple[int, SeatResult]]) -> None:
    """`row` against the rows of its game read before it."""
    for number, other in earlier:
        if other.seat == row.seat:
            raise BadRow(
                f"a second row for game {row.game}, seat {row.seat} (the first is line {number})"
            )
        for name in _SAME_IN_A_GAME:
            mine, theirs = getattr(row, name), getattr(other, name)
            if mine != theirs:
                raise BadRow(f"{name} {mine!r} but line {number} of the same game says {theirs!r}")
    winners = row.won + sum(other.won for _, other in earlier)
    if row.win_kind == "solo" and winners > 1:
        raise BadRow(f"a solo win (win_kind 'solo') with {winners} winners")
    if len(earlier) + 1 == row.num_players and row.win_kind != "none" and not winners:
        raise BadRow(f"win_kind {row.win_kind!r} but no seat of the game won")


# --- the replay of each game -----------------------------------------------------------------


def check_replayed(
    rows: Sequence[SeatResult],
    decisions: dict[int, tuple[int, ...]],
    specs: Sequence[GameSpec],
    name: str,
    decisions_name: str,
) -> None:
    """Every game of `rows` (complete games of results.csv `name`) must be what the replay of
    its decisions gives, field by field (the module doc).  BadRow names the first that is not."""
    from .replayed import expected_rows

    by_game: dict[int, list[SeatResult]] = {}
    for row in rows:
        by_game.setdefault(row.game, []).append(row)
    if by_game and not decisions:
        raise BadRow(
            f"{name} holds {len(by_game)} finished game(s) but the run has no {decisions_name} "
            "to replay them (a run of an earlier version?): they cannot be checked; start the "
            "run again in a new folder"
        )
    for game, game_rows in sorted(by_game.items()):
        if game not in decisions:
            raise BadRow(
                f"{name} game {game} has no line in {decisions_name}: its rows cannot be checked "
                "by replay"
            )
        try:
            expected = expected_rows(specs[game], decisions[game])
        except NotReplayed as exc:
            raise BadRow(f"{decisions_name}: game {game} does not replay: {exc}") from None
        for row in sorted(game_rows, key=lambda r: r.seat):
            _same_as_replayed(row, expected[row.seat], name)


def _same_as_replayed(row: SeatResult, replayed: SeatResult, name: str) -> None:
    for field in _FIELDS:
        mine, theirs = getattr(row, field), getattr(replayed, field)
        if field in _OPTIONAL:  # the luck: measured again, to the last bits of a float sum
            same = math.isclose(mine, theirs, rel_tol=1e-9, abs_tol=1e-9)
        else:
            same = mine == theirs
        if not same:
            raise BadRow(
                f"{name} game {row.game}, seat {row.seat}: {field} is {mine!r}, but the game's "
                f"decisions replay to {theirs!r}"
            )
