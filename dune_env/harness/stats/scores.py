"""A seat's score: where a result row becomes the number the statistics compare.

`is_control_win`: a win by END-1 or END-2 (solo or alliance) that the Bene Gesserit did not
take.  `control_score` / `win_score`: that win, or any win, as 1 or 0, minus the seat's dice
luck in a luck-adjusted run (play/luck.py).  The summary's rates, the head-to-head table and the
sequential test all read these.
"""

from __future__ import annotations

from ..play.types import SeatResult


def is_control_win(row: SeatResult) -> bool:
    """A win by END-1 or END-2 (solo or alliance) that the Bene Gesserit did not take."""
    return bool(row.won) and row.win_kind in ("solo", "alliance") and not row.bg_took


def control_score(row: SeatResult, luck_adjusted: bool = False) -> float:
    """A seat's control win (1 or 0), minus its dice luck when `luck_adjusted` (luck.py)."""
    return float(is_control_win(row)) - (row.luck_control if luck_adjusted else 0.0)


def win_score(row: SeatResult, luck_adjusted: bool = False) -> float:
    """A seat's win (1 or 0), minus its dice luck when `luck_adjusted` (luck.py)."""
    return float(row.won) - (row.luck_win if luck_adjusted else 0.0)
