"""`dune_v1`: the PettingZoo AEC environment around the rules engine.

The engine (`dune_env.engine`) owns the rules; this adapter owns the agent names, the action
table, the observations, the rewards bookkeeping and the illegal-action policy.

    import dune_env
    env = dune_env.env(num_players=5)
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else policy(obs["observation"],
                                                                obs["action_mask"])
        env.step(action)

See docs/environment.md.
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from ..engine.constants import FACTION_NAMES, NO_ONE
from ..engine.decisions import DecisionKind
from ..engine.game import Game, apply_legal, legal_options
from ..engine.state import GameState, Phase
from .action_table import (
    NUM_ACTIONS,
    InvalidActionError,
    action_ids,
    action_of,
    check_action,
    illegal_action_message,
    illegal_option_message,
    option_of,
)
from .config import ENV_NAME, RENDER_MODES, EnvConfig
from .observer import OBS_LAYOUT, STATE_LAYOUT, Observer

_KIND_NAMES = tuple(k.name for k in DecisionKind)
_GAME_OVER = int(Phase.GAME_OVER)
_SETUP_DRAFT = int(Phase.SETUP_DRAFT)
_MAX_SEED = 2**63 - 1


class GameOverError(RuntimeError):
    """`last()` or `observe` of the acting agent once every agent has stepped out of a finished
    game (PettingZoo's `agent_iter()` has stopped): there is no acting agent any more."""


class IllegalActionError(InvalidActionError):
    """An action id of the table that is not legal for the pending decision (with
    illegal_action="raise").  The environment is left unchanged."""


def _no_game() -> RuntimeError:
    return RuntimeError(f"{ENV_NAME}: call reset() (or restore()) before using the environment")


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo's naming convention
    """The unwrapped `dune_v1` AEC environment.  Use `dune_env.env()` for the wrapped one.

    Keyword arguments: every field of `dune_env.engine.GameConfig` (num_players=5,
    faction_mode="random", factions, region_die_west_faces, strict_control, desert_landing,
    face_dancers, win_reward, loss_reward, skip_forced_decisions, record_events=False) and
    render_mode (None, "ansi", "human", "rgb_array"), illegal_action ("raise" or "penalize"),
    illegal_penalty (-1.0).
    """

    metadata = {
        "name": ENV_NAME,
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, **config: Any) -> None:
        EzPickle.__init__(self, **config)
        super().__init__()
        self.config = EnvConfig.from_kwargs(**config)
        self.render_mode = self.config.render_mode
        n = self.config.game.num_players
        self.num_players = n
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.action_spaces: dict[str, gymnasium.spaces.Discrete] = {
            agent: gymnasium.spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents
        }
        self.observation_spaces = {
            agent: gymnasium.spaces.Dict(
                {
                    "observation": gymnasium.spaces.Box(
                        low=OBS_LAYOUT.low, high=OBS_LAYOUT.high, dtype=np.float32
                    ),
                    "action_mask": gymnasium.spaces.Box(
                        low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8
                    ),
                }
            )
            for agent in self.possible_agents
        }
        self.state_space = gymnasium.spaces.Box(
            low=STATE_LAYOUT.low, high=STATE_LAYOUT.high, dtype=np.float32
        )
        self.observation_layout = OBS_LAYOUT
        self.state_layout = STATE_LAYOUT
        self.observer = Observer(n)
        self.game: Game | None = None
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection = self.possible_agents[0]
        self._seeder: np.random.Generator | None = None
        self._done = False
        self._rewards_dirty = False
        self._legal_key = -1  # decision_count of the cached legal options
        self._legal_kind = NO_ONE
        self._legal_opts: list[int] = []
        self._legal_ids = np.zeros(0, dtype=np.intp)
        self._skip_agent_selection: str | None = None

    # --- spaces ------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[self._known(agent)]

    def _known(self, agent: str) -> str:
        if agent not in self.agent_name_mapping:
            raise KeyError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        return agent

    # --- episode -------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.  `seed` (an int >= 0) seeds the game's dice and the random faction
        assignment; reset() without a seed continues the sequence of the last seeded reset
        (or OS entropy if there was none).  `options` is accepted and ignored."""
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"reset options must be a dict or None, not {options!r}")
        if seed is not None:
            if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
                raise TypeError(f"seed must be an int >= 0 or None, not {seed!r}")
            if not 0 <= seed <= _MAX_SEED:
                raise ValueError(f"seed must be in 0..2**63-1, not {seed}")
            game_seed = int(seed)
            self._seeder = np.random.default_rng(game_seed)
        else:
            if self._seeder is None:
                self._seeder = np.random.default_rng()
            game_seed = int(self._seeder.integers(_MAX_SEED))
        self.game = Game(self.config.game, game_seed)
        self._start_episode()

    def snapshot(self) -> dict[str, Any]:
        """The engine's JSON-compatible snapshot of the current game (full information,
        hidden fields included: for search and replays, not for players)."""
        return self._require_game().snapshot()

    def restore(self, snapshot: dict[str, Any] | str) -> None:
        """Continue from an engine snapshot (a dict, or its JSON text), e.g. one taken with
        `snapshot()` or built with `dune_env.engine.Scenario`.  The snapshot's own game
        configuration applies to that game (variants, factions); its player count must be the
        environment's.  Agents, rewards and terminations start afresh, as after reset()."""
        if isinstance(snapshot, str):
            game = Game.from_json(snapshot)
        elif isinstance(snapshot, dict):
            game = Game.restore(snapshot)
        else:
            raise TypeError(
                f"restore takes a snapshot dict or its JSON text, not {type(snapshot).__name__}"
            )
        if game.config.num_players != self.num_players:
            raise ValueError(
                f"the snapshot is a {game.config.num_players}-player game; this environment "
                f"has {self.num_players} agents"
            )
        self.game = game
        self._start_episode()

    def _start_episode(self) -> None:
        self.observer.invalidate()
        self._legal_key = -1
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._skip_agent_selection = None
        self._done = False
        self._rewards_dirty = False
        game = self._require_game()
        state = game.state
        self.infos = {agent: self._info(state, seat) for seat, agent in enumerate(self.agents)}
        if game.terminal:
            self._finish(list(game.state.rewards))
        else:
            self.agent_selection = self.agents[game.state.pending_seat]

    def _require_game(self) -> Game:
        if self.game is None:
            raise _no_game()
        return self.game

    def _info(self, state: GameState, seat: int) -> dict[str, Any]:
        faction = state.seat_faction[seat]
        deciding = not self._done and state.pending_seat == seat
        return {
            "seat": seat,
            "faction": faction,
            "faction_name": FACTION_NAMES[faction] if faction >= 0 else None,
            "decision": _KIND_NAMES[state.pending_kind] if deciding else None,
        }

    def _finish(self, rewards: list[float]) -> None:
        """The game is over: every agent terminates and receives its reward."""
        self._done = True
        for seat, agent in enumerate(self.agents):
            self.rewards[agent] = float(rewards[seat])
            self.terminations[agent] = True
        self._rewards_dirty = True
        self._accumulate_rewards()
        state = self._require_game().state
        self.infos = {a: self._info(state, seat) for seat, a in enumerate(self.possible_agents)}
        self.agent_selection = self.agents[0]

    def resume(self) -> None:
        """Catch up after the game was played on outside `step()` (the single-agent view
        plays the other seats with `dune_env.match.play`): the acting agent, infos, rewards
        and terminations follow the game, as if those seats had stepped.  (Rewards come only
        at the end of a game, so no reward is lost in between.)"""
        state = self._require_game().state
        if self._done:
            return
        if state.phase == _GAME_OVER:
            self._finish(list(state.rewards))
        else:
            self.infos = {a: self._info(state, s) for s, a in enumerate(self.possible_agents)}
            self.agent_selection = self.possible_agents[state.pending_seat]

    # --- legality: the one source of the mask and of the check in step --------------------

    def _legal(self, state: GameState) -> list[int]:
        """The engine's legal options of the pending decision (cached per decision).  Both the
        action mask and the legality check of step() come from here."""
        key = state.decision_count
        if key != self._legal_key:
            kind = state.pending_kind
            opts = legal_options(state)
            self._legal_kind = kind
            self._legal_opts = opts
            if kind >= 0:
                self._legal_ids = np.array(action_ids(kind, opts), dtype=np.intp)
            else:
                self._legal_ids = np.zeros(0, dtype=np.intp)
            self._legal_key = key
        return self._legal_opts

    def legal_actions(self) -> list[int]:
        """The legal action ids of the acting agent ([] once the game is over)."""
        if self._done:
            return []
        self._legal(self._require_game().state)
        return [int(a) for a in self._legal_ids]

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The int8 action mask of `agent` (default: the acting agent); all zeros unless that
        agent must act now."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if agent is None:
            agent = self.agent_selection
        if not self._done and agent == self.agent_selection:
            self._legal(self._require_game().state)
            mask[self._legal_ids] = 1
        return mask

    # --- observing -------------------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Fresh arrays of `agent`'s own: later steps never change what was returned."""
        game = self.game
        if game is None:
            raise _no_game()
        seat = self.agent_name_mapping.get(agent)
        if seat is None:
            raise KeyError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        state = game.state
        obs = self.observer.observe(state, state.decision_count, seat)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if agent == self.agent_selection and not self._done:
            self._legal(state)
            mask[self._legal_ids] = 1
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state vector (STATE_LAYOUT, absolute seats, hidden fields included)."""
        game = self._require_game()
        return self.observer.global_state(game.state, game.state.decision_count)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.game is not None and not self.agents:
            raise GameOverError(
                "the game is over and every agent has stepped out (env.agents is empty), so "
                "there is no acting agent for last(); the final rewards are in "
                "env.unwrapped.game.rewards, and reset() starts a new game"
            )
        agent = self.agent_selection  # (AECEnv.last, without its call of a call)
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    # --- acting ----------------------------------------------------------------------------------

    def policy_action(self, policy: Any) -> int:
        """The action id that `policy` chooses for the acting agent, for a user's own AEC loop:

            bot = load_policy("aggressive")
            for agent in env.agent_iter():
                obs, reward, termination, truncation, info = env.last()
                if termination or truncation:
                    action = None
                elif agent == "player_0":
                    action = my_agent(obs)
                else:
                    action = env.policy_action(bot)
                env.step(action)

        `policy` is an engine policy (`act(game, seat)`, e.g. `load_policy("aggressive")`), an
        observation callable `(observation, action_mask) -> action id`, or a registered name
        (`named_policy`: in the environments of `dune_env.env()` and `dune_env.raw_env()`,
        loaded once per environment and seat, seeded by the seat).  Engine policies see the
        game through their own information rules (see `dune_env.policies.base`)."""
        game = self._require_game()
        if self._done:
            raise InvalidActionError(
                "the game is over: no agent acts (step done agents with None, PettingZoo's "
                "dead-step convention)"
            )
        seat = game.state.pending_seat
        if isinstance(policy, str):
            policy = self.named_policy(policy, seat)
        if callable(getattr(policy, "act", None)):
            option = policy.act(game, seat)
            opts = self._legal(game.state)
            if option not in opts:
                name = getattr(policy, "name", type(policy).__name__)
                raise IllegalActionError(
                    illegal_option_message(f"policy {name!r}", option, self._legal_kind, opts)
                )
            return action_of(self._legal_kind, int(option))
        if callable(policy):
            obs = self.observe(self.agent_selection)
            return check_action(policy(obs["observation"], obs["action_mask"]))
        raise TypeError(
            "policy_action takes an engine policy (with act(game, seat)), a callable "
            f"(observation, action_mask) -> action id, or a policy name; not {policy!r}"
        )

    def named_policy(self, name: str, seat: int) -> Any:
        """The policy a name stands for at `seat`.  Names are resolved above the environment
        layer, by `dune_env.match`: the environment of `dune_env.env()`, `dune_env.raw_env()`
        and `dune_env.dune_v1` answers (dune_v1.py); this one refuses with a TypeError."""
        raise TypeError(
            f"policy name {name!r}: this environment resolves no policy names; build it with "
            "dune_env.env() or dune_env.raw_env(), or pass load_policy(name)"
        )

    def step(self, action: Any) -> None:
        game = self.game
        if game is None:
            raise _no_game()
        if not self.agents:
            raise InvalidActionError(
                "the game is over and every agent has already stepped out; call reset()"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise InvalidActionError(
                    f"{agent} is done (the game is over): step it with None, PettingZoo's "
                    f"dead-step convention, not {action!r}"
                )
            self._was_dead_step(None)
            return
        action = check_action(action, agent)
        state = game.state
        opts = self._legal(state)
        kind = self._legal_kind
        option = option_of(kind, action)
        if option < 0 or option not in opts:
            self._illegal(agent, action)
            return
        if self._rewards_dirty:
            self._clear_rewards()
            self._rewards_dirty = False
        self._cumulative_rewards[agent] = 0.0
        drafting = state.phase == _SETUP_DRAFT
        apply_legal(state, option)  # checked above against the engine's own legal options
        if state.phase == _GAME_OVER:
            self._finish(list(state.rewards))
        else:
            seat = state.pending_seat
            next_agent = self.possible_agents[seat]
            if drafting:
                self.infos = {a: self._info(state, s) for s, a in enumerate(self.possible_agents)}
            else:
                self.infos[agent] = self._info(state, self.agent_name_mapping[agent])
                if next_agent != agent:
                    self.infos[next_agent] = self._info(state, seat)
            self.agent_selection = next_agent
        if self.render_mode == "human":
            self.render()

    def _illegal(self, agent: str, action: int) -> None:
        if self.config.illegal_action == "raise":
            faction = self.infos[agent]["faction_name"] or "no faction yet"
            raise IllegalActionError(
                illegal_action_message(
                    action, self._legal_kind, self._legal_opts, f"{agent} ({faction})"
                )
            )
        EnvLogger.warn_on_illegal_move()
        if self._rewards_dirty:
            self._clear_rewards()
        self._cumulative_rewards[agent] = 0.0
        rewards = [0.0] * self.num_players
        rewards[self.agent_name_mapping[agent]] = self.config.illegal_penalty
        self._finish(rewards)
        self.infos[agent]["illegal_action"] = action

    # --- rendering -------------------------------------------------------------------------------

    def render(self) -> None | np.ndarray | str:
        from .render import render_ansi, render_rgb

        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        game = self._require_game()
        if self.render_mode == "rgb_array":
            return render_rgb(game.state)
        text = render_ansi(game.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def to_json(self) -> str:
        """`snapshot()` as JSON text."""
        return json.dumps(self.snapshot(), separators=(",", ":"))


class DuneAssertOutOfBounds(AssertOutOfBoundsWrapper):
    """PettingZoo's AssertOutOfBoundsWrapper, with errors that name the bad action
    (TypeError or InvalidActionError instead of a bare AssertionError)."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw: raw_env = env.unwrapped

    def step(self, action: Any) -> None:
        if action is not None:
            check_action(action, self._raw.agent_selection)
        self.env.step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self.env.last(observe)


def _forwarded(name: str) -> property:
    """A read-only attribute of the raw environment, with OrderEnforcingWrapper's
    AttributeError before reset.  (PettingZoo's __getattr__ forwarding walks every wrapper
    on each access; these attributes are read several times per step.)"""

    def get(self: DuneOrderEnforcing) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, doc=f"The raw environment's `{name}`.")


class DuneOrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper, except that stepping once every agent has stepped
    out raises (PettingZoo's only logs a warning), and that the per-step attributes are read
    from the raw environment directly."""

    agents = _forwarded("agents")
    agent_selection = _forwarded("agent_selection")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw: raw_env = env.unwrapped
        # `env()`'s stack: step and last go to the raw environment directly, doing what
        # DuneAssertOutOfBounds would have done (one layer of Python calls less per step).
        self._direct = type(env) is DuneAssertOutOfBounds and env.env is self._raw

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        if not raw.agents:
            raise InvalidActionError(
                "the game is over and every agent has already stepped out; call reset()"
            )
        self._has_updated = True
        if not self._direct:
            self.env.step(action)
            return
        if action is not None and raw._done:
            # DuneAssertOutOfBounds checks the action first; while the game runs the raw
            # step's own first check is that same one, after the game the dead step's is not.
            check_action(action, raw.agent_selection)
        raw.step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        if self._direct:
            return self._raw.last(observe)
        return self.env.last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)

    def restore(self, snapshot: dict[str, Any] | str) -> None:
        """Start an episode from a snapshot: like reset(), so no reset() is needed first."""
        self._raw.restore(snapshot)
        self._has_reset = True
        self._has_updated = True

    def __str__(self) -> str:
        return str(self.env)


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing iterator, reading the raw environment's agents directly
    (not through two properties a step)."""

    def __init__(self, env: DuneOrderEnforcing, max_iter: int) -> None:
        super().__init__(env, max_iter)
        self._wrapper = env
        self._raw = env._raw

    def __next__(self) -> str:
        raw = self._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        wrapper = self._wrapper
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return raw.agent_selection


def env(**config: Any) -> DuneOrderEnforcing:
    """The wrapped `dune_v1` environment (PettingZoo's classic stack).

    Stack: DuneOrderEnforcing(DuneAssertOutOfBounds(raw_env)).  There is no
    TerminateIllegalWrapper: illegal actions are handled by the raw environment as configured
    (illegal_action="raise" or "penalize"), so both settings mean the same wrapped or not.
    """
    return wrap(raw_env(**config))


def wrap(raw: raw_env) -> DuneOrderEnforcing:
    """`raw` in PettingZoo's classic stack of wrappers (`env`)."""
    return DuneOrderEnforcing(DuneAssertOutOfBounds(raw))
