"""Typed hyper-parameters from YAML plus command-line overrides, with unknown keys refused.

    cfg = load_config(PPOSelfPlayConfig, "configs/ppo_4p.yaml", ["--total-timesteps", "1000"])

A recipe's configuration is a dataclass of field groups (`training.fields`: run, PPO,
environment, opponent pool, evaluation, checkpoints, imitation, kickstart), each group a
dataclass whose fields are documented by the string literal after each.  In a YAML file and on
the command line the keys are flat, as they always were: every field of every group is a key
`n_steps` and a flag `--n-steps`, each name belonging to one group.  A key that is no field
fails with the list of known keys (and the closest one); values are converted to the field's
type; a group's own checks run when it is built, the checks across groups when the whole
configuration is.
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


def is_group(kind: Any) -> bool:
    """A field whose type is a dataclass is a group of fields."""
    return isinstance(kind, type) and dataclasses.is_dataclass(kind)


def flat_fields(cls: type) -> dict[str, tuple[str | None, Any]]:
    """Every flat key of the configuration class `cls`: key -> (its group's field name, or
    None for a field of `cls` itself; its type)."""
    found: dict[str, tuple[str | None, Any]] = {}
    for name, kind in typing.get_type_hints(cls).items():
        if name not in {f.name for f in dataclasses.fields(cls)}:
            continue
        inner = typing.get_type_hints(kind).items() if is_group(kind) else [(name, kind)]
        for key, key_kind in inner:
            if key in found:
                raise TypeError(f"{cls.__name__}: the key {key!r} belongs to two groups")
            found[key] = (name if is_group(kind) else None, key_kind)
    return found


def aliases_of(cls: type) -> dict[str, str]:
    """Former names of keys that a configuration still accepts (`ALIASES` of the class)."""
    return dict(getattr(cls, "ALIASES", {}))


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


def read_yaml(path: str | Path) -> dict[Any, Any]:
    """The mapping at the top of a YAML file; one clear error for a missing file."""
    import yaml

    if not Path(path).is_file():
        raise ConfigKeyError(
            f"--config {path}: no such file (the recipes' files are configs/*.yaml)"
        )
    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise ConfigKeyError(f"{path}: the top level must be a mapping of keys to values")
    return data


def load_config(cls: type[T], path: str | Path | None = None, argv: list[str] | None = None) -> T:
    """Defaults of `cls`, updated by the YAML file at `path`, then by `argv` flags."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    keys = flat_fields(cls)
    aliases = aliases_of(cls)
    names = list(keys)
    values: dict[str, Any] = {}
    if path is not None:
        data = read_yaml(path)
        unknown = sorted(set(data) - set(names) - set(aliases), key=str)
        if unknown:
            raise ConfigKeyError(
                f"{path}: unknown key(s) {unknown}{_suggest(unknown, names)}; "
                f"known keys of {cls.__name__}: {names}"
            )
        values.update({aliases.get(k, k): v for k, v in data.items()})
    if argv:
        parser = argparse.ArgumentParser(add_help=False)
        for name in names:
            parser.add_argument("--" + name.replace("_", "-"), dest=name, default=None)
        for old, new in aliases.items():
            parser.add_argument("--" + old.replace("_", "-"), dest=new, default=None)
        parsed, rest = parser.parse_known_args(argv)
        if rest:
            flags = ["--" + n.replace("_", "-") for n in names]
            raise ConfigKeyError(f"unknown option(s) {rest}{_suggest(rest, flags)}; known: {flags}")
        values.update({k: v for k, v in vars(parsed).items() if v is not None})
    converted = {k: _convert(k, v, keys[k][1]) for k, v in values.items()}
    return cls(**converted)


def flat_dict(cfg: Any) -> dict[str, Any]:
    """The configuration as flat keys (its YAML form; the run folder's config.json)."""
    flat: dict[str, Any] = {}
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        flat.update(dataclasses.asdict(value) if is_group(type(value)) else {f.name: value})
    return flat


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


def help_text(cls: type, prog: str, commands: dict[str, str] | None = None) -> str:
    """`--help`: the usage, any extra commands, then every field by group with its docstring
    and this recipe's default."""
    lines = [f"usage: {prog} [--config FILE.yaml] [--field-name VALUE ...]"]
    for usage, text in (commands or {}).items():
        lines.append(f"       {prog} {usage}\n           {text}")
    defaults = cls()
    for f in dataclasses.fields(cls):
        group = getattr(defaults, f.name)
        kind = type(group)
        members = dataclasses.fields(kind) if is_group(kind) else [f]
        docs = field_docs(kind) if is_group(kind) else field_docs(cls)
        title = (kind.__doc__ or f.name).strip().splitlines()[0] if is_group(kind) else f.name
        lines.append(f"\n{f.name}: {title}")
        for member in members:
            value = getattr(group, member.name) if is_group(kind) else group
            flag = "--" + member.name.replace("_", "-")
            lines.append(f"  {flag:<26} {docs.get(member.name, '')} (default {value!r})")
    aliases = aliases_of(cls)
    if aliases:
        lines.append(
            "\nformer names, still accepted: " + ", ".join(f"{o} = {n}" for o, n in aliases.items())
        )
    return "\n".join(lines)


def config_from_cli(
    cls: type[T], argv: list[str], prog: str, commands: dict[str, str] | None = None
) -> T:
    """`--config FILE` (YAML) then `--field value` overrides; `--help` lists every field with
    its docstring and default (and the extra `commands` of the recipe, usage -> text)."""
    argv = list(argv)
    if "-h" in argv or "--help" in argv:
        print(help_text(cls, prog, commands))
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
