"""The page's static CSS and JS (``ui/static/``), read once at import: one string per component role."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gradio as gr

STATIC = Path(__file__).resolve().parent / "static"


APP_CSS = (STATIC / "app.css").read_text()  # present.CSS and learn.CSS are added to it where the page is assembled
GRID_JS = (STATIC / "grid.js").read_text() + (STATIC / "scrub.js").read_text()  # scrub.js shares grid.js's scope


LIVE_JS = (STATIC / "live.js").read_text()  # views a live edit updates (see live_edit)


WATCH_JS = LIVE_JS + (STATIC / "watch.js").read_text()


HEAT_JS = LIVE_JS + (STATIC / "heat.js").read_text()


PLAIN_JS = LIVE_JS + "liveView();"  # the badge and the message


EXPLAIN_JS = LIVE_JS + (STATIC / "explain.js").read_text()  # the explain card, placed beside the clicked number


FIT_JS = (STATIC / "fit.js").read_text()  # the teacher's text size and the workbench's numbers fitted to the screen


def drawn(js: str, value: Any = None, **kw: Any) -> gr.HTML:
    """A view the page draws itself (``js`` calls drawnView, static/live.js): an HTML component whose template is
    empty, so gradio keeps its value and never redraws it; edits then change only the numbers that changed."""
    return gr.HTML(value, html_template="", js_on_load=js, apply_default_css=False, **kw)
