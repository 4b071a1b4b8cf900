"""A whole class at once: N learners editing live, plus a few using the real model and a few training.

    python3 benchmarks/classroom.py                       # 6, 20, 60 and 200 learners; writes artifacts/classroom.md
    python3 benchmarks/classroom.py --sizes 20 --seconds 5  # the CI test's form (tests/test_classroom.py)

Each learner is a page: its own session hash, opened through the page's own load event (queue/join, then the event
stream until it completes, as the browser does), then one live cell edit every ``--period`` seconds with ±50%
jitter, through the path the grid uses (``component_server`` → ``live_edit``), each edit looked ahead as the page
does while a value is typed: its look is sent ``--lead`` seconds (a learner's pause) before the Enter, and the
commit says ``seen`` when the look came back with views (static/grid.js). The latencies are the commits' round
trips; "shown" is what the learner waits after the Enter for the views: nothing when the look was back, else until
the look or the commit answers. Beside them ``--extras`` learners
call ``/model_attention`` and as many call ``/train`` (a few steps), each about every 3 s. The idle p95 is measured
in the same run: one learner alone, editing every 0.2 s. Each size reports edit latency p50/p95/p99 and p95 ÷ idle
p95, the server's CPU per edit (all its work, the model and training included, divided by the edits), the cores it
used and its RSS (the server and its worker process together), and the wrong answers: every answer is read as bytes
while the clock runs and checked after it stops against a single-user replay of that learner's own edits
(``ui.edits.edit_result``, the state its page loaded with); a failed edit (an HTTP error, a busy answer) counts as
wrong. It is a benchmark, not a test: it asserts nothing about time."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from harness import complete_answer, serve  # noqa: E402
from load import rss_kb, server_pid  # noqa: E402

SIZES = (6, 20, 60, 200)
EXTRA_PERIOD_S = 3.0  # a real-model or training learner's pace
SENTENCES = ("The cat sat on the mat.", "Attention is all you need!", "A teacher explains attention to a class.")


@dataclass
class Learner:
    """One page: its session hash, the edits it sent and, for each, the answer's bytes and its latency."""

    key: str
    edits: list[dict[str, Any]] = field(default_factory=list)
    answers: list[bytes] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)
    shown_ms: list[float] = field(default_factory=list)  # after the Enter, until the views were in hand
    looks_used: int = 0


def page_ids(html: str) -> tuple[int, int]:
    """(the grid's component id, the page load event's id) from the config the page's HTML embeds."""
    start = html.index("window.gradio_config = ") + len("window.gradio_config = ")
    cfg, _ = json.JSONDecoder().raw_decode(html[start:])
    inputs = next(c["id"] for c in cfg["components"] if c["props"].get("elem_id") == "inputs")
    load = next(d["id"] for d in cfg["dependencies"] if [0, "load"] in [list(t) for t in d["targets"]])
    return inputs, load


async def open_page(client: httpx.AsyncClient, load_fn: int, key: str) -> None:
    """The page's load event, as the browser sends it: the server then holds this page's state."""
    body = {"data": [], "fn_index": load_fn, "session_hash": key, "event_data": None, "trigger_id": 0}
    r = await client.post("gradio_api/queue/join", json=body)
    r.raise_for_status()
    event = r.json()["event_id"]
    async with client.stream("GET", "gradio_api/queue/data", params={"session_hash": key}) as s:
        async for line in s.aiter_lines():
            if line.startswith("data: ") and f'"{event}"' in line and "process_completed" in line:
                if '"success":true' not in line.replace(" ", ""):
                    raise RuntimeError(f"load failed: {line[:300]}")
                return
    raise RuntimeError("the load event never completed")


def edit_of(i: int, n: int) -> dict[str, Any]:
    """Learner ``i``'s ``n``-th edit of the default preset's 3×2 x."""
    return {"kind": "cell", "table": "x", "row": n % 3, "col": n % 2, "value": f"{1 + (i * 7 + n) % 50 / 10:.1f}"}


LEAD_S = 0.15  # a learner's pause between typing a value and pressing Enter: the look's head start
LOOK_WAIT_S = 2.0  # what the page waits at most for a look on its way (grid.js's LOOK_TIMEOUT_MS)


async def post_edit(client: httpx.AsyncClient, comp: int, key: str, data: dict[str, Any]) -> tuple[bytes, float]:
    """One live edit or look as the page posts it: (the answer's bytes, or "HTTP <status>"; when it was in)."""
    body = {"data": data, "component_id": comp, "fn_name": "live_edit", "session_hash": key}
    r = await client.post("gradio_api/component_server", json=body)
    return (r.content if r.status_code == 200 else b"HTTP %d" % r.status_code), time.perf_counter()


def usable(look: bytes) -> bool:
    """Whether a look's answer has views the page would draw (not busy, not an HTTP error)."""
    try:
        got = json.loads(look)
    except ValueError:
        return False
    return isinstance(got, dict) and "views" in got and not got.get("busy")


async def learner(
    client: httpx.AsyncClient, comp: int, who: Learner, i: int, period: float, until: float, lead: float = LEAD_S
) -> None:
    rng = random.Random(i)
    await asyncio.sleep(rng.uniform(0, period))  # the class does not start in step
    n = 0
    while time.monotonic() < until:
        data = edit_of(i, n)
        look = asyncio.create_task(post_edit(client, comp, who.key, {**data, "look": True})) if lead > 0 else None
        await asyncio.sleep(lead)  # typing done, the learner pauses; then the Enter
        t0 = time.perf_counter()
        try:  # (the page waits for a look still on its way, at most LOOK_WAIT_S)
            seen, seen_at = await asyncio.wait_for(look, LOOK_WAIT_S) if look else (b"", t0)
        except TimeoutError:
            seen, seen_at = b"", t0
        used = usable(seen)
        answer, t1 = await post_edit(client, comp, who.key, {**data, "seen": True} if used else data)
        if used and answer.startswith(b"{") and json.loads(answer).get("same"):
            answer = seen  # the views the page drew are the look's
        who.edits.append(data)
        who.answers.append(answer)
        who.ms.append((t1 - max(t0, seen_at)) * 1e3)  # (the commit leaves once the look is in, or given up)
        who.shown_ms.append(max(0.0, (seen_at if used else t1) - t0) * 1e3)
        who.looks_used += used
        n += 1
        await asyncio.sleep(max(0.0, period * rng.uniform(0.5, 1.5) - lead - (t1 - t0)))


async def api_user(client: httpx.AsyncClient, api: str, i: int, until: float, out: list[tuple[Any, bytes]]) -> None:
    """A learner on the Real model tab or the Train tab, through the API app (its own gradio sessions)."""
    rng = random.Random(1000 + i)
    n = 0
    await asyncio.sleep(rng.uniform(0, EXTRA_PERIOD_S) if until - time.monotonic() > EXTRA_PERIOD_S else 0)
    while n == 0 or time.monotonic() < until:
        if api == "model_attention":
            payload: dict[str, Any] = {"sentence": SENTENCES[(i + n) % 3], "layer": 1 + n % 6, "head": 1 + i % 12}
        else:
            payload = {"task": ("previous", "match")[i % 2], "seed": i, "steps": 5}
        ev = (await client.post(f"api/gradio_api/call/{api}", json={"data": [payload]})).json()["event_id"]
        out.append((payload, (await client.get(f"api/gradio_api/call/{api}/{ev}")).content))
        n += 1
        await asyncio.sleep(EXTRA_PERIOD_S * rng.uniform(0.5, 1.5))


def expected_answers(who: Learner) -> list[Any]:
    """A single-user replay of one learner's edits from the state its page loaded with."""
    # gradio and torch (~3 s) load here, for the check after the run, not in the load clients
    from ui.edits import edit_result  # noqa: PLC0415
    from ui.live import live_views  # noqa: PLC0415
    from ui.pipeline import load_values  # noqa: PLC0415
    from ui.values import DEFAULT_PRESET  # noqa: PLC0415

    _, vals, _ = load_values(DEFAULT_PRESET)
    out = []
    for data in who.edits:
        nv, got, grid = edit_result("cell", DEFAULT_PRESET, vals, data, drawn=True)  # (as the live route does)
        out.append(json.loads(json.dumps({"views": live_views(got), "grid": grid})))
        vals = nv if nv is not None else vals
    return out


def wrong_answers(learners: list[Learner], extras: list[tuple[str, Any, bytes]]) -> int:
    """Answers that differ from the single-user replay (edits) or are not a completed result (the others)."""
    wrong = 0
    for who in learners:
        for got, want in zip(who.answers, expected_answers(who), strict=True):
            try:
                wrong += json.loads(got) != want
            except ValueError:
                wrong += 1
    for api, payload, text in extras:
        wrong += b"event: complete" not in text or (api == "train" and train_wrong(payload, text))
    return wrong


def train_wrong(payload: dict[str, Any], text: bytes) -> bool:
    from attention_core import train  # noqa: PLC0415 (torch: only the check after the run needs it)

    st = train.train_steps(train.start(payload["task"], payload["seed"]), payload["steps"])
    got = complete_answer(text.decode())
    return got["losses"] != list(st.losses) or got["weights"] != train.weights_matrix(st).tolist()


def family(pid: int) -> list[int]:
    """The server and its worker processes (serving/workers.py runs the model and training in one)."""
    kids = []
    for p in Path("/proc").iterdir():
        try:
            if p.name.isdigit() and int((p / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(p.name))
        except (OSError, ValueError):
            continue
    return [pid, *kids]


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of the server and its workers."""
    total = 0.0
    for p in family(pid):
        try:
            f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    return total


def rss_mb(pid: int) -> float:
    """Resident memory of the server and its workers, MB."""
    return sum(rss_kb(p) for p in family(pid)) / 1024


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


async def class_round(url: str, pid: int, n: int, seconds: float, period: float, n_extras: int) -> dict[str, Any]:
    """``n`` learners opened, then ``seconds`` of editing beside ``n_extras`` model users and as many trainers."""
    limits = httpx.Limits(max_connections=n + 2 * n_extras + 8, max_keepalive_connections=n + 2 * n_extras + 8)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        comp, load_fn = page_ids((await client.get("")).text)
        learners = [Learner(uuid.uuid4().hex[:12]) for _ in range(n)]
        for k in range(0, n, 10):  # pages open a few at a time, as a class arrives
            await asyncio.gather(*(open_page(client, load_fn, w.key) for w in learners[k : k + 10]))
        extras: dict[str, list[tuple[Any, bytes]]] = {"model_attention": [], "train": []}
        c0, t0, own0 = cpu_s(pid), time.monotonic(), time.process_time()
        until = t0 + seconds
        jobs = [learner(client, comp, w, i, period, until) for i, w in enumerate(learners)]
        jobs += [api_user(client, api, i, until, extras[api]) for api in extras for i in range(n_extras)]
        await asyncio.gather(*jobs)
        wall, cpu, own = time.monotonic() - t0, cpu_s(pid) - c0, time.process_time() - own0
    ms = [m for w in learners for m in w.ms]
    shown = [m for w in learners for m in w.shown_ms]
    flat = [(api, p, t) for api, got in extras.items() for p, t in got]
    return {"learners": n, "edits": len(ms), "edits_per_s": len(ms) / wall, "p50": pct(ms, 0.5),
            "p95": pct(ms, 0.95), "p99": pct(ms, 0.99), "shown_p50": pct(shown, 0.5), "shown_p95": pct(shown, 0.95),
            "looks_used": sum(w.looks_used for w in learners) / max(1, len(ms)),
            "cpu_ms_per_edit": cpu * 1e3 / max(1, len(ms)),
            "cores": cpu / wall, "client_cores": own / wall, "rss_mb": rss_mb(pid), "extra_calls": len(flat),
            "wrong": wrong_answers(learners, flat)}  # fmt: skip


async def idle_p95(url: str, edits: int = 60) -> float:
    """One learner alone, editing every 0.2 s without looking ahead: the idle p95 of a commit computed, which the
    class's commits are compared with."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        comp, load_fn = page_ids((await client.get("")).text)
        who = Learner(uuid.uuid4().hex[:12])
        await open_page(client, load_fn, who.key)
        await learner(client, comp, who, 0, 0.2, time.monotonic() + edits * 0.2, lead=0.0)  # (commits only)
    assert wrong_answers([who], []) == 0, "the idle learner got a wrong answer"
    return pct(who.ms, 0.95)


async def warm(url: str) -> None:
    """One model call and one training call before any clock: the model loads once per server (about 2 s)."""
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        for api in ("model_attention", "train"):
            await api_user(client, api, 0, time.monotonic() + 0.01, [])


def run(
    sizes: tuple[int, ...], seconds: float, period: float, n_extras: int, idle_edits: int = 60
) -> tuple[float, list[dict[str, Any]]]:
    """Serve the app once, measure its idle p95 (over ``idle_edits`` edits), then each class size in turn (fresh
    pages each round)."""
    with serve() as url:
        pid = server_pid(url)
        asyncio.run(warm(url))
        idle = asyncio.run(idle_p95(url, idle_edits))
        rounds = [asyncio.run(class_round(url, pid, n, seconds, period, n_extras)) for n in sizes]
    return idle, rounds


def table(idle: float, rounds: list[dict[str, Any]]) -> str:
    head = ("| learners | edits/s | p50 | p95 | p99 | p95 ÷ idle p95 | looks used | shown p50 / p95 | "
            "server CPU per edit | server cores | client cores | RSS | model + train calls | wrong |\n"
            + "|---" * 14 + "|\n")  # fmt: skip
    rows = "".join(
        f"| {r['learners']} | {r['edits_per_s']:.1f} | {r['p50']:.1f} ms | {r['p95']:.1f} ms | {r['p99']:.1f} ms | "
        f"{r['p95'] / idle:.2f}× | {r['looks_used']:.0%} | {r['shown_p50']:.1f} / {r['shown_p95']:.1f} ms | "
        f"{r['cpu_ms_per_edit']:.1f} ms | {r['cores']:.2f} | {r['client_cores']:.2f} | "
        f"{r['rss_mb']:.0f} MB | "
        f"{r['extra_calls']} | {r['wrong']} |\n"
        for r in rounds
    )
    return f"Idle p95 (one learner alone, same run): {idle:.1f} ms\n\n{head}{rows}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="class sizes, comma-separated")
    ap.add_argument("--seconds", type=float, default=20.0, help="editing time per class size")
    ap.add_argument("--period", type=float, default=2.0, help="seconds between one learner's edits (±50%%)")
    ap.add_argument("--extras", type=int, default=5, help="real-model learners, and as many training")
    ap.add_argument("--idle-edits", type=int, default=60, help="the lone learner's edits, for the idle p95")
    ap.add_argument("--out", default=str(ROOT / "artifacts" / "classroom.md"))
    a = ap.parse_args()
    idle, rounds = run(tuple(int(s) for s in a.sizes.split(",")), a.seconds, a.period, a.extras, a.idle_edits)
    text = table(idle, rounds)
    print(text)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(text)
    print(json.dumps({"idle_p95": idle, "rounds": rounds}))
    if statistics.fmean(r["wrong"] for r in rounds):
        raise SystemExit("wrong answers: see the table")


if __name__ == "__main__":
    main()
