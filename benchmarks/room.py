"""A lesson room under load: a teacher's edits fanned out to followers, a class answering, idle followers' memory.

    python3 benchmarks/room.py                      # writes artifacts/room.md
    python3 benchmarks/room.py --followers 20 --edits 5 --learners 6 --idle 50   # a quick form
    python3 benchmarks/room.py --replicas 2        # Redis and two replicas: artifacts/room-redis.md

Every client speaks the page's own protocol over HTTP: the teacher is a page (its load event, then "Teach this" as
the room element's queued event, then live cell edits through ``component_server``, as grid.js sends them); a
follower is a student's page's stream (``POST /room/CODE/join``, then ``GET /room/CODE/events``, Server-Sent
Events); other learners edit their own pages (benchmarks/classroom.py's learners). Measured, on one server:

* **fan-out**: each teacher edit's time from its POST to each follower holding the new state (the stream's event of
  the version the edit made), p50/p95 over every follower and edit, with 1 and with ``--followers`` followers;
* **CPU per teacher edit**: the server's CPU seconds over the edits ÷ edits, with 1 and with many followers;
* **the rest of the app**: ``--learners`` learners editing their own pages while the room runs, their p95 beside
  the idle p95 (one learner alone) of the same run, and beside the same learners' p95 without a room;
* **answers**: ``--followers`` students answer one question at once; the time from the last answer's reply to the
  teacher's stream showing them all (its count);
* **memory**: the server's RSS before and after ``--idle`` more idle followers connect (RSS ÷ followers), from
  several loopback addresses (a room takes at most 500 streams from one address);
* **on screen**: ``--browsers`` real Chromium students (``?room=CODE``) beside the many followers, each teacher edit
  timed from its POST to the frame that paints its value in their input grid.

It is a benchmark, not a test: it asserts nothing about time. The clients share the machine with the server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from classroom import (  # noqa: E402
    Learner,
    cpu_s,
    edit_of,
    idle_p95,
    learner,
    open_page,
    page_ids,
    pct,
    post_edit,
    rss_mb,
)
from harness import redis_server, serve  # noqa: E402
from load import server_pid  # noqa: E402
from room_follow import Follower, followers  # noqa: E402


def room_fn(html: str) -> int:
    """The room element's click event's id (ui/room.py wire_room) from the config the page embeds."""
    start = html.index("window.gradio_config = ") + len("window.gradio_config = ")
    cfg, _ = json.JSONDecoder().raw_decode(html[start:])
    room = next(c["id"] for c in cfg["components"] if c["props"].get("elem_id") == "room")
    return next(d["id"] for d in cfg["dependencies"] if [room, "click"] in [list(t) for t in d["targets"]])


async def open_room(client: httpx.AsyncClient, fn: int, key: str) -> dict[str, Any]:
    """ "Teach this" as the page sends it; the room element's value (code, secret) from the event's answer."""
    body = {"data": [], "fn_index": fn, "session_hash": key, "event_data": {"kind": "open"}, "trigger_id": 0}
    r = await client.post("gradio_api/queue/join", json=body)
    r.raise_for_status()
    async with client.stream("GET", "gradio_api/queue/data", params={"session_hash": key}) as s:
        async for line in s.aiter_lines():
            if line.startswith("data: ") and "process_completed" in line:
                msg = json.loads(line[6:])
                for v in msg["output"]["data"]:
                    text = v.get("value") if isinstance(v, dict) else v
                    if isinstance(text, str) and '"role": "teacher"' in text:
                        return json.loads(text)
                said = [v for v in msg["output"]["data"] if isinstance(v, str)]  # the element's value: its error
                raise RuntimeError(f"no room in the answer: {said}")
    raise RuntimeError("the open event never completed")


async def fan_out(follow_url: str, client: httpx.AsyncClient, pids: list[int], t: dict[str, Any], comp: int, n: int,
                  edits: int, gap: float, browsers: int = 0) -> dict[str, Any]:  # fmt: skip
    """``edits`` teacher edits with ``n`` followers (on the server at ``follow_url``: the teacher's, or another
    replica): latency to each follower, and the servers' CPU per edit (summed over ``pids``). The followers run in
    a process of their own (room_follow.py), which reports when each version reached each of them
    (perf_counter is the system's monotonic clock, the same in both processes). With ``browsers``, that many real
    Chromium followers join too (room_follow.py), timed from the edit's POST to the frame painting its
    value ("paint_p50"/"paint_p95"); their pages' own requests then count in the CPU."""
    chromium = await follower_process(follow_url, t["code"], browsers, "--chromium") if browsers else None
    proc = await follower_process(follow_url, t["code"], n)
    await asyncio.sleep(0.5)
    sent: list[float] = []
    wall: list[tuple[float, dict[str, Any]]] = []
    c0 = sum(cpu_s(pid) for pid in pids)
    for e in range(edits):
        sent.append(time.perf_counter())
        wall.append((time.time(), edit_of(7, e + n + browsers)))
        await post_edit(client, comp, t["key"], wall[-1][1])
        await asyncio.sleep(gap)
    cpu = (sum(cpu_s(pid) for pid in pids) - c0) / edits
    seen = await stop(proc)
    first = min(int(v) for v in seen[0])  # the version each follower got on connecting
    lat = [(f[str(first + 1 + e)] - t0) * 1e3 for f in seen for e, t0 in enumerate(sent)]
    out = {"followers": n, "p50": pct(lat, 0.5), "p95": pct(lat, 0.95), "cpu_ms": cpu * 1e3, "browsers": browsers}
    if chromium is not None:  # (told the last edit: each page is given time to paint it before it reports)
        painted = painted_ms(await stop(chromium, json.dumps(wall[-1][1])), wall)
        out |= {"paint_p50": pct(painted, 0.5), "paint_p95": pct(painted, 0.95), "paint_max": max(painted)}
    return out


async def answers(client: httpx.AsyncClient, t: dict[str, Any], n: int,
                  students: httpx.AsyncClient | None = None) -> dict[str, float]:  # fmt: skip
    """``n`` students (on ``students``' server: another replica, or the teacher's) answer at once; ms from the first
    answer sent, and from the last one's reply, to the teacher's stream counting them all (the last reply can come
    after the count: then 0 or less)."""
    hdr = {"X-Room-Secret": t["secret"]}
    client, teacher_client = students or client, client
    _, (tasks, tokens) = await followers(client, t["code"], n, join=True)
    teacher = Follower()
    tasks.append(asyncio.create_task(teacher.run(teacher_client, t["code"], None, hdr)))
    await teacher.ready.wait()
    ask = {"kind": "predict", "name": "weights", "row": 1, "col": 1}
    r = await teacher_client.post(f"room/{t['code']}/ask", json=ask, headers=hdr)
    qid = r.json()["question"]
    first = time.perf_counter()
    sent = await asyncio.gather(*(client.post(f"room/{t['code']}/answer", json={"token": tok, "question": qid,
                                  "answer": f"0.{i % 9 + 1}"}) for i, tok in enumerate(tokens)))  # fmt: skip
    last = time.perf_counter()
    assert all(r.status_code == 200 for r in sent), [r.text for r in sent if r.status_code != 200][:3]
    while (teacher.last.get("question") or {}).get("count") != n:
        await asyncio.sleep(0.002)
    done = time.perf_counter()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"all_ms": (done - first) * 1e3, "after_last_ms": (done - last) * 1e3}


async def beside(url: str, client: httpx.AsyncClient, t: dict[str, Any], comp: int, n_follow: int, n_learn: int,
                 seconds: float) -> float:  # fmt: skip
    """``n_learn`` learners edit their own pages for ``seconds`` while the teacher edits every 0.5 s to
    ``n_follow`` followers (none: no room, the same learners alone); returns the learners' commit p95."""
    proc = await follower_process(url, t["code"], n_follow) if n_follow else None
    learners = [Learner(uuid.uuid4().hex[:12]) for _ in range(n_learn)]
    limits = httpx.Limits(max_connections=n_learn + 10)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as own:  # (fresh connections)
        _, load_fn = page_ids((await own.get("")).text)
        for k in range(0, n_learn, 10):
            await asyncio.gather(*(open_page(own, load_fn, w.key) for w in learners[k : k + 10]))
        until = time.monotonic() + seconds

        async def teach() -> None:
            e = 0
            while n_follow and time.monotonic() < until:
                await post_edit(own, comp, t["key"], edit_of(3, e))
                e += 1
                await asyncio.sleep(0.5)

        await asyncio.gather(teach(), *(learner(own, comp, w, i, 2.0, until) for i, w in enumerate(learners)))
    if proc is not None:
        await stop(proc)
    return pct([m for w in learners for m in w.ms], 0.95)


async def follower_process(url: str, code: str, n: int, how: str = "--follow") -> asyncio.subprocess.Process:
    """``n`` followers in a process of their own (room_follow.py's ``follow_only``; ``how="--chromium"``: real
    Chromium pages, its ``chromium_followers``): their reading does not slow this process's clients; returns once
    all follow."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(ROOT / "benchmarks" / "room_follow.py"), how, url, code, str(n),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)  # fmt: skip
    assert proc.stdout is not None
    assert (await proc.stdout.readline()).strip() == b"ready"
    return proc


async def stop(proc: asyncio.subprocess.Process, last: str = "") -> list[dict[str, float]]:
    """Stop a follower process (``last``: written to it first, the teacher's last edit for Chromium followers to
    wait for); what it saw: per follower, when each version reached it."""
    assert proc.stdin is not None and proc.stdout is not None
    if last:
        proc.stdin.write(last.encode())
        await proc.stdin.drain()
    proc.stdin.close()
    seen = json.loads((await proc.stdout.read()).decode())
    await proc.wait()
    return seen


def painted_ms(seen: list[list[Any]], sent: list[tuple[float, dict[str, Any]]]) -> list[float]:
    """Per Chromium follower and teacher edit: ms from the edit's POST (epoch seconds) to the first frame painting
    the edit's value in its cell."""
    out = []
    for frames in seen:
        for t0, edit in sent:
            r, c, v = edit["row"], edit["col"], float(edit["value"])
            hit = [(t / 1e3 - t0) * 1e3 for t, x in frames if t / 1e3 >= t0 and abs(x[r][c] - v) < 1e-6]
            if not hit:
                raise RuntimeError(f"a Chromium follower never painted {edit} (its frames: {frames[-3:]})")
            out.append(hit[0])
    return out


async def idle_memory(url: str, pid: int, code: str, n: int) -> dict[str, float]:
    """The server's RSS before and after ``n`` idle followers connect (projectors: streams without a token).
    They come from several loopback addresses (127.0.0.2, .3, …), at most 400 from each, as a hall's pages come
    from several networks: one address may hold only ``MAX_STREAMS_PER_CLIENT`` (500) streams of a room."""
    per = 400
    pool = httpx.Limits(max_connections=per + 10)  # (a transport of one's own takes its own limits)
    clients = [httpx.AsyncClient(base_url=url, timeout=120,
                                 transport=httpx.AsyncHTTPTransport(local_address=f"127.0.0.{2 + k}", limits=pool))
               for k in range(-(-n // per))]  # fmt: skip
    await asyncio.sleep(1)
    before = rss_mb(pid)
    tasks: list[asyncio.Task[None]] = []
    try:
        for k, client in enumerate(clients):
            _, (more, _) = await followers(client, code, min(per, n - k * per), join=False)
            tasks += more
        await asyncio.sleep(2)
        after = rss_mb(pid)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for client in clients:
            await client.aclose()
    return {"idle": n, "before_mb": before, "after_mb": after, "kb_each": (after - before) * 1024 / n}


OPEN: list[tuple[httpx.AsyncClient, dict[str, Any]]] = []  # this run's open room (one address opens at most 5)


async def teacher_page(client: httpx.AsyncClient) -> tuple[dict[str, Any], int]:
    """A teacher's page with a new room; the phase before's room is closed first, as a teacher would."""
    while OPEN:
        was, room = OPEN.pop()
        r = await was.post(f"room/{room['code']}/close", json={}, headers={"X-Room-Secret": room["secret"]})
        r.raise_for_status()
    html = (await client.get("")).text
    comp, load_fn = page_ids(html)
    key = uuid.uuid4().hex[:12]
    await open_page(client, load_fn, key)
    room = await open_room(client, room_fn(html), key)
    OPEN.append((client, room))
    return {**room, "key": key}, comp


async def run(url: str, pid: int, a: argparse.Namespace) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=a.followers + a.learners + 50)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        idle = await idle_p95(url, a.idle_edits)
        out: dict[str, Any] = {"idle_p95": idle, "fan": []}
        for n in (1, a.followers):
            t, comp = await teacher_page(client)
            out["fan"].append(await fan_out(url, client, [pid], t, comp, n, a.edits, 0.3))
        if a.browsers:
            t, comp = await teacher_page(client)
            out["painted"] = await fan_out(url, client, [pid], t, comp, a.followers, a.edits, 0.3, a.browsers)
        t, comp = await teacher_page(client)
        out["alone_p95"] = await beside(url, client, t, comp, 0, a.learners, a.seconds)
        out["beside_p95"] = await beside(url, client, t, comp, a.followers, a.learners, a.seconds)
        t, _ = await teacher_page(client)
        out["answers_ms"] = await answers(client, t, a.followers)
        t, _ = await teacher_page(client)
        out["memory"] = await idle_memory(url, pid, t["code"], a.idle)
    return out


async def run_replicas(urls: list[str], pids: list[int], a: argparse.Namespace) -> dict[str, Any]:
    """``--replicas 2``: the teacher on the first replica, every follower and student on the second (a change
    crosses Redis's pub/sub before any follower sees it); the fan-out and the answers only."""
    limits = httpx.Limits(max_connections=a.followers + 50)
    async with (httpx.AsyncClient(base_url=urls[0], timeout=120, limits=limits) as teach,
                httpx.AsyncClient(base_url=urls[1], timeout=120, limits=limits) as other):  # fmt: skip
        out: dict[str, Any] = {"fan": []}
        for n in (1, a.followers):
            t, comp = await teacher_page(teach)
            out["fan"].append(await fan_out(urls[1], teach, pids, t, comp, n, a.edits, 0.3))
        if a.browsers:
            t, comp = await teacher_page(teach)
            out["painted"] = await fan_out(urls[1], teach, pids, t, comp, a.followers, a.edits, 0.3, a.browsers)
        t, _ = await teacher_page(teach)
        out["answers_ms"] = await answers(teach, t, a.followers, other)
    return out


def painted_row(r: dict[str, Any]) -> list[str]:
    """The Chromium followers' row, when the run had them."""
    if "painted" not in r:
        return []
    b = r["painted"]
    return [f"| teacher edit → painted on {b['browsers']} real Chromium followers' screens, beside {b['followers']} "
            f"followers | p50 {b['paint_p50']:.1f} ms, p95 {b['paint_p95']:.1f} ms, max {b['paint_max']:.1f} ms "
            f"(the streams: p95 {b['p95']:.1f} ms) |"]  # fmt: skip


def replicas_table(r: dict[str, Any]) -> str:
    one, many = r["fan"]
    return "\n".join([
        "| measure (Redis, 2 replicas: teacher on one, followers on the other) | value |", "|---|---|",
        f"| teacher edit → follower has it, 1 follower | p50 {one['p50']:.1f} ms, p95 {one['p95']:.1f} ms |",
        f"| teacher edit → follower has it, {many['followers']} followers | p50 {many['p50']:.1f} ms, "
        f"p95 {many['p95']:.1f} ms |",
        f"| both servers' CPU per teacher edit, 1 → {many['followers']} followers | {one['cpu_ms']:.1f} → "
        f"{many['cpu_ms']:.1f} ms ({many['cpu_ms'] / max(one['cpu_ms'], 1e-9):.2f}×) |",
        *painted_row(r),
        f"| {many['followers']} answers sent at once → the teacher's count shows them all | "
        f"{r['answers_ms']['all_ms']:.0f} ms from the first sent, {r['answers_ms']['after_last_ms']:.0f} ms "
        "after the last reply |",
    ])  # fmt: skip


def table(r: dict[str, Any], a: argparse.Namespace) -> str:
    one, many = r["fan"]
    m = r["memory"]
    return "\n".join([
        "| measure | value |", "|---|---|",
        f"| teacher edit → follower has it, 1 follower | p50 {one['p50']:.1f} ms, p95 {one['p95']:.1f} ms |",
        f"| teacher edit → follower has it, {many['followers']} followers | p50 {many['p50']:.1f} ms, "
        f"p95 {many['p95']:.1f} ms |",
        f"| server CPU per teacher edit, 1 → {many['followers']} followers | {one['cpu_ms']:.1f} → "
        f"{many['cpu_ms']:.1f} ms ({many['cpu_ms'] / max(one['cpu_ms'], 1e-9):.2f}×) |",
        *painted_row(r),
        f"| {a.learners} other learners' edit p95 beside the room / idle p95 | {r['beside_p95']:.1f} / "
        f"{r['idle_p95']:.1f} ms ({r['beside_p95'] / r['idle_p95']:.2f}×) |",
        f"| the same {a.learners} learners without a room (same run) | p95 {r['alone_p95']:.1f} ms "
        f"({r['alone_p95'] / r['idle_p95']:.2f}× idle); the room adds {r['beside_p95'] / r['alone_p95']:.2f}× |",
        f"| {a.followers} answers sent at once → the teacher's count shows them all | "
        f"{r['answers_ms']['all_ms']:.0f} ms from the first sent, {r['answers_ms']['after_last_ms']:.0f} ms "
        "after the last reply |",
        f"| {m['idle']} idle followers | RSS {m['before_mb']:.0f} → {m['after_mb']:.0f} MB "
        f"({m['kb_each']:.1f} KB each) |",
    ])  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--followers", type=int, default=200)
    ap.add_argument("--edits", type=int, default=20, help="teacher edits per fan-out round")
    ap.add_argument("--learners", type=int, default=60, help="other learners editing beside the room")
    ap.add_argument("--seconds", type=float, default=20.0, help="how long they edit")
    ap.add_argument("--idle", type=int, default=1000, help="idle followers for the memory figure")
    ap.add_argument("--idle-edits", type=int, default=60, help="a lone learner's edits, for the idle p95")
    ap.add_argument("--browsers", type=int, default=3, help="real Chromium followers timed to the repaint (0: none)")
    ap.add_argument("--out", default=None, help="the table's file (artifacts/room.md, or room-redis.md)")
    ap.add_argument("--env", default="", help="KEY=VALUE for the server, e.g. AP_ROOMS_REDIS=redis://…")
    ap.add_argument("--replicas", type=int, choices=(1, 2), default=1,
                    help="2: a redis-server of its own and two replicas on it (fan-out and answers only)")  # fmt: skip
    a = ap.parse_args()
    a.out = a.out or str(ROOT / "artifacts" / ("room-redis.md" if a.replicas == 2 else "room.md"))
    env = dict(kv.split("=", 1) for kv in a.env.split(",") if kv)
    if a.replicas == 2:
        with redis_server() as rurl, serve(env={**env, "AP_ROOMS_REDIS": rurl}) as u1, \
                serve(env={**env, "AP_ROOMS_REDIS": rurl}) as u2:  # fmt: skip
            result = asyncio.run(run_replicas([u1, u2], [server_pid(u1), server_pid(u2)], a))
        text = replicas_table(result)
    else:
        with serve(env=env) as url:
            result = asyncio.run(run(url, server_pid(url), a))
        text = table(result, a)
    print(text)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(text + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
