"""One grid edit (a cell, or a pasted block) applied to a page's values: the one implementation that the
live path (ui/live.py) and the queued fallback (ui/workbench.py) share."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import attention_core as ac
from ui.pipeline import compute_views, expired_got
from ui.render import grids
from ui.render import tables as vw
from ui.values import TABLE_FIELDS, PageValues, shown_head


def edit_result(
    kind: str, preset_id: str | None, vals: PageValues | None, data: Any, drawn: bool = False
) -> tuple[PageValues | None, dict[str, Any], str | None]:
    """A cell ("cell": ``{table, row, col, value}``) or a pasted block ("paste": ``{table, row, col, text}``)
    applied to ``vals``: (the values to store, or None when refused; the views; the new grids after a paste).

    A cell edit with ``"scrub": true`` (a value dragged, static/scrub.js) answers with the first screen's views only;
    the scrub's last value comes again without it, for every view. ``drawn``: the drawn views as ``slots.Drawn``
    (a live edit's answer: pipeline.compute_views)."""
    if vals is None:
        return None, expired_got(), None
    try:
        table, rows, n_mats = grid_of(vals, data)
        r, c = data.get("row"), data.get("col")
        if kind == "cell":
            x = grids.checked_cell(table, rows, r, c, data.get("value"), n_mats)
            nv = dataclasses.replace(vals, **{table: grids.with_cell(getattr(vals, table), r, c, x)})
        else:
            grids.checked_cell(table, rows, r, c, 0, n_mats)  # the anchor cell exists
            block = grids.pasted_block(table, rows, r, c, data.get("text"), n_mats)
            nv = dataclasses.replace(vals, **{table: grids.with_block(getattr(vals, table), r, c, block)})
    except ac.ScenarioError as e:
        return None, {"message": vw.message_html([], error=str(e))}, None
    got = compute_views(preset_id, nv, first_screen=kind == "cell" and data.get("scrub") is True, drawn=drawn)
    if got.get("refused"):
        return None, got, None
    return nv, got, page_grids(nv) if kind == "paste" else None


def page_grids(v: PageValues) -> str:
    """The input grids as the page is sent them (the head shown), ending in a mark that differs every time.

    Gradio's HTML component redraws only a value that differs from the one it last drew (``updateDOM`` in
    js/html/shared/HTML.svelte compares the two strings), while the page writes each edited cell into its grid
    itself (grid.js). Without the mark, Reload after an edit sent the grids the page was built with, gradio drew
    nothing, and the edited numbers stayed on screen over the preset's; so did the same block pasted twice.
    """
    return f"{grids.inputs_html(v, shown_head(v.view_head, int(v.heads)))}<!-- drawn {time.perf_counter_ns()} -->"


def grid_of(vals: PageValues, data: Any) -> tuple[str, list[list[Any]], int]:
    """The grid an edit names: (table, its stored rows, weight matrices stacked in it)."""
    table = data.get("table") if isinstance(data, dict) else None
    if table not in TABLE_FIELDS:
        raise ac.ScenarioError("edit", f"{str(table)[:20]!r} is not an input table")
    n_mats = int(vals.heads) if vals.head_mode == "concat" and table in ("W_q", "W_k", "W_v") else 1
    return table, grids.table_rows(getattr(vals, table)), n_mats
