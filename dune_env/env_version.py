"""The environment's version, in one place: every name of the environment derives from it.

Bump `ENV_VERSION` whenever observations, action ids or the rules of today's configuration
change, so that results of different versions are never compared (CHANGELOG.md, "Versions of
the environment"); the module `dune_env/dune_v<N>.py` is then added by hand.  A top-level module
that imports nothing, so that registering with Gymnasium stays light.
"""

from __future__ import annotations

ENV_VERSION = 1
ENV_NAME = f"dune_v{ENV_VERSION}"  # PettingZoo's name, the models' "env"
GYMNASIUM_ID = f"dune_env/Dune-v{ENV_VERSION}"  # the single-agent view's Gymnasium id
