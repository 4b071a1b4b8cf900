"""Torch-heavy work off the server's interpreter: one worker process runs the real model and training steps.

Why this exists: the server is one Python process, and a live edit is ~6 ms of Python that needs the GIL. The
real model's forward pass and a training run are torch work with Python between every op; on a thread of the
same process they hand the GIL back only every ``sys.getswitchinterval()`` (5 ms), so each of an edit's many GIL
hand-overs can wait that long. Measured in process, with a thread running model calls and training steps: an
edit's p95 went from 12 ms alone to 76 ms. In a process of its own that work runs on the second core and the
edits keep the first (docs/benchmarks.md: "A whole class at once").

``call(fn, *args)`` runs a module-level function there and returns its answer; an exception raised there is
raised here (``ScenarioError`` and ``TrainError`` pickle with their field). The worker starts on first use
(``spawn``: a fresh interpreter, one torch thread) and loads the model itself when first asked (``warm`` asks
at the server's start); should it die, the next call starts a new one.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import torch

from attention_core.teaching import real_model

T = TypeVar("T")
TIMEOUT_S = 300  # the first call starts the worker and may load the model (a few seconds); no call takes longer


def _init() -> None:
    torch.set_num_threads(1)  # the server keeps the other core
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()


def _exit_with(sentinel: int) -> None:
    """The server gone (ended or killed), this process goes too. Nothing else ends it: the pool's own shutdown
    never runs when the server is ended by a signal, and a worker left behind keeps the model (~580 MB); one test
    run once left 32 of them."""
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


class Worker:
    """One worker process, started when first needed and restarted if it dies."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                ctx = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(max_workers=1, mp_context=ctx, initializer=_init)
            return self._pool

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the worker (``fn`` must be importable by name there)."""
        pool = self.pool()
        try:
            return pool.submit(fn, *args).result(timeout=TIMEOUT_S)
        except BrokenProcessPool:
            with self._lock:
                if self._pool is pool:
                    self._pool = None
            return self.pool().submit(fn, *args).result(timeout=TIMEOUT_S)


WORKER = Worker()
call = WORKER.call


def warm(after_s: float = 2.0) -> threading.Thread:
    """Start the worker and load the real model in it, ``after_s`` seconds from now, on a thread of its own: the
    first learner who opens Real model then waits for one forward pass, not for the model's load (about 8 s on
    this machine). The server answers meanwhile (the load runs in the worker's process, on the other core).
    ``playground.py`` calls it at start unless ``AP_WARM=0`` (the tests' servers, which seldom need the model)."""

    def run() -> None:
        time.sleep(after_s)
        try:
            call(real_model.warm)
        except Exception:  # (the first real request will load it and say what went wrong)
            logging.getLogger(__name__).exception("warming the real model failed")

    thread = threading.Thread(target=run, name="warm-real-model", daemon=True)
    thread.start()
    return thread
