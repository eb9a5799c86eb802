"""A bot for the terminal tests: thinks for a while before its first decision (so that keys
typed meanwhile are typed while the bots play), then takes the first legal option."""

from __future__ import annotations

import time
from typing import Any


class SlowFirstBot:
    name = "slow-first"

    def __init__(self, seed: int = 0) -> None:
        self.waited = False

    def act(self, game: Any, seat: int) -> int:
        if not self.waited:
            time.sleep(3.0)
            self.waited = True
        return int(game.legal_options()[0])
