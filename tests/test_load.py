"""8 concurrent sessions × 10 edits through the queue: 0 errors, every answer right for its own session."""

from __future__ import annotations

import sys

import pytest
import torch
from browser import ROOT
from reference import reference

import attention_core as ac
from attention_core.teaching import train

sys.path.insert(0, str(ROOT / "benchmarks"))

import load


def test_eight_sessions_get_their_own_bit_identical_answers() -> None:
    out = load.run(sessions=8, edits=10, rss_requests=0, trainers=4, train_calls=2, rounds=1)
    assert out["requests"] == 80 and out["train_requests"] == 8 and out["mixed_edit_requests"] == 80
    assert out["wrong"] == 0, out  # each answer equals a single-user compute() of its own session, bit for bit


def test_the_trainers_answers_are_the_core_training_runs() -> None:
    """load.py checks /train against train_answer(); that answer is the core's run, its loss falling."""
    p = load.train_payload(3, 1)
    want = load.train_answer(p)
    st = train.train_steps(train.start(p["task"], p["seed"]), p["steps"])
    assert want["step"] == p["steps"] == st.step and want["losses"] == list(st.losses)
    assert want["losses"][-1] < want["losses"][0]
    assert load.train_payload(0, 0)["task"] != load.train_payload(1, 0)["task"]


@pytest.mark.parametrize("session", range(4))
def test_the_answers_the_sessions_are_checked_against_are_right(session: int) -> None:
    """load.py compares the server with compute(); compute itself is checked here against the reference."""
    sc = load.scenario(session, 3)
    ref = reference(sc)
    torch.testing.assert_close(torch.tensor(ac.compute(sc)["output"]), ref["combined"])


def test_sessions_have_distinct_scenarios() -> None:
    assert load.scenario(0, 0) != load.scenario(2, 0) and load.scenario(1, 0) != load.scenario(3, 0)
    assert load.scenario(0, 0)["weights"]["init"] == "linear" and "W_q" in load.scenario(1, 0)["weights"]
