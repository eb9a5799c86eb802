"""Information-set Monte Carlo tree search (`MCTSPolicy`, name "mcts").

Each iteration:

1. **Determinise**: `visible_game(game, seat, rng)` re-draws what `seat` cannot know (the Bene
   Gesserit prediction, the other side's bid, the future dice), so the search never reads nor
   foresees hidden information.
2. **Select / expand** down one tree shared by all determinisations (single-observer
   ISMCTS).  An edge is keyed by (decision kind, deciding seat, option): after the same options
   chance can pose different decisions, and their options must not be mixed.  At a tree
   decision, the legal options of this determinisation are scored by UCB1 using each child's
   *availability* count (how often it was legal when its parent was visited) and its mean value
   **for the seat deciding there** (max^n for several players).  An untried option is expanded
   first, the rollout policy's own choice before the others.  Tree decisions are the searching
   seat's and, with `tree_opponents=True`, the other seats' except their battle bids: a bid
   chosen in the tree would see our own bid of the determinised world, so other seats' bids
   are always left to the rollout policy, which never reads the other side's bid.
3. **Roll out** with a fast heuristic for every seat (`rollout`, default "aggressive"), until
   the game ends or the horizon: the start of the searching seat's next turn, i.e. after every
   other player has played once (`horizon_turns` more turns with a larger value).
4. **Evaluate and back up** a reward vector, one value per seat: `game.rewards` at a terminal
   state; otherwise `evaluate`: each seat's winning chance is estimated as a softmax of a
   position score (strategic regions held count 1 each, units on the map 0.15, units and
   leaders on the card 0.05, plus a time-out bonus for the Guild growing with the round), then
   mapped to the configured win / loss rewards.

The move played is the most visited root option (ties: higher mean value, then option order).
The budget per decision is `iterations` (0: no limit) and/or `time_limit` seconds (None: no
limit), whichever is reached first; with iterations alone the policy is deterministic given its
seed, with a time limit the result depends on the machine's speed.  Decisions with one
legal option are answered at once.
"""

from __future__ import annotations

import math
import time

from ..engine import Game
from ..engine.constants import CARD, NO_ONE, Faction
from ..engine.decisions import DecisionKind
from ..engine.queries import MAP, controls
from ..engine.state import GameState, Phase
from .base import SeededPolicy
from .heuristics import AggressivePolicy, EconomicPolicy, HeuristicPolicy
from .information import visible_game

_ROLLOUTS: dict[str, type[HeuristicPolicy]] = {
    "aggressive": AggressivePolicy,
    "economic": EconomicPolicy,
}
_BID = int(DecisionKind.BID)
_ROLL = int(Phase.ROLL)


class _Node:
    __slots__ = ("children", "visits", "avail", "total")

    def __init__(self, num_players: int) -> None:
        self.children: dict[tuple[int, int, int], _Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = [0.0] * num_players


def evaluate(state: GameState) -> list[float]:
    """Heuristic reward vector of a non-terminal position (rewards if terminal)."""
    n = state.num_players
    if state.phase == Phase.GAME_OVER:
        return list(state.rewards)
    scores = []
    strategic = MAP.strategic_regions
    for seat in range(n):
        f = state.seat_faction[seat]
        if f == NO_ONE:
            scores.append(0.0)
            continue
        held = sum(1 for r in strategic if controls(state, f, r))
        u = state.units[f]
        on_map = sum(u[: 2 * CARD])
        card = u[2 * CARD] + u[2 * CARD + 1] + state.leaders[f][0]
        score = held + 0.15 * on_map + 0.05 * card
        if f == Faction.GUILD:
            score += 0.4 * (state.round - 1)
        scores.append(score)
    top = max(scores)
    weights = [math.exp(1.5 * (s - top)) for s in scores]
    total = sum(weights)
    win, loss = state.config.win_reward, state.config.loss_reward
    return [loss + (win - loss) * w / total for w in weights]


class MCTSPolicy(SeededPolicy):
    """Information-set MCTS over determinisations; see the module docstring."""

    name = "mcts"

    def __init__(
        self,
        seed: int = 0,
        iterations: int = 24,
        time_limit: float | None = None,
        exploration: float = 0.7,
        rollout: str = "aggressive",
        horizon_turns: int = 0,
        tree_opponents: bool = True,
    ) -> None:
        super().__init__(seed)
        if iterations < 1 and time_limit is None:
            raise ValueError("MCTSPolicy needs iterations >= 1 or a time_limit")
        if time_limit is not None and time_limit <= 0:
            raise ValueError(f"time_limit={time_limit} must be positive seconds or None")
        if rollout not in _ROLLOUTS:
            raise ValueError(f"rollout={rollout!r} is unknown; use one of {sorted(_ROLLOUTS)}")
        self.iterations = iterations
        self.time_limit = time_limit
        self.exploration = exploration
        self.horizon_turns = horizon_turns
        self.tree_opponents = tree_opponents
        self.default = _ROLLOUTS[rollout](seed)
        self.last_iterations = 0

    def act(self, game: Game, seat: int) -> int:
        options = game.legal_options()
        if len(options) == 1:
            return options[0]
        state = game.state
        n = state.num_players
        root = _Node(n)
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        done = 0
        while True:
            self._iterate(game, seat, root)
            done += 1
            if 0 < self.iterations <= done:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.last_iterations = done
        kind = state.pending_kind
        best, best_key = options[0], (-1, -math.inf)
        for option in options:
            child = root.children.get((kind, seat, option))
            if child is None:
                continue
            key = (child.visits, child.total[seat] / child.visits)
            if key > best_key:
                best, best_key = option, key
        return best

    # --- one iteration ----------------------------------------------------------------------

    def _in_tree(self, kind: int, decider: int, seat: int) -> bool:
        if decider == seat:
            return True
        return self.tree_opponents and kind != _BID

    def _iterate(self, game: Game, seat: int, root: _Node) -> None:
        g = visible_game(game, seat, self.rng)
        s = g.state
        n = s.num_players
        start_active = s.active_seat
        turns_left = self.horizon_turns
        left_start = False
        node = root
        path = [root]
        expanded = False
        default = self.default
        c = self.exploration
        while not g.terminal:
            # Horizon: the searching seat's next turn (after `horizon_turns` more rounds).
            if s.active_seat != start_active:
                left_start = True
            if left_start and s.active_seat == seat and s.phase == _ROLL and not any(s.dice_fixed):
                if turns_left <= 0:
                    break
                turns_left -= 1
                start_active = seat
                left_start = False
            decider = s.pending_seat
            kind = s.pending_kind
            if expanded or not self._in_tree(kind, decider, seat):
                g.apply(default.act(g, decider))
                continue
            options = g.legal_options()
            if len(options) == 1:
                g.apply(options[0])
                continue
            children = node.children
            untried = []
            best_child: _Node | None = None
            best_option = options[0]
            best_score = -math.inf
            log_terms: list[tuple[int, _Node]] = []
            for option in options:
                child = children.get((kind, decider, option))
                if child is None:
                    untried.append(option)
                else:
                    child.avail += 1
                    log_terms.append((option, child))
            if untried:
                preferred = default.act(g, decider)
                option = preferred if preferred in untried else self.choice(untried)
                child = _Node(n)
                child.avail = 1
                children[(kind, decider, option)] = child
                g.apply(option)
                path.append(child)
                node = child
                expanded = True
                continue
            for option, child in log_terms:
                mean = child.total[decider] / child.visits
                score = mean + c * math.sqrt(math.log(child.avail) / child.visits)
                if score > best_score:
                    best_score, best_child, best_option = score, child, option
            assert best_child is not None
            g.apply(best_option)
            node = best_child
            path.append(node)
        value = evaluate(s)
        for visited in path:
            visited.visits += 1
            total = visited.total
            for i in range(n):
                total[i] += value[i]


__all__ = ["MCTSPolicy", "evaluate"]
