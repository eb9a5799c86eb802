"""Run seat- and faction-balanced games between policies, in several processes.

The schedule is a function of (policies, number of players, number of games, seed) only, and
each game is played by freshly reseeded policies, so results do not depend on the number of
workers or on which worker played which game.
"""

from __future__ import annotations

import csv
import time
import traceback
from collections.abc import Callable, Iterator, MutableSequence, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..engine import Game, GameConfig
from ..engine.config import SEED_LIMIT
from ..engine.constants import FACTION_NAMES, available_factions
from ..engine.events import EventKind, event_args
from ..engine.game import IllegalOptionError
from ..policies.base import EnginePolicy
from ..policies.registry import load_policy

WIN_KINDS = ("solo", "alliance", "timeout", "none")


DEFAULT_MAX_DECISIONS = 20_000  # games last a few hundred decisions; only a fault gets near


class PolicyActionError(RuntimeError):
    """A policy failed its game: an illegal option, an exception, too many decisions."""

    def __init__(self, message: str, policy: str = "", kind: str = "illegal") -> None:
        super().__init__(message)
        self.policy = policy
        self.kind = kind


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
    """A game that did not finish.  `policy` is the policy blamed ("" if none), `kind` one of
    illegal, exception, exit (SystemExit/KeyboardInterrupt raised by a policy), crash (its
    process died), timeout, decision-cap, error (anything else)."""

    game: int
    seed: int
    error: str
    detail: str = field(default="", repr=False)
    policy: str = ""
    kind: str = "error"


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
        # Game seeds are 64-bit (the dice generator always reduced them so: same games as before).
        game_seed = (seed * 1_000_003 + deal) % SEED_LIMIT
        specs.append(GameSpec(g, game_seed, n, seats, factions, items))
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


def play_game(
    spec: GameSpec,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    status: MutableSequence[float] | None = None,
) -> list[SeatResult]:
    """Play one scheduled game.  Raises PolicyActionError if a policy plays an illegal option,
    raises or runs past `max_decisions`.  Every policy other than the project's own decides on
    a clone of the game, so a policy that edits the game it is given changes nothing.
    `status` (if given) is kept at [deciding seat, decision number, time.monotonic() when it
    was asked] for a watchdog."""
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
    # The project's own policies never edit the game (tested); any other engine policy decides
    # on a clone, so that editing the game it is given changes nothing.
    trusted = [type(policy).__module__.startswith("dune_env.") for policy in policies]
    decisions = 0
    while not game.terminal:
        decision = game.pending
        assert decision is not None
        seat = decision.seat
        name = spec.seat_policies[seat]
        if decisions >= max_decisions:
            raise PolicyActionError(
                f"policy {name!r} (seat {seat}) was to make decision {decisions + 1} of game "
                f"{spec.index}, past the cap of {max_decisions} decisions per game",
                policy=name,
                kind="decision-cap",
            )
        view = game
        if not trusted[seat]:
            view = game.clone()
            view.state.legal_cache = list(decision.options)
        if status is not None:
            status[2] = time.monotonic()
            status[1] = decisions
            status[0] = seat
        try:
            option = policies[seat].act(view, seat)
        except Exception as exc:
            raise PolicyActionError(
                f"policy {name!r} (seat {seat}) raised {type(exc).__name__}: {exc} "
                f"in game {spec.index}",
                policy=name,
                kind="exception",
            ) from exc
        if status is not None:
            status[0] = -1
        decisions += 1
        try:
            game.apply(option)
        except IllegalOptionError as exc:
            raise PolicyActionError(
                f"policy {name!r} (seat {seat}) returned "
                f"an illegal option in game {spec.index}: {exc}",
                policy=name,
                kind="illegal",
            ) from exc
    state = game.state
    kind = "none"
    bg_took = 0
    for event in reversed(state.events):
        if event[0] == EventKind.VICTORY:
            kind = WIN_KINDS[event_args(event)["kind"]]
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


def safe_play(
    spec: GameSpec,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    status: MutableSequence[float] | None = None,
) -> tuple[GameSpec, list[SeatResult] | GameFailure]:
    """Play one game; any failure, even a policy's SystemExit or KeyboardInterrupt, becomes a
    GameFailure.  (Only called in worker processes, which ignore the user's Ctrl-C.)"""
    try:
        return spec, play_game(spec, max_decisions, status)
    except PolicyActionError as exc:
        return spec, GameFailure(
            spec.index, spec.seed, str(exc), traceback.format_exc(), exc.policy, exc.kind
        )
    except (SystemExit, KeyboardInterrupt) as exc:  # raised by a policy: one lost game
        seat = int(status[0]) if status is not None else -1
        policy = spec.seat_policies[seat] if 0 <= seat < len(spec.seat_policies) else ""
        who = f"policy {policy!r} (seat {seat})" if policy else "the game"
        return spec, GameFailure(
            spec.index,
            spec.seed,
            f"{who} raised {type(exc).__name__}({exc}) in game {spec.index}",
            traceback.format_exc(),
            policy,
            "exit",
        )
    except Exception as exc:  # one failing game must not lose the others
        return spec, GameFailure(spec.index, spec.seed, str(exc), traceback.format_exc())


def run_games(
    specs: Sequence[GameSpec],
    workers: int | None = 1,
    on_result: Callable[[GameSpec, list[SeatResult] | GameFailure], None] | None = None,
    move_timeout: float | None = None,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    backend: str = "local",
    address: str | None = None,
) -> Iterator[tuple[GameSpec, list[SeatResult] | GameFailure]]:
    """Play the games in `workers` worker processes (also for one worker), yielding each as
    it finishes (in completion order).  A policy that takes longer than `move_timeout`
    seconds over one decision, or whose process dies, loses that game (a GameFailure naming
    it) and its worker is replaced.  See harness/workers.py.  `backend="ray"` plays them as
    tasks on the Ray cluster at `address` (at most `workers` at once; None: all its CPUs),
    with the same results and failures: see harness/backends.py."""
    from .backends import open_backend
    from .workers import DEFAULT_MOVE_TIMEOUT

    timeout = DEFAULT_MOVE_TIMEOUT if move_timeout is None else move_timeout
    with open_backend(backend, workers, timeout, max_decisions, address) as pool:
        for item in pool.play(specs):
            if on_result:
                on_result(*item)
            yield item


class CsvSink:
    """Appends rows as games finish, so that a crash never loses finished games."""

    def __init__(self, path: Path, append: bool = False) -> None:
        from .outputs import open_output

        self.path = path
        has_rows = append and path.exists() and path.stat().st_size > 0
        self._file = open_output(path, append=append)
        self._writer = csv.DictWriter(self._file, fieldnames=list(SeatResult.__dataclass_fields__))
        if not has_rows:
            self._writer.writeheader()
            self._file.flush()

    def write(self, rows: list[SeatResult]) -> None:
        for row in rows:
            self._writer.writerow(asdict(row))
        self._file.flush()

    def close(self) -> None:
        self._file.close()
