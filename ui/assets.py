"""The page's static CSS and JS (``ui/static/``), read once at import.

The JS files are ES modules, served by the app itself (:data:`ROUTES`, at ``ap/static/<file>`` beside the page) and
evaluated once per page; ``static/page.js`` is the interface they share (no globals on ``window``). A component
starts its modules from its ``js_on_load`` (:func:`hook`): gradio runs that code as the body of
``new Function("element", "trigger", "props", "server", "upload", "watch", code)``, which cannot hold a static
``import``, so the hook imports each module by its URL (``import()``, the same URL for every hook, so one instance)
and calls its ``mount`` with the hook's own parameters. The page's ``head`` (:data:`HEAD`) asks for every module
ahead (modulepreload), so the hooks find them loaded. The stylesheets are one set (:data:`CSS`), given to gradio in
one place (``playground.make_app``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import gradio as gr
from fastapi import Request
from fastapi.responses import Response

STATIC = Path(__file__).resolve().parent / "static"

STYLESHEETS = ("app.css", "present.css", "room.css", "learn.css")
CSS = "\n".join((STATIC / name).read_text() for name in STYLESHEETS)

MODULES: dict[str, bytes] = {p.name: p.read_bytes() for p in sorted(STATIC.glob("*.js"))}
ETAGS = {name: f'"{hashlib.sha256(body).hexdigest()[:16]}"' for name, body in MODULES.items()}
STATIC_URL = "ap/static/"  # relative to the page's address, so the page may be served under any path
MODULE_URL = f"(name) => new URL('{STATIC_URL}' + name, location.href).href"  # (absolute: import() in a hook body)
HEAD = "".join(f'<link rel="modulepreload" href="{STATIC_URL}{name}">' for name in MODULES)


def hook(*modules: str) -> str:
    """``js_on_load`` that imports ``modules`` (file names in ``ui/static/``) and calls each one's
    ``mount({element, trigger, props, server, upload, watch})`` in the order given."""
    if unknown := [m for m in modules if m not in MODULES]:
        raise ValueError(f"no module {unknown} in {STATIC}")
    return (
        f"const url = {MODULE_URL};\n"
        f"Promise.all({json.dumps(list(modules))}.map((m) => import(url(m))))\n"
        "  .then((ms) => ms.forEach((m) => m.mount({ element, trigger, props, server, upload, watch })))\n"
        "  .catch((err) => console.error(err));\n"
    )


GRID_JS = hook("grid.js")  # the workbench's editable grids (scrub.js: scrubbing them)
PLAIN_JS = hook("live.js")  # the badge and the message, views a live edit updates (see live_edit)
WATCH_JS = hook("watch.js")  # number tables: drawn in place, flashes, explain clicks
HEAT_JS = hook("heat.js")  # heatmaps
EXPLAIN_JS = hook("explain.js")  # the explain card, placed beside the clicked number
FIT_JS = hook("fit.js")  # the teacher's text size and the workbench's numbers fitted to the screen
DRAWER_JS = hook("drawer.js")  # Escape closes "More settings"; typed boxes' Enter (emptied, a slider's release)
CHARTS_JS = hook("charts.js")  # the scaling lab's figure: text size; stacked on a phone
# the top bar's teach buttons (and the page-wide keyboard: a11y, the sliders' typed boxes)
TEACH_JS = hook("present.js", "tour.js", "a11y.js", "sliders.js", "address.js", "lesson.js")
ROOM_JS = hook("room.js")  # lesson rooms
NEWEST_JS = hook("newest.js")  # views of a handler whose calls are numbered: an older call's answer is not drawn
HIDE_JS = hook("hide.js")  # the quiz's question: what answers it, hidden while it is open

# before a queued event leaves the page: the grid's live edits still on their way go first (page.js liveIdle), so a
# control changed right after an edit applies to the edited values, as the edit was made first (an event's ``js``)
AFTER_LIVE_EDITS = (
    f"(...args) => import(({MODULE_URL})('page.js')).then((m) => m.liveIdle(m.eventLeft).then(() => args), () => args)"
)


# the same for an event that reads the stored state (the share link, the exports, a pin): it also waits for every
# queued event on its way (page.js afterEvents), so that it reads the state the page shows
AFTER_EVENTS = (
    f"(...args) => import(({MODULE_URL})('page.js')).then((m) => m.afterEvents().then(() => args), () => args)"
)


# before a streamed event leaves (ui/wiring.py stream: the Train tab's Run N): every queued event on its way lands first
# (page.js eventsSettled), so a Reset or Step clicked just before Run is taken before the run begins, not during it
AFTER_QUEUED = (
    f"(...args) => import(({MODULE_URL})('page.js')).then((m) => m.eventsSettled().then(() => args), () => args)"
)


# the Train tab's Run N as AFTER_QUEUED, with the page's count of Run clicks (page.js runsClicked: counted as each
# click happens, this one included) in its last input; its Pause as AFTER_LIVE_EDITS, with the count as Pause was
# clicked: Pause stops every Run clicked before it, also one still waiting here when Pause reached the server
# (ui/train.py on_train_pause)


def counted(wait: str) -> str:
    """An event's js that puts the page's count of Run clicks, read at once, in its last input, then waits for
    ``wait`` (a promise made from page.js's module ``m``) before the event leaves."""
    return (
        f"(...args) => import(({MODULE_URL})('page.js')).then((m) => {{ const k = m.runsClicked(); "
        f"return {wait}.then(() => [...args.slice(0, -1), k]); }}, () => args)"
    )


RUN_COUNTED = counted("m.eventsSettled()")
PAUSE_COUNTED = counted("m.liveIdle(m.eventLeft)")


# the same, then numbers the call (page.js stamp) in its first input, a hidden gr.Number (ui/wiring.py NEWEST): the
# server drops the answer of a call the page made before another one of the same handler
STAMPED = (
    f"(n, ...args) => import(({MODULE_URL})('page.js'))"
    ".then((m) => m.liveIdle(m.eventLeft).then(() => [m.stamp(), ...args]), () => [null, ...args])"
)
# the same, waiting as AFTER_EVENTS does (a stamped event that reads the stored state: the mask lab as its tab opens);
# numbered before it waits, as its inputs were read then: a call of the same handler made while it waits is newer
STAMPED_AFTER_EVENTS = (
    f"(n, ...args) => import(({MODULE_URL})('page.js'))"
    ".then((m) => { const s = m.stamp(); return m.afterEvents().then(() => [s, ...args]); }, () => [null, ...args])"
)


def control_js(name: str, writes: bool) -> str:
    """The ``js`` of the workbench control ``name``'s call (ui/wiring.py on(echo=True)), numbered as STAMPED does:
    it first waits for the answers on their way that set the controls (page.js controlLeaves), and is numbered
    negatively when it waited, so that the server answers it with its box set to the value it carried. ``writes``: its
    answer sets other controls too (a size, the heads: it is such an answer itself)."""
    return (
        f"(n, ...args) => import(({MODULE_URL})('page.js')).then((m) => {{ const s = m.stamp(); "
        f"return m.controlLeaves({str(writes).lower()}, {json.dumps(name)}, s)"
        ".then((waited) => [waited ? -s : s, ...args]); }, () => [null, ...args])"
    )


def in_turn(*js: str) -> str:
    """One ``js`` that runs each of ``js`` (functions of no arguments) in turn: one dependency of the page's config
    where each would be one of its own (gradio's page, as it loads, looks through every dependency for each component:
    a page of 426 took 0.66 s of its load for that alone)."""
    return "() => { " + " ".join(f"({j})();" for j in js) + " }"


def control_landed(name: str) -> str:
    """The ``js`` after the control ``name``'s call (its ``.then`` and ``.failure``): no longer on its way."""
    landed = f"m.controlLanded({json.dumps(name)})"
    return f"() => {{ import(({MODULE_URL})('page.js')).then((m) => {landed}, () => null); }}"


# an event whose answer sets the workbench's controls (a preset loaded, the init buttons): as AFTER_LIVE_EDITS,
# counted a writer from the moment it is made (page.js writerMade), until its LANDED_WRITER
WRITER = (
    f"(...args) => import(({MODULE_URL})('page.js')).then((m) => {{ m.writerMade(); "
    "return m.liveIdle(m.eventLeft).then(() => args); }, () => args)"
)
# after each of those events (its ``.then`` and its ``.failure``): it has landed (page.js eventLanded), and live
# edits go again
LANDED = f"() => {{ import(({MODULE_URL})('page.js')).then((m) => m.eventLanded(), () => null); }}"
# the same for an event counted a writer (WRITER, control_js with ``writes``): its answer is drawn, and the
# controls' calls that waited for it go
LANDED_WRITER = (
    f"() => {{ import(({MODULE_URL})('page.js')).then((m) => {{ m.eventLanded(); m.writerLanded(); }}, () => null); }}"
)


def landed_telling(name: str) -> str:
    """LANDED, and then the page is told so by the event ``name`` on ``document``."""
    return (
        f"() => {{ import(({MODULE_URL})('page.js')).then((m) => {{ m.eventLanded(); "
        f"document.dispatchEvent(new CustomEvent('{name}')); }}, () => null); }}"
    )


# the same for an event that stores a state and draws no view (the workbench's seed box: only the message line, a
# live view that says no pg-updated): the page is then told (pg-stored), and address.js asks for the state's address
# again
LANDED_STORED = landed_telling("pg-stored")
# the same for the mask lab's commit (a box's Enter or blur, the checkbox: ui/labs.py on_mask_commit), which may put
# a refused box back: address.js then writes the lab's boxes as they now read (pg-lab-kept)
LANDED_LAB = landed_telling("pg-lab-kept")


def drawn(js: str, value: Any = None, **kw: Any) -> gr.HTML:
    """A view the page draws itself (``js`` mounts drawnView, static/live.js): an HTML component whose template is
    empty, so gradio keeps its value and never redraws it; edits then change only the numbers that changed."""
    return gr.HTML(value, html_template="", js_on_load=js, apply_default_css=False, **kw)


async def static_module(request: Request) -> Response:
    """One module of ``ui/static/`` (``GET /ap/static/<file>.js``), revalidated by its ETag at every page load."""
    name = request.path_params.get("name", "")
    if name not in MODULES:
        return Response(status_code=404)
    tag = ETAGS[name]
    headers = {"ETag": tag, "Cache-Control": "no-cache"}
    if request.headers.get("if-none-match") == tag:
        return Response(status_code=304, headers=headers)
    return Response(MODULES[name], media_type="text/javascript; charset=utf-8", headers=headers)


ROUTES = (("/ap/static/{name}", static_module, ["GET"]),)
