"""The harness's shared types: what a game is (`GameSpec`, from `dune_env.match`), what one
seat's result is (`SeatResult`, a row of results.csv) and what a failed game is (`GameFailure`).

A worker process sends back `Played` items: the game's `Outcome` (plain data read from the
engine's final state) or its failure.  The rows are built from the outcome by the process that
runs the benchmark (`seat_rows`), not by the worker, whose policies may have patched its code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..match import DEFAULT_MAX_DECISIONS, WIN_KINDS, GameSpec, Outcome, PolicyActionError


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
    # The seat's summed dice luck (harness/luck.py) for its win and its control win; 0.0 when
    # the run did not measure it.  The luck-adjusted scores are `won - luck_win` and
    # `control win - luck_control`.
    luck_win: float = 0.0
    luck_control: float = 0.0


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


Played = tuple[GameSpec, Outcome | GameFailure]  # what a worker sends back
Item = tuple[GameSpec, list[SeatResult] | GameFailure]  # what the harness yields


def seat_rows(spec: GameSpec, outcome: Outcome) -> list[SeatResult]:
    """The results.csv rows of a finished game, one per seat, from its outcome."""
    n = spec.num_players
    if len(outcome.rewards) != n or len(outcome.factions) != n:
        raise ValueError(f"game {spec.index}: an outcome of {n} seats was expected")
    winners = set(outcome.winners)
    rows = []
    for seat in range(n):
        row = SeatResult(
            game=spec.index,
            seed=spec.seed,
            num_players=n,
            seat=seat,
            faction=outcome.factions[seat],
            policy=spec.seat_policies[seat],
            won=int(seat in winners),
            reward=float(outcome.rewards[seat]),
            win_kind=outcome.win_kind,
            bg_took=outcome.bg_took,
            rounds=outcome.rounds,
            decisions=outcome.decisions,
        )
        if outcome.luck:
            row.luck_win, row.luck_control = (float(v) for v in outcome.luck[seat])
        # Checked against the outcome, in case the class itself was tampered with here.
        if (row.won, row.reward, row.seat) != (int(seat in winners), outcome.rewards[seat], seat):
            raise ValueError(f"game {spec.index}: the result row of seat {seat} was altered")
        rows.append(row)
    return rows


def as_rows(item: Played) -> Item:
    """A worker's item with the outcome turned into rows (a failure if they cannot be)."""
    spec, result = item
    if isinstance(result, GameFailure):
        return spec, result
    try:
        return spec, seat_rows(spec, result)
    except (ValueError, TypeError, AttributeError, IndexError) as exc:
        return spec, GameFailure(spec.index, spec.seed, f"unusable outcome: {exc}")


__all__ = [
    "DEFAULT_MAX_DECISIONS",
    "GameFailure",
    "GameSpec",
    "Item",
    "Outcome",
    "Played",
    "PolicyActionError",
    "SeatResult",
    "WIN_KINDS",
    "as_rows",
    "seat_rows",
]
