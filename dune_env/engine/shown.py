"""A bad value as an error message shows it: briefly, and without failing itself.

`repr` of a value nested thousands deep raises RecursionError, `str` of an integer of thousands
of digits raises ValueError, and a megabyte string makes a megabyte message: messages about
values from strangers (snapshots, configurations) show them through `shown` instead.
"""

from __future__ import annotations

import reprlib
from typing import Final

MAX_SHOWN_BITS: Final = 400  # longer integers (over ~120 digits) are shown by their size
_DIGITS_PER_BIT: Final = 0.30103  # log10(2)


class OversizedInt:
    """An integer literal too long for Python to read (JSON parsed with `parse_int`): kept as a
    marker so that the field holding it is named, as for any other value of the wrong type."""

    def __init__(self, digits: str) -> None:
        self.digits = len(digits.lstrip("-"))

    def __repr__(self) -> str:
        return f"<an integer of {self.digits} digits>"


def parse_int(text: str) -> object:
    """`json.loads(..., parse_int=parse_int)`: an int, or an OversizedInt past Python's limit."""
    try:
        return int(text)
    except ValueError:
        return OversizedInt(text)


def shown(value: object) -> str:
    """`repr(value)` for ordinary values; cut short for long, deep or huge ones."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > MAX_SHOWN_BITS:
            return f"<an integer of about {int(value.bit_length() * _DIGITS_PER_BIT) + 1} digits>"
        return repr(value)
    brief = reprlib.Repr()
    brief.maxlevel = 3
    brief.maxstring = 60
    brief.maxother = 60
    brief.maxlong = 40
    try:
        return brief.repr(value)
    except (ValueError, RecursionError):  # a huge integer inside a container, ...
        return f"<a {type(value).__name__}>"
