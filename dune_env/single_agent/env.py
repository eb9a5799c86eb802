"""A single-agent Gymnasium view of `dune_v1`: one learning seat against fixed opponent policies.

    env = DuneSingleAgentEnv(num_players=5, learner="rotate")   # or learner=2
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_masks().argmax())

- Observation: the learner's flat observation vector (`OBS_LAYOUT`, Box float32); the legal
  actions are `env.action_masks()` (bool, for sb3-contrib's MaskablePPO) and `info["action_mask"]`
  is not provided, to keep the per-step info small.
- Opponents: callables `(observation, action_mask) -> action id`, engine policies (objects
  with `act(game, seat) -> option`, like the built-in heuristics) or policy names
  (`opponents="aggressive"`, loaded once per seat with `load_policy(name, seed=seat)`), one for
  all seats, a
  sequence indexed by seat, or a dict {seat or agent name: policy}; seats without a policy
  play uniformly at random among legal actions with the wrapper's seeded generator.
  `opponent_sampler(rng) -> opponents` is called at every reset instead, for opponent pools.
- Rewards: every reward the AEC environment gives the learner, including those that arrive while
  other players act, is added to the learner's next transition, so the episode return equals the
  learner's final game reward.
- Illegal actions do not raise (Gymnasium's and SB3's env checkers step unmasked random
  actions): the episode ends at once with `illegal_penalty` for the learner
  (`info["illegal_action"]` is set).  Out-of-range or non-integer actions still raise.
- The info of the step that ends a game has `final_rewards` (every seat's), `decisions` (of
  every seat in the game) and `opponents` (the name of the policy at each seat, "random" for a
  seat without one, None at the learner's), e.g. to credit results to the opponents played.
- `learner="rotate"`: the learning seat moves one seat clockwise every episode; a reset with a
  seed restarts the rotation at seat 0, so seeded resets are reproducible.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, SupportsFloat

import gymnasium
import numpy as np

from ..environment.action_table import NUM_ACTIONS
from ..environment.aec import check_action, raw_env
from ..environment.observer import OBS_LAYOUT
from .seating import (
    MAX_REDEALS,
    OpponentsSpec,
    Policy,
    draw_game_seed,
    inline_seats,
    parse_learner,
    parse_opponents,
    play_opponents,
    policy_labels,
    reseed_opponents,
)


class DuneSingleAgentEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One seat of `dune_v1` as a Gymnasium environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        learner: int | str = 0,
        opponents: OpponentsSpec = None,
        illegal_penalty: float = -1.0,
        opponent_sampler: Callable[[np.random.Generator], Any] | None = None,
        **config: Any,
    ) -> None:
        if "illegal_action" in config:
            raise ValueError(
                "DuneSingleAgentEnv always ends the episode on an illegal action; "
                "do not pass illegal_action (illegal_penalty sets the learner's reward)"
            )
        self.aec = raw_env(illegal_action="raise", illegal_penalty=illegal_penalty, **config)
        self.render_mode = self.aec.render_mode
        self.num_players = self.aec.num_players
        self.illegal_penalty = self.aec.config.illegal_penalty
        self._rotate = learner == "rotate"
        self._fixed_seat = self._parse_learner(learner)
        self._opponents = self._parse_opponents(opponents)
        self._seats = inline_seats(self._opponents, self, "np_random")
        self._sampler = opponent_sampler
        self.observation_space = gymnasium.spaces.Box(
            low=OBS_LAYOUT.low, high=OBS_LAYOUT.high, dtype=np.float32
        )
        self.action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.learner_seat = self._fixed_seat
        self._episode = -1
        self._over = True
        self._mask = np.zeros(NUM_ACTIONS, dtype=bool)

    # --- configuration -------------------------------------------------------------------------

    def _parse_learner(self, learner: int | str) -> int:
        return parse_learner(learner, self.num_players, self.aec.agent_name_mapping)

    def _parse_opponents(self, opponents: OpponentsSpec) -> list[Policy | None]:
        return parse_opponents(opponents, self.num_players, self.aec.agent_name_mapping)

    # --- Gymnasium API ---------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._episode = -1
        self._episode += 1
        if self._rotate:
            self.learner_seat = self._episode % self.num_players
        if self._sampler is not None:
            self._opponents = self._parse_opponents(self._sampler(self.np_random))
            self._seats = inline_seats(self._opponents, self, "np_random")
        # The game seed comes from the wrapper's generator, itself seeded by `seed`.  Rewards
        # only come at the end of a game; a game that ends before the learner's first decision
        # (never seen in practice) is dealt again.
        for _ in range(MAX_REDEALS):
            game_seed = draw_game_seed(self.np_random)
            self.aec.reset(seed=game_seed)
            reseed_opponents(self._opponents, game_seed)
            self._over = False
            self._play_opponents()
            if not self._over:
                break
        else:  # pragma: no cover
            raise RuntimeError("the game ended before the learner's first decision 100 times")
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._over:
            raise RuntimeError("the episode is over: call reset() before step()")
        agent = self.aec.possible_agents[self.learner_seat]
        action = check_action(action, agent)
        if not self._mask[action]:
            self._over = True
            self._mask = np.zeros(NUM_ACTIONS, dtype=bool)
            info = self._info()
            info["illegal_action"] = action
            return self._observation(), float(self.illegal_penalty), True, False, info
        self.aec.step(action)
        reward = self.aec.rewards[agent] + self._play_opponents()
        return self._observation(), float(reward), bool(self._over), False, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array (MaskablePPO's hook)."""
        return self._mask.copy()

    def strategic_regions_held(self, seat: int | None = None) -> int:
        """Strategic regions controlled by the faction of `seat` (default: the learner's) now,
        public information (DEF-6, END-1); 0 before a game, after it, or before the seat has a
        faction.  Training uses it for reward shaping without reaching into the engine."""
        game = self.aec.game
        if game is None or game.terminal:
            return 0
        from ..engine.rules import strategic_controlled

        faction = game.state.seat_faction[self.learner_seat if seat is None else seat]
        return strategic_controlled(game.state, faction) if faction >= 0 else 0

    def render(self) -> None | np.ndarray | str:  # type: ignore[override]
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # --- internals -------------------------------------------------------------------------------

    def _play_opponents(self) -> float:
        """Let the other seats act until the learner must decide or the game ends; return the
        learner's rewards collected meanwhile.  Random seats and engine policies are played
        by `dune_env.match.play`; an observation callable acts through the AEC env."""
        aec = self.aec
        game = aec.game
        assert game is not None
        learner = aec.possible_agents[self.learner_seat]
        collected = 0.0
        while not aec.terminations[learner]:
            moved = play_opponents(game, self._seats, self._opponents, self.learner_seat)
            if moved:
                aec.resume()
                collected += aec.rewards[learner]
                continue
            agent = aec.agent_selection
            if agent == learner:
                self._mask = aec.action_mask(agent).astype(bool)
                return collected
            policy = self._opponents[aec.agent_name_mapping[agent]]  # an observation callable
            assert policy is not None
            obs = aec.observe(agent)
            aec.step(policy(obs["observation"], obs["action_mask"]))
            collected += aec.rewards[learner]
        self._over = True
        self._mask = np.zeros(NUM_ACTIONS, dtype=bool)
        return collected

    def _observation(self) -> np.ndarray:
        return self.aec.observe(self.aec.possible_agents[self.learner_seat])["observation"]

    def _info(self) -> dict[str, Any]:
        info = dict(self.aec.infos.get(self.aec.possible_agents[self.learner_seat], {}))
        game = self.aec.game
        if self._over and game is not None and game.terminal:
            info["final_rewards"] = list(game.rewards)
            info["decisions"] = game.state.decision_count
            info["opponents"] = policy_labels(self._opponents, self.learner_seat)
        return info
