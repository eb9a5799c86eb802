"""`BatchedGames`: N games of `dune_v1` stepped in one process, one learning seat per game.

This is the engine behind both vector environments (`DuneVecEnv` for stable-baselines3,
`DuneVectorEnv` for Gymnasium).  Each sub-env follows `DuneSingleAgentEnv`'s semantics exactly
(same seed and same learner actions give the same trajectory; see
`dune_env.single_agent.seating`), but the games are driven through the engine directly:

- the other seats play inline until every game waits on its learner: random seats and engine
  policies (heuristics, search) act at once; the sub-envs waiting on the same observation
  policy (e.g. a frozen PPO snapshot) are gathered and answered by ONE batched call per round,
  `policy.act_batch(observations, masks)` if the policy has it, else one call per row;
- observations and masks are written into preallocated `(N, ...)` arrays, observed only for the
  seats that need them (the learner, and the seats of observation policies).

Each sub-env has its own seeded generator (the game seeds, its random seats, the opponent
sampler), and engine policies given through `opponents` are copied per sub-env, so sub-env i's
trajectory depends only on its own seed and actions, not on N or on the other sub-envs.

With a `teacher` (a built-in engine policy, e.g. "strategist"), `teacher_actions` holds, for
each learner's pending decision, the action id the teacher would choose there (-1 for a
finished sub-env): labels for imitation or kickstarted training on the learner's own states.
The teacher only looks; it never plays.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from ..engine.constants import FACTION_NAMES
from ..engine.game import Game, apply_legal, legal_options
from ..engine.state import Phase
from ..environment.action_table import (
    NUM_ACTIONS,
    action_of,
    illegal_action_message,
    legal_action_ids,
    option_of,
)
from ..environment.aec import IllegalActionError, InvalidActionError
from ..environment.config import ILLEGAL_ACTION_MODES, EnvConfig
from ..environment.observer import OBS_SIZE, Observer
from ..policies.observation import ObservationPolicy, ObservationPolicyError
from ..single_agent.seating import (
    MAX_REDEALS,
    OpponentsSpec,
    draw_game_seed,
    inline_seats,
    is_engine_policy,
    named_policy,
    parse_learner,
    parse_opponents,
    play_opponents,
    policy_labels,
    reseed_opponents,
)

_GAME_OVER = int(Phase.GAME_OVER)


class _SubEnv:
    """The state of one sub-env: its game, generator, learner seat and opponents."""

    __slots__ = (
        "index",
        "label",
        "game",
        "state",
        "observer",
        "rng",
        "episode",
        "learner",
        "opponents",
        "seats",
        "over",
        "fresh",
        "deals",
        "illegal_action",
        "teacher",
    )

    def __init__(self, index: int, label: int, num_players: int, illegal_action: str) -> None:
        self.index = index
        self.label = label  # its number in error messages
        self.game: Game | None = None
        self.state: Any = None
        self.observer = Observer(num_players)
        self.rng: np.random.Generator = seeding.np_random()[0]
        self.episode = -1
        self.learner = 0
        self.opponents: list[Any] = []
        self.seats: list[Any] = []  # what `match.play` plays: see `_inline_seats`
        self.over = True  # no game yet: reset() first
        self.fresh = False  # True until the learner's first decision of the episode
        self.deals = 0
        self.illegal_action = illegal_action
        self.teacher: Any = None  # its own copy of the teacher, reseeded with each game


class BatchedGames:
    """N games, one learning seat each, with batched opponents (see the module docstring).

    Arguments: `num_envs`; `learner`, `opponents`, `opponent_sampler`, `illegal_penalty` and
    every `dune_v1` configuration key as for `DuneSingleAgentEnv`; `illegal_action` ("raise",
    the default, or "penalize", or a sequence with one of them per sub-env): under "raise" an
    illegal learner action raises `IllegalActionError` (nothing is changed); under "penalize"
    that sub-env's episode ends with `illegal_penalty` and `info["illegal_action"]`.
    `first_index` numbers the sub-envs in error messages (a worker process of a multi-process
    vector env holds sub-envs first_index, first_index + 1, ...).  `teacher`: a built-in
    engine policy (or its name) whose choice at each learner decision is written to
    `teacher_actions` (see the module docstring).

    After `reset` / `step`, `obs` (N, OBS_SIZE) float32, `masks` (N, NUM_ACTIONS) bool,
    `rewards` (N,) float32, `terminated` (N,) bool and `learner_seats` (N,) hold the results;
    these buffers are reused by the next call (the environments hand out copies).
    """

    def __init__(
        self,
        num_envs: int,
        learner: int | str = 0,
        opponents: OpponentsSpec = None,
        opponent_sampler: Callable[[np.random.Generator], Any] | None = None,
        illegal_action: str | Sequence[str] = "raise",
        illegal_penalty: float = -1.0,
        first_index: int = 0,
        teacher: Any = None,
        **config: Any,
    ) -> None:
        if (
            isinstance(num_envs, (bool, np.bool_))
            or not isinstance(num_envs, (int, np.integer))
            or num_envs < 1
        ):
            raise ValueError(f"num_envs must be an int >= 1 (sub-envs), not {num_envs!r}")
        n_envs = int(num_envs)
        modes = per_env_illegal_modes(illegal_action, n_envs)
        self.config = EnvConfig.from_kwargs(illegal_penalty=illegal_penalty, **config)
        self.num_envs = n_envs
        n = self.config.game.num_players
        self.num_players = n
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.illegal_penalty = self.config.illegal_penalty
        self.rotate = learner == "rotate"
        self.fixed_seat = parse_learner(learner, n, self.agent_name_mapping)
        self._opponents = parse_opponents(opponents, n, self.agent_name_mapping)
        self._sampler = opponent_sampler
        self.first_index = first_index
        self.subenvs = [_SubEnv(i, first_index + i, n, modes[i]) for i in range(n_envs)]
        self.teacher = _teacher_policy(teacher)
        for sub in self.subenvs:
            sub.learner = self.fixed_seat
            sub.opponents = _private_copies(self._opponents)
            sub.seats = _inline_seats(sub)
            sub.teacher = copy.deepcopy(self.teacher)
        self.obs = np.zeros((n_envs, OBS_SIZE), dtype=np.float32)
        self.masks = np.zeros((n_envs, NUM_ACTIONS), dtype=bool)
        self.rewards = np.zeros(n_envs, dtype=np.float32)
        self.terminated = np.zeros(n_envs, dtype=bool)
        self.learner_seats = np.full(n_envs, self.fixed_seat, dtype=np.int64)
        self.teacher_actions = np.full(n_envs, -1, dtype=np.int64)
        # Rows handed to observation policies (one batch at a time).
        self._policy_obs = np.zeros((n_envs, OBS_SIZE), dtype=np.float32)
        self._policy_masks = np.zeros((n_envs, NUM_ACTIONS), dtype=np.int8)
        self._flat_masks = self.masks.reshape(-1)
        self._finals: dict[int, tuple[np.ndarray, dict[str, Any]]] = {}
        self.agent_steps = 0  # decisions applied, every seat (for benchmarks)
        self._started = False

    # --- episodes --------------------------------------------------------------------------

    def reset(
        self, seeds: Sequence[int | None] | None = None, only: np.ndarray | None = None
    ) -> None:
        """Start a new episode in every sub-env (or in those where the bool array `only` is
        True; the others keep their games); `seeds[i]` seeds sub-env i as
        `DuneSingleAgentEnv.reset(seed=seeds[i])` does (None: continue its generator)."""
        chosen = self.subenvs
        if only is not None:
            mask = np.asarray(only)
            if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise ValueError(
                    f"the sub-envs to reset must be a bool array of shape ({self.num_envs},), "
                    f"not {only!r}"
                )
            if not self._started and not mask.all():
                raise RuntimeError("the first reset() must reset every sub-env")
            chosen = [sub for sub in self.subenvs if mask[sub.index]]
        if seeds is None:
            seeds = [None] * self.num_envs
        if len(seeds) != self.num_envs:
            raise ValueError(f"got {len(seeds)} seeds for {self.num_envs} sub-envs")
        for seed in seeds:
            if seed is not None and (
                isinstance(seed, (bool, np.bool_))
                or not isinstance(seed, (int, np.integer))
                or seed < 0
            ):
                raise ValueError(f"each seed must be an int >= 0 or None, not {seed!r}")
        self._finals = {}
        self._started = True
        for sub in chosen:
            self._begin_episode(sub, seeds[sub.index])
        self._play_others(list(chosen), autoreset=True)
        self.rewards[:] = 0.0
        self.terminated[:] = False
        self._write_observations()

    def _begin_episode(self, sub: _SubEnv, seed: int | None) -> None:
        if seed is not None:
            sub.rng = seeding.np_random(int(seed))[0]
            sub.episode = -1
        sub.episode += 1
        if self.rotate:
            sub.learner = sub.episode % self.num_players
        self.learner_seats[sub.index] = sub.learner
        if self._sampler is not None:
            drawn = self._sampler(sub.rng)
            sub.opponents = parse_opponents(drawn, self.num_players, self.agent_name_mapping)
            sub.seats = _inline_seats(sub)
        sub.deals = 0
        self._deal(sub)

    def _deal(self, sub: _SubEnv) -> None:
        """A new game for `sub` (again if the last one ended before its learner's first
        decision, as DuneSingleAgentEnv deals again)."""
        sub.deals += 1
        if sub.deals > MAX_REDEALS:  # pragma: no cover - never seen
            raise RuntimeError(
                f"sub-env {sub.label}: the game ended before the learner's first decision "
                f"{MAX_REDEALS} times"
            )
        game_seed = draw_game_seed(sub.rng)
        sub.game = Game(self.config.game, game_seed)
        reseed_opponents(sub.opponents, game_seed)
        if sub.teacher is not None:
            reseed_opponents([sub.teacher], game_seed)
        sub.state = sub.game.state
        sub.observer.invalidate()
        sub.over = False
        sub.fresh = True

    def _end_episode(self, sub: _SubEnv, reward: float, extra: dict[str, Any] | None) -> None:
        """Record the end of `sub`'s episode: reward, final observation and info."""
        i = sub.index
        state = sub.state
        seat = sub.learner
        self.rewards[i] += reward
        self.terminated[i] = True
        sub.over = True
        final_obs = sub.observer.observe(state, state.decision_count, seat)
        faction = state.seat_faction[seat]
        info: dict[str, Any] = {
            "seat": seat,
            "faction": faction,
            "faction_name": FACTION_NAMES[faction] if faction >= 0 else None,
        }
        if state.phase == _GAME_OVER:
            info["final_rewards"] = list(state.rewards)
            info["decisions"] = state.decision_count
            info["opponents"] = policy_labels(sub.opponents, seat)
        if extra:
            info.update(extra)
        self._finals[i] = (final_obs, info)

    # --- stepping --------------------------------------------------------------------------

    def step(
        self, actions: Any, autoreset: bool = True, reset_finished: bool = True
    ) -> dict[int, tuple[np.ndarray, Any]]:
        """Apply one learner action per sub-env and play the others until every sub-env
        waits on its learner again.  With `autoreset`, a finished episode starts again at
        once; without it, the finished sub-env stays over, and the next step resets it
        (its action there is ignored) if `reset_finished`, or raises if not (reset it with
        `reset(only=...)`).  Returns {sub-env: (final observation, final info)} of the
        episodes that ended."""
        if not self._started:
            raise RuntimeError("call reset() before step(): the sub-envs have no games yet")
        if not reset_finished:
            for sub in self.subenvs:
                if sub.over:
                    raise RuntimeError(
                        f"sub-env {sub.label} has finished its episode: reset it before "
                        "stepping it (autoreset is disabled)"
                    )
        chosen = self.check_actions(actions)
        self.rewards[:] = 0.0
        self.terminated[:] = False
        self._finals = {}
        active: list[_SubEnv] = []
        masks = self.masks
        for sub in self.subenvs:
            i = sub.index
            if sub.over:
                self._begin_episode(sub, None)
                active.append(sub)
                continue
            action = chosen[i]
            if not masks[i, action]:  # only under "penalize": check_actions raised otherwise
                self._end_episode(sub, self.illegal_penalty, {"illegal_action": action})
                if autoreset:
                    self._begin_episode(sub, None)
                    active.append(sub)
                continue
            state = sub.state
            apply_legal(state, option_of(state.pending_kind, action))
            self.agent_steps += 1
            active.append(sub)
        self._play_others(active, autoreset)
        self._write_observations()
        return self._finals

    def check_actions(self, actions: Any) -> list[int]:
        """The learner actions as Python ints, or a clear error naming the sub-env and the
        action; nothing changes when it raises."""
        n_envs = self.num_envs
        array = np.asarray(actions)
        if array.shape != (n_envs,):
            raise ValueError(
                f"actions must have shape ({n_envs},): one action id per sub-env; got shape "
                f"{array.shape}"
            )
        if array.dtype.kind not in "iu":
            raise TypeError(
                f"actions must be integer action ids (Discrete({NUM_ACTIONS}) per sub-env), "
                f"not dtype {array.dtype}"
            )
        out_of_range = np.flatnonzero((array < 0) | (array >= NUM_ACTIONS))
        if out_of_range.size:
            i = int(out_of_range[0])
            raise InvalidActionError(
                f"sub-env {self.first_index + i}: action {array[i]} is out of range; action "
                f"ids are 0..{NUM_ACTIONS - 1}"
            )
        chosen: list[int] = array.tolist()
        legal = self.masks[np.arange(n_envs), array]
        for i in np.flatnonzero(~legal).tolist():
            sub = self.subenvs[i]
            if sub.over or sub.illegal_action != "raise":
                continue
            raise IllegalActionError(self._illegal_message(sub, chosen[i]))
        return chosen

    def _illegal_message(self, sub: _SubEnv, action: int) -> str:
        state = sub.state
        who = f"its learner player_{sub.learner}"
        message = illegal_action_message(action, state.pending_kind, legal_options(state), who)
        return f"sub-env {sub.label}: {message}"

    # --- the other seats -----------------------------------------------------------------------

    def _play_others(self, active: list[_SubEnv], autoreset: bool) -> None:
        """Play every seat but the learner in the `active` sub-envs until each waits on its
        learner (or is over, without autoreset).  Each round plays the inline seats, then
        answers each observation policy's waiting sub-envs with one batched call."""
        while active:
            waiting: dict[int, tuple[Any, list[_SubEnv]]] = {}
            for sub in active:
                self._play_inline(sub, autoreset, waiting)
            active = []
            for policy, subs in waiting.values():
                actions = self._ask_policy(policy, subs)
                for sub, action in zip(subs, actions, strict=True):
                    state = sub.state
                    apply_legal(state, option_of(state.pending_kind, action))
                active.extend(subs)
                self.agent_steps += len(subs)

    def _play_inline(
        self, sub: _SubEnv, autoreset: bool, waiting: dict[int, tuple[Any, list[_SubEnv]]]
    ) -> None:
        """Play `sub`'s random and engine-policy seats (`dune_env.match.play`) until its
        learner or an observation policy is to decide; a finished game is dealt again or ends
        the episode."""
        while True:
            assert sub.game is not None
            where = f"sub-env {sub.label}: "
            self.agent_steps += play_opponents(
                sub.game, sub.seats, sub.opponents, sub.learner, where
            )
            state = sub.state
            if state.phase == _GAME_OVER:
                if sub.fresh:  # over before the learner's first decision: deal again
                    self._deal(sub)
                    continue
                self._end_episode(sub, float(state.rewards[sub.learner]), None)
                if not autoreset:
                    break
                self._begin_episode(sub, None)
                continue
            if state.pending_seat == sub.learner:
                sub.fresh = False
                break
            policy = sub.opponents[state.pending_seat]  # an observation policy: batched
            entry = waiting.get(id(policy))
            if entry is None:
                waiting[id(policy)] = (policy, [sub])
            else:
                entry[1].append(sub)
            break

    def _ask_policy(self, policy: Any, subs: list[_SubEnv]) -> list[int]:
        """One batched call of an observation policy for the sub-envs waiting on it; the
        chosen action ids, each checked against its sub-env's mask."""
        rows = len(subs)
        obs = self._policy_obs[:rows]
        masks = self._policy_masks[:rows]
        masks[:] = 0
        flat = masks.reshape(-1)
        index: list[int] = []
        for r, sub in enumerate(subs):
            state = sub.state
            sub.observer.observe(state, state.decision_count, state.pending_seat, out=obs[r])
            index += legal_action_ids(state, r * NUM_ACTIONS)
        flat[index] = 1
        fn = policy.fn if isinstance(policy, ObservationPolicy) else policy
        batch = getattr(fn, "act_batch", None)
        if batch is not None:
            answer = np.asarray(batch(obs, masks))
            if answer.shape != (rows,):
                raise ObservationPolicyError(
                    f"{_policy_name(policy)}.act_batch returned shape {answer.shape} for "
                    f"{rows} observations; it must return one action id per row"
                )
            raw: list[Any] = answer.tolist()
        else:
            raw = [fn(obs[r].copy(), masks[r].copy()) for r in range(rows)]
        actions: list[int] = []
        for r, (sub, action) in enumerate(zip(subs, raw, strict=True)):
            try:
                if isinstance(action, (bool, np.bool_)):
                    raise TypeError
                action_id = int(action)
            except (TypeError, ValueError) as exc:
                raise ObservationPolicyError(
                    f"sub-env {sub.label}: {_policy_name(policy)} returned {action!r} for "
                    f"player_{sub.state.pending_seat}, not an action id"
                ) from exc
            if not 0 <= action_id < NUM_ACTIONS:
                raise ObservationPolicyError(
                    f"sub-env {sub.label}: {_policy_name(policy)} returned action {action_id} "
                    f"for player_{sub.state.pending_seat}; action ids are 0..{NUM_ACTIONS - 1}"
                )
            if not masks[r, action_id]:
                state = sub.state
                who = f"{_policy_name(policy)} (player_{state.pending_seat})"
                message = illegal_action_message(
                    action_id, state.pending_kind, legal_options(state), who
                )
                raise ObservationPolicyError(f"sub-env {sub.label}: {message}")
            actions.append(action_id)
        return actions

    # --- outputs -------------------------------------------------------------------------------

    def _write_observations(self) -> None:
        """Fill `obs` and `masks` with each learner's view (a finished sub-env, without
        autoreset, shows its final observation and an all-false mask)."""
        self.masks[:] = False
        index: list[int] = []
        obs = self.obs
        for sub in self.subenvs:
            i = sub.index
            if sub.over:
                final = self._finals.get(i)
                if final is not None:
                    obs[i] = final[0]
                continue
            state = sub.state
            sub.observer.observe(state, state.decision_count, sub.learner, out=obs[i])
            index += legal_action_ids(state, i * NUM_ACTIONS)
        self._flat_masks[index] = True
        if self.teacher is not None:
            self._write_teacher_actions()

    def _write_teacher_actions(self) -> None:
        """Each learner's pending decision as the teacher would take it (-1: sub-env over)."""
        for sub in self.subenvs:
            if sub.over:
                self.teacher_actions[sub.index] = -1
                continue
            option = sub.teacher.act(sub.game, sub.learner)
            self.teacher_actions[sub.index] = action_of(sub.state.pending_kind, int(option))

    def render(self, mode: str) -> list[Any]:
        """Each sub-env's game rendered as "ansi" text or an "rgb_array" image."""
        from ..environment.render import render_ansi, render_rgb

        draw = render_rgb if mode == "rgb_array" else render_ansi
        return [draw(sub.state) if sub.state is not None else None for sub in self.subenvs]


def per_env_illegal_modes(illegal_action: str | Sequence[str], num_envs: int) -> list[str]:
    modes = [illegal_action] * num_envs if isinstance(illegal_action, str) else illegal_action
    if not isinstance(modes, Sequence) or len(modes) != num_envs:
        raise ValueError(
            f"illegal_action must be one of {ILLEGAL_ACTION_MODES} or a sequence of them, one "
            f"per sub-env ({num_envs}); got {illegal_action!r}"
        )
    for i, mode in enumerate(modes):
        if mode not in ILLEGAL_ACTION_MODES:
            raise ValueError(
                f"illegal_action of sub-env {i} is {mode!r}; use one of {ILLEGAL_ACTION_MODES}"
            )
    return list(modes)


def _teacher_policy(teacher: Any) -> Any:
    """The teacher as an engine policy (None: no teacher); only a built-in policy, which is
    known to leave the game it is shown unchanged, may look at the learners' live games."""
    if teacher is None:
        return None
    from ..match import is_builtin

    policy = named_policy(teacher, 0) if isinstance(teacher, str) else teacher
    if not is_engine_policy(policy) or not is_builtin(policy):
        raise ValueError(
            f"teacher={teacher!r}: the teacher must be a built-in engine policy (a registered "
            "name such as 'strategist'), which decides on the live game without changing it"
        )
    return policy


def _private_copies(policies: list[Any]) -> list[Any]:
    """Each sub-env gets its own copy of stateful engine policies (their seeded generators),
    so that a sub-env's games do not depend on the others; observation policies (networks,
    callables) are shared, since they are batched across sub-envs."""
    copies: dict[int, Any] = {}
    table = []
    for policy in policies:
        if (
            policy is not None
            and not isinstance(policy, ObservationPolicy)
            and is_engine_policy(policy)
        ):
            if id(policy) not in copies:
                copies[id(policy)] = copy.deepcopy(policy)
            policy = copies[id(policy)]
        table.append(policy)
    return table


def _inline_seats(sub: _SubEnv) -> list[Any]:
    """The seats `match.play` plays inline; an observation policy's seat is None, so play
    stops there and its call is batched across sub-envs."""
    return inline_seats(sub.opponents, sub, "rng", _batched)


def _batched(policy: Any) -> bool:
    return isinstance(policy, ObservationPolicy) or not is_engine_policy(policy)


def _policy_name(policy: Any) -> str:
    return f"policy {getattr(policy, 'name', type(policy).__name__)!r}"
