"""Helpers shared by the tests, benchmarks, load and screenshot scripts: serve the app, find Chromium.

It imports no test framework: the scripts run after `pip install -r requirements.txt` plus, for the browser ones,
Playwright and Debian's chromium (`bash .ci/install`). Failures raise :class:`HarnessError`; the tests turn it
into a pytest failure (tests/browser.py).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis

ROOT = Path(__file__).resolve().parent.parent  # the repository (this file is tests/harness.py)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# the page's load event has answered: the badge shows its own content (not gradio's progress timer, "0.4s", which
# fills the badge while the load is still on its way); the page's live edits wait for the same (ui/static/grid.js)
LOADED = "() => document.querySelector('#badge .html-container')?.textContent.trim().length > 0"


class HarnessError(RuntimeError):
    """The app or the browser could not be started; the message says why."""


def complete_answer(text: str) -> Any:
    """The first output of a gradio result stream (``/call/<api>/<event>``): the ``complete`` event's own data line.

    A loaded server may send heartbeats (``data: null``) before it, so the first ``data:`` line is not the answer.
    """
    if "event: complete" not in text:
        raise RuntimeError(text[:300])
    return json.loads(text.split("event: complete\ndata: ", 1)[1].split("\n", 1)[0])[0]


def chromium_path() -> str:
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        raise HarnessError("Debian's chromium is not installed (apt-get install chromium); bash .ci/install does it")
    return path


def free_port() -> int:
    """A free loopback port below Linux's ephemeral range (32768 on), which clients' sockets draw from. Under
    pytest-xdist each worker takes ports of its own remainder (gw0 even, gw1 odd with two workers), so two workers
    starting servers at once never pick the same port between this check and the server's bind (one would then wait
    on the other's server). (bind(0) cannot do that: Linux gives it even ports.)"""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    n = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    k = int(worker[2:]) % n if worker.startswith("gw") and worker[2:].isdigit() else 0
    draw = random.Random()  # (its own generator, seeded from the OS)
    for _ in range(1000):
        port = draw.randrange(20000 + k, 32000, n)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise HarnessError("no free port found between 20000 and 32000")


@contextmanager
def redis_server() -> Iterator[str]:
    """A real ``redis-server`` (Debian's, installed by .ci/install) on a free port, without persistence; yields its
    URL once it answers a PING, and stops it afterwards."""
    exe = shutil.which("redis-server")
    if exe is None:
        raise RuntimeError("redis-server is not installed (.ci/install installs Debian's redis-server)")
    port = free_port()
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    try:
        r = redis.Redis.from_url(url)
        for _ in range(100):
            try:
                if r.ping():
                    break
            except redis.ConnectionError:
                time.sleep(0.1)
        else:
            raise RuntimeError("redis-server did not answer within 10 s")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextmanager
def serve(
    script: str = "playground.py", env: dict[str, str] | None = None, wait_s: float = 90, log_path: str | None = None
) -> Iterator[str]:
    """``python <script>`` on a free loopback port; yields its URL once it answers 200, stops it afterwards.
    ``log_path``: the server's output goes to that file (for a test to read), else to a temporary one."""
    port = free_port()
    full_env = {
        "AP_WARM": "0",  # (no real model loaded at every test server's start; a test may ask for it)
        **os.environ,
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_ANALYTICS_ENABLED": "False",
        **(env or {}),
    }
    # a file, not a pipe: a full pipe would block the server
    log = open(log_path, "w+") if log_path else tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen([sys.executable, script], cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                log.seek(0)
                raise HarnessError(f"{script} exited early:\n{log.read()[-3000:]}")
            try:
                with urllib.request.urlopen(url, timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.25)
        else:
            raise HarnessError(f"{script} did not answer within {wait_s:.0f} s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
