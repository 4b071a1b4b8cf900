"""8 concurrent sessions × 10 edits through the queue: 0 errors, every answer right for its own session."""

from __future__ import annotations

import sys

from browser import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import load


def test_eight_sessions_get_their_own_bit_identical_answers() -> None:
    out = load.run(sessions=8, edits=10, rss_requests=0)
    assert out["requests"] == 80
    assert out["wrong"] == 0, out
    assert out["p95_ms"] > 0


def test_sessions_have_distinct_scenarios() -> None:
    assert load.scenario(0, 0) != load.scenario(2, 0) and load.scenario(1, 0) != load.scenario(3, 0)
    assert load.scenario(0, 0)["weights"]["init"] == "linear" and "W_q" in load.scenario(1, 0)["weights"]
