"""Many users at once, on loopback only: N sessions × M edits through the queue to /compute.

    python benchmarks/load.py                  # 32 sessions × 50 edits, then RSS over 10,000 requests
    python benchmarks/load.py --sessions 8 --edits 10 --rss-requests 0   # what tests/test_load.py runs

Each session has its own scenario (some seeded); every response is checked against a single-user
compute() of that session's scenario, bit for bit. Bounded in count and time; stops by itself.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import attention_core as ac  # noqa: E402
from harness import serve  # noqa: E402


def scenario(session: int, edit: int) -> dict[str, Any]:
    """Session-specific scenarios: seeded weights for even sessions, explicit ones for odd."""
    x = [[round(0.1 * session + 0.01 * edit + i - j, 3) for j in range(3)] for i in range(4)]
    if session % 2 == 0:
        return {"x": x, "heads": 1 + session % 3, "weights": {"init": "linear", "seed": session},
                "mask": {"kind": "causal"}}  # fmt: skip
    w = [[[0.1 * (session + i - j) for j in range(3)] for i in range(3)]]
    return {"x": x, "weights": {"W_q": w, "W_k": w, "W_v": w}, "layout": "matmul"}


def call(client: httpx.Client, sc: dict[str, Any]) -> dict[str, Any]:
    ev = client.post("gradio_api/call/compute", json={"data": [sc]}).json()["event_id"]
    body = client.get(f"gradio_api/call/compute/{ev}").text
    if "event: complete" not in body:
        raise RuntimeError(body[:300])
    return json.loads(body.split("data: ", 1)[1])[0]


def session(url: str, s: int, edits: int) -> tuple[list[float], int]:
    times, wrong = [], 0
    with httpx.Client(base_url=url, timeout=60) as client:
        for e in range(edits):
            sc = scenario(s, e)
            t0 = time.perf_counter()
            got = call(client, sc)
            times.append((time.perf_counter() - t0) * 1e3)
            wrong += got != json.loads(json.dumps(ac.compute(sc)))  # right for *this* session, bit for bit
    return times, wrong


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def run(sessions: int, edits: int, rss_requests: int) -> dict[str, Any]:
    with serve("playground.py") as url:
        pid = server_pid(url)
        rss0 = rss_kb(pid)
        t0 = time.perf_counter()
        with ThreadPoolExecutor(sessions) as pool:
            results = list(pool.map(lambda s: session(url, s, edits), range(sessions)))
        wall = time.perf_counter() - t0
        times = [t for ts, _ in results for t in ts]
        out = {"sessions": sessions, "edits": edits, "requests": len(times), "errors": 0,
               "wrong": sum(w for _, w in results), "p50_ms": statistics.median(times),
               "p95_ms": sorted(times)[int(0.95 * (len(times) - 1))], "wall_s": wall,
               "rss_start_mb": rss0 / 1024}  # fmt: skip
        if rss_requests:
            out["rss_before_mb"] = rss_kb(pid) / 1024  # warm: after the concurrent phase above
            per = rss_requests // 8
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(lambda s: session(url, s, per), range(8)))
            out["rss_after_mb"] = rss_kb(pid) / 1024
            out["rss_requests"] = per * 8
            out["rss_growth_mb"] = out["rss_after_mb"] - out["rss_before_mb"]
        return out


def server_pid(url: str) -> int:
    port = url.rsplit(":", 1)[1].strip("/")
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().split(b"\0")
                env = (proc / "environ").read_bytes()
            except OSError:
                continue
            if any(c.endswith(b"playground.py") for c in cmd) and f"GRADIO_SERVER_PORT={port}".encode() in env:
                return int(proc.name)
    raise RuntimeError("server process not found")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=32)
    ap.add_argument("--edits", type=int, default=50)
    ap.add_argument("--rss-requests", type=int, default=10_000)
    a = ap.parse_args()
    print(json.dumps(run(a.sessions, a.edits, a.rss_requests), indent=1))
