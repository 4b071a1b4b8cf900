"""Where the five notebooks' own text is, for the tests that hold attention_core/data/ to it.

The text (each notebook's cells and what it printed) is kept beside the repository where it was built and in CI, but
is no part of it: a clone has only attention_core/data/, which every other test reads. Where the text is missing,
the tests that need it (those taking the ``seeds`` fixture of tests/conftest.py) are skipped, saying why; with
REQUIRE_SEEDS=1 set, as .ci/run sets it, they fail instead, so CI always runs them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser import ROOT

SEEDS = ROOT.parent / "shared" / "seeds"
REQUIRE_SEEDS = "AP_REQUIRE_SEEDS"


def seeds_or_skip(seeds: Path = SEEDS) -> Path:
    """``seeds`` if it holds the text of notebooks 000-004; else skip the test, or fail it under REQUIRE_SEEDS=1."""
    if sorted(p.name[:3] for p in seeds.glob("00?_*.txt")) == ["000", "001", "002", "003", "004"]:
        return seeds
    why = f"the notebooks' own text is not beside this copy of the repository ({seeds} lacks some of 000-004)"
    if os.environ.get(REQUIRE_SEEDS) == "1":
        pytest.fail(f"{why}, and {REQUIRE_SEEDS}=1 (as .ci/run sets it) requires it")
    pytest.skip(f"{why}: attention_core/data/ is checked against that text only where it is (CI)")
