"""Attention Playground: the seed notebooks' attention, live, number by number.

Run ``python playground.py`` (127.0.0.1:7860; GRADIO_SERVER_NAME / GRADIO_SERVER_PORT change it; ``--classroom``
listens on every interface and prints the LAN address students join at, docs/rooms.md). This module only
assembles and serves: the page is built from its sections (``ui/``), the API from ``serving/api.py``, and both are
served from one FastAPI app behind the body bound (``serving/limits.py``). Module level only builds ``demo`` and
``api``; tests import them without launching.
"""

from __future__ import annotations

import gc
import logging
import os
import sys

import gradio as gr
import torch
import uvicorn
from fastapi import FastAPI

import attention_core as ac
from serving import limits, rooms, workers
from serving.api import API_MOUNT, API_SESSIONS, answer_mcp_as_json, build_api, declare_api, root_api
from ui import assets, labs, learn, live, real_model, room, sentence, share, train, workbench
from ui.assets import HEAT_JS, WATCH_JS
from ui.pipeline import VIEW_KEYS, load_values, render
from ui.render import grids
from ui.values import DEFAULT_PRESET, values_from_scenario
from ui.wiring import COMMON, Page, Slot, bind, on

# gradio's queue rebuilds a pandas summary of its last 10,000 events after every event, for a monitoring page this
# app does not enable: about 8% of the server's time under load. Once per 100,000 events is enough.
os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "100000")

GRADIO_SESSIONS = 8
"""The page app's gradio session table (``state_session_capacity``), which holds nothing the pages need.

gradio keeps, per session hash, a copy of every block's config with the last value each event took in and gave
out (~130 KB, plus a few MB for a large state), and a script can make any number of session hashes. The pages'
state lives in STORE, so this table can be small: memory stays bounded, and a dropped gradio session costs only
its rebuild (~17 ms) on that page's next event.
"""


def build() -> gr.Blocks:
    """The page: the workbench first, then every other section as a tab, each wiring its own events."""
    first = values_from_scenario(ac.parse(ac.get_preset(DEFAULT_PRESET).scenario), seed=42)
    # delete_cache: gradio's copies of exported files are removed after an hour
    with gr.Blocks(title="Attention Playground", delete_cache=(600, 3600)) as demo:
        # empty until the page's load event fills them; empty again if STORE dropped this session (sessions.py)
        states = [Slot("preset"), Slot("shape"), Slot("vals")]
        preset, badge, load_btn = workbench.build_topbar()
        room_parts = room.build_room()  # "Teach this", the join card, following a teacher (ui/room.py)
        with gr.Tabs(elem_id="tabs") as tabs:
            with gr.Tab("Workbench", id="bench"):
                controls, buttons, share_parts = workbench.build_toolbar(first)
                message, inputs, overview, explain_panel = workbench.build_pipeline(grids.inputs_html(first, 0))
                parts = learn.build_learn(HEAT_JS)  # "Quiz me" and "Pin and compare"
                notebook = workbench.build_notebook()
            views = {"badge": badge, "message": message, "overview": overview, "explain": explain_panel, **notebook}
            page = Page(preset, *states, controls, inputs, {k: views[k] for k in VIEW_KEYS})
            labs.build_mask_lab(page.vals_state)
            labs.build_scaling_lab()
            sentence.build_sentence(page, tabs)
            real_model.build(render, bind, {"watch": WATCH_JS, "heat": HEAT_JS}, COMMON)
            train.build_train(page, tabs)
        workbench.wire_workbench(page, buttons, load_btn)
        share.wire_share(page, share_parts)
        learn.wire_learn(page, parts)
        room.wire_room(page, room_parts)
        demo.unload(train.on_unload)
        on(demo.load, bind(share.on_open, page), [], page.everything(), loads=True, **COMMON)
        declare_api()  # the API's endpoints, for the page's "Use via API" and MCP; calls run on the API app (api.py)
    return demo


def settle() -> None:
    """Build once what the first requests would (the default preset's views), then move every object alive now
    out of the garbage collector's way (``gc.freeze``): Python's full collections then walk only what the server
    made since, a few ms instead of ~200 ms with the GIL held every ~100 edits (docs/benchmarks.md,
    "A whole class at once")."""
    load_values(DEFAULT_PRESET)
    gc.collect()
    gc.freeze()


def make_app() -> FastAPI:
    """The server: the page at /, the API app under /api and answering API clients at the root too (RootApi), MCP
    at /gradio_api/mcp/ (and /api/gradio_api/mcp/), every request body capped before parsing (limits.py)."""
    app = FastAPI(middleware=[*limits.app_kwargs()["middleware"], root_api(api)])  # the body bound first
    demo.state_session_capacity, api.state_session_capacity = GRADIO_SESSIONS, API_SESSIONS  # what launch() sets
    shared = {"enable_monitoring": False, "max_file_size": "1mb", "mcp_server": True}
    inputs_id = next(b._id for b in demo.blocks.values() if getattr(b, "elem_id", None) == "inputs")
    for path in live.LIVE_PATHS:  # before the page's mount, which would take every path (ui/live.py says why)
        app.add_api_route(path, live.route(inputs_id), methods=["POST"], include_in_schema=False)
    for path, endpoint, methods in (*room.ROUTES, *assets.ROUTES):  # lesson rooms' routes (ui/room.py), the page's
        # JS modules (ui/assets.py), before the mount too
        app.add_api_route(path, endpoint, methods=methods, include_in_schema=False)
    gr.mount_gradio_app(app, api, path=API_MOUNT, footer_links=[], **shared)
    page = {"css": assets.CSS, "head": assets.HEAD, "footer_links": ["api"]}  # "Use via API": the root
    gr.mount_gradio_app(app, demo, path="", **page, **shared)
    for blocks in (api, demo):
        answer_mcp_as_json(blocks)
    return app


demo = build()
demo.queue(max_size=64, default_concurrency_limit=2)
api = build_api()
api.queue(max_size=64, default_concurrency_limit=2)

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    torch.set_num_threads(1)  # two queue workers share two cores: one thread each (threads fighting cost 1.6×)
    host = os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1")
    port = int(os.environ.get("GRADIO_SERVER_PORT", "7860"))
    if "--classroom" in sys.argv[1:]:  # a lesson room's students on the LAN: every interface, the LAN address
        host = "0.0.0.0"
        os.environ["AP_CLASSROOM_URL"] = f"http://{rooms.lan_address()}:{port}/"
        print(rooms.classroom_banner(os.environ["AP_CLASSROOM_URL"]), flush=True)
    print(f"Attention Playground on http://{host}:{port}/  (API: http://{host}:{port}/api/)", flush=True)
    server = make_app()
    settle()
    if os.environ.get("AP_WARM", "1") != "0":
        workers.warm()  # the real model loads in its worker meanwhile: the first Real model request is quick
    uvicorn.run(server, host=host, port=port, log_level="warning")
