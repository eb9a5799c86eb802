"""The harness's shared types: what a game is (`GameSpec`, from `dune_env.match`), what one
seat's result is (`SeatResult`, a row of results.csv) and what a failed game is (`GameFailure`).

A worker process sends back `Played` items: the game's record (`GameRecord`: its decisions) or
its failure.  The rows are derived from the record by the process that runs the benchmark, which
replays the decisions on its own engine (`replayed.as_rows`), not by the worker.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ...match import GameSpec, Outcome

# Upper bounds of the harness's counts (a mistyped count is refused at once, before anything is
# scheduled: a run's schedule and rows are held in memory, ~0.4 KB a game and ~0.3 KB a row).
MAX_GAMES = 1_000_000
MAX_WORKERS = 1_024
MAX_BOOTSTRAP = 100_000
MAX_DECISIONS_CAP = 1_000_000  # --max-decisions: games end after a few hundred (END-5)


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
    # The seat's summed dice luck (harness/play/luck.py) for its win and its control win; 0.0 when
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

    @classmethod
    def of(
        cls, spec: GameSpec, error: str, detail: str = "", policy: str = "", kind: str = "error"
    ) -> GameFailure:
        """The failure of the game `spec` (its index and seed)."""
        return cls(spec.index, spec.seed, error, detail, policy, kind)


@dataclass(frozen=True)
class GameRecord:
    """What a worker sends back for a finished game: the option chosen at each decision
    (`Game.chosen_options`), and each seat's summed luck per metric in a luck-adjusted run (()
    otherwise)."""

    options: tuple[int, ...]
    luck: tuple[tuple[float, ...], ...] = ()


class GameRows(list[SeatResult]):
    """The results.csv rows of one game, with the decisions they were replayed from (the run's
    sink writes them to decisions.jsonl before the rows)."""

    def __init__(self, rows: Iterable[SeatResult], decisions: tuple[int, ...]) -> None:
        super().__init__(rows)
        self.decisions = decisions


Played = tuple[GameSpec, GameRecord | GameFailure]  # what a worker sends back
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
