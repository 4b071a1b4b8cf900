"""The shared helpers (harness.py) as the tests use them: a harness failure is a test failure, never a skip."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: playground, ui, serving

import harness
from harness import CHROMIUM_ARGS, ROOT, free_port

__all__ = ["CHROMIUM_ARGS", "ROOT", "chromium_path", "free_port", "serve"]


def chromium_path() -> str:
    try:
        return harness.chromium_path()
    except harness.HarnessError as e:
        pytest.fail(str(e))


@contextmanager
def serve(script: str = "playground.py", env: dict[str, str] | None = None) -> Iterator[str]:
    try:
        with harness.serve(script, env) as url:
            yield url
    except harness.HarnessError as e:
        pytest.fail(str(e))
