"""Lesson rooms on Redis (serving/rooms_redis.py), against a real redis-server started on a free port: two stores
as two replicas would hold them, then two app replicas (two server processes) with the teacher on one and the
students on the other. No mock stands in for Redis."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from browser import LOADED, serve
from harness import free_port
from playwright.sync_api import Browser

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from serving import rooms as rm
from serving.rooms_redis import PREFIX, RedisRoomStore


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.fail("redis-server is not installed (.ci/install installs Debian's redis-server)")
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
            pytest.fail("redis-server did not answer within 10 s")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_two_replicas_stores_share_a_room_its_ttl_and_its_changes(redis_url: str) -> None:
    a, b = RedisRoomStore(redis_url), RedisRoomStore(redis_url)
    room = a.open("10.0.0.1", {"query": {"preset": "statquest-self"}, "tab": "Workbench", "stage": None})
    assert 0 < a.r.ttl(PREFIX + room.code) <= rm.IDLE_S + 1
    token, _ = b.join(room.code.lower(), "10.0.0.2")  # the other replica knows the room
    with pytest.raises(rm.RoomError) as e:
        b.set_state(room.code, "not the secret", {"tab": "Train"})
    assert e.value.status == 403
    assert b.get(room.code).state["tab"] == "Workbench"

    async def follow() -> int:  # a follower on replica b, woken by the teacher's change on replica a
        waiting = asyncio.create_task(b.wait(room.code, b.version(room.code), 10))
        await asyncio.sleep(0.3)
        t0 = time.perf_counter()
        await asyncio.to_thread(a.set_state, room.code, room.secret, {"stage": "scores"})
        v = await waiting
        assert time.perf_counter() - t0 < 1
        return v

    v = asyncio.run(follow())
    assert v == a.version(room.code) and '"stage":"scores"' in b.payload(room.code)[1]
    qid = a.ask(room.code, room.secret, "choice", "which?", "b", ["a", "b"])
    b.answer(room.code, token, qid, "b")
    assert a.results(room.code, room.secret)[0]["correct"] is True
    assert room.secret not in b.payload(room.code)[1]
    a.close(room.code, room.secret)
    assert 0 < a.r.ttl(PREFIX + room.code) <= rm.CLOSED_S + 1
    with pytest.raises(rm.RoomError, match="closed"):
        b.join(room.code, "10.0.0.3")


@pytest.fixture(scope="module")
def replicas(redis_url: str) -> Iterator[tuple[str, str]]:
    env = {"AP_ROOMS_REDIS": redis_url}
    with serve(env=env) as one, serve(env=env) as two:
        yield one, two


def test_a_teacher_on_one_replica_and_students_on_the_other(replicas: tuple[str, str], browser: Browser) -> None:
    one, two = replicas
    assert one != two
    pages = []
    for url, size in ((one, (1280, 720)), (two, (1280, 720)), (two, (390, 844))):
        ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, has_touch=size[0] < 500,
                                  is_mobile=size[0] < 500)  # fmt: skip
        pg = ctx.new_page()
        pg.set_default_timeout(20_000)
        pg.goto(url)
        pg.wait_for_function(LOADED)
        pages.append(pg)
    teacher, *students = pages
    teacher.click("#room .room-teach")
    code = teacher.locator(".room-card .rc-code").inner_text().strip()
    for s in students:
        s.locator("#room .room-code").press_sequentially(code, delay=60)
        s.locator("#room .room-join button").click()
        s.wait_for_selector("#room .room-status[data-kind=following]")
    count = "() => document.querySelector('.room-card .rc-count').textContent === '2 students joined'"
    teacher.wait_for_function(count)
    teacher.locator(".room-card .rc-hide").click()
    teacher.locator("#inputs table[data-name=x] td[data-r='1'][data-c='0']").click()
    editor = teacher.locator("#inputs table.grid td input")
    editor.press("Control+a")
    editor.press_sequentially("-2.5", delay=60)
    editor.press("Enter")
    weights = "#overview table[data-name=weights]"
    teacher.wait_for_function("() => document.querySelector(\"#inputs table[data-name=x] td[data-r='1'][data-c='0']\")"
                              ".innerText.trim() === '-2.5'")  # fmt: skip
    want = teacher.locator(weights).inner_text()
    for s in students:
        s.wait_for_function("([s, t]) => document.querySelector(s)?.innerText === t", arg=[weights, want])
    teacher.locator("#room .room-close").click()
    for s in students:
        s.wait_for_selector("#room .room-status[data-kind=closed]")
    for pg in pages:
        pg.context.close()
