"""The safe-format loader never reads an oversized tensor file (issue 21, item 6): its size is
checked against the description's shapes before a byte is read, and it is hashed as it streams."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

import pytest

from dune_env.policies.registry import CHECKPOINT_DIR, PolicyLoadError, load_policy


def _copy(tmp_path: Path) -> tuple[Path, Path]:
    tensors = tmp_path / "m.safetensors"
    tensors.write_bytes((CHECKPOINT_DIR / "ppo_4p.safetensors").read_bytes())
    description = json.loads((CHECKPOINT_DIR / "ppo_4p.json").read_text())
    description["tensors"]["file"] = tensors.name
    json_path = tmp_path / "m.json"
    json_path.write_text(json.dumps(description))
    return tensors, json_path


def test_an_oversized_tensor_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    tensors, json_path = _copy(tmp_path)
    load_policy(str(json_path))  # the intact copy loads
    size = 256 << 20
    os.truncate(tensors, size)  # sparse: no disk used
    tracemalloc.start()
    try:
        with pytest.raises(PolicyLoadError, match=rf"is {size} bytes; the described network"):
            load_policy(str(json_path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"{peak} bytes allocated while refusing the file"


def test_a_tensor_file_within_the_size_is_still_hashed(tmp_path: Path) -> None:
    tensors, json_path = _copy(tmp_path)
    data = bytearray(tensors.read_bytes())
    data[-1] ^= 1
    tensors.write_bytes(bytes(data))
    with pytest.raises(PolicyLoadError, match="does not match the SHA-256"):
        load_policy(str(json_path))
