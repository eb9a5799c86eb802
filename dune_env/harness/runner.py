"""Run seat- and faction-balanced games between policies, in several processes.

The schedule is a function of (policies, number of players, number of games, seed) only, and
each game is played by freshly reseeded policies, so results do not depend on the number of
workers or on which worker played which game.
"""

from __future__ import annotations

import csv
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..engine import Game, GameConfig
from ..engine.constants import FACTION_NAMES, available_factions
from ..engine.events import EventKind
from ..engine.game import IllegalOptionError
from ..policies.base import EnginePolicy
from ..policies.registry import load_policy

WIN_KINDS = ("solo", "alliance", "timeout", "none")


class PolicyActionError(RuntimeError):
    """A policy returned an option that is not legal."""


@dataclass(frozen=True)
class GameSpec:
    index: int
    seed: int
    num_players: int
    seat_policies: tuple[str, ...]
    factions: tuple[int, ...]
    config: tuple[tuple[str, Any], ...] = ()


@dataclass
class SeatResult:
    game: int
    seed: int
    num_players: int
    seat: int
    faction: str
    policy: str
    won: int
    reward: float
    win_kind: str
    bg_took: int
    rounds: int
    decisions: int


@dataclass
class GameFailure:
    game: int
    seed: int
    error: str
    detail: str = field(default="", repr=False)


def lineup(policies: Sequence[str], num_players: int) -> list[str]:
    """The base seat line-up: the policies repeated in order to fill every seat."""
    if not policies:
        raise ValueError("give at least one policy")
    if len(policies) > num_players:
        raise ValueError(
            f"{len(policies)} policies were given for {num_players} seats; give at most "
            f"{num_players} (seats are filled by repeating the list)"
        )
    return [policies[i % len(policies)] for i in range(num_players)]


def schedule(
    policies: Sequence[str],
    num_players: int,
    games: int,
    seed: int,
    config: dict[str, Any] | None = None,
    duplicate: bool = False,
) -> list[GameSpec]:
    """Rotate seats and factions so that every policy plays every seat and faction equally.

    In game g, seat s gets line-up entry (s + g) mod n and faction F_b[(s + g // n) mod n]: a
    Latin-square rotation that is balanced over every block of n*n games.  When more factions
    are available than seats (3-4 players), block b = g // (n*n) uses the available factions
    rotated by b, so every faction is played equally over whole cycles.

    `duplicate=True`: deal k (games k*n .. k*n + n-1) is played once under every rotation of
    the line-up across the seats, with one seed and one faction per seat, so the rotations see
    the same chance outcomes wherever the games reach the same chance event (docs/engine.md,
    Chance).  Deal k plays the available factions rotated by k (so every faction is dealt
    equally over m consecutive deals, m = number of available factions), in a seat order
    rotated by k // m."""
    base = lineup(policies, num_players)
    n = num_players
    if duplicate:
        if len(set(base)) < 2:
            raise ValueError(
                f"--duplicate needs at least two different policies to rotate; the line-up "
                f"{base} is the same under every rotation"
            )
        if games % n:
            raise ValueError(
                f"--duplicate plays each deal under all {n} rotations: give a number of games "
                f"that is a multiple of {n} (e.g. {games - games % n + n}), not {games}"
            )
    avail = list(available_factions(num_players))
    m = len(avail)
    items = tuple(sorted((config or {}).items()))
    specs = []
    for g in range(games):
        deal, rotation = (g // n, g % n) if duplicate else (g, g)
        # A duplicate deal already gives every policy every seat and faction of the deal, so
        # its faction set rotates every deal (and the seat order every m deals).
        block = deal if duplicate else deal // (n * n)
        shift = deal // m if duplicate else deal // n
        faction_set = [avail[(block + i) % m] for i in range(n)]
        seats = tuple(base[(s + rotation) % n] for s in range(n))
        factions = tuple(faction_set[(s + shift) % n] for s in range(n))
        specs.append(GameSpec(g, seed * 1_000_003 + deal, n, seats, factions, items))
    return specs


_POLICY_CACHE: dict[tuple[str, int, int], EnginePolicy] = {}


def _policy(spec: str, seat: int) -> EnginePolicy:
    """One policy object per (spec, seat) and process, reseeded before every game; a spec that
    names a file is reloaded when the file changes."""
    path = Path(spec)
    version = path.stat().st_mtime_ns if path.exists() else 0
    key = (spec, seat, version)
    if key not in _POLICY_CACHE:
        _POLICY_CACHE[key] = load_policy(spec, seed=seat)
    return _POLICY_CACHE[key]


def play_game(spec: GameSpec) -> list[SeatResult]:
    """Play one scheduled game; raises PolicyActionError if a policy plays an illegal option."""
    config = GameConfig(
        num_players=spec.num_players,
        faction_mode="assigned",
        factions=spec.factions,
        **dict(spec.config),
    )
    game = Game(config, seed=spec.seed)
    policies = [_policy(p, seat) for seat, p in enumerate(spec.seat_policies)]
    for seat, policy in enumerate(policies):
        reseed = getattr(policy, "reseed", None)
        if reseed is not None:
            reseed(spec.seed * 16 + seat)
    while not game.terminal:
        decision = game.pending
        assert decision is not None
        option = policies[decision.seat].act(game, decision.seat)
        try:
            game.apply(option)
        except IllegalOptionError as exc:
            raise PolicyActionError(
                f"policy {spec.seat_policies[decision.seat]!r} (seat {decision.seat}) returned "
                f"an illegal option in game {spec.index}: {exc}"
            ) from exc
    state = game.state
    kind = "none"
    bg_took = 0
    for event in reversed(state.events):
        if event[0] == EventKind.VICTORY:
            kind = WIN_KINDS[event[1]]
            break
    bg_took = int(any(e[0] == EventKind.BG_TAKES for e in state.events[-3:]))
    return [
        SeatResult(
            game=spec.index,
            seed=spec.seed,
            num_players=spec.num_players,
            seat=seat,
            faction=FACTION_NAMES[state.seat_faction[seat]],
            policy=spec.seat_policies[seat],
            won=int(seat in state.winners),
            reward=state.rewards[seat],
            win_kind=kind,
            bg_took=bg_took,
            rounds=state.round,
            decisions=state.decision_count,
        )
        for seat in range(spec.num_players)
    ]


def _safe_play(spec: GameSpec) -> tuple[GameSpec, list[SeatResult] | GameFailure]:
    try:
        return spec, play_game(spec)
    except Exception as exc:  # one failing game must not lose the others
        return spec, GameFailure(spec.index, spec.seed, str(exc), traceback.format_exc())


def run_games(
    specs: Sequence[GameSpec],
    workers: int = 1,
    on_result: Callable[[GameSpec, list[SeatResult] | GameFailure], None] | None = None,
) -> Iterator[tuple[GameSpec, list[SeatResult] | GameFailure]]:
    """Play the games, yielding each as it finishes (in completion order)."""
    if workers <= 1:
        for spec in specs:
            item = _safe_play(spec)
            if on_result:
                on_result(*item)
            yield item
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: set[Future[tuple[GameSpec, list[SeatResult] | GameFailure]]] = set()
        queue = list(specs)[::-1]
        while queue or pending:
            while queue and len(pending) < workers * 4:
                pending.add(pool.submit(_safe_play, queue.pop()))
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                item = future.result()
                if on_result:
                    on_result(*item)
                yield item


class CsvSink:
    """Appends rows as games finish, so that a crash never loses finished games."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = path.open("w", newline="")
        self._writer = csv.DictWriter(self._file, fieldnames=list(SeatResult.__dataclass_fields__))
        self._writer.writeheader()

    def write(self, rows: list[SeatResult]) -> None:
        for row in rows:
            self._writer.writerow(asdict(row))
        self._file.flush()

    def close(self) -> None:
        self._file.close()
