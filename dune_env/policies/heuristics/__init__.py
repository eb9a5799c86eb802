"""Hand-written engine policies: the aggressive, economic and strategist styles.

`HeuristicPolicy` answers every `DecisionKind` with one handler (`handlers.HANDLERS`), played
in a `Style` (`style.py`): weights and thresholds (its fields) and hooks (its methods), the few
rules on which styles differ.  `AggressivePolicy` and `EconomicPolicy` are two parameter sets
with the shared hooks; `strategist.StrategistPolicy` is the economic parameters with some of its
own and its own rules at the hooks (`strategist.StrategistStyle`): every style plays the same
handlers, so each rule is written once.  Every handler chooses among the legal options it is
given, and reads only what its seat may see: the public state, its own side's bid in progress,
never the other side's bid nor (unless it is the Bene Gesserit) the Bene Gesserit prediction.
They are fast (a few tens of microseconds per decision) so that they can play thousands of
games and serve as MCTS rollout policies.

Layout: `features.py` (shared evaluation: target value, movable strength, kill value, threat,
alliance usefulness), one module of handlers per step (`setup`, `dice`, `alliance`, `recruit`,
`kanly`, `landing`, `movement`, `battle`, `property`), `handlers.py` (kind -> handler),
`style.py` (fields and hooks), `strategist.py` (the strategist's style).
Everything reads the position through the public `dune_env.engine.rules` API.
"""

from __future__ import annotations

from ...engine import Game
from ..base import SeededPolicy
from .handlers import HANDLERS, Handler, handler_table
from .style import AGGRESSIVE, BASE, ECONOMIC, Style


class HeuristicPolicy(SeededPolicy):
    """A heuristic policy playing `style` (by default the class's own)."""

    name = "heuristic"
    style: Style = BASE

    def __init__(self, seed: int = 0, style: Style | None = None) -> None:
        super().__init__(seed)
        if style is not None:
            self.style = style
        self._handlers = self.handler_table()

    def handler_table(self) -> tuple[Handler, ...]:
        """The handler of every decision kind, indexed by kind (MCTS rollouts call them on the
        bare state)."""
        return handler_table()

    def act(self, game: Game, seat: int) -> int:
        state = game.state
        options = game.legal_options()
        if len(options) == 1:
            return options[0]
        return self._handlers[state.pending_kind](self.style, state, seat, options)


class AggressivePolicy(HeuristicPolicy):
    """Seize strategic regions and fight for them.

    Keeps the region-die face that lets it move into a strategic region, lands next to that
    target, moves all spare units in, attacks even when the battle is only close, commits
    everything in such close battles (the minimal sure win otherwise), uses Kanly on the
    leading opponent's sole unit in a strategic region, recruits its leader first, places
    fortresses in strategic regions and ornithopters elsewhere, and gives allies little.
    """

    name = "aggressive"
    style = AGGRESSIVE


class EconomicPolicy(HeuristicPolicy):
    """Grow steadily and avoid losing fights.

    Values spice and harvesters (keeps high spice faces, lands everything, places harvesters
    outside strategic regions and fortresses in them), moves a few units into empty strategic
    regions and attacks only battles it surely wins, commits nothing in battles it cannot win
    (saving its leader), lends leaders to protect its units, and uses alliances: gifts,
    consent and grants to an ally that could win with it, never to one about to win alone.
    """

    name = "economic"
    style = ECONOMIC


__all__ = [
    "AGGRESSIVE",
    "AggressivePolicy",
    "BASE",
    "ECONOMIC",
    "EconomicPolicy",
    "HANDLERS",
    "Handler",
    "HeuristicPolicy",
    "Style",
]
