"""The RLlib recipe's command line: a missing cluster is one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_rllib_without_a_cluster_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--address auto` with no cluster running: one line naming the cause, no traceback and
    no run folder."""
    ray = pytest.importorskip("ray")
    from training.rllib_ppo import main as rllib_main

    def no_cluster(**kwargs: object) -> None:
        raise ConnectionError(
            "Could not find any running Ray instance. Please specify the one to connect to by "
            "setting `--address` flag or `RAY_ADDRESS` environment variable."
        )

    monkeypatch.setattr(ray, "init", no_cluster)
    assert rllib_main(["--address", "auto", "--out-dir", str(tmp_path)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("rllib_ppo: cannot connect to the Ray cluster at auto: Could not find")
    assert "ray start --head" in line
    assert not any(tmp_path.iterdir())
