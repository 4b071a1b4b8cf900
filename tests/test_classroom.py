"""A short class (issue 25): 20 learners editing live at once beside a model user and a trainer, every answer
checked against a single-user replay of that learner's own edits (benchmarks/classroom.py). No timing asserts:
the figures are the benchmark's."""

from __future__ import annotations

import json
import sys

from browser import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import classroom


def test_twenty_learners_at_once_get_only_right_answers() -> None:
    idle, rounds = classroom.run((20,), seconds=4.0, period=1.0, n_extras=1, idle_edits=10)
    (r,) = rounds
    assert r["learners"] == 20 and r["edits"] >= 40  # every learner edited, about four times each
    assert r["extra_calls"] >= 2  # the model user and the trainer were answered too
    assert r["wrong"] == 0  # no failed edit, no answer that differs from the single-user replay
    assert idle > 0


def test_a_wrong_answer_is_counted() -> None:
    """The checker itself: an answer that is not the replay's, or not an answer at all, counts as wrong."""
    who = classroom.Learner("k", edits=[classroom.edit_of(0, 0), classroom.edit_of(0, 1)])
    right = [json.dumps(a).encode() for a in classroom.expected_answers(who)]
    who.answers = right
    assert classroom.wrong_answers([who], []) == 0
    who.answers = [right[0], right[0]]
    assert classroom.wrong_answers([who], []) == 1
    who.answers = [right[0], b"HTTP 500"]
    assert classroom.wrong_answers([who], []) == 1
    assert classroom.wrong_answers([], [("train", {"task": "previous", "seed": 0, "steps": 1}, b"event: error")]) == 1
