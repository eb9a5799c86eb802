"""Convert a MaskablePPO `.zip` into the safe format (`.safetensors` + `.json`).

    python -m dune_env.policies.export final_model.zip my_model --trust-checkpoints

writes my_model.safetensors and my_model.json; `dune-bench --policies my_model.safetensors` then
loads it without unpickling anything.  Reading the .zip unpickles it, so the conversion itself
needs --trust-checkpoints: convert only files you trust, once, and share the safe files.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..exits import refuse


def export_zip(source: str | Path, destination: str | Path) -> Path:
    """Convert a trusted MaskablePPO .zip; returns the written .json description."""
    from . import sb3
    from .weights import export_policy

    model = sb3.load_model.__wrapped__(str(Path(source).resolve()))  # uncached: a fresh read
    versions = {}
    for package in ("stable_baselines3", "sb3_contrib", "torch"):
        module = __import__(package)
        versions[package] = str(getattr(module, "__version__", "?"))
    return export_policy(model, destination, {"exported_from": Path(source).name, **versions})


def main(argv: list[str] | None = None) -> int:
    from .specs import PolicyLoadError

    parser = argparse.ArgumentParser(
        prog="python -m dune_env.policies.export",
        description=__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument("source", help="MaskablePPO .zip to convert (pickle-based: trusted only)")
    parser.add_argument("destination", help="output stem: writes STEM.safetensors and STEM.json")
    parser.add_argument(
        "--trust-checkpoints",
        action="store_true",
        help="confirm that SOURCE comes from a source you trust (reading it unpickles it)",
    )
    args = parser.parse_args(argv)
    if not Path(args.source).is_file():
        return refuse("export", f"{args.source!r} does not exist")
    if not args.trust_checkpoints:
        return refuse(
            "export",
            f"{args.source!r} is pickle-based and reading it can run arbitrary code; "
            "add --trust-checkpoints if you trust its source",
        )
    try:
        description = export_zip(args.source, args.destination)
    except (PolicyLoadError, ValueError) as exc:
        return refuse("export", exc)
    print(f"wrote {description.with_suffix('.safetensors')} and {description}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
