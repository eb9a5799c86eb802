"""Heuristics that decline every alliance offer (ALLY-3): opponents against which an agent's
alliance play cannot lean on its offers being accepted.

The heuristics accept most offers (88-97% at 5 players, docs/models/residual-5p.md), which a
learned agent can exploit by offering on most turns; `strategist-declines`,
`economic-declines` and `aggressive-declines` play as their heuristic except that they answer
every offer with "decline" (a Bene Gesserit offer cannot be declined, BG-2: they accept it, the
only legal answer).  They still make offers of their own.  Any policy can be wrapped:
`DecliningPolicy(base)`."""

from __future__ import annotations

from ..engine import Game
from ..engine.decisions import DecisionKind
from .base import EnginePolicy

_ALLY_ANSWER = int(DecisionKind.ALLY_ANSWER)
DECLINE = 0  # the ALLY_ANSWER option that declines (1 accepts)


class DecliningPolicy:
    """`base`'s choice at every decision but the answer to an alliance offer, which declines
    when declining is legal."""

    def __init__(self, base: EnginePolicy) -> None:
        self.base = base
        self.name = f"{getattr(base, 'name', 'policy')}-declines"

    def reseed(self, seed: int) -> None:
        reseed = getattr(self.base, "reseed", None)
        if reseed is not None:
            reseed(seed)

    def act(self, game: Game, seat: int) -> int:
        if game.state.pending_kind == _ALLY_ANSWER:
            options = game.legal_options()
            if DECLINE in options:
                return DECLINE
        return self.base.act(game, seat)


class StrategistDeclines(DecliningPolicy):
    """`strategist`, declining every alliance offer."""

    def __init__(self, seed: int = 0) -> None:
        from .heuristics.strategist import StrategistPolicy

        super().__init__(StrategistPolicy(seed))


class EconomicDeclines(DecliningPolicy):
    """`economic`, declining every alliance offer."""

    def __init__(self, seed: int = 0) -> None:
        from .heuristics import EconomicPolicy

        super().__init__(EconomicPolicy(seed))


class AggressiveDeclines(DecliningPolicy):
    """`aggressive`, declining every alliance offer."""

    def __init__(self, seed: int = 0) -> None:
        from .heuristics import AggressivePolicy

        super().__init__(AggressivePolicy(seed))
