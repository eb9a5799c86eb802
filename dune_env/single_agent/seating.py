"""Who learns and who plays the other seats: the learner-seat semantics shared by
`DuneSingleAgentEnv` (one game) and `dune_env.vector` (many games in one process).

- `parse_learner`: a fixed seat (0..n-1 or an agent name `player_i`) or "rotate".
- `parse_opponents`: one policy for all seats, a sequence by seat, or a dict {seat or agent
  name: policy}; None entries play uniformly at random with the environment's seeded generator.
- `draw_game_seed`: the seed of each new game, drawn from the environment's generator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..engine.game import IllegalOptionError
from ..match import is_builtin, play, reseed_seats, seat_policy

Policy = Callable[[np.ndarray, np.ndarray], Any]
OpponentsSpec = str | Policy | Sequence[Policy | str | None] | Mapping[Any, Policy | str] | None
MAX_REDEALS = 100  # deals tried before giving up on a game that ends before the learner acts
_MAX_GAME_SEED = 2**63 - 1


def is_policy(obj: Any) -> bool:
    """An observation callable or an engine policy (with `act(game, seat)`)."""
    return callable(obj) or callable(getattr(obj, "act", None))


def is_engine_policy(obj: Any) -> bool:
    """An engine policy (`act(game, seat) -> option`) rather than an observation callable."""
    return callable(getattr(obj, "act", None))


def parse_learner(learner: int | str, num_players: int, name_mapping: Mapping[str, int]) -> int:
    """The fixed learning seat of `learner` (0 for "rotate", whose seat moves per episode)."""
    n = num_players
    if learner == "rotate":
        return 0
    if isinstance(learner, str) and learner in name_mapping:
        return name_mapping[learner]
    if isinstance(learner, (int, np.integer)) and not isinstance(learner, bool):
        if 0 <= learner < n:
            return int(learner)
    raise ValueError(
        f"learner={learner!r} is not a seat: use 0..{n - 1}, an agent name "
        f"player_0..player_{n - 1}, or 'rotate'"
    )


def named_policy(name: str, seat: int) -> Policy:
    """The policy `name` resolved for `seat` by `dune_env.match` (seeded by the seat)."""
    policy: Any = seat_policy(name, seat)
    return policy  # an engine policy: the environments call its act(game, seat)


def parse_opponents(
    opponents: OpponentsSpec, num_players: int, name_mapping: Mapping[str, int]
) -> list[Policy | None]:
    """The policy of every seat (None: uniformly random) from any accepted form; a string is
    a registered policy name ("aggressive") or any spec `load_policy` accepts."""
    n = num_players
    if opponents is None:
        return [None] * n
    if isinstance(opponents, str):
        return [named_policy(opponents, seat) for seat in range(n)]
    if is_policy(opponents):
        return [opponents] * n  # type: ignore[list-item]
    if isinstance(opponents, Mapping):
        table: list[Policy | None] = [None] * n
        for key, policy in opponents.items():
            seat = name_mapping.get(key, key)
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
                raise ValueError(f"opponents key {key!r} is not a seat 0..{n - 1} or an agent name")
            if isinstance(policy, str):
                policy = named_policy(policy, seat)
            if not is_policy(policy):
                raise TypeError(f"opponents[{key!r}] must be a policy, not {policy!r}")
            table[seat] = policy
        return table
    if isinstance(opponents, Sequence):
        if len(opponents) != n:
            raise ValueError(f"opponents has {len(opponents)} entries; give one per seat ({n})")
        seats: list[Policy | None] = []
        for i, entry in enumerate(opponents):
            if isinstance(entry, str):
                entry = named_policy(entry, i)
            if entry is not None and not is_policy(entry):
                raise TypeError(f"opponents[{i}] must be a policy or None, not {entry!r}")
            seats.append(entry)
        return seats
    raise TypeError(
        "opponents must be a callable (observation, action_mask) -> action, an engine policy, "
        "a policy name, a sequence of them by seat, or a dict {seat: policy}; got "
        f"{type(opponents).__name__}"
    )


def reseed_opponents(opponents: Sequence[Any], game_seed: int) -> None:
    """Reseed every stateful opponent from the game's seed as the benchmark harness does
    (`dune_env.match.reseed_seats`), so that `reset(seed=s)` replays the same games whatever
    was played before."""
    reseed_seats(opponents, game_seed)


class RandomSeat:
    """A seat without a policy: uniform over the legal options, drawn from the environment's
    generator `getattr(owner, attr)` (read at each decision: a seeded reset replaces it)."""

    __slots__ = ("owner", "attr")

    def __init__(self, owner: Any, attr: str) -> None:
        self.owner = owner
        self.attr = attr

    def act(self, game: Any, seat: int) -> int:
        options = game.legal_options()
        return options[int(getattr(self.owner, self.attr).integers(len(options)))]


class IntOptions:
    """A user's engine policy whose numpy-integer options are passed on as ints (the
    environments have always accepted them; the engine takes Python ints only)."""

    __slots__ = ("policy", "name")

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.name = getattr(policy, "name", type(policy).__name__)

    def act(self, game: Any, seat: int) -> int:
        option = self.policy.act(game, seat)
        return int(option) if isinstance(option, np.integer) else option


def inline_seats(
    opponents: Sequence[Any],
    owner: Any,
    attr: str,
    external: Callable[[Any], bool] = lambda policy: not is_engine_policy(policy),
) -> list[Any]:
    """The seats `dune_env.match.play` plays for an environment: random seats (drawing from
    `getattr(owner, attr)`) and engine policies; a seat whose policy is `external` (by
    default an observation callable) is None, so play stops there and the environment asks
    that policy itself."""
    seats: list[Any] = []
    for policy in opponents:
        if policy is None:
            seats.append(RandomSeat(owner, attr))
        elif external(policy):
            seats.append(None)
        else:
            seats.append(policy if is_builtin(policy) else IntOptions(policy))
    return seats


def play_opponents(
    game: Any, seats: Sequence[Any], opponents: Sequence[Any], learner: int, where: str = ""
) -> int:
    """`dune_env.match.play` of the `inline_seats` until the learner (or an external seat) is
    to decide; the number of decisions played.  An engine policy's illegal option raises
    IllegalOptionError naming the policy and its seat (`where` says which environment)."""
    try:
        return play(game, seats, until=learner)
    except IllegalOptionError as exc:
        seat = game.state.pending_seat
        name = getattr(opponents[seat], "name", opponents[seat])
        raise IllegalOptionError(f"{where}engine policy {name!r} of player_{seat}: {exc}") from exc


def policy_labels(opponents: Sequence[Any], learner: int) -> list[str | None]:
    """The name of the policy at each seat, for the final info of an episode: "random" for a
    seat without a policy, the policy's `name` (or its type's name) otherwise, None at the
    learner's seat.  Opponent pools use it to credit each result to the opponents played."""
    labels: list[str | None] = []
    for seat, policy in enumerate(opponents):
        if seat == learner:
            labels.append(None)
        elif policy is None:
            labels.append("random")
        else:
            labels.append(str(getattr(policy, "name", None) or type(policy).__name__))
    return labels


def draw_game_seed(rng: np.random.Generator) -> int:
    """The seed of the next game, from the environment's seeded generator."""
    return int(rng.integers(_MAX_GAME_SEED))
