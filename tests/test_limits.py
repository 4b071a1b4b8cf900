"""The body bound (limits.py): refused by size before anything parses it, on every route; the bound fits the largest
legitimate request; a UI event called through the queue with a hostile payload gets a named error and stores nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from browser import ROOT, serve

import attention_core as ac
import playground as pg
from serving import api as api_app
from serving import limits
from ui import values

sys.path.insert(0, str(ROOT / "benchmarks"))

from harness import complete_answer
from hostile import PIECE, post_raw
from load import rss_kb, server_pid

LIMIT = limits.MAX_BODY_BYTES


# ---- the middleware on its own: a stand-in app that reads the whole body, as FastAPI does ----------------------


class Reader:
    """An ASGI app that reads the body to the end (or a disconnect), then answers 200 with the byte count."""

    def __init__(self) -> None:
        self.calls = 0
        self.got = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.calls += 1
        while True:
            m = await receive()
            if m["type"] == "http.disconnect":
                raise ConnectionError("client went away")  # what starlette's ClientDisconnect amounts to
            self.got += len(m.get("body", b""))
            if not m.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": str(self.got).encode()})


def drive(
    headers: list[tuple[bytes, bytes]], chunks: list[bytes], limit: int = 1000, drain: int = 10_000
) -> tuple[Reader, list, list[str]]:
    """Run BodyLimit(Reader) over one request; returns the app, what was sent back and the order of events
    ("pull" for each receive, else the type of what was sent)."""
    app, sent, log = Reader(), [], []

    async def receive() -> dict[str, Any]:
        log.append("pull")
        pulled = log.count("pull")
        if pulled > len(chunks):
            return {"type": "http.disconnect"}
        return {"type": "http.request", "body": chunks[pulled - 1], "more_body": pulled < len(chunks)}

    async def send(m: dict[str, Any]) -> None:
        sent.append(m)
        log.append(m["type"])

    scope = {"type": "http", "method": "POST", "path": "/x", "headers": headers}
    asyncio.run(limits.BodyLimit(app, max_bytes=limit, drain_bytes=drain)(scope, receive, send))
    return app, sent, log


def status_and_body(sent: list[dict[str, Any]]) -> tuple[int, bytes]:
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


def test_a_declared_length_over_the_bound_is_answered_before_any_body_is_read_then_the_body_is_dropped() -> None:
    app, sent, log = drive([(b"content-length", b"3000")], [b"x" * 1000] * 3)
    status, body = status_and_body(sent)
    assert (status, app.calls) == (413, 0)
    assert json.loads(body)["limit_bytes"] == 1000 and "1,000 bytes" in json.loads(body)["detail"]
    assert log[:2] == ["http.response.start", "http.response.body"]  # the whole answer before any byte is read
    assert log.count("pull") == 3 and log[-1] == "http.response.body"  # then the body is read to its end and
    assert not sent[-1].get("more_body")  # dropped (a client that sends it all first can read the 413), then close


def test_what_is_dropped_after_a_413_is_bounded() -> None:
    app, sent, log = drive([(b"content-length", b"1000000")], [b"x" * 1000] * 1000, drain=5000)
    assert status_and_body(sent)[0] == 413 and app.calls == 0
    assert log.count("pull") <= 6  # 5,000 bytes dropped at most, then the connection is closed


def test_a_streamed_body_is_cut_off_at_the_bound_and_answered_413_instead_of_the_app() -> None:
    chunks = [b"{" * 300] * 10  # 3000 bytes of junk, no length given: counted as it arrives
    app, sent, log = drive([(b"transfer-encoding", b"chunked")], chunks)
    assert status_and_body(sent)[0] == 413 and log.count("http.response.start") == 1
    assert app.got <= 1000  # the chunk that crossed the bound, and all after it, never reached the app
    assert log.index("http.response.start") == 4  # answered as soon as the bound was crossed
    assert log.count("pull") == 10  # the rest of the body was read and dropped


def test_a_body_within_the_bound_passes_unchanged() -> None:
    app, sent, _ = drive([(b"content-length", b"1000")], [b"a" * 600, b"b" * 400])
    assert status_and_body(sent) == (200, b"1000") and app.got == 1000
    app, sent, _ = drive([], [b"a" * 500, b"b" * 500])  # chunked, exactly at the bound
    assert status_and_body(sent) == (200, b"1000")


def test_a_malformed_length_is_refused() -> None:
    app, sent, log = drive([(b"content-length", b"12abc")], [b"x"])
    assert status_and_body(sent)[0] == 413 and app.calls == 0 and log[0] == "http.response.start"


def test_the_bound_fits_the_largest_legitimate_request_and_not_much_more() -> None:
    sc = limits.largest_compute_request()
    size = len(json.dumps({"data": [sc]}))
    assert size <= LIMIT < 1.5 * size, (size, LIMIT)
    assert 1_000_000 + 2_000 < LIMIT  # a 1 MB scenario file with its multipart framing
    r = ac.compute(sc)  # legitimate: every cap at its maximum, accepted
    assert len(r["heads"]) == 8 and len(r["output"]) == 64 and len(r["output"][0]) == 64
    numbers = [sc[k] for k in ("x_q", "x_k", "x_v")] + [sc["weights"][k] for k in ("W_q", "W_k", "W_v", "W_o")]
    assert count_floats(numbers) == 3 * 64 * 64 + 3 * 8 * 64 * 64 + 512 * 64  # every matrix at its largest


def count_floats(value: Any) -> int:
    return sum(map(count_floats, value)) if isinstance(value, list) else isinstance(value, float)


def test_the_app_serves_no_echo_endpoint_and_the_page_app_no_public_ui_event() -> None:
    public = [fn.api_name for fn in pg.api.fns.values() if fn.api_visibility == "public"]
    assert public == ["compute", "model_attention", "train"]  # the API app (and no benchmark-only echo)
    page = [fn.api_name for fn in pg.demo.fns.values() if fn.api_visibility != "private"]
    assert page == public  # the page declares the same three (its "Use via API"); its UI events stay private


# ---- the running app: python playground.py, as tests/browser.py serves it ------------------------------------


@pytest.fixture(scope="module")
def app() -> Iterator[tuple[str, int]]:
    with serve("playground.py") as url:
        yield url, server_pid(url)


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].strip("/"))


def read_answer(s: socket.socket) -> tuple[bytes, bytes]:
    """The response's head, and its body as long as its Content-Length says (after a 413 the server goes on
    reading what the client still sends for a while, then closes: the answer is complete before that)."""
    answer = b""
    while b"\r\n\r\n" not in answer and (more := s.recv(65536)):
        answer += more
    head, _, body = answer.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?im)^content-length: *(\d+)", head).group(1))
    while len(body) < length and (more := s.recv(65536)):
        body += more
    return head, body


def test_junk_with_a_huge_length_gets_413_at_once_and_the_server_does_not_grow(app: tuple[str, int]) -> None:
    url, pid = app
    rss0 = rss_kb(pid)
    for _ in range(5):  # headers and 64 KB of junk that is not JSON: a parser would say 400 or 422, not 413
        with socket.create_connection(("127.0.0.1", port_of(url)), timeout=10) as s:  # (the body never comes whole)
            s.sendall(b"POST /api/gradio_api/call/compute HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                      b"\r\nContent-Length: 1000000000\r\n\r\n" + b"\xff{[" * 20_000)  # fmt: skip
            head, body = read_answer(s)
        assert head.startswith(b"HTTP/1.1 413 "), head
        assert f"{LIMIT:,} bytes" in json.loads(body)["detail"]
    assert rss_kb(pid) - rss0 < 20_000


ROUTES = ["/api/gradio_api/call/compute", "/api/gradio_api/queue/join", "/gradio_api/queue/join",
          "/gradio_api/upload", "/gradio_api/info", "/"]  # fmt: skip


@pytest.mark.parametrize("route", ROUTES)
def test_a_declared_over_limit_body_gets_this_limits_413_on_every_route(app: tuple[str, int], route: str) -> None:
    url, _ = app
    with socket.create_connection(("127.0.0.1", port_of(url)), timeout=10) as s:
        s.sendall(f"POST {route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                  f"Content-Length: {LIMIT + 1}\r\n\r\n".encode())  # fmt: skip
        head, body = read_answer(s)
    assert head.startswith(b"HTTP/1.1 413 ") and json.loads(body)["limit_bytes"] == LIMIT, (head, body)


def unfinished_chunked_post(port: int, path: str, size: int) -> bytes:
    """POST ``size`` bytes of ``{`` (not JSON) as chunks on a raw socket and never end the body (no last chunk); the
    server's answer's first line, or ``b""`` when none came within 30 s. A server that reads the body to its end
    before it looks at its size never answers."""
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked"
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(head.encode() + b"\r\n\r\n")
        piece = b"{" * PIECE
        try:
            for _ in range(-(-size // PIECE)):
                s.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
        except OSError:
            pass  # the server answered and closed while the rest was on its way
        answer = b""
        try:
            while b"\r\n" not in answer and (more := s.recv(4096)):
                answer += more
        except OSError:
            pass
    return answer.split(b"\r\n", 1)[0]


@pytest.mark.parametrize("route", ["/api/gradio_api/call/compute", "/gradio_api/queue/join"])
def test_a_streamed_over_limit_body_is_refused_by_size(app: tuple[str, int], route: str) -> None:
    """A chunked body past the limit gets 413 while it is still coming: the answer comes though the body never ends
    (how soon is benchmarks/hostile.py's to measure, not a test's), and the server has not grown by it."""
    url, pid = app
    rss0 = rss_kb(pid)
    first = unfinished_chunked_post(port_of(url), route, LIMIT + 1_000_000)
    assert first.startswith(b"HTTP/1.1 413 "), first
    assert rss_kb(pid) - rss0 < 20_000
    finished = post_raw(port_of(url), b"{" * (LIMIT + 1_000_000), chunked=True, path=route)  # and when it does end
    assert finished["status"] == 413, finished


def urllib_post(url: str, data: bytes | Iterator[bytes], headers: dict[str, str]) -> urllib.error.HTTPError:
    """POST with Python's own client (urllib.request); the HTTPError it raises, which carries the answer."""
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30).close()
    return refused.value


@pytest.mark.parametrize("route", ["api/gradio_api/call/compute", "gradio_api/call/compute", "gradio_api/upload"])
def test_pythons_own_client_reads_the_413_for_a_declared_length(app: tuple[str, int], route: str) -> None:
    """urllib sends the whole body before it reads the answer: the server must read (and drop) it, not hang up."""
    url, pid = app
    rss0 = rss_kb(pid)
    body = b"[" * (2 * LIMIT)  # the length is declared; not JSON, so only the bound can answer 413
    for _ in range(3):
        error = urllib_post(url + route, body, {"Content-Type": "application/json"})
        assert error.code == 413 and json.loads(error.read())["limit_bytes"] == LIMIT
    assert rss_kb(pid) - rss0 < 20_000


def test_pythons_own_client_reads_the_413_for_a_chunked_body(app: tuple[str, int]) -> None:
    url, pid = app
    rss0 = rss_kb(pid)

    def chunks() -> Iterator[bytes]:  # no length: urllib sends Transfer-Encoding: chunked
        for _ in range(3 * LIMIT // 65536):
            yield b"{" * 65536

    for _ in range(3):
        error = urllib_post(url + "api/gradio_api/call/compute", chunks(), {"Content-Type": "application/json"})
        answer = json.loads(error.read())
        assert error.code == 413 and answer["limit_bytes"] == LIMIT and f"{LIMIT:,} bytes" in answer["detail"]
    assert rss_kb(pid) - rss0 < 20_000


def test_the_largest_legitimate_request_is_answered(app: tuple[str, int]) -> None:
    url, _ = app
    sc = limits.largest_compute_request()
    with httpx.Client(base_url=url, timeout=120) as client:
        r = client.post("api/gradio_api/call/compute", json={"data": [sc]})
        assert r.status_code == 200, r.text[:300]
        body = client.get(f"api/gradio_api/call/compute/{r.json()['event_id']}").text
    assert "event: complete" in body
    got = complete_answer(body)
    assert got["output"] == json.loads(json.dumps(ac.compute(sc)))["output"]


# ---- a UI event through the queue endpoint, with a hostile payload -------------------------------------------


def fn_index(name: str) -> int:
    """The queue's fn_index of the first UI event whose handler is ``name`` (the served app is this code)."""
    return next(i for i, fn in pg.demo.fns.items() if fn.name == name)


def queue_call(url: str, session: str, fn: int, data: list[Any], event_data: Any = None) -> str:
    """POST /gradio_api/queue/join, then read the session's stream until this event completes; its message text."""
    with httpx.Client(base_url=url, timeout=60) as client:
        body = {"data": data, "fn_index": fn, "session_hash": session, "event_data": event_data, "trigger_id": None}
        r = client.post("gradio_api/queue/join", json=body)
        assert r.status_code == 200, r.text[:300]
        event = r.json()["event_id"]
        with client.stream("GET", "gradio_api/queue/data", params={"session_hash": session}) as stream:
            for line in stream.iter_lines():
                if line.startswith("data: "):
                    msg = json.loads(line[6:])
                    if msg.get("msg") == "process_completed" and msg.get("event_id") == event:
                        return json.dumps(msg)
    raise AssertionError("the event never completed")


HOSTILE = [
    "\x00" + "A" * 200_000,  # a long string with a NUL
    {"x": [[1e308] * 64] * 64, "__class__": "dict"},  # a value where the app keeps its own state
    [[["nested"] * 50] * 50] * 20,
]


def test_a_ui_event_with_a_hostile_payload_gets_a_named_error_and_stores_nothing(app: tuple[str, int]) -> None:
    url, _ = app
    session = uuid.uuid4().hex  # a script's session: it never loaded the page
    control = fn_index("on_control")
    for value in HOSTILE:
        text = queue_call(url, session, control, [value] * len(pg.demo.fns[control].inputs))
        assert "session:" in text and "Reload the page" in text, text[:500]
    cell = fn_index("on_cell")
    edit = {"table": "x", "row": 0, "col": 1, "value": "0.5"}  # a valid edit in the same session
    text = queue_call(url, session, cell, [None] * len(pg.demo.fns[cell].inputs), edit)
    assert "session:" in text, text[:500]  # still nothing stored for this session: no hostile value, no state
    assert "AAAA" not in text and "nested" not in text
    fresh = queue_call(url, uuid.uuid4().hex, fn_index("on_open"), [])
    title = ac.get_preset(values.DEFAULT_PRESET).title  # the badge names it (a plain load leaves the picker as built)
    assert title in fresh and "session:" not in fresh and "AAAA" not in fresh
    with httpx.Client(base_url=url, timeout=30) as client:
        assert client.get("/").status_code == 200


def test_the_queues_do_not_rebuild_gradios_monitoring_summary_after_every_event() -> None:
    """gradio's queue summarises its last 10,000 events with pandas after each event unless told otherwise (for a
    monitoring page this app turns off, tests/test_live_edit.py); both queues do it at most every 100,000."""
    for app in (pg.demo, pg.api):
        assert app._queue.ANAYLTICS_CACHE_FREQUENCY >= 100_000


def test_the_floor_app_has_the_apis_queue_and_session_settings() -> None:
    """load.py and bench.py divide /compute's numbers by /echo's in benchmarks/trivial_app.py: same settings.

    Read in a fresh interpreter without this process's environment (playground.py sets a variable there)."""
    probe = (
        "import json, runpy; t = runpy.run_path('benchmarks/trivial_app.py'); q = t['demo']._queue; "
        "print(json.dumps([q.ANAYLTICS_CACHE_FREQUENCY, q.max_size, q.default_concurrency_limit, t['API_SESSIONS']]))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRADIO_")}
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    freq, size, limit, sessions = json.loads(out.stdout.strip().splitlines()[-1])
    api = pg.api._queue
    assert freq == api.ANAYLTICS_CACHE_FREQUENCY >= 100_000
    assert (size, limit, sessions) == (api.max_size, api.default_concurrency_limit, api_app.API_SESSIONS)
