"""Many users at once, on loopback only: N sessions × M edits through the queue to /compute, against a floor.

    python benchmarks/load.py                  # 32 sessions × 50 edits, then RSS over 10,000 requests
    python benchmarks/load.py --sessions 8 --edits 10 --rss-requests 0 --trainers 4 --train-calls 2 --rounds 1

Each session has its own scenario (some seeded); every response is checked against a single-user
compute() of that session's scenario, bit for bit, after the clock stops. The same N × M calls go to the trivial
app's /echo (the floor: same queue settings, a trivial function) and to /compute in turn, a few paired rounds with
both servers up, and /compute's requests per second are reported as a ratio to the floor's (``ratio_to_floor``,
the median of the rounds' ratios). Then a mixed phase: the same editing sessions and ``--trainers`` (16)
learners calling /train at once (each call a short bounded training run), every answer checked against train.py.
Bounded in count and time; stops by itself.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from harness import complete_answer, serve  # noqa: E402

import attention_core as ac  # noqa: E402
from attention_core import train  # noqa: E402

FLOOR = "benchmarks/trivial_app.py"  # its /echo: the same queue settings, a trivial function


def scenario(session: int, edit: int) -> dict[str, Any]:
    """Session-specific scenarios: seeded weights for even sessions, explicit ones for odd."""
    x = [[round(0.1 * session + 0.01 * edit + i - j, 3) for j in range(3)] for i in range(4)]
    if session % 2 == 0:
        return {"x": x, "heads": 1 + session % 3, "weights": {"init": "linear", "seed": session},
                "mask": {"kind": "causal"}}  # fmt: skip
    w = [[[0.1 * (session + i - j) for j in range(3)] for i in range(3)]]
    return {"x": x, "weights": {"W_q": w, "W_k": w, "W_v": w}, "layout": "matmul"}


# the playground serves its API app under /api (playground.make_app)
API_PREFIX = {"compute": "api/", "model_attention": "api/", "train": "api/"}


def train_payload(trainer: int, call_no: int) -> dict[str, Any]:
    """Each trainer its own task and seed; a few steps per call (the Train tab's requests are bounded too)."""
    return {"task": train.TASKS[trainer % 2], "seed": trainer, "steps": 3 + (trainer + call_no) % 6}


def train_answer(p: dict[str, Any]) -> dict[str, Any]:
    """A single-user training run of the request, straight from train.py (the server's answer must equal it)."""
    st = train.train_steps(train.start(p["task"], p["seed"]), p["steps"])
    w = train.weights_matrix(st).tolist()
    return {"task": st.task.id, "seed": st.seed, "step": st.step, "losses": list(st.losses), "weights": w}


def send(client: httpx.Client, payload: Any, api: str = "compute", session_hash: str | None = None) -> str:
    """One REST call: POST [api/]gradio_api/call/<api>, then read the event's result stream; the stream's text.

    Without a session hash every call is a new gradio session (a script's raw REST call); with one, calls share
    it, as gradio_client's calls do.
    """
    body = {"data": [payload]} if session_hash is None else {"data": [payload], "session_hash": session_hash}
    path = f"{API_PREFIX.get(api, '')}gradio_api/call/{api}"
    ev = client.post(path, json=body).json()["event_id"]
    return client.get(f"{path}/{ev}").text


def answer(text: str) -> Any:
    """The first output in a result stream's text (see :func:`send`): :func:`harness.complete_answer`."""
    return complete_answer(text)


def call(client: httpx.Client, payload: Any, api: str = "compute", session_hash: str | None = None) -> Any:
    """:func:`send`, then its :func:`answer`."""
    return answer(send(client, payload, api, session_hash))


@dataclass(frozen=True)
class Endpoint:
    """What the clients call: the API name, each (session, edit)'s payload, and the answer that is right for it."""

    api: str
    payload: Callable[[int, int], Any]
    expected: Callable[[Any], Any]  # payload -> the right answer


COMPUTE = Endpoint("compute", scenario, lambda sc: json.loads(json.dumps(ac.compute(sc))))  # single-user compute()
TRAIN = Endpoint("train", train_payload, lambda p: json.loads(json.dumps(train_answer(p))))
ECHO = Endpoint("echo", lambda s, e: f"session {s} edit {e}", lambda text: text)  # the floor app's /echo


def session(url: str, jobs: list[tuple[Any, Any]], api: str, anonymous: bool) -> tuple[list[float], list[str]]:
    """One client's calls in a row: their latencies (ms) and the streams' texts, checked later (:func:`drive`)."""
    times, texts = [], []
    session_hash = None if anonymous else uuid.uuid4().hex
    with httpx.Client(base_url=url, timeout=60) as client:
        for payload, _ in jobs:
            t0 = time.perf_counter()
            texts.append(send(client, payload, api, session_hash))
            times.append((time.perf_counter() - t0) * 1e3)
    return times, texts


def drive(url: str, sessions: int, edits: int, ep: Endpoint, anonymous: bool = False) -> dict[str, Any]:
    """``sessions`` concurrent clients × ``edits`` calls each: latency, wrong answers, requests per second.

    The right answers are worked out before the clock starts, and every answer is checked against its right one
    (parsed, bit for bit) after the clock stops: the clients share the server's two cores, so the timed span
    holds the calls only, for /compute and the floor alike.
    """
    jobs = [[(p, ep.expected(p)) for p in (ep.payload(s, e) for e in range(edits))] for s in range(sessions)]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(sessions) as pool:
        results = list(pool.map(lambda j: session(url, j, ep.api, anonymous), jobs))
    wall = time.perf_counter() - t0
    pairs = (zip(job, texts, strict=True) for job, (_, texts) in zip(jobs, results, strict=True))
    wrong = sum(answer(text) != right for pair in pairs for (_, right), text in pair)
    times = sorted(t for ts, _ in results for t in ts)
    return {
        "requests": len(times),
        "wrong": wrong,
        "p50_ms": statistics.median(times),
        "p95_ms": times[int(0.95 * (len(times) - 1))],
        "wall_s": wall,
        "rps": len(times) / wall,
    }


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def mixed(url: str, sessions: int, edits: int, trainers: int, train_calls: int) -> dict[str, Any]:
    """Editing sessions and trainers at the same time; every answer checked."""
    with ThreadPoolExecutor(2) as pool:
        edit_f = pool.submit(drive, url, sessions, edits, COMPUTE)
        train_f = pool.submit(drive, url, trainers, train_calls, TRAIN)
        got, tr = edit_f.result(), train_f.result()
    return {
        "trainers": trainers,
        "train_requests": tr["requests"],
        "train_wrong": tr["wrong"],
        "train_p50_ms": tr["p50_ms"],
        "train_p95_ms": tr["p95_ms"],
        "mixed_edit_requests": got["requests"],
        "mixed_edit_wrong": got["wrong"],
        "mixed_edit_p50_ms": got["p50_ms"],
        "mixed_edit_p95_ms": got["p95_ms"],
    }


def paired(floor_url: str, url: str, sessions: int, edits: int, rounds: int, anonymous: bool) -> dict[str, Any]:
    """The floor's /echo and /compute driven in turn, ``rounds`` times, the order swapped each round (ABBA).

    Both servers are up the whole time, so a slow spell of the machine falls on both alike; the ratio reported
    is the median of the rounds' own ratios (each /compute round over the floor round beside it).
    """
    pairs = []
    for r in range(rounds):
        order = [(floor_url, ECHO), (url, COMPUTE)][:: 1 if r % 2 == 0 else -1]
        got = {ep.api: drive(u, sessions, edits, ep, anonymous) for u, ep in order}
        pairs.append((got["echo"], got["compute"]))
    ratios = [c["rps"] / f["rps"] for f, c in pairs]
    return {
        "floor": [f["rps"] for f, _ in pairs],
        "compute": [c["rps"] for _, c in pairs],
        "ratios": ratios,
        "ratio": statistics.median(ratios),
        "last": pairs[-1][1],
        "wrong": sum(c["wrong"] for _, c in pairs),
        "floor_wrong": sum(f["wrong"] for f, _ in pairs),
    }


def run(
    sessions: int, edits: int, rss_requests: int, trainers: int = 16, train_calls: int = 5, rounds: int = 3
) -> dict[str, Any]:
    """The floor app's /echo and /compute with the same concurrency in the same run (:func:`paired`, once with a
    session per client, as gradio_client, and once anonymous: a new gradio session per call); then RSS growth.

    ``ratio_to_floor`` and ``anonymous_ratio_to_floor`` are /compute's requests per second over the floor's, the
    median of ``rounds`` paired rounds. Then :func:`mixed` (``trainers`` learners training while the sessions
    edit), before RSS.
    """
    with serve(FLOOR) as floor_url, serve("playground.py") as url:
        pid = server_pid(url)
        rss0 = rss_kb(pid)
        got, anon = (paired(floor_url, url, sessions, edits, rounds, mode) for mode in (False, True))
        out = {
            "sessions": sessions,
            "edits": edits,
            "rounds": rounds,
            **got["last"],
            "errors": 0,
            "wrong": got["wrong"] + anon["wrong"],
            "rss_start_mb": rss0 / 1024,
            "rps_rounds": got["compute"],
            "floor_rps_rounds": got["floor"],
            "ratio_rounds": got["ratios"],
            "ratio_to_floor": got["ratio"],
            "anonymous_rps_rounds": anon["compute"],
            "anonymous_floor_rps_rounds": anon["floor"],
            "anonymous_ratio_rounds": anon["ratios"],
            "anonymous_ratio_to_floor": anon["ratio"],
            "floor_wrong": got["floor_wrong"] + anon["floor_wrong"],
        }
        if trainers:
            out |= mixed(url, sessions, edits, trainers, train_calls)
            out["wrong"] += out["train_wrong"] + out["mixed_edit_wrong"]
        if rss_requests:
            out["rss_before_mb"] = rss_kb(pid) / 1024  # warm: after the concurrent phase above
            per = rss_requests // 8
            drive(url, 8, per, COMPUTE, anonymous=True)
            out["rss_after_mb"] = rss_kb(pid) / 1024
            out["rss_requests"] = per * 8
            out["rss_growth_mb"] = out["rss_after_mb"] - out["rss_before_mb"]
        return out


def server_pid(url: str, script: str = "playground.py") -> int:
    port = url.rsplit(":", 1)[1].strip("/")
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().split(b"\0")
                env = (proc / "environ").read_bytes()
            except OSError:
                continue
            if any(c.endswith(script.encode()) for c in cmd) and f"GRADIO_SERVER_PORT={port}".encode() in env:
                return int(proc.name)
    raise RuntimeError("server process not found")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=32)
    ap.add_argument("--edits", type=int, default=50)
    ap.add_argument("--rss-requests", type=int, default=10_000)
    ap.add_argument("--trainers", type=int, default=16)
    ap.add_argument("--train-calls", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3, help="paired floor and /compute rounds per mode")
    a = ap.parse_args()
    print(json.dumps(run(a.sessions, a.edits, a.rss_requests, a.trainers, a.train_calls, a.rounds), indent=1))
