"""What a replay is made of: a game's configuration, its seed (or its chance outcomes) and the
options the players chose.  Everything else is recomputed by the engine.

    record = ReplayRecord.from_game(game, seed=3, policies=["aggressive", "random", "random"])
    record = play_policies(["aggressive", "economic", "random", "random"], seed=3)
    record = ReplayRecord.from_snapshot(snapshot)              # a snapshot holds its chance
    record = benchmark_record("runs/benchmark", game_index=17) # a dune-bench game, replayed

`ReplayRecord.to_json()` is the replay file format ("dune-env-replay", version 1); a file with
an engine snapshot (docs/snapshot.md) is read as well.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import Game, GameConfig
from ..engine.config import check_seed
from ..engine.game import advance, begin_setup
from ..engine.records import opening_row
from ..engine.shown import parse_int, shown
from ..engine.state import GameState

REPLAY_FORMAT = "dune-env-replay"
REPLAY_VERSION = 1
MAX_REPLAY_BYTES = 16 << 20  # a replay or snapshot file: ~100 KB for a whole game
MAX_OPTIONS = 20_000  # a game's chosen options (games end after a few hundred: END-5)
MAX_CHANCE = 200_000  # a game's chance outcomes (dice faces: a few per decision)


class ReplayError(ValueError):
    """A replay source that cannot be replayed (bad file, unknown game index, mismatch)."""


@dataclass(frozen=True)
class ReplayRecord:
    """A game as (configuration, seed or chance outcomes, chosen options).

    `seed` rebuilds the dice; a record from a snapshot has no seed but the list of every chance
    outcome of the game (`chance`), which are replayed as forced outcomes.  `policies` and
    `title` are labels only."""

    config: dict[str, Any]
    options: tuple[int, ...]
    seed: int | None = None
    chance: tuple[int, ...] | None = None
    policies: tuple[str, ...] = ()
    title: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if (self.seed is None) == (self.chance is None):
            raise ReplayError("a replay record needs exactly one of seed and chance")

    # --- building ------------------------------------------------------------------------------

    @classmethod
    def from_game(
        cls,
        game: Game,
        seed: int,
        policies: Sequence[str] = (),
        title: str = "",
        extra: dict[str, Any] | None = None,
    ) -> ReplayRecord:
        """The record of `game`, which was created with `Game(game.config, seed)`."""
        return cls(
            config=game.config.to_dict(),
            options=tuple(game.chosen_options()),
            seed=seed,
            policies=tuple(policies),
            title=title,
            extra=dict(extra or {}),
        )

    @classmethod
    def from_snapshot(cls, snapshot: dict[str, Any], title: str = "") -> ReplayRecord:
        """A snapshot's history holds every chosen option and every chance outcome: enough to
        replay the game from its start without the seed."""
        try:
            game = Game.restore(snapshot)
        except (ValueError, TypeError, KeyError) as exc:
            raise ReplayError(f"not a valid engine snapshot: {exc}") from exc
        history = game.state.history
        chance = tuple(v for row in history for v in row.chance)
        return cls(
            config=game.config.to_dict(),
            options=tuple(game.chosen_options()),
            chance=chance,
            title=title,
        )

    # --- files ---------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": REPLAY_FORMAT,
            "version": REPLAY_VERSION,
            "config": self.config,
            "seed": self.seed,
            "options": list(self.options),
            "policies": list(self.policies),
            "title": self.title,
        }
        if self.chance is not None:
            data["chance"] = list(self.chance)
        if self.extra:
            data["extra"] = self.extra
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: Any) -> ReplayRecord:
        """A replay record, or an engine snapshot (recognised by its `rng` field)."""
        if not isinstance(data, dict):
            raise ReplayError(f"a replay file holds a JSON object, not {type(data).__name__}")
        if data.get("format") != REPLAY_FORMAT:
            if "rng" in data and "history" in data:
                return cls.from_snapshot(data)
            raise ReplayError(
                f"not a replay: expected a JSON object with format {REPLAY_FORMAT!r} or an "
                "engine snapshot (docs/snapshot.md)"
            )
        if data.get("version") != REPLAY_VERSION:
            raise ReplayError(
                f"replay version {data.get('version')!r} is not supported (this reader reads "
                f"version {REPLAY_VERSION})"
            )
        try:
            seed = data.get("seed")
            chance = data.get("chance")
            options = _bounded_ints(data["options"], "options", MAX_OPTIONS)
            for key in ("config", "extra"):
                if not isinstance(data.get(key, {}), dict):
                    raise ReplayError(f"the replay's {key} must be a JSON object")
            return cls(
                config=dict(data["config"]),
                options=options,
                seed=None if seed is None else check_seed(_int(seed, "the replay's seed")),
                chance=None if chance is None else _bounded_ints(chance, "chance", MAX_CHANCE),
                policies=tuple(str(p)[:200] for p in _bounded_list(data.get("policies", ()))),
                title=str(data.get("title", ""))[:1000],
                extra=dict(data.get("extra", {})),
            )
        except ReplayError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            what = f"no {exc}" if isinstance(exc, KeyError) else str(exc)[:300]
            raise ReplayError(f"malformed replay record: {what}") from None

    @classmethod
    def load(cls, path: str | Path) -> ReplayRecord:
        """Read a replay or snapshot file, with bounds: at most MAX_REPLAY_BYTES, JSON that
        Python's parser can take (not nested thousands deep), then `from_dict`."""
        try:
            with Path(path).open("rb") as handle:
                text = handle.read(MAX_REPLAY_BYTES + 1)
        except OSError as exc:
            raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from exc
        if len(text) > MAX_REPLAY_BYTES:
            raise ReplayError(f"{path} has more than {MAX_REPLAY_BYTES} bytes: not a replay")
        try:
            data = json.loads(text, parse_int=parse_int)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
            why = "nested too deeply" if isinstance(exc, RecursionError) else f"not JSON ({exc})"
            raise ReplayError(f"{path} is {why}") from None
        return cls.from_dict(data)

    # --- replaying -----------------------------------------------------------------------------

    def game_config(self) -> GameConfig:
        """The configuration, with the event log on (it changes nothing else in the game)."""
        try:
            return GameConfig.from_dict({**self.config, "record_events": True})
        except (ValueError, TypeError) as exc:
            raise ReplayError(f"bad game configuration in the replay: {exc}") from exc

    def start(self) -> Game:
        """The game at its first decision."""
        config = self.game_config()
        if self.seed is not None:
            return Game(config, self.seed)
        state = GameState(config, 0)
        state.rng.forced = list(self.chance or ())
        state.history.append(opening_row())  # as Game() does: chance before the first decision
        try:
            begin_setup(state)
            advance(state)
        except (ValueError, IndexError) as exc:  # a chance outcome the dice cannot give
            raise ReplayError(f"the replay's set-up does not replay: {exc}") from None
        return Game.from_state(state)


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ReplayError(f"{what} must be an integer, not {shown(value)}")
    return value


def _bounded_list(value: Any, limit: int = 64) -> list[Any]:
    if not isinstance(value, list) or len(value) > limit:
        raise ReplayError(f"a list of at most {limit} entries was expected, not {shown(value)}")
    return value


def _bounded_ints(value: Any, what: str, limit: int) -> tuple[int, ...]:
    """A replay's list of integers (`what`), at most `limit` of them."""
    if not isinstance(value, list):
        raise ReplayError(f"the replay's {what} must be a list of integers")
    if len(value) > limit:
        raise ReplayError(f"the replay has {len(value)} {what}, more than a game has ({limit})")
    return tuple(_int(v, f"each of the replay's {what}") for v in value)


def play_policies(
    policies: Sequence[str],
    seed: int = 0,
    num_players: int | None = None,
    config: dict[str, Any] | None = None,
) -> ReplayRecord:
    """Play a fresh game between named policies (seat s gets policies[s % len], seeded as the
    benchmark harness seeds them: `dune_env.match`) and return its record."""
    from ..match import load_seats, play, reseed_seats

    try:
        check_seed(seed)
    except (TypeError, ValueError) as exc:
        raise ReplayError(str(exc)) from None

    n = num_players or len(policies)
    if len(policies) > n:
        raise ReplayError(f"{len(policies)} policies for {n} seats: give at most one per seat")
    names = [policies[s % len(policies)] for s in range(n)]
    game_config = GameConfig.from_dict({**(config or {}), "num_players": n})
    game = Game(game_config, seed)
    bots = load_seats(names)
    reseed_seats(bots, seed)
    play(game, bots, protect=True)
    return ReplayRecord.from_game(game, seed, names, title=f"{' vs '.join(names)}, seed {seed}")


def _numbered(directory: Path, prefix: str, suffix: str) -> list[int]:
    """The N of the sub-folders named prefix + N + suffix ("4p", "lineup0"), ascending."""
    found = []
    for path in directory.glob(f"{prefix}*{suffix}"):
        number = path.name[len(prefix) : len(path.name) - len(suffix)]
        if path.is_dir() and number.isdigit():
            found.append(int(number))
    return sorted(found)


def benchmark_run_dir(
    directory: str | Path, players: int | None = None, lineup: int | None = None
) -> Path:
    """The one run folder meant by a `dune-bench --out` folder, a suite folder (`make run`:
    {N}p/lineup{J}/ per player count and line-up) or a suite's player-count folder, with
    `players` / `lineup` choosing where there is more than one (the only one is taken)."""
    path = Path(directory)
    if (path / "summary.json").exists():
        if players is not None or lineup is not None:
            raise ReplayError(f"{path} is a single run: drop --players/--lineup")
        return path
    if (path / "suite_summary.json").exists():
        counts = _numbered(path, "", "p")
        if players is None and len(counts) == 1:
            players = counts[0]
        if players is None or players not in counts:
            choice = ", ".join(map(str, counts)) or "none found"
            what = "add" if players is None else f"it has no {players}-player runs: use"
            example = path / f"{(counts or [4])[0]}p" / "lineup0"
            raise ReplayError(
                f"{path} holds a benchmark suite: {what} --players N (N: {choice}) and "
                f"--lineup J, or give a run folder such as {example}"
            )
        path = path / f"{players}p"
    elif players is not None:
        raise ReplayError(f"{path} is not a benchmark suite folder: --players needs one")
    lineups = _numbered(path, "lineup", "")
    lineups = [j for j in lineups if (path / f"lineup{j}" / "summary.json").exists()]
    if not lineups:
        if lineup is not None:
            raise ReplayError(f"{path} has no lineup folders: --lineup needs a suite folder")
        return path  # benchmark_record says what is wrong with it
    if lineup is None and len(lineups) == 1:
        lineup = lineups[0]
    if lineup is None or lineup not in lineups:
        names = []
        for j in lineups:
            try:
                meta = json.loads((path / f"lineup{j}" / "summary.json").read_text())["meta"]
                names.append(f"{j} ({' '.join(map(str, meta['policies']))})")
            except (OSError, KeyError, TypeError, ValueError):
                names.append(str(j))
        what = "add" if lineup is None else f"it has no line-up {lineup}: use"
        raise ReplayError(
            f"{path} holds {len(lineups)} line-ups: {what} --lineup J (J: {', '.join(names)})"
        )
    return path / f"lineup{lineup}"


def benchmark_record(
    out_dir: str | Path,
    game_index: int,
    trust: bool = False,
    failed: bool = False,
    own_run: bool = False,
) -> ReplayRecord:
    """Replay game `game_index` of a `dune-bench --out out_dir` run.

    The harness's schedule is a function of its arguments (kept in summary.json), so the game's
    seats, factions and seed are recomputed.  A game with its line in the run's decisions.jsonl
    is replayed from those decisions (no policy is loaded); otherwise (a failed game, a run of
    an earlier version) it is played again by freshly seeded policies through the harness's own
    game loop (`dune_env.match.play_spec`).  Either way the outcome is checked against
    results.csv.  A run folder is data from whoever made it: unless `trust`
    (SECURITY.md), its policies must be registered names or safe-format model files --
    `module:attr` policies (imported code) and pickle-based models are refused.  `own_run` (the
    harness replaying the run it just played) allows `module:attr`; pickle-based models still
    need `trust`.  `failed`: the game failed in the benchmark (a policy raised or played an
    illegal option); it is replayed up to the failure, which the title names."""
    from ..match import DEFAULT_MAX_DECISIONS, PolicyActionError, play_seated, schedule, seat_spec

    directory = Path(out_dir)
    try:
        meta = json.loads((directory / "summary.json").read_text())["meta"]
        policies, players = list(meta["policies"]), int(meta["num_players"])
        games, seed = int(meta["games_requested"]), int(meta["seed"])
        config = dict(meta.get("config") or {})
        max_decisions = int(meta.get("max_decisions", DEFAULT_MAX_DECISIONS))
    except (OSError, KeyError, TypeError, ValueError) as exc:
        if (directory / "suite_summary.json").exists():
            lineups = sorted(str(p.parent) for p in directory.glob("*p/lineup*/summary.json"))
            raise ReplayError(
                f"{directory} holds a benchmark suite: give one of its runs, e.g. "
                f"{lineups[0] if lineups else directory / '4p' / 'lineup0'}"
            ) from exc
        raise ReplayError(
            f"{directory} is not a dune-bench --out folder with a readable summary.json ({exc})"
        ) from exc
    if not 0 <= game_index < games:
        raise ReplayError(
            f"game index {game_index} is out of range: that run has games 0..{games - 1}"
        )
    duplicate = bool(meta.get("duplicate", False))
    seatings = str(meta.get("seatings", "rotations"))
    specs = schedule(policies, players, games, seed, config, duplicate, seatings=seatings)
    spec = specs[game_index]
    title = f"benchmark {directory.name}, game {game_index} (seed {spec.seed})"
    options = None if failed else _recorded_options(directory, specs, game_index)
    if options is not None:  # the game's own decisions: no policy is loaded or run
        return _replayed_record(directory, spec, options, title)
    _check_policies_allowed(policies, trust, own_run)
    game, seated = seat_spec(spec, trust=trust)
    try:
        play_seated(spec, game, seated, max_decisions)
    except PolicyActionError as exc:
        if not failed:
            raise ReplayError(f"game {game_index} failed when replayed: {exc}") from exc
        # The failure being replayed: show the game up to it.
        title += f": failed at decision {game.state.decision_count} ({exc})"[:300]
    else:
        if not failed:
            _check_against_results(game, directory, game_index)
    return _benchmark_game_record(directory, spec, game, title)


def _replayed_record(
    directory: Path, spec: Any, options: tuple[int, ...], title: str
) -> ReplayRecord:
    """The record of the benchmark game `spec` replayed from its recorded `options`, checked
    against results.csv."""
    from ..game_log import NotReplayed, replay

    try:
        game, _ = replay(spec, options)
    except NotReplayed as exc:
        raise ReplayError(f"game {spec.index} of decisions.jsonl: {exc}") from None
    _check_against_results(game, directory, spec.index)
    return _benchmark_game_record(directory, spec, game, title)


def _benchmark_game_record(directory: Path, spec: Any, game: Game, title: str) -> ReplayRecord:
    """The record of `game`, played as the benchmark game `spec` of the run in `directory`."""
    extra = {"benchmark": str(directory), "game": spec.index}
    return ReplayRecord.from_game(game, spec.seed, spec.seat_policies, title, extra)


def _recorded_options(
    directory: Path, specs: Sequence[Any], game_index: int
) -> tuple[int, ...] | None:
    """The options game `game_index` chose, from the run's decisions.jsonl (read with bounds,
    every line checked against the schedule); None when the run has no line for it."""
    from ..game_log import DECISIONS_FILE, NotReplayed, read_decisions

    try:
        return read_decisions(directory / DECISIONS_FILE, specs).get(game_index)
    except NotReplayed as exc:
        raise ReplayError(f"{directory}: {exc}") from None
    except OSError as exc:
        raise ReplayError(f"cannot read {directory / DECISIONS_FILE}: {exc}") from None


def _check_policies_allowed(policies: Sequence[str], trust: bool, own_run: bool) -> None:
    from ..policies.registry import policy_names
    from ..policies.weights import is_weights_spec

    known = set(policy_names())
    for spec in policies:
        safe = spec in known or is_weights_spec(spec)
        if not safe and not trust and not (own_run and ":" in spec and not Path(spec).exists()):
            raise ReplayError(
                f"the run's policy {spec!r} is imported code or a pickle-based model file, which "
                "can run arbitrary code: replay it only if you trust the run folder "
                "(--trust-checkpoints; see SECURITY.md)"
            )


def _check_against_results(game: Game, directory: Path, game_index: int) -> None:
    """A replayed benchmark game must end as results.csv says it did."""
    expected = _results_rows(directory, game_index)
    if expected:
        decisions = {int(r["decisions"]) for r in expected}
        winners = sorted(int(r["seat"]) for r in expected if r["won"] == "1")
        if decisions != {game.state.decision_count} or winners != sorted(game.winners):
            raise ReplayError(
                f"game {game_index} replays differently from results.csv ({decisions} decisions, "
                f"winners {winners}; replay: {game.state.decision_count}, {sorted(game.winners)})"
                ": the policies or the engine changed since the benchmark"
            )


def _results_rows(directory: Path, game_index: int) -> list[dict[str, str]]:
    path = directory / "results.csv"
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        return [row for row in csv.DictReader(handle) if row.get("game") == str(game_index)]
