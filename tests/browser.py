"""The shared helpers (harness.py) as the tests use them: a harness failure is a test failure, never a skip."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: playground, ui, serving

import harness
from harness import CHROMIUM_ARGS, LOADED, ROOT, free_port

__all__ = [
    "CHROMIUM_ARGS",
    "LOADED",
    "ROOT",
    "chromium_path",
    "frames",
    "free_port",
    "loaded",
    "open_page",
    "press",
    "serve",
    "settled",
    "type_cell",
]


def chromium_path() -> str:
    try:
        return harness.chromium_path()
    except harness.HarnessError as e:
        pytest.fail(str(e))


@contextmanager
def serve(
    script: str = "playground.py", env: dict[str, str] | None = None, log_path: str | None = None
) -> Iterator[str]:
    try:
        with harness.serve(script, env, log_path=log_path) as url:
            yield url
    except harness.HarnessError as e:
        pytest.fail(str(e))


# the page's own modules (ui/static/, served by the app beside the page: ui/assets.py)
def module(name: str) -> str:
    """A JS expression: the promise of the page's module ``name`` (``page.js``…), the very instance the page uses."""
    return f"import(new URL('ap/static/{name}', location.href).href)"


# every live edit on its way answered and drawn, and gradio told what the views show (page.js liveIdle): what a
# queued event waits for before it leaves the page
LIVE_IDLE = f"() => {module('page.js')}.then((m) => m.liveIdle())"


# counts the queued events the page sends (gradio's POST to queue/join) and those answered (a process_completed
# message in its queue/data stream, which gradio's client reads with fetch): see settled
EVENTS_JS = """(() => {
  const sent = { n: 0 }, done = { n: 0 };
  window.apEvents = () => ({ sent: sent.n, done: done.n });
  const fetch0 = window.fetch;
  async function count(body) {
    const reader = body.getReader(), text = new TextDecoder();
    let rest = '';  // (a message split between two reads is counted once whole)
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      const messages = (rest + text.decode(r.value, { stream: true })).split('\\n\\n');
      rest = messages.pop();
      done.n += messages.filter((m) => /"msg":\\s*"process_completed"/.test(m)).length;
    }
  }
  window.fetch = async (...a) => {
    const url = String(a[0]?.url ?? a[0]);
    if (url.includes('/queue/join')) sent.n++;
    const res = await fetch0(...a);
    if (!url.includes('/queue/data') || !res.body) return res;
    const [mine, theirs] = res.body.tee();
    count(mine);
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
})();"""


def open_page(
    browser: Browser, url: str, width: int = 1280, height: int = 720, timeout: int = 30_000, events: bool = False,
    scale: float = 1,
) -> Page:  # fmt: skip
    """A new page on ``url`` once the page's load event has answered: the overview's output numbers and the badge's
    own content (not gradio's progress timer in it). ``events``: the page counts its queued events, for
    :func:`settled`; ``scale``: device pixels per CSS pixel."""
    pg = browser.new_page(viewport={"width": width, "height": height}, device_scale_factor=scale)
    pg.set_default_timeout(timeout)
    if events:
        pg.add_init_script(EVENTS_JS)
    pg.goto(url)
    loaded(pg)
    return pg


def loaded(pg: Page) -> None:
    """Wait until the page opened (or reloaded) has answered its load event: the overview's output numbers and the
    badge's own content; then its fonts, and the frames fit.js refits in after them (a layout measured before that
    moves later)."""
    pg.wait_for_selector("#overview table[data-name=output] td[data-r]", state="attached")
    pg.wait_for_function(LOADED)
    pg.wait_for_function("() => document.fonts.status === 'loaded'")
    frames(pg)


FRAMES = """(n) => new Promise((ok) => {
  const next = (k) => (k ? requestAnimationFrame(() => next(k - 1)) : ok()); next(n); })"""


def frames(pg: Page, n: int = 3) -> None:
    """Wait ``n`` animation frames: the page's own work queued for the next frame (present.js, fit.js, explain.js
    place and refit there; a ResizeObserver's refit is queued in the frame after the change) has run."""
    pg.evaluate(FRAMES, n)


# the element's box the same over ``n`` frames in a row (Playwright's own check is two, and the page's views lay out as
# they come near the screen: app.css's content-visibility moved "Teach this" 16 px on the third frame after its scroll)
STILL = """([s, n]) => new Promise((ok) => { const e = document.querySelector(s); let last = '', same = 0;
  const look = () => { const r = e && e.getBoundingClientRect(), now = r ? `${r.top},${r.left},${r.height}` : '';
    same = now && now === last ? same + 1 : 0; last = now; if (same >= n) ok(); else requestAnimationFrame(look); };
  look(); })"""


def press(pg: Page, selector: str, tap: bool = False, frames_still: int = 6) -> None:
    """Click (or ``tap``) ``selector`` as a person does: scrolled to, then pressed once it has stayed where it is for
    ``frames_still`` frames. Pressed while it still moved, the press went down on the button and came up beside it
    (Playwright checks the target at the press only): a click lost, "Teach this" at a phone's page end left the status
    empty (CI of stop 53)."""
    el = pg.locator(selector).first
    el.scroll_into_view_if_needed()
    pg.wait_for_function(STILL, arg=[selector, frames_still])
    el.tap() if tap else el.click()


def settled(pg: Page) -> int:
    """Wait until every queued event the page has sent is answered (a page opened with ``events=True``); returns how
    many it sent. (Network idle never comes: gradio's heartbeat stream stays open.) An event still waiting in its
    ``js`` to leave (page.js afterEvents: the share link, a pin) is not counted until it is sent: wait for what it
    draws instead."""
    pg.wait_for_function("() => { const e = window.apEvents(); return e.done >= e.sent; }")
    return pg.evaluate("() => window.apEvents().sent")


def type_cell(pg: Page, name: str, row: int, col: int, text: str, delay: int = 80) -> None:
    """Click the input grid ``name``'s cell (0-based ``row``, ``col``), replace its editor's text key by key, ``delay``
    ms a key, as a person types, and commit it with Enter."""
    pg.locator(f"#inputs table[data-name={name}] td[data-r='{row}'][data-c='{col}']").click()
    editor = pg.locator("#inputs table.grid td input:not([type=checkbox])")  # (not the custom mask's boxes)
    editor.press("Control+a")
    editor.press_sequentially(text, delay=delay)
    editor.press("Enter")


def type_over(pg: Page, selector: str, text: str, key: str = "Enter", delay: int = 80) -> None:
    """Select what the box ``selector`` holds and type ``text`` over it key by key, ``delay`` ms a key, as a person
    types, then press ``key`` (none when empty)."""
    box = pg.locator(selector)
    box.click()
    box.press("Control+a")
    box.press_sequentially(text, delay=delay)
    if key:
        box.press(key)


class Held:
    """Requests held on the network (handlers for ``Page.route``): the first request each ``hold`` matches waits,
    under its name, until the test lets it go; every other goes on."""

    def __init__(self, pg: Page) -> None:
        self.pg = pg
        self.routes: dict[str, Route] = {}

    def hold(self, name: str, match: Callable[[Any], bool]) -> Callable[[Route], None]:
        def handle(route: Route) -> None:
            if name not in self.routes and match(route.request.post_data_json or {}):
                self.routes[name] = route
                return
            route.continue_()

        return handle

    def wait(self, name: str, timeout: float = 30) -> Route:
        """The request held as ``name``, once the page has sent it (within ``timeout`` s: a loaded server answers the
        calls before it late)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if name in self.routes:
                return self.routes[name]
            self.pg.wait_for_timeout(25)
        raise AssertionError(f"the {name} request never left the page within {timeout:.0f} s")
