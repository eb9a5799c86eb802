"""Information-set Monte Carlo tree search (`MCTSPolicy`, name "mcts").

The search improves on a fast heuristic (`rollout`: "aggressive" (default), "economic" or
"strategist"; the registered `mcts-strategist-4`, `-16`, `-64` search on the strategist with 4,
16 and 64 iterations, docs/baselines.md has their budget curve): the heuristic plays
every decision that is not worth a search, serves as the prior of the search and plays the
rollouts.  A decision of the searching seat is *searched* when its kind is strategically
meaningful (`SEARCHED_KINDS`: dice to keep, alliance offer and answer, Kanly, landing, move
target and moves, battle order, bids, reorganisation, consent, grants and gifts) and it has more
than one candidate; any other decision is answered by the heuristic at once.

**Candidates.**  The legal options, except for FIX_DICE, whose up to 127 masks are too many for
the budget: the heuristic's mask and the legal masks differing from it by one die (progressive
widening around the prior).

**Root: sequential halving over paired determinisations.**  The budget of `iterations`
iterations is split into ceil(log2(#candidates)) rounds; in each round every surviving
candidate is tried on the same freshly drawn determinisations (common random numbers: the
same re-drawn secrets, the same future dice, the same rollout-policy seed), then the better
half (by mean reward over all its iterations) survives.  Pairing removes most of the noise of
the comparison, which at this budget matters more than exploration.  The move played is the
best survivor; ties go to the heuristic's choice.

**One iteration**, for a root candidate and a determinisation seed:

1. **Determinise**: `visible_game(game, seat, DiceRng(seed))` re-draws what `seat` cannot know
   (the Bene Gesserit prediction, the other side's bid, the future dice), so the search never
   reads nor foresees hidden information.
2. **Select / expand** below the root candidate in one tree shared by all determinisations
   (single-observer ISMCTS).  The tree holds only the searching seat's searched decisions;
   every other decision on the way (the other seats') is played by the heuristic.  An edge is
   keyed by (decision kind, option): after the same options chance can pose different
   decisions, and their options must not be mixed.  Candidates are scored PUCT-like,
   `Q + c * P * sqrt(A) / (1 + n)`, with `n` the child's visits, `A` its *availability* count
   (how often it was a candidate when its parent was visited), `Q` its mean reward (unvisited:
   the parent's mean), and a prior `P` giving `prior_weight` to the heuristic's choice and
   sharing the rest among the other candidates.  One new node is added per iteration.
3. **Roll out** with the heuristic for every seat, by default to the **end of the game** (a
   game lasts at most six rounds, and whoever holds the Guild wins most time-outs, END-5,
   which a cut-off evaluation can misjudge).  With `rollout_rounds=k` a rollout stops at the
   first decision after the end of round r + k (r: the searched decision's round; from round
   6 - k on it reaches the end of the game) and `evaluate` scores the position.  The registered
   `mcts-strategist-N` use k = 2: at 16 iterations as strong as rollouts to the end in 1,008
   paired games, at 1.5x their iterations per CPU-second; k = 1 (2.3x) lost 2.9 points of
   control wins (docs/baselines.md, MCTS).  The default `mcts` rolls out to the end.
   `max_rollout_decisions` > 0 cuts rollouts after that many decisions instead.
4. **Back up** the searching seat's reward, mapped to [0, 1] (1 = win).

**Simulations run on the bare state**: the determinised clone's configuration has the event log
switched off (no policy reads events), and the heuristic's handlers and the engine's
`apply_legal` are called directly, by a loop compiled with the heuristics
(`heuristics.playout.Playout`), without the `Game` wrapper, the copy of the legal options and
the re-check of an option the heuristic took from them; an iteration keeps the die tables of
a turn over its dice decisions (`heuristics.dice.fix_dice_in_turn`).  The
games simulated, hence the decisions, are the same as through the public API (tested;
`benchmarks/bench_mcts.py --compare-ref` checks it); most of an iteration is the heuristic's
and the engine's own work.

**Tree reuse** (`reuse_tree=True`, off by default).  The tree is open-loop: an edge is a
(kind, option) pair, whatever chance did before it, so after a die roll or another seat's
decision the subtree below the option played mixes positions this seat can now tell apart.
It is reused only when the seat's next search comes right after the option played, with no
chance outcome and no other decision between (the history shows both; about half of the
strategist's searched decisions at 4 players, e.g. a move after its target): then the
information set is the one its determinisations were drawn for, and its visits are kept on top
of the new iterations.  The default `mcts` and the measured budget curve do not use it.

**The root's statistics** of the last decision are kept in `last_search` (a `RootSearch`: the
heuristic's choice, the candidates, their visits and mean rewards, the option played; None
when the decision was not searched): targets for distilling the search into a network, whose
visit counts say more than the single option played (`training/distill.py`).

With iterations alone the policy is deterministic given its seed; with a `time_limit` (seconds,
checked after each determinisation) the result depends on the machine's speed.

Default (`mcts`): 24 iterations per searched decision, rollouts to the end.  Speed and strength
by budget: docs/baselines.md (MCTS); `benchmarks/bench_mcts.py` prints iterations/s.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import NamedTuple

from ..engine import Game, GameConfig, GameState, Phase
from ..engine.constants import CARD, NO_ONE, Faction
from ..engine.decisions import DecisionKind
from ..engine.game import apply_legal, legal_options
from ..engine.information import resample as visible_game
from ..engine.records import HistoryRow
from ..engine.rng import DiceRng
from ..engine.rules import strategic_controlled, units, units_on_map
from .base import SeededPolicy
from .heuristics import AggressivePolicy, EconomicPolicy, HeuristicPolicy
from .heuristics import dice as _dice
from .heuristics.handlers import Handler
from .heuristics.playout import Playout
from .heuristics.strategist import StrategistPolicy

_ROLLOUTS: dict[str, type[HeuristicPolicy]] = {
    "aggressive": AggressivePolicy,
    "economic": EconomicPolicy,
    "strategist": StrategistPolicy,
}
_FIX_DICE = int(DecisionKind.FIX_DICE)
_GAME_OVER = int(Phase.GAME_OVER)

# The rollout horizon of the registered `mcts-strategist-N` (issue 34): at 16 iterations as
# strong as rollouts to the end in 1,008 paired games, and with the die tables kept over a turn
# 1.7x the iterations per CPU-second of the search before; 1 round: 2.65x, but weaker
# (docs/baselines.md, MCTS).
STRATEGIST_ROLLOUT_ROUNDS = 2

SEARCHED_KINDS: frozenset[int] = frozenset(
    int(k)
    for k in (
        DecisionKind.FIX_DICE,
        DecisionKind.ALLY_OFFER,
        DecisionKind.ALLY_ANSWER,
        DecisionKind.KANLY,
        DecisionKind.LAND,
        DecisionKind.MOVE_TARGET,
        DecisionKind.MOVE,
        DecisionKind.BATTLE_ORDER,
        DecisionKind.BID,
        DecisionKind.REORGANIZE,
        DecisionKind.LAND_CONSENT,
        DecisionKind.ALLY_GRANT,
        DecisionKind.SPICE_GIFT,
        DecisionKind.DICE_SPLIT,
    )
)


class RootSearch(NamedTuple):
    """The root of one searched decision: the heuristic's choice (`preferred`), the candidate
    options, each one's visits and mean reward in [0, 1] (0.0 when unvisited), and the option
    played (`choice`)."""

    kind: int
    preferred: int
    candidates: tuple[int, ...]
    visits: tuple[int, ...]
    means: tuple[float, ...]
    choice: int


class _Node:
    __slots__ = ("children", "visits", "avail", "total")

    def __init__(self) -> None:
        self.children: dict[tuple[int, int], _Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0


def evaluate(state: GameState) -> list[float]:
    """Heuristic reward vector of a non-terminal position (rewards if terminal)."""
    n = state.num_players
    if state.phase == Phase.GAME_OVER:
        return list(state.rewards)
    scores = []
    for seat in range(n):
        f = state.seat_faction[seat]
        if f == NO_ONE:
            scores.append(0.0)
            continue
        held = strategic_controlled(state, f)
        on_map = units_on_map(state, f)
        card = units(state, f, CARD) + state.leaders[f][0]
        score = held + 0.15 * on_map + 0.05 * card
        if f == Faction.GUILD:
            score += 0.4 * (state.round - 1)
        scores.append(score)
    top = max(scores)
    weights = [math.exp(1.5 * (s - top)) for s in scores]
    total = sum(weights)
    win, loss = state.config.win_reward, state.config.loss_reward
    return [loss + (win - loss) * w / total for w in weights]


def dice_candidates(options: list[int], preferred: int) -> list[int]:
    """FIX_DICE candidates: the preferred mask, then the legal masks one die away from it."""
    legal = set(options)
    out = [preferred]
    for die in range(7):
        mask = preferred ^ (1 << die)
        if mask in legal and mask != preferred:
            out.append(mask)
    return out


class MCTSPolicy(SeededPolicy):
    """Information-set MCTS over determinisations; see the module docstring."""

    name = "mcts"

    def __init__(
        self,
        seed: int = 0,
        iterations: int = 24,
        time_limit: float | None = None,
        exploration: float = 1.0,
        prior_weight: float = 0.5,
        rollout: str = "aggressive",
        max_rollout_decisions: int = 0,
        searched_kinds: frozenset[int] | None = None,
        reuse_tree: bool = False,
        rollout_rounds: int | None = None,
    ) -> None:
        super().__init__(seed)
        if iterations < 1 and time_limit is None:
            raise ValueError("MCTSPolicy needs iterations >= 1 or a time_limit")
        if time_limit is not None and time_limit <= 0:
            raise ValueError(f"time_limit={time_limit} must be positive seconds or None")
        if rollout not in _ROLLOUTS:
            raise ValueError(f"rollout={rollout!r} is unknown; use one of {sorted(_ROLLOUTS)}")
        if not 0.0 < prior_weight <= 1.0:
            raise ValueError(f"prior_weight={prior_weight} must be in (0, 1]")
        if rollout_rounds is not None and (
            isinstance(rollout_rounds, bool)
            or not isinstance(rollout_rounds, int)
            or rollout_rounds < 0
        ):
            raise ValueError(
                f"rollout_rounds={rollout_rounds!r} must be None (roll out to the end of the "
                "game) or a whole number of rounds >= 0 after the searched one"
            )
        self.iterations = iterations
        self.time_limit = time_limit
        self.exploration = exploration
        self.prior_weight = prior_weight
        self.max_rollout_decisions = max_rollout_decisions
        self.rollout_rounds = rollout_rounds
        # A rollout is scored by `evaluate` once the round passes this (the searched decision's
        # round plus `rollout_rounds`); past round 6 the game is over first.
        self._last_round = 1 << 30
        self.searched_kinds = SEARCHED_KINDS if searched_kinds is None else searched_kinds
        self.default = _ROLLOUTS[rollout](seed)
        self._playout = self._simulation(self.default)
        self._quiet_configs: dict[GameConfig, GameConfig] = {}
        self.reuse_tree = reuse_tree
        # After a search: (seat, the history it searched from, the option played, the subtree
        # below it), for `_reusable_root`.
        self._kept: tuple[int, list[HistoryRow], int, _Node] | None = None
        self.last_iterations = 0
        self.last_reused_visits = 0
        self.last_search: RootSearch | None = None

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self._kept = None

    @staticmethod
    def _simulation(policy: HeuristicPolicy) -> Playout:
        """The heuristic's play on the bare state (`heuristics.playout`): its handler table,
        called directly, with the die tables kept over a turn when its dice handler is
        `dice.fix_dice`; a subclass that decides differently (its own `act`) is asked through
        a `Game` around the state instead."""
        if type(policy).act is HeuristicPolicy.act:
            handlers = policy.handler_table()
            return Playout(policy.style, handlers, handlers[_FIX_DICE] is _dice.fix_dice)

        def ask(style: object, s: GameState, seat: int, options: list[int]) -> int:
            return policy.act(Game.from_state(s), seat)

        table: tuple[Handler, ...] = tuple(ask for _ in policy.handler_table())
        return Playout(policy.style, table, False)

    def act(self, game: Game, seat: int) -> int:
        self.last_search = None
        options = game.legal_options()
        if len(options) == 1:
            return options[0]
        state = game.state
        kind = state.pending_kind
        preferred = self.default.act(game, seat)
        if kind not in self.searched_kinds:
            self.last_iterations = 0
            return preferred
        candidates = self._candidates(kind, list(options), preferred)
        if len(candidates) == 1:
            self.last_iterations = 0
            return preferred
        root = self._reusable_root(state, seat) if self.reuse_tree else None
        self.last_reused_visits = 0 if root is None else root.visits
        if root is None:
            root = _Node()
        if self.rollout_rounds is not None:
            self._last_round = state.round + self.rollout_rounds
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        budget = self.iterations if self.iterations > 0 else 1 << 62
        survivors = list(candidates)
        rounds = max(1, math.ceil(math.log2(len(survivors))))
        done = 0
        timed_out = False
        for r in range(rounds):
            left = budget - done
            per = max(1, left // (len(survivors) * (rounds - r)))
            for _ in range(per):
                seed = self.rng.next_u64()
                for option in survivors:
                    self._iterate(game, seat, root, (kind, option), seed)
                    done += 1
                if deadline is not None and time.perf_counter() >= deadline:
                    timed_out = True
                    break
            survivors = self._ranked(root, kind, survivors, preferred)
            if timed_out or len(survivors) == 1:
                break
            if r < rounds - 1:
                survivors = survivors[: (len(survivors) + 1) // 2]
        self.last_iterations = done
        choice = survivors[0]
        self.last_search = root_search(root, kind, preferred, candidates, choice)
        if self.reuse_tree:
            below = root.children.get((kind, choice))
            history = [row.frozen() for row in state.history]
            self._kept = None if below is None else (seat, history, choice, below)
        return choice

    def _reusable_root(self, state: GameState, seat: int) -> _Node | None:
        """The subtree kept from this seat's last search, if it is valid here: the game went on
        from the searched position by exactly the option played, with no chance outcome and
        no other decision since (the history shows both), so this decision's information set
        is the one the subtree's determinisations were drawn for.  Otherwise None."""
        kept, self._kept = self._kept, None
        if kept is None:
            return None
        kept_seat, history, choice, below = kept
        rows = state.history
        n = len(history)
        if kept_seat != seat or len(rows) != n + 1:
            return None
        last = rows[n]
        if last.seat != seat or last.option != choice or last.forced or last.chance:
            return None  # a chance outcome, a forced row or another option since
        if any(rows[i].frozen() != history[i] for i in range(n - 1, -1, -1)):
            return None  # another game, or a chance outcome appended to the searched row
        return below

    @staticmethod
    def _ranked(root: _Node, kind: int, options: list[int], preferred: int) -> list[int]:
        """Options by mean reward (paired over the same determinisations), the heuristic's
        choice first among equals."""

        def key(option: int) -> tuple[float, bool]:
            child = root.children.get((kind, option))
            mean = child.total / child.visits if child is not None and child.visits else -1.0
            return (mean, option == preferred)

        return sorted(options, key=key, reverse=True)

    def _candidates(self, kind: int, options: list[int], preferred: int) -> list[int]:
        if kind == _FIX_DICE:
            return dice_candidates(options, preferred)
        return options

    # --- one iteration ----------------------------------------------------------------------

    def _iterate(
        self, game: Game, seat: int, root: _Node, first: tuple[int, int], seed: int
    ) -> None:
        g = visible_game(game, seat, DiceRng(seed))
        self.default.reseed(seed)
        self._playout.new_game()
        s = g.state
        s.config = self._quiet(s.config)
        node = root.children.get(first)
        if node is None:
            node = root.children[first] = _Node()
        node.avail += 1
        g.apply(first[1])
        path = [root, node]
        expanded = node.visits == 0
        decide = self._playout.decide
        searched = self.searched_kinds
        while not expanded and s.phase != _GAME_OVER:
            decider = s.pending_seat
            kind = s.pending_kind
            if decider != seat or kind not in searched:
                apply_legal(s, decide(s))
                continue
            options = legal_options(s)
            if len(options) == 1:
                apply_legal(s, options[0])
                continue
            preferred = decide(s)
            candidates = self._candidates(kind, list(options), preferred)
            if len(candidates) == 1:
                apply_legal(s, preferred)
                continue
            best_option, best_child = self._select(node, kind, candidates, preferred)
            if best_child.visits == 0:
                expanded = True
            apply_legal(s, best_option)
            node = best_child
            path.append(node)
        value = self._rollout(s, seat)
        for visited in path:
            visited.visits += 1
            visited.total += value

    def _select(
        self, node: _Node, kind: int, candidates: list[int], preferred: int
    ) -> tuple[int, _Node]:
        """PUCT over the candidates below `node`: the option to play and its child (created,
        and its availability counted, for every candidate)."""
        w = self.prior_weight
        c = self.exploration
        children = node.children
        parent_q = node.total / node.visits if node.visits else 0.5
        other_p = (1.0 - w) / (len(candidates) - 1)
        best_score = -math.inf
        best_option = preferred
        best_child: _Node | None = None
        for option in candidates:
            key = (kind, option)
            child = children.get(key)
            if child is None:
                child = children[key] = _Node()
            child.avail += 1
            p = w if option == preferred else other_p
            q = child.total / child.visits if child.visits else parent_q
            score = q + c * p * math.sqrt(child.avail) / (1 + child.visits)
            if score > best_score:
                best_score, best_option, best_child = score, option, child
        assert best_child is not None
        return best_option, best_child

    def _quiet(self, config: GameConfig) -> GameConfig:
        """`config` without the event log: no simulation reads events, and recording them
        costs about a tenth of a rollout.  Nothing else changes, so neither do the games."""
        if not config.record_events:
            return config
        quiet = self._quiet_configs.get(config)
        if quiet is None:
            quiet = self._quiet_configs[config] = dataclasses.replace(config, record_events=False)
        return quiet

    def _rollout(self, s: GameState, seat: int) -> float:
        """Play the heuristic from `s` to the end of the game or the horizon (`rollout_rounds`,
        `max_rollout_decisions`; `evaluate` scores a position there): `seat`'s reward in
        [0, 1]."""
        ended = self._playout.play_out(s, self._last_round, self.max_rollout_decisions)
        values = list(s.rewards) if ended else evaluate(s)
        win, loss = s.config.win_reward, s.config.loss_reward
        return (values[seat] - loss) / (win - loss) if win != loss else 0.0


def root_search(
    root: _Node, kind: int, preferred: int, candidates: list[int], choice: int
) -> RootSearch:
    """The statistics of `root`'s candidates (see `RootSearch`)."""
    visits, means = [], []
    for option in candidates:
        child = root.children.get((kind, option))
        n = 0 if child is None else child.visits
        visits.append(n)
        means.append(child.total / n if child is not None and n else 0.0)
    return RootSearch(kind, preferred, tuple(candidates), tuple(visits), tuple(means), choice)


class _StrategistMCTS(MCTSPolicy):
    """MCTS on the strategist heuristic (prior, unsearched decisions and rollouts) at a fixed
    budget, its rollouts scored two rounds after the searched one (`STRATEGIST_ROLLOUT_ROUNDS`);
    the registered names `mcts-strategist-N` (docs/baselines.md, the budget curve)."""

    budget = 24

    def __init__(self, seed: int = 0) -> None:
        super().__init__(
            seed,
            iterations=self.budget,
            rollout="strategist",
            rollout_rounds=STRATEGIST_ROLLOUT_ROUNDS,
        )
        self.name = f"mcts-strategist-{self.budget}"


class StrategistMCTS4(_StrategistMCTS):
    budget = 4


class StrategistMCTS16(_StrategistMCTS):
    budget = 16


class StrategistMCTS64(_StrategistMCTS):
    budget = 64


__all__ = [
    "StrategistMCTS4",
    "StrategistMCTS16",
    "StrategistMCTS64",
    "MCTSPolicy",
    "RootSearch",
    "SEARCHED_KINDS",
    "dice_candidates",
    "evaluate",
]
