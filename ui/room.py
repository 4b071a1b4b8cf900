"""Lesson rooms on the page: "Teach this", the join card, following the teacher, questions to the class.

The room's state lives in ``serving.rooms.ROOMS``; this module is its page section and its routes.

* **Opening**: "Teach this" (static/room.js) fires the room element's event with ``{"kind": "open"}``; the handler
  opens a room from the page's current state and answers the element's value with the code, the teacher's
  secret and the join card (a ``segno`` QR of ``…/?room=CODE``). Only the teacher's page ever holds the secret.
* **Driving**: the teacher's page's session is remembered (``TEACHING``), and every write of its values (a
  queued event, ``ui/wiring.py``, or a live edit, ``ui/live.py``, through ``wiring.AFTER_WRITE``) publishes the
  state as the query a share link carries (``?preset=`` or ``?scenario=``, ui/share.py). The tab and the
  present-mode stage come from the teacher's page itself (``POST /room/CODE/view``, the secret in a header).
* **Following**: a student's page reads ``GET /room/CODE/events`` (Server-Sent Events, sse-starlette): the room's
  payload at once (a late joiner, a reload or a phone back from sleep catches up), then at every new version.
  When the state changed, the page fires ``{"kind": "follow"}`` and gets the room's state as a whole new state;
  the views of one state are computed once however many follow (:func:`room_values`).

Every call that drives the room carries the secret (``X-Room-Secret``): without it a 403. Bounds and caps are
``serving/rooms.py``'s.
"""

from __future__ import annotations

import functools
import io
import json
import math
import os
from collections.abc import AsyncIterator
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import gradio as gr
import pandas as pd
import plotly.graph_objects as go
import segno
from fastapi import Request
from fastapi.responses import JSONResponse, Response
from sse_starlette.sse import EventSourceResponse
from starlette.concurrency import run_in_threadpool

import attention_core as ac
from attention_core import quiz
from serving import rooms as rm
from serving.rooms import RoomError
from serving.rooms_redis import store_from_env
from ui.assets import ROOM_JS
from ui.learn import hidden, question_hidden
from ui.pipeline import current_scenario
from ui.render.mask_tables import FILL_TITLES
from ui.render.tables import fmt
from ui.share import encode_link, link_values, preset_query, seed_query
from ui.values import PageValues
from ui.wiring import AFTER_WRITE, COMMON, Page, bind, expired, on

PING_S = 15  # a comment line on every idle stream this often: proxies keep it open, a dead one is noticed

ROOMS = store_from_env()  # this process's rooms, or Redis's (AP_ROOMS_REDIS: serving/rooms_redis.py)
STREAMS: dict[str, int] = {}  # room code -> its streams open on this server (the event loop's only)
STREAMS_FROM: dict[tuple[str, str], int] = {}  # (room code, client address) -> its streams open; bounded by STREAMS
TEACHING: dict[str, tuple[str, str]] = {}  # teacher page's session hash -> (room code, secret); bounded by ROOMS


def join_base(request: gr.Request | Request | None) -> str:
    """The address students open: a Space's public URL (SPACE_HOST), the classroom command's LAN address
    (AP_CLASSROOM_URL, ``playground.py --classroom``), the LAN address when the server listens on every interface
    but the teacher's page came by the loopback, else the address the teacher's own page came from."""
    if os.environ.get("SPACE_HOST"):
        return f"https://{os.environ['SPACE_HOST']}/"
    if os.environ.get("AP_CLASSROOM_URL"):
        return os.environ["AP_CLASSROOM_URL"].rstrip("/") + "/"
    headers = getattr(request, "headers", None) or {}
    host = headers.get("host") or "127.0.0.1:7860"
    scheme = "https" if headers.get("x-forwarded-proto") == "https" else "http"
    name, _, port = host.rpartition(":")
    if os.environ.get("GRADIO_SERVER_NAME") in ("0.0.0.0", "::") and is_loopback(name) and port.isdigit():
        return f"{scheme}://{rm.lan_address()}:{port}/"  # listening on every interface: the LAN reaches it
    return f"{scheme}://{host}/"


def qr_svg(url: str) -> str:
    """The join URL as a QR code (segno), SVG markup scaled by the page (viewBox kept)."""
    return segno.make(url, error="m").svg_inline(scale=1, border=2, dark="#111", light="#fff", omitsize=True)


def room_query(preset_id: str | None, vals: PageValues) -> dict[str, Any]:
    """The state as a share link's query: ``{"preset": id}`` (``head_shown`` past head 1) while the preset is
    untouched, else ``{"scenario": encoded}``; with ``seed`` when the seed box's is not that state's own."""
    s, sc = current_scenario(preset_id, vals)
    as_preset = preset_query(preset_id, s, sc.get("head_shown", 1))  # (as share links have it)
    return seed_query(as_preset or {"scenario": encode_link(sc)}, vals)


@functools.lru_cache(maxsize=8)
def room_values(query_json: str) -> tuple[Any, ...]:
    """A room's state as (preset, shape, values, views): computed once for every follower of one version (values
    and views are never mutated, ui/wiring.py)."""
    return link_values(json.loads(query_json))


def publish(key: str | None, entry: dict[str, Any]) -> None:
    """After a write of a page's values: a teacher's page publishes its state to its room (wiring.AFTER_WRITE)."""
    held = TEACHING.get(key) if key else None
    if held is None or entry.get("vals") is None:
        return
    try:
        query = room_query(entry.get("preset"), entry["vals"])
        ROOMS.set_state(*held, {"query": query})
        still_asked(held, query)
    except RoomError as e:
        if e.status in (403, 404, 410):  # closed or expired: this page no longer teaches (a busy store, 429 or
            TEACHING.pop(key, None)  # 503, is passing: the page still teaches, and its next edit publishes)
    except ac.ScenarioError:
        TEACHING.pop(key, None)


def still_asked(held: tuple[str, str], query: dict[str, Any]) -> None:
    """After the teacher's state changed: whether the room's last question, asked on another state, would now
    read otherwise (its prompt or right answer made from ``query``); every page then says its answer is of the state
    as asked (``Question.moved``). A change of the head shown alone moves nothing: the question names its head."""
    room = ROOMS.drive(*held)
    q = room.questions[-1] if room.questions else None
    if q is None or not q.asked:
        return
    moved = False
    if json.dumps(q.asked.get("query"), sort_keys=True) != json.dumps(query, sort_keys=True):
        try:
            now = question_from(query, q.asked.get("body") or {})
            moved = (now.prompt, now.right) != (q.prompt, q.right)
        except (RoomError, ac.ScenarioError, quiz.QuizError):
            moved = True  # (the question cannot be asked of the state now: it is not the state's)
    ROOMS.moved(room.code, room.secret, len(room.questions) - 1, moved)


AFTER_WRITE.append(publish)


# ---- the page's events ---------------------------------------------------------------------------------------


def on_room(page: Page, parts: dict[str, Any], preset_id: str | None, vals: PageValues | None,
            evt: gr.EventData, request: gr.Request) -> dict[Any, Any]:  # fmt: skip
    """The room element's event: ``{"kind": "open"}`` (the teacher), ``{"kind": "follow", "code"}`` (a student:
    the room's state, whole), ``{"kind": "resume", "code", "secret", "own"?}`` (the teacher's page reloaded)."""
    data = getattr(evt, "_data", None) or {}
    kind, html_el = data.get("kind"), parts["room"]
    if vals is None and kind not in ("follow", "resume"):  # (these get the room's whole state)
        return expired(page)
    try:
        if kind == "open":
            return {html_el: open_room(preset_id, vals, request)}
        if kind == "follow":
            room = ROOMS.get(data.get("code"), request.client.host if request and request.client else "?")
            query = room.state.get("query") or {}
            return page.answer(*room_values(json.dumps(query, sort_keys=True)))
        if kind == "resume":  # the teacher's page reloaded: it drives the room again, from the room's state
            return {**resume(page, data, request, preset_id, vals), html_el: json.dumps({"resumed": True})}
    except RoomError as e:
        return {html_el: json.dumps({"error": str(e), "n": data.get("n")})}
    return {}


def on_chart(parts: dict[str, Any], evt: gr.EventData, request: gr.Request) -> dict[Any, Any]:
    """The room element's ``select`` event ``{"code"}`` (the teacher's page): the current question's histogram."""
    data = getattr(evt, "_data", None) or {}
    try:
        return {parts["room_plot"]: gr.update(value=chart(data.get("code"), request), visible=True)}
    except RoomError as e:
        return {parts["room"]: json.dumps({"error": str(e)})}


def resume(page: Page, data: dict[str, Any], request: gr.Request, preset_id: str | None,
           vals: PageValues | None) -> dict[Any, Any]:  # fmt: skip
    """A teacher's page that reloaded takes its room back (its code and secret kept by the tab, room.js), at the
    room's state; with ``own`` (a lesson's stage opened: its own preset and view, lesson.js) the room takes the
    page's state instead, and the class follows the lecturer to the stage."""
    room = ROOMS.drive(data.get("code"), data.get("secret"))
    if room.closed:
        raise RoomError(410, "room: this room is closed")
    key = getattr(request, "session_hash", None)
    if key:
        TEACHING[key] = (room.code, room.secret)
    if data.get("own") is True and vals is not None:
        query = room_query(preset_id, vals)
        ROOMS.set_state(room.code, room.secret, {"query": query})
        # (an open question, asked on the stage before, is of another state now: said so on every page; a lesson's
        # stage of one head left "the question is about head 2" and its right answer t3 beside a row reading t2)
        still_asked((room.code, room.secret), query)
        return {}
    return page.answer(*room_values(json.dumps(room.state.get("query") or {}, sort_keys=True)))


def open_room(preset_id: str | None, vals: PageValues, request: gr.Request) -> str:
    """A new room from this page's state; the element's value for the teacher's page (code, secret, card)."""
    client = request.client.host if request and request.client else "?"
    room = ROOMS.open(client, {"query": room_query(preset_id, vals), "tab": "Workbench", "stage": None})
    key = getattr(request, "session_hash", None)
    if key:
        TEACHING[key] = (room.code, room.secret)
        for k in [k for k, (c, _) in TEACHING.items() if not is_open(c)]:
            TEACHING.pop(k, None)
    url = f"{join_base(request)}?room={room.code}"
    return json.dumps({"role": "teacher", "code": room.code, "secret": room.secret, "join": url, "qr": qr_svg(url),
                       "local": local_only(join_base(request))})  # fmt: skip


CLASSROOM = "python3 playground.py --classroom"  # the command that serves a room on the LAN (playground.py)


def local_only(base: str) -> dict[str, str] | None:
    """For a join address on this computer's loopback (a plain local run, 127.0.0.1): the command that serves the
    room on the network, and the address it would serve at (``rooms.lan_address``, "" without a network); the join
    card says students cannot reach the address it shows. None for any other address."""
    parts = urlsplit(base)
    if not is_loopback(parts.hostname or ""):
        return None
    lan = rm.lan_address()
    return {"command": CLASSROOM, "lan": "" if is_loopback(lan) else f"http://{lan}:{parts.port or 80}/"}


def is_loopback(host: str) -> bool:
    return host in {"localhost", "::1"} or host.startswith("127.")


def is_open(code: str) -> bool:
    try:
        return not ROOMS.get(code).closed
    except RoomError:
        return False


def chart(code: Any, request: gr.Request) -> go.Figure:
    """The current question's answers as a histogram (the teacher's screen only: the right answer stays off it)."""
    key = getattr(request, "session_hash", None)
    held = TEACHING.get(key) if key else None
    if held is None or held[0] != code:
        raise RoomError(403, "room: only the teacher's page shows the answers")
    room = ROOMS.drive(*held)
    q = room.questions[-1] if room.questions else None
    answers = list(q.answers.values()) if q else []
    fig = go.Figure()
    if q and q.kind == "predict":
        fig.add_histogram(x=[float(a) for a in answers], nbinsx=20, marker_color="#4363d8")
    elif q:
        counts = pd.Series(answers, dtype=str).value_counts().reindex(q.options, fill_value=0)
        fig.add_bar(x=list(counts.index), y=list(counts.values), marker_color="#4363d8")
    # a panel over the page's corner (room.css), its words large enough for the back row of a projected room: the
    # count only (the question is on the room's line above the stage; cut to the panel's width it read "…for t"),
    # and whole students on the y axis from 0 (it counted in 0.2 steps, and from −1 with no answer yet)
    title = f"{len(answers)} answer{'s' * (len(answers) != 1)}"
    fig.update_layout(title={"text": title, "font": {"size": 28}}, height=300, font={"size": 22},
                      margin={"l": 50, "r": 10, "t": 56, "b": 50}, bargap=0.1)  # fmt: skip
    # (no bar is taller than the answers' count: at most about 5 ticks)
    fig.update_yaxes(rangemode="nonnegative", tick0=0, dtick=max(1, math.ceil(len(answers) / 5)), tickformat="d")
    return fig


def build_room() -> dict[str, Any]:
    """The room section: its element (drawn by static/room.js) and the teacher's histogram."""
    with gr.Column(elem_id="room-bar"):
        el = gr.HTML("", html_template="", js_on_load=ROOM_JS, apply_default_css=False, elem_id="room")
        plot = gr.Plot(label="answers", elem_id="room-plot", visible=False, show_label=False)
    return {"room": el, "room_plot": plot}


def wire_room(page: Page, parts: dict[str, Any]) -> None:
    outs = [*page.everything(), *parts.values()]
    follows = {"writes": True, **COMMON}  # (a follow or a resume sets the controls to the room's state)
    on(parts["room"].click, bind(on_room, page, parts), [page.preset_state, page.vals_state], outs, **follows)
    # the histogram redraws at every answer: an event of its own, its outputs only the chart (an event answering the
    # whole page would put every grid in gradio's pending state while it runs, and lose a teacher's open editor)
    on(parts["room"].select, bind(on_chart, parts), [], [parts["room_plot"], parts["room"]], **COMMON)


# ---- the routes (registered before gradio's mount, as ui/live.py's) ----------------------------------------------


def client_of(request: Request) -> str:
    return request.client.host if request.client else "?"


def refused(e: RoomError) -> JSONResponse:
    return JSONResponse({"detail": str(e)}, status_code=e.status)


async def body_of(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise RoomError(400, "body: not JSON") from None
    if not isinstance(body, dict):
        raise RoomError(400, "body: a JSON object is expected")
    return body


async def store(fn: Any, *args: Any) -> Any:
    """A store call from a route: in the event loop for the in-process store (microseconds), in a worker thread for
    one whose calls wait on the network (Redis: a lock held by another replica must not stall this one's loop)."""
    return await run_in_threadpool(fn, *args) if ROOMS.blocking else fn(*args)


async def events(request: Request) -> Response:
    """``GET /room/CODE/events?token=…``: the room's payload now and at every new version (SSE). With the
    ``X-Room-Secret`` header, the teacher's payload (answers and right answer)."""
    code = request.path_params["code"]
    secret = request.headers.get("x-room-secret")
    try:
        room = await (store(ROOMS.drive, code, secret, client_of(request)) if secret
                      else store(ROOMS.get, code, client_of(request)))  # fmt: skip
    except RoomError as e:
        return refused(e)
    token = request.query_params.get("token")
    if STREAMS.get(room.code, 0) >= rm.MAX_STREAMS:
        return refused(RoomError(503, f"room: {rm.MAX_STREAMS} pages follow this room already"))
    mine = (room.code, client_of(request))
    if STREAMS_FROM.get(mine, 0) >= rm.MAX_STREAMS_PER_CLIENT:
        return refused(RoomError(429, f"room: {rm.MAX_STREAMS_PER_CLIENT} pages from this address follow it already"))

    async def stream() -> AsyncIterator[dict[str, Any]]:
        await store(ROOMS.follow, room.code, token, +1)
        STREAMS[room.code] = STREAMS.get(room.code, 0) + 1
        STREAMS_FROM[mine] = STREAMS_FROM.get(mine, 0) + 1
        try:
            seen = -2
            while True:
                v, text = ROOMS.payload(room.code, teacher=bool(secret))
                if v != seen:
                    seen = v
                    yield {"data": text, "id": str(v)}
                if v < 0:
                    return
                await ROOMS.wait(room.code, v, PING_S, teacher=bool(secret))
        finally:
            await store(ROOMS.follow, room.code, token, -1)
            STREAMS[room.code] -= 1
            if not STREAMS[room.code]:
                del STREAMS[room.code]
            STREAMS_FROM[mine] -= 1
            if not STREAMS_FROM[mine]:
                del STREAMS_FROM[mine]

    return EventSourceResponse(stream(), ping=PING_S, headers={"Cache-Control": "no-store"})


async def join(request: Request) -> Response:
    """``POST /room/CODE/join`` ``{"token"?: …, "name"?: …}`` → ``{"token", "name", "display", "code", "answers"}``;
    ``answers``: the student's own, {question id: answer} (a reloaded page marks them again)."""
    try:
        body = await body_of(request)
        token, st = await store(ROOMS.join, request.path_params["code"], client_of(request), body.get("token"))
        code = rm.normal_code(request.path_params["code"])
        if body.get("name") is not None:
            await store(ROOMS.name, code, token, body.get("name"))
        mine = await store(ROOMS.own_answers, code, token)
        return JSONResponse({"token": token, "name": st.name, "display": st.display, "code": code, "answers": mine})
    except RoomError as e:
        return refused(e)


async def answer(request: Request) -> Response:
    """``POST /room/CODE/answer`` ``{"token", "question", "answer"}``."""
    try:
        body = await body_of(request)
        code = (await store(ROOMS.get, request.path_params["code"])).code
        await store(ROOMS.answer, code, body.get("token"), body.get("question"), body.get("answer"))
        return JSONResponse({"ok": True})
    except RoomError as e:
        return refused(e)


async def teacher(request: Request) -> Response:
    """The teacher's calls, each with ``X-Room-Secret`` (403 without): ``POST /room/CODE/view`` ``{"tab",
    "stage", "t", "part", "fill", "explain"}`` (:func:`view_state`), ``/close``, ``/ask`` ``{"kind", "name", "head",
    "row", "col", "index"}`` (a quiz's ``index``: the room's question count if none), ``/end`` ``{"reveal"}``;
    ``GET /room/CODE/results.csv``."""
    code, action = request.path_params["code"], request.path_params["action"]
    secret = request.headers.get("x-room-secret")
    try:
        room = await store(ROOMS.drive, code, secret, client_of(request))
        if action == "results.csv":
            frame = pd.DataFrame(await store(ROOMS.results, room.code, secret), columns=RESULT_COLUMNS)
            for col in ("prompt", "display_name", "answer"):
                frame[col] = frame[col].map(as_text_cell)
            buf = io.StringIO()
            frame.to_csv(buf, index=False)
            name = f"room-{room.code}-results.csv"
            return Response(buf.getvalue(), media_type="text/csv",
                            headers={"Content-Disposition": f'attachment; filename="{name}"'})  # fmt: skip
        body = await body_of(request)
        if action == "view":
            state = view_state(body)
            return JSONResponse({"v": await store(ROOMS.set_state, room.code, secret, state)})
        if action == "close":
            await store(ROOMS.close, room.code, secret)
            return JSONResponse({"closed": True})
        if action == "ask":
            query = room.state.get("query") or {}

            def drawn(count: int, prompts: list[str]) -> tuple[Any, ...]:
                """The question asked, a quiz's drawn by the room's question count when the page sends no index
                (a reload does not start the count again) and unlike the prompts asked so far, as the store reads
                them under its lock."""
                by_count = body.get("kind") == "quiz" and "index" not in body  # (an index named is drawn as named)
                asked = {**body, "index": count} if by_count else body
                a = question_from(query, asked, tuple(prompts) if by_count else ())
                about = {"head": a.head, "mark": a.mark, "asked": {"query": query, "body": a.body}}
                return a.kind, a.prompt, a.right, a.options, a.hide, about

            return JSONResponse({"question": await store(ROOMS.ask_drawn, room.code, secret, drawn)})
        if action == "end":
            await store(ROOMS.end_question, room.code, secret, bool(body.get("reveal")))
            return JSONResponse({"ok": True})
        raise RoomError(404, f"room: no action {action[:20]!r}")
    except RoomError as e:
        return refused(e)


VIEW_FIELDS = ("tab", "stage", "t", "part", "fill", "explain")
PARTS = ("q", "k", "v")  # the Q, K, V stage's projection shown, when present mode shows one at a time (present.js)


def view_state(body: dict[str, Any]) -> dict[str, Any]:
    """What the teacher's page shows, as its followers follow it: the tab, present mode's stage, the KV-cache
    stage's token ``t``, the Q, K, V stage's projection ``part`` (``"q"``, ``"k"``, ``"v"``), a lesson's mask lab
    stage's fill convention ``fill`` (mask_tables.FILL_TITLES: ``"-inf"``, ``"-1e9"``, ``"additive"``), the explained
    number. ``part`` and ``fill`` are null or one of theirs (400 naming the field otherwise)."""
    state = {k: body[k] for k in VIEW_FIELDS if k in body}
    for field, allowed in (("part", PARTS), ("fill", tuple(FILL_TITLES))):
        v = state.get(field)
        if v is not None and (not isinstance(v, str) or v not in allowed):
            raise RoomError(400, f"{field}: {str(v)[:20]!r} is not one of {', '.join(allowed)} (or null)")
    return state


def as_text_cell(v: Any) -> Any:
    """A CSV cell a spreadsheet shows and never runs: text that starts like a formula (= + - @, tab, CR) and is no
    number gets a leading apostrophe (OWASP's CSV injection advice); numbers such as -0.5 stay numbers."""
    if not isinstance(v, str) or not v or v[0] not in "=+-@\t\r":
        return v
    try:
        float(v)
        return v
    except ValueError:
        return "'" + v


RESULT_COLUMNS = ["question", "kind", "prompt", "student", "display_name", "answer", "right_answer", "correct"]


class Asked(NamedTuple):
    """A question made from a state: what students are asked, what pages hide till the reveal, and what it is
    about (``head`` 1-based, 0 for none; ``mark`` the cells the reveal outlines; ``body`` the ask with its head
    named, which makes the same question of another state, :func:`still_asked`)."""

    kind: str
    prompt: str
    right: str
    options: list[str]
    hide: dict[str, Any]
    head: int = 0
    mark: list[list[Any]] = []  # noqa: RUF012 (a NamedTuple's default, never mutated)
    body: dict[str, Any] = {}  # noqa: RUF012


def question_from(query: dict[str, Any], body: dict[str, Any], prompts: tuple[str, ...] = ()) -> Asked:
    """A question made from the room's state (the server computes the right answer, never the page):
    ``predict`` a cell ``name[row, col]`` of head ``head`` (1-based) or ``token``: the key with the most weight
    for query row ``row``. What gives its answer away is the workbench quiz's (ui/learn.py hidden)."""
    kind = body.get("kind")
    preset_id, _, nv, _ = room_values(json.dumps(query, sort_keys=True))
    if kind == "quiz":
        return quiz_question(current_scenario(preset_id, nv)[0], body, prompts)  # (the prompts the room has asked)
    _, sc = current_scenario(preset_id, nv)
    tr = ac.compute(sc)
    heads = tr["heads"]
    head = as_int(body.get("head", sc.get("head_shown", 1)), "head") - 1  # (the head the overview shows)
    row = as_int(body.get("row"), "row")
    if not 0 <= head < len(heads):
        raise RoomError(400, f"head: 1 to {len(heads)}")
    about = head + 1 if len(heads) > 1 else 0  # (the question's head, 1-based; 0 for a state of one head)
    if kind == "predict":
        name, col = str(body.get("name")), as_int(body.get("col"), "col")
        table = heads[head].get(name) if name in PREDICTABLE else None
        if table is None:
            raise RoomError(400, f"cell: {name[:20]!r} is not one of {', '.join(PREDICTABLE)}")
        if not (0 <= row < len(table) and 0 <= col < len(table[row])):
            raise RoomError(400, f"cell: {name}[{row}, {col}] is outside its table")
        # exact, as the cell's title shows it (it was rounded to 4 digits: "1.806" for a cell of 1.806184, which the
        # CSV then gave as the right answer and the page beside a cell reading 1.8062)
        right = fmt(float(table[row][col]), str(sc.get("dtype", "float32")))
        who = f" (head {head + 1})" if len(heads) > 1 else ""
        prompt = f"Predict {name}[{tr['tokens'][row]}, {col_label(name, tr, col)}]{who}"
        asked = {"kind": kind, "name": name, "head": head + 1, "row": row, "col": col}
        return Asked("predict", prompt, right, [], hidden("number", name, head, row, col), about, [[name, row, col]],
                     asked)  # fmt: skip
    if kind == "token":
        weights = heads[head]["weights"]
        if not 0 <= row < len(weights):
            raise RoomError(400, f"row: 0 to {len(weights) - 1}")
        keys = [f"{t} ({j + 1})" for j, t in enumerate(tr["tokens_k"])]
        best = max(range(len(weights[row])), key=lambda j: weights[row][j])
        who = f" in head {head + 1}" if len(heads) > 1 else ""
        prompt = f"Which key gets the most weight for the query {tr['tokens'][row]!r}{who}?"
        asked = {"kind": kind, "head": head + 1, "row": row}
        return Asked("token", prompt, keys[best], keys, hidden("argmax", "weights", head, row, None), about,
                     [["weights", row, best]], asked)  # fmt: skip
    raise RoomError(400, "question kind: 'predict', 'token' or 'quiz'")


def quiz_question(s: ac.Scenario, body: dict[str, Any], prompts: tuple[str, ...] = ()) -> Asked:
    """A question from the quiz's generator (attention_core.quiz) about the room's state: multiple choice (which
    key gets most weight) when the state has one, else a number to predict. ``body["index"]`` picks the draw (the
    teacher's route gives the room's question count when the page names none: a reloaded page draws the next one,
    not draw 0 again). Of up to QUIZ_DRAWS draws the first whose prompt is not among ``prompts`` (the room's so
    far, in order) is taken, else the one asked longest ago (a lecturer's walk: question 5 was question 3 again, 2
    heads × 3 rows leaving 6 to draw from; once all are asked, the least recent comes round, never the last again).
    The question keeps the draw it took as its index, so that it is drawn again the same (moved: ``asked["body"]``)."""
    tr = ac.evaluate(s)
    seed, index = 4242, as_int(body.get("index", 0), "index")
    last = {p: i for i, p in enumerate(prompts)}  # each prompt's last question (-1: never asked)
    best: tuple[int, int, quiz.Question] | None = None
    for k in range(QUIZ_DRAWS):
        draw = index + k * QUIZ_STRIDE
        try:
            q = quiz.ask(s, tr, seed, draw, "argmax")
        except quiz.QuizError:
            q = quiz.ask(s, tr, seed, draw, "number")
        when = last.get(q.prompt, -1)
        if best is None or when < best[0]:
            best = (when, draw, q)
        if when < 0:
            break
    assert best is not None  # (QUIZ_DRAWS > 0)
    _, draw, q = best
    head = 0 if s.heads == 1 or q.step == "combine" else q.head + 1
    asked = {"kind": "quiz", "index": draw}
    if q.kind == "argmax" and isinstance(q.answer, tuple):
        options = [f"{k} ({j + 1})" for j, k in enumerate(q.keys)]
        mark = [["weights", q.row, q.answer[0]]]
        return Asked("choice", q.prompt, options[q.answer[0]], options, question_hidden(q), head, mark, asked)
    mark = [[q.step, q.row, q.col]] if q.col is not None else []
    return Asked("predict", q.prompt, fmt(float(q.answer), s.dtype), [], question_hidden(q), head, mark, asked)


QUIZ_DRAWS, QUIZ_STRIDE = 24, 100_003  # draws tried for a prompt not yet asked; apart from the room's own indexes
PREDICTABLE = ("scores", "scaled", "masked", "weights", "output")


def col_label(name: str, tr: dict[str, Any], col: int) -> str:
    return tr["tokens_k"][col] if name in ("scores", "scaled", "masked", "weights") else f"d{col + 1}"


def as_int(v: Any, field: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise RoomError(400, f"{field}: a whole number is expected")
    return v


ROUTES = (
    ("/room/{code}/events", events, ["GET"]),
    ("/room/{code}/join", join, ["POST"]),
    ("/room/{code}/answer", answer, ["POST"]),
    ("/room/{code}/{action}", teacher, ["GET", "POST"]),
)
