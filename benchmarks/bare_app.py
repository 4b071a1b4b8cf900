"""The physical floor of a server-side edit: a bare page whose edit is one ``fetch`` to a trivial endpoint, the
answer written into the page (no gradio, no framework on the page). ``benchmarks/bench.py`` times it like the app.

    python benchmarks/bare_app.py   # serves on GRADIO_SERVER_PORT (default 7861), as the benchmark's harness does

With ``BARE_DELAY_MS=N`` the endpoint waits N ms before it answers: the same page with a server that takes longer,
which shows how the time of an edit grows with the server's (bench.py's "frame budget" rows). With
``BARE_SHOW_ENTER=1`` the page also shows the Enter at once (the value sent, in a line of its own), as the app
shows a commit (its editor closes, the focus moves on): that change takes a frame of its own before the answer's.

The page also holds the scrub's floor: a number (``#bare-num``) dragged sideways as the app's grid cells are
(a hundredth a pixel), its values sent as the app's scrub sends them (static/scrub.js: one request on its way at a
time, the newest value waiting for its turn), each answer written into ``#bare-scrub-out``.
"""

from __future__ import annotations

import asyncio
import os

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Route

PAGE = """<!doctype html><meta charset="utf-8"><title>bare floor</title>
<input id="bare-in" value="0.23" aria-label="x[t1, d2]"><div id="bare-out">0.23</div><div id="bare-sent"></div>
<p><span id="bare-num" style="display:inline-block;padding:8px 24px;cursor:ew-resize;user-select:none">0.23</span>
<span id="bare-scrub-out">0.23</span></p>
<script>
const box = document.getElementById('bare-in');
const SHOW_ENTER = %s;
box.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  if (SHOW_ENTER) document.getElementById('bare-sent').textContent = `sent ${box.value}`;
  fetch('edit', { method: 'POST', body: JSON.stringify({ value: box.value }) })
    .then((r) => r.text()).then((t) => { document.getElementById('bare-out').textContent = t; });
});
const num = document.getElementById('bare-num');
let drag = null, flying = false, waiting = null;
const post = (v) => {  // one request on its way; a newer value replaces the one waiting
  if (flying) { waiting = v; return; }
  flying = true;
  fetch('edit', { method: 'POST', body: JSON.stringify({ value: v }) }).then((r) => r.text()).then((t) => {
    document.getElementById('bare-scrub-out').textContent = t;
    flying = false;
    if (waiting !== null) { const w = waiting; waiting = null; post(w); }
  });
};
num.addEventListener('pointerdown', (e) => { drag = { x0: e.clientX, v0: parseFloat(num.textContent) }; });
document.addEventListener('pointermove', (e) => {
  if (!drag) return;
  const v = (drag.v0 + (e.clientX - drag.x0) / 100).toFixed(2);
  if (v === num.textContent) return;
  num.textContent = v;
  post(v);
});
document.addEventListener('pointerup', () => { drag = null; });
</script>"""


DELAY_S = float(os.environ.get("BARE_DELAY_MS", "0")) / 1e3
SHOW_ENTER = os.environ.get("BARE_SHOW_ENTER") == "1"


async def page(_: Request) -> HTMLResponse:
    return HTMLResponse(PAGE % ("true" if SHOW_ENTER else "false"))


async def edit(request: Request) -> PlainTextResponse:
    """The trivial endpoint: the edit's body back as text (after BARE_DELAY_MS, when that is set)."""
    body = (await request.body()).decode()
    if DELAY_S > 0:
        await asyncio.sleep(DELAY_S)
    return PlainTextResponse(body)


app = Starlette(routes=[Route("/", page), Route("/edit", edit, methods=["POST"])])

if __name__ == "__main__":
    uvicorn.run(app, host=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
                port=int(os.environ.get("GRADIO_SERVER_PORT", "7861")), log_level="warning")  # fmt: skip
