"""Shared fixtures of the training tests."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def one_torch_thread() -> Any:
    """As the recipe runs its updates (torch_threads 1): on a busy machine torch's default
    thread pool makes these small updates many times slower."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
