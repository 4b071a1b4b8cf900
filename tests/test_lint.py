"""ruff is part of the suite, so the README's one test command also lints."""

from __future__ import annotations

import subprocess
import sys

from browser import ROOT


def test_ruff_check_is_clean() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format_is_clean() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "."], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert r.returncode == 0, r.stdout + r.stderr
