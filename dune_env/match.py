"""One match: seat policies resolved and seeded once, decisions played, the result read.

Everything that plays games between policies goes through here: the benchmark harness
(`harness/runner.py`), the replay recorder (`replay/record.py`), `dune-play`'s session, the
single-agent environment and the vector environment.  So a replay reproduces a benchmark game
exactly: it is played by the same loop, seeded by the same rule.

- `seat_seed(game_seed, seat)`: the one seeding rule.  Before every game each seat's policy is
  reseeded with `(game_seed * 16 + seat) mod 2**64` (`reseed_seats`), so a game depends only
  on its seed and line-up, never on what the policies played before.
- `seat_policy`, `load_seats`: a policy name (or spec) resolved for its seat
  (`load_policy(name, seed=seat)`).
- `play(game, policies, until=seat)`: play decisions until the game is over, `until`'s turn, or
  a seat without a policy (None: its caller decides, e.g. a batched network).
- `GameSpec`, `lineup`, `schedule`: a seated game and the benchmark's balanced line-ups; a
  `GameSpec` is played with `play_spec` (or `seat_spec` then `play_seated`).
- `final_outcome(game)`: winners, rewards and how the game ended, read from the engine's own
  final state.

Protection: a policy that is not one of the project's registered built-in classes (checked by
identity, `is_builtin`, not by module name) decides on a clone of the game with `play(...,
protect=True)`, so editing the game it is given changes nothing.  Policies loaded from
`module:attr` are still trusted code running in the same process (SECURITY.md): one that
rewrites the engine's or this module's functions is not contained here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .engine import Game, GameConfig
from .engine.config import SEED_LIMIT
from .engine.constants import FACTION_NAMES, available_factions
from .engine.events import EventKind, event_args
from .engine.game import IllegalOptionError
from .engine.state import Phase
from .policies.base import EnginePolicy
from .seatings import (  # noqa: F401  (re-exported: where games are scheduled)
    DEFAULT_SEATINGS,
    MAX_PERMUTATIONS,
    ROTATIONS,
    SEATINGS,
    check_seatings,
    deal_seatings,
)

SEAT_SEED_STRIDE: Final = 16  # seats per game seed in `seat_seed` (at most 8 players)
DEFAULT_MAX_DECISIONS: Final = 20_000  # games last a few hundred decisions; only a fault nears it
WIN_KINDS: Final = ("solo", "alliance", "timeout", "none")
NO_SEAT: Final = -1
_GAME_OVER: Final = int(Phase.GAME_OVER)


class PolicyActionError(RuntimeError):
    """A policy failed its game: an illegal option, an exception, too many decisions."""

    def __init__(self, message: str, policy: str = "", kind: str = "illegal") -> None:
        super().__init__(message)
        self.policy = policy
        self.kind = kind


# --- seats: resolving and seeding ---------------------------------------------------------------


def seat_seed(game_seed: int, seat: int) -> int:
    """The seed of `seat`'s policy for the game seeded `game_seed` (a 64-bit seed)."""
    return (game_seed * SEAT_SEED_STRIDE + seat) % SEED_LIMIT


def reseed_seats(policies: Sequence[Any], game_seed: int) -> None:
    """Reseed every seat's policy that has `reseed` (e.g. "random", "aggressive-eps20") with
    `seat_seed(game_seed, seat)`.  A policy object seated twice is reseeded once, from its
    first seat; None seats are skipped."""
    seen: set[int] = set()
    for seat, policy in enumerate(policies):
        if policy is None or id(policy) in seen:
            continue
        seen.add(id(policy))
        reseed = getattr(policy, "reseed", None)
        if callable(reseed):
            reseed(seat_seed(game_seed, seat))


def seat_policy(spec: Any, seat: int, trust: bool = False) -> Any:
    """A policy name or spec (anything `load_policy` takes as a string) loaded for `seat`,
    seeded by the seat; any other object is returned as it is."""
    if not isinstance(spec, str):
        return spec
    from .policies.registry import load_policy

    return load_policy(spec, seed=seat, trust=trust)


def load_seats(specs: Sequence[str], trust: bool = False) -> list[EnginePolicy]:
    """One freshly loaded policy per seat."""
    return [seat_policy(spec, seat, trust) for seat, spec in enumerate(specs)]


_BUILTIN_CLASSES: set[type] = set()
_BUILTIN_CALLABLES: set[type] = set()


def is_builtin(policy: object) -> bool:
    """Whether `policy` is an instance of one of the project's registered built-in policy
    classes (exactly that class: not a subclass, nor a class that only claims their module
    name), whose instance does not replace `act`; a policy wrapping another (`base`, as the
    epsilon policies do) only if that one is built in too, and an observation policy only if
    its callable (`fn`) is one of the project's networks (a user's callable is user code,
    whatever class wraps it).  Those never edit the game they are given (tested), so they may
    decide on it."""
    if not _BUILTIN_CLASSES:
        from .policies.registry import builtin_observation_callables, builtin_policy_classes

        _BUILTIN_CALLABLES.update(builtin_observation_callables())
        _BUILTIN_CLASSES.update(builtin_policy_classes())
    if type(policy) not in _BUILTIN_CLASSES or "act" in getattr(policy, "__dict__", {}):
        return False
    # An observation policy runs its callable: user code unless one of the project's networks.
    fn = getattr(policy, "fn", None)
    if fn is not None and type(fn) not in _BUILTIN_CALLABLES:
        return False
    base = getattr(policy, "base", None)
    return base is None or is_builtin(base)


# --- the decision loop ----------------------------------------------------------------------------


def play(
    game: Game,
    policies: Sequence[Any],
    until: int = NO_SEAT,
    protect: bool = False,
    names: Sequence[str] | None = None,
    where: str = "",
    max_decisions: int | None = None,
    status: MutableSequence[float] | None = None,
    step: Callable[[Game, Any], None] | None = None,
) -> int:
    """Play `game` with `policies[seat].act(game, seat)` until it is over, seat `until` is to
    decide, or a seat whose policy is None is; return the number of decisions played.

    `protect`: a policy that is not built in (`is_builtin`) decides on a clone of the game.
    `names` (the seats' policy names): failures raise PolicyActionError naming the policy
    and seat (`where` says which game, e.g. " in game 3"); without `names` a policy's
    exception or illegal option (IllegalOptionError) propagates as it is.  `max_decisions`
    caps the decisions played by this call (PolicyActionError "decision-cap").  `status` (if
    given) is kept at [deciding seat, decision number, time.monotonic() when it was asked]
    for a watchdog.  `step(game, option)` (if given) applies each chosen option instead of
    `game.apply`, e.g. a `harness.luck.LuckMeter` measuring the dice's luck as it goes."""
    state = game.state
    apply = step if step is not None else _apply
    trusted = [not protect or is_builtin(p) for p in policies]
    played = 0
    while state.phase != _GAME_OVER:
        seat = state.pending_seat
        policy = policies[seat]
        if seat == until or policy is None:
            break
        if max_decisions is not None and played >= max_decisions:
            name = names[seat] if names is not None else str(getattr(policy, "name", policy))
            raise PolicyActionError(
                f"policy {name!r} (seat {seat}) was to make decision {played + 1}{where}, "
                f"past the cap of {max_decisions} decisions per game",
                policy=name,
                kind="decision-cap",
            )
        view = game
        if not trusted[seat]:
            view = game.clone()
            view.state.legal_cache = list(game.legal_options())
        if status is not None:
            status[2] = time.monotonic()
            status[1] = played
            status[0] = seat
        if names is None:
            apply(game, policy.act(view, seat))
        else:
            _checked_step(game, policy, view, seat, names[seat], where, apply)
        if status is not None:
            status[0] = -1
        played += 1
    return played


def _apply(game: Game, option: Any) -> None:
    game.apply(option)


def _checked_step(
    game: Game,
    policy: Any,
    view: Game,
    seat: int,
    name: str,
    where: str,
    apply: Callable[[Game, Any], None] = _apply,
) -> None:
    """One decision of a named seat, its failures as PolicyActionError."""
    try:
        option = policy.act(view, seat)
    except Exception as exc:
        raise PolicyActionError(
            f"policy {name!r} (seat {seat}) raised {type(exc).__name__}: {exc}{where}",
            policy=name,
            kind="exception",
        ) from exc
    try:
        apply(game, option)
    except IllegalOptionError as exc:
        raise PolicyActionError(
            f"policy {name!r} (seat {seat}) returned an illegal option{where}: {exc}",
            policy=name,
            kind="illegal",
        ) from exc


# --- seated games: the benchmark's line-ups -----------------------------------------------------


@dataclass(frozen=True)
class GameSpec:
    """A seated game: its seed, the policy of each seat and the faction each seat plays."""

    index: int
    seed: int
    num_players: int
    seat_policies: tuple[str, ...]
    factions: tuple[int, ...]
    config: tuple[tuple[str, Any], ...] = ()
    # Resampled rolls per roll for luck-adjusted outcomes (harness/luck.py); 0: not measured.
    luck_samples: int = 0
    luck_model: str = ""  # the value model's file for the luck ("": the shipped one)

    def game_config(self, **extra: Any) -> GameConfig:
        return GameConfig(
            num_players=self.num_players,
            faction_mode="assigned",
            factions=self.factions,
            **dict(self.config),
            **extra,
        )


def seat_spec(
    spec: GameSpec, policies: Sequence[Any] | None = None, trust: bool = False, **extra: Any
) -> tuple[Game, list[Any]]:
    """The game of `spec` at its start and its seat policies (loaded fresh unless `policies`
    are given), reseeded by `reseed_seats`.  `extra`: more game options (record_events)."""
    game = Game(spec.game_config(**extra), seed=spec.seed)
    seated = list(policies) if policies is not None else load_seats(spec.seat_policies, trust)
    reseed_seats(seated, spec.seed)
    return game, seated


def play_seated(
    spec: GameSpec,
    game: Game,
    policies: Sequence[Any],
    max_decisions: int | None = DEFAULT_MAX_DECISIONS,
    status: MutableSequence[float] | None = None,
    step: Callable[[Game, Any], None] | None = None,
) -> None:
    """Play the game of `seat_spec` to its end, as the benchmark does: policies that are not
    built in decide on a clone; a failing policy raises PolicyActionError naming it.  `step`:
    as in `play`."""
    play(
        game,
        policies,
        protect=True,
        names=spec.seat_policies,
        where=f" in game {spec.index}",
        max_decisions=max_decisions,
        status=status,
        step=step,
    )


def play_spec(
    spec: GameSpec,
    policies: Sequence[Any] | None = None,
    trust: bool = False,
    max_decisions: int | None = DEFAULT_MAX_DECISIONS,
    status: MutableSequence[float] | None = None,
) -> Game:
    """The finished game of `spec` (`seat_spec`, then `play_seated`)."""
    game, seated = seat_spec(spec, policies, trust)
    play_seated(spec, game, seated, max_decisions, status)
    return game


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
    luck_samples: int = 0,
    luck_model: str = "",
    seatings: str = DEFAULT_SEATINGS,
) -> list[GameSpec]:
    """The benchmark's games: every policy in every seat, next to every other policy and on
    every faction equally often.

    The games come in deals of the line-up's seating design (`seatings.deal_seatings`; the
    balanced design by default, docs/baselines.md "Seat order"): deal k = games k*D .. k*D +
    D - 1 plays the D arrangements of the design in order, each seat keeping one faction
    through the deal.  Deal k of a run seeded s plays the available factions rotated by s + k
    (so every faction is dealt equally over m consecutive deals, m = number of available
    factions), in a seat order rotated by (s + k) // m; with rotations by k, as before.
    `duplicate=True`: a deal's games share one seed, so they see the same chance outcomes
    wherever they reach the same chance event (docs/engine.md, Chance), and `games` must be
    whole deals; otherwise every game has its own seed.

    `seatings="rotations"` without `duplicate` is the schedule of versions before 0.2, kept so
    that their runs resume and replay: in game g seat s gets line-up entry (s + g) mod n and
    faction F_b[(s + g // n) mod n], a Latin square over every n*n games (block b = g // (n*n)
    rotates the available factions at 3-4 players).

    `luck_samples`, `luck_model`: set on every game (`GameSpec`, harness/luck.py)."""
    base = lineup(policies, num_players)
    n = num_players
    check_seatings(seatings)
    if duplicate and len(set(base)) < 2:
        raise ValueError(
            f"--duplicate needs at least two different policies to seat; the line-up "
            f"{base} is the same in every seating"
        )
    avail = list(available_factions(num_players))
    m = len(avail)
    items = tuple(sorted((config or {}).items()))
    extra = (items, luck_samples, luck_model)
    # Game seeds are 64-bit (the dice generator always reduced them so: same games as before).
    if not duplicate and seatings == ROTATIONS:
        specs = []
        for g in range(games):
            faction_set = [avail[(g // (n * n) + i) % m] for i in range(n)]
            seats = tuple(base[(s + g) % n] for s in range(n))
            factions = tuple(faction_set[(s + g // n) % n] for s in range(n))
            specs.append(
                GameSpec(g, (seed * 1_000_003 + g) % SEED_LIMIT, n, seats, factions, *extra)
            )
        return specs
    arrangements = deal_seatings(base, seatings)
    per_deal = len(arrangements)
    if duplicate and games % per_deal:
        raise ValueError(
            f"--duplicate plays each deal under all {per_deal} {seatings} seatings of the "
            f"line-up: give a number of games that is a multiple of {per_deal} "
            f"(e.g. {games - games % per_deal + per_deal}), not {games}"
        )
    # The faction deals start where the seed says (rotations: at 0, as before the designs), so
    # that short runs of other seeds (the suite's line-ups) deal other faction sets too.
    start = 0 if seatings == ROTATIONS else seed
    specs = []
    for g in range(games):
        deal, arrangement = divmod(g, per_deal)
        turn = start + deal
        faction_set = [avail[(turn + i) % m] for i in range(n)]
        factions = tuple(faction_set[(s + turn // m) % n] for s in range(n))
        game_seed = (seed * 1_000_003 + (deal if duplicate else g)) % SEED_LIMIT
        specs.append(GameSpec(g, game_seed, n, arrangements[arrangement], factions, *extra))
    return specs


# --- the result -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended, as plain data read from the engine's final state."""

    winners: tuple[int, ...]
    rewards: tuple[float, ...]
    factions: tuple[str, ...]  # the faction name of each seat
    win_kind: str  # one of WIN_KINDS
    bg_took: int  # 1 if the Bene Gesserit took the win it predicted (BG-0)
    rounds: int
    decisions: int
    # Per seat, the summed luck of its dice per metric (harness/luck.py); () when not measured.
    luck: tuple[tuple[float, ...], ...] = ()


def final_outcome(game: Game) -> Outcome:
    """The outcome of the finished `game`, from its state (winners, rewards, events)."""
    state = game.state
    if state.phase != _GAME_OVER:
        raise ValueError("the game is not over: it has no outcome yet")
    kind = "none"
    for event in reversed(state.events):
        if event[0] == EventKind.VICTORY:
            kind = WIN_KINDS[event_args(event)["kind"]]
            break
    return Outcome(
        winners=tuple(int(s) for s in state.winners),
        rewards=tuple(float(r) for r in state.rewards),
        factions=tuple(FACTION_NAMES[f] for f in state.seat_faction),
        win_kind=kind,
        bg_took=int(any(e[0] == EventKind.BG_TAKES for e in state.events[-3:])),
        rounds=int(state.round),
        decisions=int(state.decision_count),
    )
