"""serving/workers.py: the real model and training steps run in a worker process, off the server's interpreter."""

from __future__ import annotations

import os

import pytest

import attention_core as ac
from attention_core import train
from serving import workers


def test_a_call_runs_in_another_process_and_answers_what_it_would_here() -> None:
    assert workers.call(os.getpid) != os.getpid()
    here = train.train_steps(train.start("match", 3), 4)
    there = workers.call(train.train_steps, train.start("match", 3), 4)
    assert there.losses == here.losses and there.step == 4
    assert bool((there.W_q == here.W_q).all())


def test_an_error_there_is_raised_here_with_its_field() -> None:
    with pytest.raises(train.TrainError) as e:
        workers.call(train.choose, "fly", 0)
    assert e.value.field == "task" and "fly" in str(e.value)
    with pytest.raises(ac.ScenarioError) as e2:
        workers.call(ac.compute, {"x": [[1, "abc"]]})
    assert e2.value.field.startswith("x") and "abc" in e2.value.problem


def test_a_dead_worker_is_replaced() -> None:
    pid = workers.call(os.getpid)
    os.kill(pid, 9)
    assert workers.call(os.getpid) not in (pid, os.getpid())
