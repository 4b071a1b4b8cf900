"""Hostile traffic on loopback, bounded in count and time: RSS over the warm baseline, and the server still answers.

    python benchmarks/hostile.py                                   # 10,000 anonymous, 200 largest, 50 over-limit
    python benchmarks/hostile.py --anonymous 80 --largest 2 --over 4   # what tests/test_hostile.py runs
    python benchmarks/hostile.py --app /elsewhere/playground.py    # the same against another checkout (before/after)

Each scenario gets its own server; after a warm-up (small calls and one largest request) its RSS is the baseline:
* ``anonymous``: /compute calls without a session hash (each a new gradio session), 8 clients at once;
* ``largest``: sessions that each send the largest legitimate request (limits.largest_compute_request, 2.46 MB);
* ``over``: bodies above the limit (8 MiB of JSON numbers), half with a Content-Length, half chunked.
After it: RSS (and its peak while it ran) over the baseline, and whether a /compute call still gets the right
answer. A count of 0 skips a scenario. Every address is 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import select
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "tests")]

from harness import serve  # noqa: E402
from load import COMPUTE, call, drive, rss_kb, scenario, server_pid  # noqa: E402

import attention_core as ac  # noqa: E402
from serving import limits  # noqa: E402

OVER_BYTES = 8 * 2**20  # an over-limit body: 8 MiB, well past limits.MAX_BODY_BYTES
PIECE = 64 * 1024


def over_limit_body(size: int = OVER_BYTES) -> bytes:
    """Valid JSON of the /call shape, ``size`` bytes of numbers: what a server that parses it would have to hold."""
    row = "[" + ", ".join(["0.123456789"] * 64) + "]"
    rows = (size - 40) // (len(row) + 2)
    return ('{"data": [{"x": [' + ", ".join([row] * rows) + "]}]}").encode()


def post_raw(port: int, body: bytes, chunked: bool, path: str = "/api/gradio_api/call/compute") -> dict[str, Any]:
    """POST ``body`` on a raw socket, stopping as soon as the server answers; status and time to the answer.

    The time runs from the headers (with a Content-Length) or from the first byte past the limit (chunked).
    """
    frame = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {len(body)}"
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{frame}\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        t0 = time.perf_counter()
        s.sendall(head.encode())
        sent, t_limit = 0, None if chunked else t0
        try:
            while sent < len(body) and not select.select([s], [], [], 0)[0]:
                piece = body[sent : sent + PIECE]
                s.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                sent += len(piece)
                if t_limit is None and sent > limits.MAX_BODY_BYTES:
                    t_limit = time.perf_counter()
            if chunked and sent >= len(body):
                s.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server answered and closed while the rest of the body was on its way
        answer = b""
        try:
            while b"\r\n" not in answer:
                more = s.recv(4096)
                if not more:
                    break
                answer += more
        except OSError:
            pass
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0
    return {"status": status, "ms": (time.perf_counter() - (t_limit or t0)) * 1e3, "sent": sent}


def anonymous(url: str, n: int) -> dict[str, Any]:
    got = drive(url, 8, max(1, n // 8), COMPUTE, anonymous=True)
    return {"requests": got["requests"], "wrong": got["wrong"], "rps": round(got["rps"], 1)}


def largest(url: str, n: int) -> dict[str, Any]:
    """``n`` sessions, each sending the largest legitimate request once (4 at a time); every answer checked."""
    sc = limits.largest_compute_request()
    right = json.loads(json.dumps(ac.compute(sc)))

    def one(_: int) -> bool:
        with httpx.Client(base_url=url, timeout=300) as client:
            return call(client, sc, "compute", uuid.uuid4().hex) == right

    with ThreadPoolExecutor(4) as pool:
        ok = list(pool.map(one, range(n)))
    return {"requests": n, "wrong": ok.count(False)}


def over(url: str, n: int) -> dict[str, Any]:
    """``n`` over-limit bodies, alternately with a Content-Length and chunked, 4 at a time."""
    port = int(url.rsplit(":", 1)[1].strip("/"))
    body = over_limit_body()
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda i: post_raw(port, body, chunked=i % 2 == 1), range(n)))
    return {
        "requests": n,
        "statuses": sorted({g["status"] for g in got}),
        "max_ms": round(max(g["ms"] for g in got), 1),
        "max_sent_mb": round(max(g["sent"] for g in got) / 2**20, 2),
    }


@contextmanager
def peak_rss(pid: int) -> Iterator[list[int]]:
    """Samples the server's RSS every 20 ms while the block runs; yields a one-item list holding the peak (KB)."""
    peak, done = [rss_kb(pid)], threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], rss_kb(pid))

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    try:
        yield peak
    finally:
        done.set()
        t.join()


def answers(url: str) -> bool:
    """Does a fresh /compute call still get the right answer?"""
    sc = scenario(3, 1)
    with httpx.Client(base_url=url, timeout=60) as client:
        return call(client, sc) == json.loads(json.dumps(ac.compute(sc)))


def warm_up(url: str) -> None:
    anonymous(url, 16)
    largest(url, 1)


SCENARIOS: dict[str, Callable[[str, int], dict[str, Any]]] = {
    "anonymous": anonymous,
    "largest": largest,
    "over": over,
}


def run(counts: dict[str, int], app: str = "playground.py") -> dict[str, Any]:
    """Each scenario (a count of 0 skips it) against its own freshly warmed server: RSS over that server's warm
    baseline, at the end and at the peak, and a check call afterwards."""
    rows = []
    for name, n in counts.items():
        if n <= 0:
            continue
        with serve(app) as url:
            pid = server_pid(url)
            warm_up(url)
            time.sleep(0.5)
            base = rss_kb(pid)
            t0 = time.perf_counter()
            with peak_rss(pid) as peak:
                detail = SCENARIOS[name](url, n)
            seconds = time.perf_counter() - t0
            end = rss_kb(pid)
            rows.append(
                {
                    "scenario": name,
                    **detail,
                    "seconds": round(seconds, 1),
                    "base_mb": round(base / 1024, 1),
                    "rss_over_base_mb": round((end - base) / 1024, 1),
                    "peak_over_base_mb": round((peak[0] - base) / 1024, 1),
                    "answers": answers(url),
                }
            )
    return {"app": app, "rows": rows}


def table(result: dict[str, Any]) -> str:
    lines = [
        f"{result['app']}: each scenario on its own server, after a warm-up (16 small calls, 1 largest)",
        "",
        "| scenario | requests | RSS over warm base (end / peak) | answers after | detail |",
        "|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        detail = {k: v for k, v in r.items() if k not in ("scenario", "requests", "answers") and "over_base" not in k}
        lines.append(f"| {r['scenario']} | {r['requests']} | +{r['rss_over_base_mb']} / +{r['peak_over_base_mb']} MB "
                     f"| {r['answers']} | {json.dumps(detail)} |")  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--anonymous", type=int, default=10_000)
    ap.add_argument("--largest", type=int, default=200)
    ap.add_argument("--over", type=int, default=50)
    ap.add_argument("--app", default="playground.py", help="the app to serve (another checkout's, for a before)")
    a = ap.parse_args()
    out = run({"anonymous": a.anonymous, "largest": a.largest, "over": a.over}, a.app)
    print(json.dumps(out, indent=1))
    print(table(out))
