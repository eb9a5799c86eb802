"""Typed hyper-parameters from YAML plus command-line overrides, with unknown keys refused.

    cfg = load_config(PPOSelfPlayConfig, "configs/ppo_4p.yaml", ["--total-timesteps", "1000"])

`RunConfig` holds the fields every training recipe shares (seed, players, run folder,
resumption); each recipe subclasses it with its own fields (`training.ppo_selfplay.
PPOSelfPlayConfig`, `training.rllib_ppo.RLlibConfig`).  Each field of the dataclass is a key of
the YAML file and a `--kebab-case` flag, documented by the string literal after it (shown by
`--help`).  A key that is not a field fails with the list of known keys; values are converted
to the field's type.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import signal
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class ConfigKeyError(ValueError):
    """A configuration key that the dataclass does not have, or a value of the wrong type."""


@dataclasses.dataclass
class RunConfig:
    """The fields every training recipe shares; a recipe's config subclasses it."""

    config_name: str = "run"
    """Name of the configuration; the run folder is {out_dir}/{config_name}_seed{seed}."""
    seed: int = 0
    """Seed of everything: environments, opponents, network initialisation."""
    num_players: int = 4
    """Players per game (3-8)."""
    out_dir: str = "runs"
    """Parent folder of the run folder (checkpoints, logs, the final model)."""
    resume: bool = True
    """Continue the run from the newest checkpoint in its run folder, if there is one (rerun
    the same command to continue a run across sessions); false starts it again."""

    def __post_init__(self) -> None:
        if isinstance(self.num_players, bool) or not 3 <= self.num_players <= 8:
            raise ConfigKeyError(f"num_players={self.num_players!r} is not valid; use 3..8")

    @property
    def run_dir(self) -> Path:
        """The run folder: checkpoints, logs and outputs of every session of the run."""
        return Path(self.out_dir) / f"{self.config_name}_seed{self.seed}"


def _convert(name: str, value: Any, kind: Any) -> Any:
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if origin is typing.Union or (origin is not None and type(None) in args):
        if value is None or (isinstance(value, str) and value.lower() in ("none", "null")):
            return None
        kind = next(a for a in args if a is not type(None))
        origin = typing.get_origin(kind)
    if origin in (list, tuple):
        items = value.split(",") if isinstance(value, str) else list(value)
        inner = typing.get_args(kind)[0] if typing.get_args(kind) else str
        converted = [_convert(name, v, inner) for v in items]
        return tuple(converted) if origin is tuple else converted
    if origin is dict or kind is dict:
        if not isinstance(value, dict):
            raise ConfigKeyError(f"{name} must be a mapping, not {value!r}")
        return dict(value)
    try:
        if kind is bool:
            if isinstance(value, bool):
                return value
            if str(value).lower() in ("1", "true", "yes", "on"):
                return True
            if str(value).lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if kind in (int, float, str):
            if kind is int and isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            return kind(value)
    except (TypeError, ValueError) as exc:
        raise ConfigKeyError(f"{name}={value!r} is not a valid {kind.__name__}") from exc
    return value


def _suggest(unknown: list[Any], names: list[str]) -> str:
    """ " (did you mean ...?)" for misspelt keys that are close to a known one."""
    import difflib

    hints = []
    for key in unknown:
        close = difflib.get_close_matches(str(key), names, n=1)
        if close:
            hints.append(f"{key!r} -> {close[0]!r}")
    return f" (did you mean {', '.join(hints)}?)" if hints else ""


def load_config(cls: type[T], path: str | Path | None = None, argv: list[str] | None = None) -> T:
    """Defaults of `cls`, updated by the YAML file at `path`, then by `argv` flags."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    values: dict[str, Any] = {}
    if path is not None:
        import yaml

        data = yaml.safe_load(Path(path).read_text()) or {}
        if not isinstance(data, dict):
            raise ConfigKeyError(f"{path}: the top level must be a mapping of keys to values")
        unknown = sorted(set(data) - set(names), key=str)
        if unknown:
            raise ConfigKeyError(
                f"{path}: unknown key(s) {unknown}{_suggest(unknown, names)}; "
                f"known keys of {cls.__name__}: {names}"
            )
        values.update(data)
    if argv:
        parser = argparse.ArgumentParser(add_help=False)
        for name in names:
            parser.add_argument("--" + name.replace("_", "-"), dest=name, default=None)
        parsed, rest = parser.parse_known_args(argv)
        if rest:
            flags = ["--" + n.replace("_", "-") for n in names]
            raise ConfigKeyError(f"unknown option(s) {rest}{_suggest(rest, flags)}; known: {flags}")
        values.update({k: v for k, v in vars(parsed).items() if v is not None})
    converted = {k: _convert(k, v, hints[k]) for k, v in values.items()}
    return cls(**converted)


def field_docs(cls: type) -> dict[str, str]:
    """Field docstrings (the string literal after each field), for --help texts."""
    import ast
    import inspect
    import textwrap

    docs: dict[str, str] = {}
    # Base classes first, so that a subclass's docstring of a redefined field wins.
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        body = tree.body[0].body  # type: ignore[attr-defined]
        for node, nxt in zip(body, body[1:], strict=False):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)
            ):
                docs[node.target.id] = " ".join(nxt.value.value.split())
    return docs


def config_from_cli(cls: type[T], argv: list[str], prog: str) -> T:
    """`--config FILE` (YAML) then `--field value` overrides; `--help` lists every field with
    its docstring and default."""
    argv = list(argv)
    if "-h" in argv or "--help" in argv:
        docs = field_docs(cls)
        print(f"usage: {prog} [--config FILE.yaml] [--field-name VALUE ...]\n\nfields:")
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            default = f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
            print(
                f"  --{f.name.replace('_', '-'):<22} {docs.get(f.name, '')} (default {default!r})"
            )
        raise SystemExit(0)
    path = None
    if "--config" in argv:
        i = argv.index("--config")
        if i + 1 >= len(argv):
            raise ConfigKeyError("--config needs a YAML file")
        path = argv[i + 1]
        del argv[i : i + 2]
    return load_config(cls, path, argv)


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block SIGTERM (a job scheduler, `kill`, `timeout`) raises KeyboardInterrupt,
    so a recipe stops on it as on Ctrl-C: one line, and the same command resumes."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
