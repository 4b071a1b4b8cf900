"""The followers' side of benchmarks/room.py: students' streams, and real Chromium students, that it runs in
processes of their own.

    python3 benchmarks/room_follow.py --follow URL CODE N     # N joined followers' streams
    python3 benchmarks/room_follow.py --chromium URL CODE N   # N Chromium pages following the room by its link

Each prints "ready" once all follow, and when stdin closes, what each saw (JSON). It imports neither torch nor the
app, so a process of followers does not wait seconds for torch to load before it follows.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests")]

from harness import CHROMIUM_ARGS, LOADED, chromium_path  # noqa: E402


class Follower:
    """One student's stream: when each version arrived, and the question count the teacher's stream showed."""

    def __init__(self) -> None:
        self.seen: dict[int, float] = {}
        self.last: dict[str, Any] = {}
        self.ready = asyncio.Event()

    async def run(self, client: httpx.AsyncClient, code: str, token: str | None, headers: dict[str, str]) -> None:
        params = {"token": token} if token else {}
        async with client.stream("GET", f"room/{code}/events", params=params, headers=headers) as s:
            if s.status_code != 200:  # a refused stream fails the run loudly: nothing would ever set ready
                raise RuntimeError(f"follower refused: {s.status_code} {(await s.aread()).decode()[:200]}")
            async for line in s.aiter_lines():
                if line.startswith("data:"):
                    got = json.loads(line[5:])
                    self.seen[got.get("v", -1)] = time.perf_counter()
                    self.last = got
                    self.ready.set()


async def followers(client: httpx.AsyncClient, code: str, n: int, join: bool) -> tuple[list[Follower], list[Any]]:
    """``n`` followers connected (``join``: each a joined student with its token), once each has its first event."""
    out, tasks, tokens = [], [], []
    for k in range(0, n, 50):  # a class arrives a few at a time
        batch = []
        for _ in range(min(50, n - k)):
            token = None
            if join:
                r = await client.post(f"room/{code}/join", json={})
                r.raise_for_status()
                token = r.json()["token"]
            f = Follower()
            out.append(f)
            tokens.append(token)
            tasks.append(asyncio.create_task(f.run(client, code, token, {})))
            batch.append(f)
        all_ready = asyncio.ensure_future(asyncio.gather(*(f.ready.wait() for f in batch)))
        while not all_ready.done():  # until every one has its first event, or one stream ends (a refusal raises)
            await asyncio.wait([all_ready, *tasks], return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                if task.done() and not all_ready.done():
                    all_ready.cancel()
                    task.result()  # the refusal's RuntimeError
                    raise RuntimeError("a follower's stream ended before its first event")
    return out, [tasks, tokens]


FOLLOWING = "#room .room-status[data-kind=following]"
# In each Chromium follower: at every change of the input grid x, in the frame that paints it, the wall-clock time
# (ms since the epoch: performance.timeOrigin + now, the clock time.time() reads in the teacher's process) and the
# grid's numbers.
WATCH_X = """() => {
  const seen = [];
  const grid = () => [...document.querySelectorAll('#inputs table[data-name=x] tr')].map(
    (tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => parseFloat(td.innerText))).filter((r) => r.length);
  new MutationObserver(() => requestAnimationFrame(() => seen.push([performance.timeOrigin + performance.now(),
    grid()]))).observe(document.querySelector('#inputs'), {subtree: true, childList: true, characterData: true});
  return seen;
}"""


# whether the page's grid x shows an edit's value ({row, col, value}) in its cell
SHOWS = """(e) => {
  const td = document.querySelector(`#inputs table[data-name=x] td[data-r="${e.row}"][data-c="${e.col}"]`);
  return !!td && Math.abs(parseFloat(td.innerText) - parseFloat(e.value)) < 1e-6; }"""


def chromium_followers(url: str, code: str, n: int) -> None:
    """``--chromium``: ``n`` real Chromium pages join room ``code`` by its link (``?room=CODE``), as students'
    laptops do; "ready" once all follow; when stdin closes, what each painted and when (``WATCH_X``), as JSON."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        pages = []
        for _ in range(n):
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(f"{url}?room={code}")
            page.wait_for_selector(FOLLOWING, timeout=60_000)
            page.wait_for_function(LOADED, timeout=60_000)
            page.evaluate(f"() => {{ window.__seen = ({WATCH_X})(); }}")  # the benchmark's own probe
            pages.append(page)
        print("ready", flush=True)
        last = sys.stdin.read().strip()  # the teacher's last edit, {row, col, value} (JSON), or nothing
        if last:  # each page given time to paint it (a loaded machine: the stop came before the frame, CI)
            want = json.loads(last)
            for page in pages:
                with contextlib.suppress(PlaywrightTimeout):  # (not painted: the benchmark says so, with its frames)
                    page.wait_for_function(SHOWS, arg=want, timeout=30_000)
        seen = [page.evaluate("() => window.__seen") for page in pages]
        browser.close()
    print(json.dumps(seen), flush=True)


async def follow_only(url: str, code: str, n: int) -> None:
    """``--follow``: ``n`` joined followers of room ``code`` until stdin closes, "ready" printed once all have
    their first event, then (at the end) when each version reached each follower, as JSON."""
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=httpx.Limits(max_connections=n + 10)) as client:
        fs, (tasks, _) = await followers(client, code, n, join=True)
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        print(json.dumps([f.seen for f in fs]), flush=True)


def main() -> None:
    how, url, code, n = sys.argv[1:5]
    if how == "--follow":
        asyncio.run(follow_only(url, code, int(n)))
    elif how == "--chromium":
        chromium_followers(url, code, int(n))
    else:
        raise SystemExit(f"{how}: --follow or --chromium")


if __name__ == "__main__":
    main()
