"""Human play against the bots: `dune-play` in the terminal or (`--web`) in the browser."""

from .session import PlayError, PlaySession

__all__ = ["PlayError", "PlaySession"]
