"""`RunOptions`: how a protocol's games are played and where its results go.

The benchmark (`run_benchmark`), the sequential test (`run_sprt`) and the standard suite
(`run_suite`) each take what is played (the policies, the player count, the games or their
maximum) and one `RunOptions`; `dune-bench` builds it once from its flags (cli.py).  A value is
checked when it is built: a bad field is one ValueError (or ConfigError, TypeError) naming the
field and what would do.  The keyword arguments of earlier versions (`run_benchmark(...,
seed=3, workers=2)`) are its fields by name (`with_given`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Final

from ..engine import ConfigError, GameConfig
from ..engine.config import check_seed
from ..match import DEFAULT_MAX_DECISIONS
from ..seatings import DEFAULT_SEATINGS, check_seatings
from .play.backends import check_backend
from .play.luck import check_samples, value_model
from .play.workers import DEFAULT_MOVE_TIMEOUT, check_max_decisions

# Upper bounds of the harness's counts (a mistyped count is refused at once, before anything is
# scheduled: a run's schedule and rows are held in memory, ~0.4 KB a game and ~0.3 KB a row).
MAX_GAMES: Final = 1_000_000
MAX_WORKERS: Final = 1_024
MAX_BOOTSTRAP: Final = 100_000
HARNESS_KEYS: Final = ("num_players", "faction_mode", "factions")  # set by the harness itself


@dataclass(frozen=True)
class RunOptions:
    """What the benchmark, the sequential test and the suite take alike: the schedule's seed
    and game options, how the games are seated and scored, where and how they are played, and
    the run folder."""

    seed: int = 0
    """Seed of the schedule and of every game's dice (0..2**64-1): the same seed plays the
    same games, whatever the workers or the backend.  The suite's line-ups derive theirs from
    it."""
    config: Mapping[str, Any] = field(default_factory=dict)
    """Game options of every game (`GameConfig` keys, e.g. {"strict_control": True}); the
    player count and the factions are the harness's (`HARNESS_KEYS`).  The suite plays the
    default game: it refuses any."""
    seatings: str = DEFAULT_SEATINGS
    """How a line-up is arranged over the seats (`dune_env.seatings`: "balanced",
    "permutations" or "rotations")."""
    luck_samples: int = 0
    """Resampled rolls per roll for luck-adjusted scores (play/luck.py); 0: not adjusted."""
    luck_model: str = ""
    """The value model of the luck (.npz, as `python -m training.luck_value` writes it); "":
    the shipped one.  Only with `luck_samples`."""
    bootstrap: int = 200
    """Bootstrap resamples for the strength intervals (0: none, at most MAX_BOOTSTRAP); the
    sequential test has none."""
    workers: int | None = 1
    """Worker processes (local backend; None: all cores), or the most games in flight on Ray
    (None: all the cluster's CPUs)."""
    backend: str = "local"
    """Where the games run: "local" worker processes or "ray" tasks (play/backends.py); the
    same seed gives the same results on both."""
    address: str | None = None
    """With backend "ray": the cluster ("auto", "ray://HOST:10001", "local"; None: Ray's
    default)."""
    move_timeout: float = DEFAULT_MOVE_TIMEOUT
    """Seconds a policy may think over one decision; past it the policy loses that game."""
    max_decisions: int = DEFAULT_MAX_DECISIONS
    """Decisions a game may last; past them the deciding policy loses it."""
    trust_checkpoints: bool = False
    """Allow pickle-based model files (SB3 .zip, RLlib checkpoints), which can run code when
    loaded (SECURITY.md)."""
    out_dir: str | Path | None = None
    """The run folder (results.csv, decisions.jsonl, summary.json, report.md, plots); None:
    nothing is written."""
    resume: bool = False
    """Continue the run in `out_dir`, playing only the games not yet in its results.csv."""
    overwrite: bool = True
    """Replace an earlier run's files in `out_dir`; False (what `dune-bench` does) refuses a
    folder that is not empty unless `resume`."""
    progress: bool | str = False
    """Show a progress bar (a string: the bar's label)."""
    plots: bool = True
    """Write the PNG plots into `out_dir`."""

    def __post_init__(self) -> None:
        check_seed(self.seed, "seed")
        check_config_keys(self.config)
        object.__setattr__(self, "config", dict(self.config))  # the caller's dict may change
        check_seatings(self.seatings)
        check_luck(self.luck_samples, self.luck_model)
        if not _is_count(self.bootstrap, 0, MAX_BOOTSTRAP):
            raise ValueError(
                f"bootstrap={self.bootstrap!r}: give a number of resamples from 0 to "
                f"{MAX_BOOTSTRAP:,}"
            )
        if self.workers is not None and not _is_count(self.workers, 1, MAX_WORKERS):
            raise ValueError(f"workers={self.workers!r}: give at least 1, at most {MAX_WORKERS}")
        check_backend(self.backend, self.address)
        timeout = self.move_timeout
        if isinstance(timeout, bool) or not isinstance(timeout, int | float):
            raise TypeError(f"move_timeout={timeout!r}: give a number of seconds")
        if not 0 < timeout < math.inf:
            raise ValueError(f"move_timeout={timeout!r}: give a positive number of seconds")
        object.__setattr__(self, "move_timeout", float(timeout))
        check_max_decisions(self.max_decisions)
        if self.resume and self.out_dir is None:
            raise ValueError("resume=True needs out_dir, the folder of the run to continue")

    @property
    def folder(self) -> Path | None:
        """`out_dir` as a Path (None: the run writes nothing)."""
        return Path(self.out_dir) if self.out_dir is not None else None

    def changed(self, *names: str) -> list[str]:
        """Those of the fields `names` that are not at their default."""
        default = RunOptions()
        return [name for name in names if getattr(self, name) != getattr(default, name)]

    def check_game(self, num_players: int, games: int) -> None:
        """Refuse a number of games out of bounds, or game options that do not make a game of
        `num_players` players (ConfigError), before anything is played."""
        if not _is_count(games, 1, MAX_GAMES):
            raise ValueError(
                f"games={games!r}: give a positive number of games, at most {MAX_GAMES:,}"
            )
        GameConfig(num_players=num_players, **self.config)


FIELDS: Final = tuple(f.name for f in fields(RunOptions))
# Keyword arguments of earlier versions for which None meant the default.
_NONE_IS_DEFAULT: Final = ("move_timeout", "max_decisions")


def with_given(options: RunOptions | None, given: Mapping[str, Any]) -> RunOptions:
    """`options` (default `RunOptions()`) with the keyword arguments a protocol was called
    with: RunOptions' fields by name, as the protocols took them before (None for
    `move_timeout` or `max_decisions`: the default).  TypeError names an unknown one."""
    unknown = sorted(set(given) - set(FIELDS))
    if unknown:
        raise TypeError(
            f"unknown run option(s) {', '.join(unknown)}; RunOptions has {', '.join(FIELDS)}"
        )
    values = {k: v for k, v in given.items() if not (v is None and k in _NONE_IS_DEFAULT)}
    return replace(options or RunOptions(), **values)


def check_config_keys(config: Mapping[str, Any]) -> None:
    """Refuse a game option the harness sets itself or that `GameConfig` does not know."""
    for key in sorted(config):
        if key in HARNESS_KEYS:
            what = "--players" if key == "num_players" else "the harness's seat rotation"
            raise ConfigError(f"game option {key!r} cannot be set: it is given by {what}")
        if key not in GameConfig.known_keys():
            raise ConfigError(
                f"unknown game option {key!r}; known: "
                f"{', '.join(k for k in GameConfig.known_keys() if k not in HARNESS_KEYS)}"
            )


def check_luck(luck_samples: int, luck_model: str = "") -> None:
    """0 (no luck adjustment), or a valid sample count with a readable value model."""
    if luck_samples == 0 and not isinstance(luck_samples, bool):
        if luck_model:
            raise ValueError("a luck value model was given without luck samples: add --luck-adjust")
        return
    check_samples(luck_samples)
    value_model(luck_model).check_observation()  # fails here, before any game is played


def check_options(
    num_players: int,
    games: int,
    seed: int,
    workers: int | None,
    config: dict[str, Any] | None,
    luck_samples: int = 0,
    luck_model: str = "",
) -> None:
    """Refuse bad benchmark arguments with one clear message (ValueError or ConfigError): the
    checks of `RunOptions` and `RunOptions.check_game`, for callers of earlier versions."""
    options = RunOptions(
        seed=seed,
        workers=workers,
        config=config or {},
        luck_samples=luck_samples,
        luck_model=luck_model,
    )
    options.check_game(num_players, games)


def _is_count(value: object, low: int, high: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high
