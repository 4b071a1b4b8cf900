"""serving/workers.py: the real model and training steps run in a worker process, off the server's interpreter."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import attention_core as ac
from attention_core.teaching import real_model, train
from serving import workers

ROOT = Path(__file__).resolve().parent.parent


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


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_the_worker_goes_when_the_server_goes(sig: signal.Signals) -> None:
    """A server ended (as the test harness and a Space restart end it) or killed takes its worker with it: each
    worker holds the real model (~580 MB), and orphans once piled up to 32 of them, 18 GB, during one test run."""
    code = (
        "import os, sys, time\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from serving import workers\n"
        "print(workers.call(os.getpid), flush=True)\n"
        "time.sleep(60)\n"
    )
    server = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(server.stdout.readline())
        os.kill(worker, 0)  # it runs
        server.send_signal(sig)
        server.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and alive(worker):
            time.sleep(0.1)
        assert not alive(worker), f"worker {worker} outlived its server"
    finally:
        server.kill()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie (ended, not yet reaped by init) counts as gone
        return f.read().split(") ")[-1][0] != "Z"


def test_warm_loads_the_real_model_in_the_worker_before_any_learner_asks() -> None:
    """The server's start warms the worker (playground.py): afterwards the model is held there, so the first Real
    model request waits for a forward pass only (issue 37: the first one took about 8 s)."""
    here = real_model.is_loaded()  # (another test in this process may have loaded it here)
    pid = workers.call(os.getpid)
    os.kill(pid, 9)  # a fresh worker: whatever an earlier test loaded there is gone
    assert workers.call(real_model.is_loaded) is False
    workers.warm(after_s=0).join(timeout=120)
    assert workers.call(real_model.is_loaded) is True
    assert real_model.is_loaded() == here  # loaded there, not in the server's own process
