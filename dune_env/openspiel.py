"""Dune as an OpenSpiel game: `pyspiel.load_game("python_dune", {"players": 4})`.

Importing this module registers the Python game "python_dune" with OpenSpiel (it needs the
optional dependency: `pip install "dune-env[openspiel]"`).  The game is the engine's game:

- players are seats 0..n-1; the action space is the `dune_v1` action table
  (`dune_env.environment.action_table`, `Discrete(NUM_ACTIONS)`), so an action id means the
  same here as in the PettingZoo environment;
- chance is explicit: every die the engine rolls (and every set-up draw: the region die, the
  property-token shuffle, the first player, the random faction assignment) is a chance node
  with uniform outcomes.  The engine itself rolls inside `apply`; the adapter finds the draws an
  action will make, one at a time (`_next_draw_range`), exposes each as a chance node, then
  pushes the chosen outcomes onto the engine's `rng.forced` queue and applies the action, so the
  engine's behaviour is unchanged;
- information state and observation: the egocentric `dune_v1` observation of the seat (tensor)
  and a readable text of the public board plus that seat's private information (string); neither
  holds another seat's bid in progress or the Bene Gesserit prediction (unless the seat is the
  Bene Gesserit).  They describe the current position, not the seat's whole history (no perfect
  recall);
- returns are the END-7 rewards at the end (general-sum: every winner gets `win_reward`, every
  other seat `loss_reward`).

Parameters (all optional): one per `GameConfig` field but record_events (derived from
`dune_env.engine.config.CONFIG_OPTIONS`): players (3-8, default 4), faction_mode, factions
(faction ids for "assigned", separated by ";", e.g. "0;1;2"), region_die_west_faces ("1;4"),
every rule variant, win_reward, loss_reward, skip_forced_decisions.  See docs/environment.md
("OpenSpiel").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised only without OpenSpiel
    raise ImportError(
        "dune_env.openspiel needs OpenSpiel (the pyspiel module): "
        'pip install "dune-env[openspiel]"  (or: pip install open_spiel)'
    ) from exc

from .engine import information
from .engine.config import (
    CONFIG_OPTIONS,
    FACTIONS,
    PLAYERS,
    REWARD,
    SECTORS,
    ConfigError,
    ConfigOption,
    GameConfig,
)
from .engine.constants import (
    FACES_PER_DIE,
    FACTION_NAMES,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MIN_PLAYERS,
    NO_ONE,
    NUM_TOKEN_TYPES,
    PROPERTY_TOKENS_PER_TYPE,
    available_factions,
)
from .engine.core import ask
from .engine.decisions import DecisionKind
from .engine.game import advance, apply_legal, begin_setup, legal_options
from .engine.records import opening_row
from .engine.rng import ChanceRng
from .engine.rules import ATTACKER, legal_prediction
from .engine.state import GameState, Phase
from .environment.action_table import (
    ACTIONS,
    NUM_ACTIONS,
    action_of,
    decode_action,
    illegal_action_message,
    legal_action_ids,
)
from .environment.observer import OBS_LAYOUT, PUBLIC_LAYOUT, STATE_LAYOUT, Observer
from .environment.render import render_ansi

SHORT_NAME = "python_dune"
DEFAULT_PLAYERS = 4
_GAME_OVER = int(Phase.GAME_OVER)
_ATTACKER_BID = int(Phase.BATTLE_BID_ATTACKER)
_DEFENDER_BID = int(Phase.BATTLE_BID_DEFENDER)

# The largest range of one draw: a die, the first player, the token shuffle, the faction shuffle.
MAX_CHANCE_OUTCOMES = max(
    FACES_PER_DIE,
    MAX_PLAYERS,
    NUM_TOKEN_TYPES * PROPERTY_TOKENS_PER_TYPE,
    max(len(available_factions(n)) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)),
)
# Player decisions per seat per round allowed for by max_game_length: a generous allowance,
# not a proven bound.  Uniform random play makes at most ~70 decisions per seat in a whole
# game (benchmarks/bench_openspiel.py).
_DECISIONS_PER_SEAT_AND_ROUND = 150


def _parameter_value(option: ConfigOption, value: Any) -> Any:
    """A configuration value as an OpenSpiel parameter (ints, floats, bools, strings)."""
    if option.kind in (FACTIONS, SECTORS):
        return ";".join(str(v) for v in value or ())
    if option.kind == REWARD:
        return float(value)
    if option.kind == PLAYERS:
        return DEFAULT_PLAYERS
    return value


# Every GameConfig field that has an OpenSpiel parameter (its `ConfigOption.parameter`), with
# its default; record_events has none (the adapter never records events).
_DEFAULTS = GameConfig()
PARAMETERS: dict[str, Any] = {
    o.parameter: _parameter_value(o, getattr(_DEFAULTS, o.name))
    for o in CONFIG_OPTIONS
    if o.parameter
}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Dune, the Dice Game (dune-env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


def _int_list(name: str, text: str) -> tuple[int, ...]:
    """A list parameter: integers separated by ';' (or ','; but OpenSpiel's game strings,
    used to serialize games, split on ',')."""
    parts = [part.strip() for part in text.replace(",", ";").split(";")]
    try:
        return tuple(int(part) for part in parts if part)
    except ValueError:
        raise ConfigError(
            f"{name}={text!r} must be integers separated by ';', e.g. '1;4'"
        ) from None


def config_from_params(params: dict[str, Any]) -> GameConfig:
    """The engine configuration of OpenSpiel game parameters (validated by GameConfig)."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ConfigError(
            f"unknown parameter(s) {unknown} for {SHORT_NAME}; known: {sorted(PARAMETERS)}"
        )
    p = {**PARAMETERS, **params}
    kwargs: dict[str, Any] = {"record_events": False}
    for option in CONFIG_OPTIONS:
        if not option.parameter:
            continue
        value = p[option.parameter]
        if option.kind == FACTIONS:
            value = _int_list(option.parameter, value) or None
        elif option.kind == SECTORS:
            value = _int_list(option.parameter, value)
        elif option.kind == REWARD:
            value = float(value)
        kwargs[option.name] = value
    return GameConfig(**kwargs)


# --- chance: the one place that knows how the engine draws ------------------------------------


class _DrawNeeded(Exception):
    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.n = n


class _ProbeRng(ChanceRng):
    """Stands in for the engine's generator on a scratch copy: hands out the outcomes already
    chosen (in order, like `DiceRng.forced`), and stops the run at the first further draw,
    reporting its range.  (A subclass: the compiled `GameState.rng` takes only a `ChanceRng`.)"""

    __slots__ = ()

    def __init__(self, outcomes: list[int]) -> None:
        super().__init__(0, outcomes)  # turn_roll 0: the roll counter is unused here

    def prefix(self, *where: int) -> int:  # the event key; the probe needs none
        return 0

    def below(self, n: int, prefix: int = 0, index: int = 0) -> int:  # what `core.draw` calls
        if self.forced:
            return self.forced.pop(0)
        raise _DrawNeeded(n)

    def clone(self) -> _ProbeRng:
        return _ProbeRng(self.forced)


def _next_draw_range(run: Callable[[Any], object], chosen: list[int]) -> int | None:
    """The range n of the next chance draw (uniform over 0..n-1) that `run(rng)` -- a step of
    the engine run on a scratch state with the generator `rng` -- makes once the draws
    `chosen` are fixed, or None if it makes no further draw.  Draws are sequential and the
    range of one may depend on those before it, so this finds one draw at a time: the step is
    run with a generator that replays `chosen` and stops at the next draw.  (This is the one
    function that depends on how the engine draws: `core.draw` calls
    `state.rng.below(n, event, index)` with `event` from `state.rng.prefix(...)`.)"""
    try:
        run(_ProbeRng(chosen))
    except _DrawNeeded as need:
        return need.n
    return None


def _set_up(config: GameConfig, rng: Any = None, forced: list[int] | None = None) -> GameState:
    """`engine.game.new_state` with the set-up draws given: by `rng` (a stand-in generator)
    or as `forced` outcomes queued on the state's own generator; then on to the first real
    decision."""
    state = GameState(config, 0)
    if rng is not None:
        state.rng = rng
    state.rng.forced.extend(forced or [])
    state.history.append(opening_row())  # chance before the first decision
    begin_setup(state)
    advance(state)
    return state


def _apply_on_scratch(engine: GameState, option: int, rng: Any) -> None:
    scratch = engine.clone()
    scratch.rng = rng
    apply_legal(scratch, option)


class _Copied:
    """Holds the engine state in a `DuneState`.  OpenSpiel clones a Python state with
    `copy.deepcopy`; this makes that copy the engine's own cheap `GameState.clone()`."""

    __slots__ = ("engine",)

    def __init__(self, engine: GameState | None) -> None:
        self.engine = engine

    def __deepcopy__(self, memo: dict[int, Any]) -> _Copied:
        return _Copied(None if self.engine is None else self.engine.clone())


# --- the game -----------------------------------------------------------------------------------


class DuneGame(pyspiel.Game):
    """The OpenSpiel game: load with `pyspiel.load_game("python_dune", {...})`."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.config = config_from_params(params)
        n = self.config.num_players
        rewards = (self.config.win_reward, self.config.loss_reward)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=MAX_CHANCE_OUTCOMES,
            num_players=n,
            min_utility=float(min(rewards)),
            max_utility=float(max(rewards)),
            utility_sum=None,
            max_game_length=_DECISIONS_PER_SEAT_AND_ROUND * MAX_ROUNDS * n,
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> DuneState:
        return DuneState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> DuneObserver:
        return DuneObserver(
            self.config.num_players,
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
            params,
        )


class DuneState(pyspiel.State):
    """A position: the engine state, plus the player action whose chance draws are being
    chosen (if any).  At a chance node the engine state is the one before that action."""

    def __init__(self, game: DuneGame) -> None:
        super().__init__(game)
        self.config: GameConfig = game.config
        self._box = _Copied(None)  # the engine state; None until the set-up draws are made
        self._option = NO_ONE  # the engine option waiting for its draws
        self._chosen: list[int] = []  # the draws chosen so far for it
        self._draw_range: int | None = None  # the range of the next draw, at a chance node
        self._board: str | None = None  # render_ansi of the engine state, once asked for
        self._probe(None)

    @property
    def engine(self) -> GameState | None:
        """The engine state (None during the set-up draws).  Read-only for callers."""
        return self._box.engine

    # --- chance ---------------------------------------------------------------------------

    def _probe(self, engine: GameState | None) -> None:
        """Find the next draw of the action being applied (the set-up while `engine` is
        None), or apply it with the chosen draws if it needs no more."""
        if engine is None:
            config = self.config
            self._draw_range = _next_draw_range(lambda rng: _set_up(config, rng), self._chosen)
        else:
            option = self._option
            self._draw_range = _next_draw_range(
                lambda rng: _apply_on_scratch(engine, option, rng), self._chosen
            )
        if self._draw_range is not None:
            return
        if engine is None:
            self._box.engine = _set_up(self.config, forced=self._chosen)
            if self._box.engine.rng.forced:  # pragma: no cover - as below
                raise AssertionError("the set-up made fewer draws than the probe found")
        else:
            engine.rng.forced.extend(self._chosen)
            apply_legal(engine, self._option)
            if engine.rng.forced:  # pragma: no cover - would mean the probe missed a draw
                raise AssertionError("the engine made fewer draws than the probe found")
        self._option = NO_ONE
        self._chosen = []
        self._board = None

    def board_text(self) -> str:
        """The public board as text (`render_ansi`), kept until the next action."""
        if self._board is None:
            engine = self.engine
            self._board = "set-up draws in progress" if engine is None else render_ansi(engine)
        return self._board

    def chance_outcomes(self) -> list[tuple[int, float]]:
        n = self._draw_range
        if n is None:
            raise ValueError("chance_outcomes() called at a node that is not a chance node")
        return [(outcome, 1.0 / n) for outcome in range(n)]

    # --- OpenSpiel API ------------------------------------------------------------------------

    def current_player(self) -> int:
        if self._draw_range is not None:
            return pyspiel.PlayerId.CHANCE
        assert self.engine is not None
        if self.engine.phase == _GAME_OVER:
            return pyspiel.PlayerId.TERMINAL
        return int(self.engine.pending_seat)

    def is_terminal(self) -> bool:
        return (
            self._draw_range is None and self.engine is not None and self.engine.phase == _GAME_OVER
        )

    def _legal_actions(self, player: int) -> list[int]:
        engine = self.engine
        if (
            engine is None
            or self._draw_range is not None
            or engine.phase == _GAME_OVER
            or player != engine.pending_seat
        ):
            return []
        return sorted(legal_action_ids(engine))

    def _apply_action(self, action: int) -> None:
        if self._draw_range is not None:
            if not 0 <= action < self._draw_range:
                raise ValueError(f"chance outcome {action} is outside 0..{self._draw_range - 1}")
            self._chosen.append(int(action))
            self._probe(self.engine)
            return
        engine = self.engine
        assert engine is not None
        if engine.phase == _GAME_OVER:
            raise ValueError("the game is over: no action can be applied")
        kind, option = decode_action(int(action))
        if kind != engine.pending_kind or option not in legal_options(engine):
            raise ValueError(
                illegal_action_message(
                    int(action),
                    engine.pending_kind,
                    sorted(legal_options(engine)),
                    f"seat {engine.pending_seat}",
                )
            )
        self._option = option
        self._chosen = []
        self._probe(engine)

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> DuneState:
        """A copy of this position with what `player` cannot see drawn afresh (for IS-MCTS):
        the Bene Gesserit prediction (BG-0), uniform over its legal options, unless `player`
        is the Bene Gesserit; and during the defender's bid, the attacker's finished bid
        (BATTLE-5), rebuilt by legal bid steps chosen uniformly, unless `player` attacks.
        `probability_sampler()` returns uniform floats in [0, 1).  The copy's own history
        (engine and OpenSpiel) then differs from a real game's."""

        def pick(options: list[int]) -> int:
            u = float(probability_sampler())
            return options[min(int(u * len(options)), len(options) - 1)]

        copy: DuneState = self.clone()
        engine = copy.engine
        if engine is None or copy._draw_range is not None or engine.phase == _GAME_OVER:
            return copy  # nothing is hidden before the set-up ends; chance nodes: as they are
        # Who may see what: dune_env.engine.information (its `resample` draws bids otherwise).
        if engine.bg_prediction >= 0 and not information.sees_prediction(engine, player):
            engine.bg_prediction = pick(legal_prediction(engine))
        if engine.phase == _DEFENDER_BID and not information.sees_bid(engine, player, ATTACKER):
            engine.bid_units[0] = [0] * len(engine.bid_units[0])
            engine.bid_leaders[0] = [0] * len(engine.bid_leaders[0])
            engine.phase = _ATTACKER_BID
            ask(engine, DecisionKind.BID, engine.active_seat)
            while engine.phase == _ATTACKER_BID:  # ends with "bid done" (BID_DONE is legal)
                apply_legal(engine, pick(legal_options(engine)))
            if engine.pending_seat != self.current_player():  # pragma: no cover
                raise AssertionError("resampling the attacker's bid changed who decides")
        copy._board = None
        return copy

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance outcome {action}"
        return ACTIONS[action].name

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.config.num_players
        assert self.engine is not None
        return [float(r) for r in self.engine.rewards]

    def __str__(self) -> str:
        if self.engine is None:
            return "Dune: set-up draws in progress"
        text = self.board_text()
        if self._draw_range is not None:
            text += (
                f"\nApplying {ACTIONS[action_of(self.engine.pending_kind, self._option)].name}"
                f": chance draw {len(self._chosen) + 1} (0..{self._draw_range - 1})"
            )
        return text


# --- observations ---------------------------------------------------------------------------


class DuneObserver:
    """OpenSpiel's PyObserver for Dune.

    - private info of a single player (the default, and OpenSpiel's information state): the
      seat's egocentric `dune_v1` observation (`OBS_LAYOUT`) and, as a string, the public board
      plus that seat's private information;
    - no private info (the public observer): the public board only (`render_ansi`), and the
      public part of the observation in absolute seats;
    - all players' private info: the global state (`STATE_LAYOUT`, hidden fields included).
    `perfect_recall` is accepted but not honoured: every view is of the current position only
    (so the "information state" is the observation, not the seat's whole history).
    """

    def __init__(self, num_players: int, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        # perfect_recall is accepted (OpenSpiel asks for it for the information state) but
        # not honoured: every view describes the current position only.
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            self.kind = "player"
            fields = OBS_LAYOUT.fields
        elif private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            self.kind = "all"
            fields = STATE_LAYOUT.fields
        else:
            self.kind = "public"
            fields = PUBLIC_LAYOUT.fields
        size = sum(f.size for f in fields)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {f.name: self.tensor[f.start : f.stop].reshape(f.shape) for f in fields}
        self._observer = Observer(num_players)

    def set_from(self, state: DuneState, player: int) -> None:
        engine = state.engine
        if engine is None:
            self.tensor.fill(0.0)
            return
        if self.kind == "player":
            self._observer.observe(engine, None, player, out=self.tensor)
        elif self.kind == "all":
            self.tensor[:] = self._observer.global_state(engine, None)
        else:
            self.tensor[:] = self._observer.public(engine, None)

    def string_from(self, state: DuneState, player: int) -> str:
        engine = state.engine
        if engine is None:
            return "set-up draws in progress"
        board = state.board_text()
        if self.kind == "all":
            return board + "\n" + _hidden_text(engine)
        if self.kind == "public":
            return board
        faction = engine.seat_faction[player]
        who = FACTION_NAMES[faction] if faction >= 0 else "no faction yet"
        lines = [f"You are seat {player} ({who}).", board]
        lines += _private_text(self._observer.observe(engine, None, player), player, engine)
        return "\n".join(lines)


def _private_text(obs: np.ndarray, seat: int, engine: GameState) -> list[str]:
    """What only `seat` knows, read from its own observation `obs` (so never more than it
    sees)."""
    lines = []
    units = OBS_LAYOUT.raw(obs, "own_bid_units")
    leaders = OBS_LAYOUT.raw(obs, "own_bid_leaders")
    n = engine.config.num_players
    bid = []
    for rel in range(n):
        regular, elite = (int(x) for x in units[rel])
        if regular or elite or leaders[rel]:
            owner = (seat + rel) % n
            bid.append(
                f"seat {owner}: {regular} units, {elite} Sardaukar, {int(leaders[rel])} leaders"
            )
    if bid:
        lines.append("Your side's bid so far: " + "; ".join(bid))
    prediction = OBS_LAYOUT.raw(obs, "bg_prediction")
    if prediction.any():
        lines.append(f"Your prediction: {FACTION_NAMES[int(np.argmax(prediction))]}")
    return lines


def _hidden_text(engine: GameState) -> str:
    parts = []
    if engine.bg_prediction >= 0:
        parts.append(f"Bene Gesserit prediction: {FACTION_NAMES[engine.bg_prediction]}")
    for side, name in ((0, "attacker"), (1, "defender")):
        if any(engine.bid_units[side]) or any(engine.bid_leaders[side]):
            parts.append(
                f"{name} bid: units {list(engine.bid_units[side])}, "
                f"leaders {list(engine.bid_leaders[side])}"
            )
    return "\n".join(parts)


pyspiel.register_game(GAME_TYPE, DuneGame)
