"""Live edits: a grid edit as one direct call of the grid's server function, not a queued event.

Why this exists: for a queued event gradio's frontend updates the loading status of every output component
several times, copying each one's value (8.6 MB of strings per edit at T=64); a direct call of ``live_edit``
(gradio's ``component_server`` route) answers with the views, which ``static/live.js`` sets as each view's
``props.value``. Without it an edit at T=64 takes about a third longer, and every edit pays the queue's SSE round.

Why the page's ``component_server`` path is answered by :func:`route`, not by gradio: gradio's own route looks the
call's session up in its session table first (``app.state_holder[session_hash]``), and for a session the table no
longer holds it rebuilds one on the server's event loop: every block's config, ~15 ms, plus ~950 objects that make
Python's full garbage collections (200-300 ms, the GIL held) come every ~100 edits. The table holds 8 sessions
(``playground.GRADIO_SESSIONS``), so past 8 learners nearly every edit paid that, serialised: a class of 60 saw a
p95 of 0.9-2 s. An edit needs none of it (the page's state is in ``STORE``), so :func:`route` answers the call
straight from ``STORE``; it is registered on the server before gradio's mount (``playground.make_app``). The grid
keeps ``live_edit`` as its gradio server function, so gradio's frontend still builds ``server.live_edit`` and posts
to that path, and a test checks it is the page's only server function (this route answers no other).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, NotRequired, TypedDict

import anyio
import gradio as gr
import orjson
from fastapi import Request
from fastapi.responses import JSONResponse, Response

from ui.edits import edit_result
from ui.pipeline import DRAWN_KEYS, expired_got
from ui.render import slots
from ui.render import tables as vw
from ui.values import PageValues
from ui.wiring import STORE, wrote

Views = dict[str, Any]  # the views by view key, as pipeline.compute_views answers: {"overview": html | update, …}


class ViewAnswer(TypedDict, total=False):
    """One view in a live answer, by its elem_id: its HTML (``value``), or for a drawn view its skeleton's key and
    only its cells (``key``, ``cells``, ui/render/slots.py), and whether it is shown (``visible``)."""

    value: str
    key: str
    cells: list[Any]
    visible: bool


class Answer(TypedDict):
    """A live edit's answer: ``views`` {elem_id: ViewAnswer} (only those that change), ``grid`` the new grids after a
    paste (HTML, or None), ``same`` when the page already drew this very answer (a look's), ``busy`` when the edit
    goes through the queue instead."""

    views: dict[str, ViewAnswer]
    grid: NotRequired[str | None]
    same: NotRequired[bool]
    busy: NotRequired[bool]


class Ahead(TypedDict):
    """A look ahead kept as the session's ``ahead`` (:func:`live_answer`): the edit (:func:`edit_key`) and preset it
    was computed for, the values it was computed on (``base``, the session's own object) and their result."""

    edit: str | None
    preset: str | None
    base: PageValues
    nv: PageValues | None
    views: Views


# the views a live edit answers with, by the elem_id of the component that shows each (static/live.js finds them)
VIEW_IDS = {"badge": "badge", "message": "message", "overview": "overview",
            **{f"html_{s}": f"html-{s}" for s in vw.STEPS}, "fig": "weights-fig", "heads_fig": "heads-fig",
            "explain": "explain"}  # fmt: skip
# the views the page draws itself (static/live.js drawnView): their answers carry their skeleton's key, and only
# their cells to a page that shows that skeleton (ui/render/slots.py)
DRAWN_IDS = frozenset(VIEW_IDS[k] for k in DRAWN_KEYS)


# live edits computing at once (two cores); the others wait without holding a thread, at most LIVE_WAITING of
# them: past that the page is told to send its edit through the bounded queue instead
LIVE_SLOTS = anyio.CapacityLimiter(2)


LIVE_WAITING = 64

# what else a page asks through the grid's server function, answered from its STORE entry without a slot (nothing
# is computed): ``{"kind": name}`` -> ``ASKS[name](entry)``. ui/share.py adds "address" (static/address.js).
ASKS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {}


async def live_edit(data: Any, request: gr.Request) -> Answer:
    """A grid edit sent straight from the page (``server.live_edit`` in grid.js; gradio's component_server route).

    Not a queued event: gradio's frontend then copies every output component's value several times per event
    (its loading-status bookkeeping), about a third of an edit at T=64. ``data``: ``{"kind": "cell", table, row,
    col, value}`` (with ``"scrub": true`` while the value is being dragged: only the first screen's views come
    back, see ui/edits.py; with ``"look": true`` while it is still being typed, see :func:`live_answer`) or
    ``{"kind": "paste", table, row, col, text}``, each with ``"skeletons": {elem_id: key}`` (the skeletons of the
    drawn views the page shows, ui/render/slots.py). Answers ``{"views": {elem_id: {"value"?, "key"?, "cells"?,
    "visible"?}}, "grid": html | None}``; the session's values are stored only when the edit was taken. An ask of
    :data:`ASKS` (``{"kind": "address"}``) is answered as its function says."""
    try:
        body = await request.json()  # (already read and kept by the route) the page's session hash
    except Exception:
        body = None
    return await answer(body.get("session_hash") if isinstance(body, dict) else None, data)


async def answer(key: Any, data: Any) -> Answer:
    """:func:`live_edit`'s answer for the page with session hash ``key``: no state is made for an unknown page."""
    if not isinstance(key, str) or STORE.get(key) is None:  # checked before any waiting: nothing to compute
        return {"views": live_views(expired_got())}
    if isinstance(data, dict) and data.get("kind") in ASKS:
        return await anyio.to_thread.run_sync(ASKS[data["kind"]], STORE.get(key) or {})
    run = functools.partial(live_answer, key, data)
    if is_look(data):  # a look only takes a slot free now, never waits for one: the page then commits as usual
        try:
            LIVE_SLOTS.acquire_nowait()
        except anyio.WouldBlock:
            return {"busy": True}
        try:
            return await anyio.to_thread.run_sync(run)
        finally:
            LIVE_SLOTS.release()
    if LIVE_SLOTS.statistics().tasks_waiting >= LIVE_WAITING:
        return {"busy": True}  # grid.js sends this edit, and the next ones, as queued events
    return await anyio.to_thread.run_sync(run, limiter=LIVE_SLOTS)


def is_look(data: Any) -> bool:
    """Whether ``data`` is a look ahead: a value still being typed, computed but not kept (see :func:`live_answer`)."""
    return isinstance(data, dict) and data.get("kind") == "cell" and data.get("look") is True


def live_answer(key: str | None, data: Any) -> Answer:
    """The answer to one live edit, and the session's values stored when the edit is taken.

    A look ahead (``"look": true``: grid.js, while a value is typed and before it is committed) is computed for
    the session's values as they are, answered, and kept only as the session's ``ahead`` (never as its values).
    The commit of that very edit on those very values (the same objects: values are never mutated) then takes
    those views instead of computing them again; with ``"seen": true`` (the page drew the look's answer) it is
    answered ``{"views": {}, "same": true}``. Any other commit computes, and drops the look."""
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind not in ("cell", "paste"):
        return {"views": live_views({"message": vw.message_html([], error="edit: not a cell edit or a paste")})}
    look, edit = is_look(data), edit_key(kind, data)
    with STORE.lock(key):
        entry: dict[str, Any] = STORE.get(key) or {}
        preset: str | None = entry.get("preset")
        vals: PageValues | None = entry.get("vals")
        ahead: Ahead | None = entry.get("ahead")
        hit = not look and edit is not None and taken_ahead(ahead, vals, edit, preset)
        if hit and ahead is not None:
            nv, got, grid = ahead["nv"], ahead["views"], None
        else:
            nv, got, grid = edit_result(kind, preset, vals, data, drawn=True)
        kept = Ahead(edit=edit, preset=preset, base=vals, nv=nv, views=got) if look and vals is not None else ahead
        store(key, look, vals, nv, kept)
    if hit and data.get("seen") is True:
        return {"views": {}, "same": True}
    return {"views": live_views(got, data.get("skeletons")), "grid": grid}


def taken_ahead(ahead: Ahead | None, vals: PageValues | None, edit: str, preset: str | None) -> bool:
    """Whether the session's look ahead was computed for this edit and preset on these very values (``vals``, the
    session's own object: values are never mutated, so the same object means the same values)."""
    return isinstance(ahead, dict) and ahead["base"] is vals and (ahead["edit"], ahead["preset"]) == (edit, preset)


def store(key: str | None, look: bool, vals: PageValues | None, nv: PageValues | None, ahead: Ahead | None) -> None:
    """What a live edit leaves in the session: a look its ``ahead`` (on values the session still holds: an entry
    dropped meanwhile is not made again), a taken commit its new values ``nv`` (and no look), a refused commit no
    look. ``ahead``: the look just computed, or for a commit the session's look as it was."""
    if look and vals is not None:
        STORE.put(key, {"ahead": ahead}, used=False)
    elif nv is not None:
        STORE.put(key, {"vals": nv, "ahead": None}, used=True)
        wrote(key)  # (a lesson room's teacher page publishes its new state: ui/room.py)
    elif ahead is not None:
        STORE.put(key, {"ahead": None}, used=False)


def edit_key(kind: str, data: dict[str, Any]) -> str | None:
    """What a look ahead and its commit share: the cell and the value as typed (a scrub's values are not looked
    ahead: they answer the first screen only)."""
    if kind != "cell" or data.get("scrub") is True:
        return None
    return repr((data.get("table"), data.get("row"), data.get("col"), data.get("value")))


def live_views(got: Views, skeletons: Any = None) -> dict[str, ViewAnswer]:
    """Views as ``{elem_id: {"value": html, "visible": bool}}``, leaving out those that do not change. A drawn view
    also carries its skeleton's key, and only its cells (``{"key", "cells"}``, no HTML) when ``skeletons`` (the
    page's ``{elem_id: key}``) says the page shows that skeleton (ui/render/slots.py)."""
    out: dict[str, ViewAnswer] = {}
    skip = gr.skip()
    shows = skeletons if isinstance(skeletons, dict) else {}
    for k, v in got.items():
        if k not in VIEW_IDS or v == skip:
            continue
        upd = {n: v[n] for n in ("value", "visible") if n in v} if isinstance(v, dict) else {"value": v}
        vid = VIEW_IDS[k]
        if vid in DRAWN_IDS and "value" in upd:
            upd = {n: upd[n] for n in upd if n != "value"} | slots.answer(upd["value"], shows.get(vid))
        out[vid] = upd
    return out


def shown_keys(views: dict[str, ViewAnswer]) -> dict[str, str]:
    """The skeletons a page shows once it has drawn these answers (``{elem_id: key}``), as it sends them back."""
    return {vid: u["key"] for vid, u in views.items() if isinstance(u.get("key"), str)}


LIVE_PATHS = ("/gradio_api/component_server", "/gradio_api/component_server/")  # the page's (at the root)


def route(component_id: int) -> Callable[[Request], Awaitable[Response]]:
    """The page's ``component_server`` path, answered from ``STORE`` for the grid's ``live_edit`` (the module's
    docstring says why): ``{"session_hash", "component_id", "fn_name", "data"}`` as gradio's frontend sends it.
    Any other function or component is a 404, a body that is not JSON a 400; the body bound (serving/limits.py)
    wraps the whole server, this route included."""

    async def live_route(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"detail": "body: not JSON"}, status_code=400)
        if not isinstance(body, dict) or body.get("fn_name") != "live_edit" or body.get("component_id") != component_id:
            return JSONResponse({"detail": "Function not found."}, status_code=404)
        # (orjson: the large case's 165 KB answer in 0.15 ms, where the JSONResponse's json.dumps takes 0.9)
        return Response(orjson.dumps(await answer(body.get("session_hash"), body.get("data"))),
                        media_type="application/json")  # fmt: skip

    return live_route
