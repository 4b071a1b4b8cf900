"""Editable number grids for the workbench: pure HTML out, one validated cell (or a pasted block) in.

The inputs are plain HTML tables of ``<input>`` cells, not Dataframes: an edit sends
``{table, row, col, value}`` (a few dozen bytes at any size) and a paste sends the pasted text once.
Every value is checked here before it reaches the session's state, so the state only ever holds numbers;
a refused value changes nothing and the message names the cell.

Tables live in the editable values (``vals``) as ``{"data": [[label, v1, v2, …], …], "headers": […]}``:
column 0 is the row label. ``row``/``col`` in an edit index ``data`` rows and number columns (0-based).
"""

from __future__ import annotations

import html
import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from attention_core import MAX_ABS, ScenarioError, parse_number
from ui.render import tables as vw
from ui.render.tables import shortest

if TYPE_CHECKING:  # (ui.values reads its grids through this module)
    from ui.values import PageValues

MAX_PASTE = 200_000  # characters of pasted text (a 64×512 W_o printed by torch is ~230 KB… cut to the table)
TITLES = {
    "x": "X: encodings",
    "x_k": "x_k: key source",
    "x_v": "x_v: value source",
    "W_q": "W_q",
    "W_k": "W_k",
    "W_v": "W_v",
    "W_o": "W_o",
    "keep": "custom mask (✓ = may look)",
}


# ---- reading the state's tables ----------------------------------------------------------------


def table_rows(table: Any) -> list[list[Any]]:
    """The ``data`` rows of a stored table ({"data", "headers"}), or [] when it is not one."""
    data = table.get("data") if isinstance(table, dict) else None
    return data if isinstance(data, list) else []


def head_rows(n_rows: int, n_mats: int, head: int) -> range:
    """The rows of stacked weight table that belong to head ``head`` (0-based), heads stacked top to bottom."""
    per = max(1, n_rows // max(1, n_mats))
    return range(min(head, n_mats - 1) * per, min(head, n_mats - 1) * per + per)


def grid_where(table: str, label: str, n_mats: int = 1) -> str:
    """How a message names a grid, from one of its row labels: 'x', or 'W_q head 2' when heads are stacked."""
    if table in ("W_q", "W_k", "W_v") and n_mats > 1:
        head = re.match(r"h(\d+)", label)
        return f"{table} head {head.group(1) if head else '?'}"
    return table


def cell_name(table: str, label: str, row: int, col: int, n_mats: int = 1) -> str:
    """How a message names one input cell: 'x row 2, column 1' or 'W_q head 2 row 1, column 3'."""
    return f"{grid_where(table, label, n_mats)} row {row + 1}, column {col + 1}"


# ---- one cell ----------------------------------------------------------------------------------


def checked_cell(table: str, rows: list[list[Any]], row: Any, col: Any, value: Any, n_mats: int = 1) -> float:
    """The number an edit of ``rows[row][col + 1]`` asks for, or ScenarioError naming the cell."""
    ok = all(isinstance(n, int) and not isinstance(n, bool) for n in (row, col))
    if not ok or not 0 <= row < len(rows) or not 0 <= col < len(rows[row]) - 1:
        raise ScenarioError(table, f"there is no cell at row {row!s:.8}, column {col!s:.8}; reload the page")
    where = cell_name(table, str(rows[row][0]), row - _first_row(table, rows, row, n_mats), col, n_mats)
    x = parse_number(value, where)
    if table == "keep" and x not in (0.0, 1.0):
        raise ScenarioError(where, f"{x:g} must be 0 (hide) or 1 (keep)")
    return int(x) if table == "keep" else x


def _first_row(table: str, rows: list[list[Any]], row: int, n_mats: int) -> int:
    """The first row of ``row``'s head in a stacked weight table (0 elsewhere)."""
    if table not in ("W_q", "W_k", "W_v") or n_mats <= 1:
        return 0
    per = max(1, len(rows) // n_mats)
    return min(row // per, n_mats - 1) * per


def with_cell(table: dict[str, Any], row: int, col: int, x: float) -> dict[str, Any]:
    """A copy of a stored table with one number replaced (only the edited row is copied)."""
    data = list(table["data"])
    data[row] = [*data[row][: col + 1], x, *data[row][col + 2 :]]
    return {**table, "data": data}


# ---- paste -------------------------------------------------------------------------------------

_ROW = re.compile(r"\[([^\[\]]*)\]")
_SPLIT = re.compile(r"[\s,;]+")


def parse_paste(text: Any) -> list[list[str]]:
    """Pasted text -> a block of cell strings (rows of equal length are not required here).

    Understands spreadsheet cells (tab-separated lines), a Python or NumPy nested list (``[[1, 2], [3, 4]]``,
    ``array([[1., 2.], …])``, numpy's print ``[[1. 2.]\\n [3. 4.]]``) and torch's own print
    (``tensor([[1.1600, 0.2300], …])``, with or without ``dtype=…``/``grad_fn=…``).
    """
    if not isinstance(text, str) or not text.strip():
        raise ScenarioError("paste", "is empty")
    if len(text) > MAX_PASTE:
        raise ScenarioError("paste", f"{len(text)} characters; at most {MAX_PASTE}")
    body = re.sub(r"(dtype|grad_fn|device|requires_grad)\s*=\s*[^,\)\]]*", "", text)
    if "[" in body:
        groups = _ROW.findall(body)
        rows = [[c for c in _SPLIT.split(g.strip()) if c] for g in groups]
    else:
        lines = [ln for ln in body.replace("\r", "").split("\n") if ln.strip()]
        sep = "\t" if any("\t" in ln for ln in lines) else None
        rows = [
            [c.strip() for c in ln.split(sep)] if sep else [c for c in _SPLIT.split(ln.strip()) if c] for ln in lines
        ]
    rows = [r for r in rows if r]
    if not rows:
        raise ScenarioError("paste", "holds no numbers")
    return rows


def pasted_block(
    table: str, rows: list[list[Any]], row: int, col: int, text: Any, n_mats: int = 1
) -> list[list[float]]:
    """The pasted block, checked cell by cell against the table it lands in (top-left at ``row``, ``col``).

    Raises ScenarioError naming the table cell a bad value would land in, or the shape that does not fit.
    """
    block = parse_paste(text)
    n_r, n_c = len(rows), max((len(r) - 1 for r in rows), default=0)
    width = len(block[0])
    for i, r in enumerate(block):
        if len(r) != width:
            raise ScenarioError(f"paste into {table}", f"row {i + 1} has {len(r)} values; row 1 has {width}")
    if row + len(block) > n_r or col + width > n_c:
        raise ScenarioError(
            f"paste into {table}",
            f"a {len(block)}×{width} block at row {row + 1}, column {col + 1} does not fit the {n_r}×{n_c} table "
            "(paste into the top-left cell, or resize first)",
        )
    return [
        [checked_cell(table, rows, row + i, col + j, c, n_mats) for j, c in enumerate(r)] for i, r in enumerate(block)
    ]


def with_block(table: dict[str, Any], row: int, col: int, block: list[list[float]]) -> dict[str, Any]:
    """A copy of a stored table with a checked block written in at (row, col)."""
    data = list(table["data"])
    for i, vals in enumerate(block):
        old = data[row + i]
        data[row + i] = [*old[: col + 1], *vals, *old[col + 1 + len(vals) :]]
    return {**table, "data": data}


# ---- HTML --------------------------------------------------------------------------------------

# how a learner finds scrubbing (static/scrub.js): the grid's tooltip
SCRUB_HINT = "Drag a number sideways to change it (Shift: finer; Escape puts it back). Alt+↑/↓ steps it. Click to type."


def shown_value(v: Any, dtype: str) -> str:
    """A stored cell as the grid shows it: the shortest text that is exact in the working dtype."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or abs(v) > MAX_ABS:
        return html.escape(str(v))[:30]
    return str(v) if isinstance(v, int) else vw.fmt(v, dtype)


def kept(v: Any) -> bool:
    """Whether a stored custom-mask cell keeps its key (1, 1.0 or their text: the cell is stored as a number)."""
    try:
        return float(v) == 1.0
    except (TypeError, ValueError):
        return False


def _row_html(
    table: str, i: int, row: list[Any], cols: list[str], texts: dict[tuple[int, int], str], first: bool
) -> str:
    """One grid row: its label, then a cell per number (a checkbox per key in the custom mask).

    Each grid is one Tab stop: only its first cell has tabindex 0 (grid.js moves it with the arrow keys)."""
    label = html.escape(str(row[0]))
    cells = []
    for j in range(len(row) - 1):
        tab = "0" if first and j == 0 else "-1"
        if table == "keep":  # a real checkbox (Space toggles, screen readers say checked); drawn by app.css
            on = " checked" if kept(row[j + 1]) else ""
            say = f"{label} may look at {cols[j]}"
            box = f"<input type='checkbox' tabindex='{tab}' aria-label='{say}' title='{say}'{on}>"
            cells.append(f"<td class='chk' data-r='{i}' data-c='{j}'>{box}</td>")
        else:  # plain text: an editor <input> appears only in the cell being edited (light at 64×64)
            cells.append(f"<td data-r='{i}' data-c='{j}' tabindex='{tab}'>{texts[(i, j)]}</td>")
    return f"<tr><th scope='row'>{label}</th>{''.join(cells)}</tr>"


def grid_html(
    table: str,
    stored: dict[str, Any],
    dtype: str,
    rows: range | None = None,
    title: str | None = None,
    note: str = "",
    n_mats: int = 1,
    source: str = "x",
) -> str:
    """One editable grid: a cell per number, labelled for screen readers, sized to its longest value.

    ``rows`` limits it to some stored rows (one head of a stacked weight table); data-r stays the stored row,
    and the table carries how messages name it (``data-where``) and its first stored row (``data-r0``), so the
    page can name a cell it holds a refused value in (grid.js)."""
    data = table_rows(stored)
    headers = stored.get("headers", []) if isinstance(stored, dict) else []
    picked = list(rows if rows is not None else range(len(data)))
    name = title or TITLES[table]
    texts = {(i, j): shown_value(v, dtype) for i in picked for j, v in enumerate(data[i][1:])}
    width = max((len(t) for t in texts.values()), default=4)
    head = "".join(f"<th scope='col'>{html.escape(str(h))}</th>" for h in headers[1:])
    n_cols = max((len(data[i]) - 1 for i in picked), default=0)
    cols = [html.escape(str(headers[j + 1])) if j + 1 < len(headers) else f"{j + 1}" for j in range(n_cols)]
    body = [_row_html(table, i, data[i], cols, texts, k == 0) for k, i in enumerate(picked)]
    shape = f"{len(picked)}×{len(headers) - 1}"
    ident = table.startswith("W_") and is_identity([data[i][1:] for i in picked])
    if ident:  # 003/004's weightless steps: one line instead of a square of zeros, the cells a click away
        note += (
            f"<span class='sub ident'>= I (the identity: {identity_words(table, source)})</span><button class='expand' "
            f"aria-label='show the cells of {html.escape(name)} to edit them'>edit cells</button>"
        )
    where = grid_where(table, str(data[picked[0]][0]) if picked else "", n_mats)
    hint = "" if table == "keep" else f" title='{SCRUB_HINT}'"
    return (
        f"<div class='card in-card{' collapsed' if ident else ''}' data-card='{table}'><div class='card-title'>"
        f"{html.escape(name)} <span class='shape'>{shape}</span>{note}</div><div class='grid-wrap'>"
        f"<table class='grid' role='grid' data-name='{table}' aria-label='{html.escape(name)} (editable)'{hint} "
        f"data-where='{html.escape(where)}' data-r0='{picked[0] if picked else 0}' data-dtype='{html.escape(dtype)}' "
        f"style='--w:{width + 1}ch'><tr><td></td>{head}</tr>"
        f"{''.join(body)}</table></div></div>"
    )


def identity_words(table: str, source: str) -> str:
    """What an identity weight grid does, in its own role: 'k = x_k' for W_k under cross-attention."""
    return "the heads' outputs pass through" if table == "W_o" else f"{table[-1]} = {source}"


def is_identity(m: list[list[Any]]) -> bool:
    """Whether a stored matrix is the square identity (1 on the diagonal, 0 elsewhere)."""
    return (
        len(m) > 1
        and all(len(r) == len(m) for r in m)
        and all(r[j] == (1 if i == j else 0) for i, r in enumerate(m) for j in range(len(r)))
    )


def weight_note(v: PageValues, h: int, n_mats: int) -> str:
    """What the shown weight grids are: one head's slice, or the single split-mode matrix."""
    x = "x_q" if v.cross else "x"  # what W_q multiplies
    layout = f"out×in, q = {x} @ W.T" if v.layout == "linear" else f"in×out, q = {x} @ W"
    if v.head_mode == "split":
        return f"<span class='sub'>d_model×d_model, split into {v.heads} heads after projecting; {layout}</span>"
    who = f"head {h + 1} of {n_mats}; " if n_mats > 1 else ""
    return f"<span class='sub'>{who}{layout}</span>"


def inputs_html(v: PageValues, h: int) -> str:
    """Every editable grid of the workbench for head ``h`` (0-based): X (or x_q, x_k, x_v), the shown head's
    W_q, W_k, W_v, then W_o and the custom mask when they are on."""
    dt = v.dtype
    n_mats = int(v.heads) if v.head_mode == "concat" else 1
    xs = [("x", "x_q: queries" if v.cross else None)]
    if v.cross:
        xs += [("x_k", None), ("x_v", None)]
    parts = ["<div class='stage'>", *(grid_html(t, getattr(v, t), dt, title=title) for t, title in xs), "</div>"]
    w_rows = len(head_rows(len(table_rows(v.W_q)), n_mats, h))
    x_rows = len(table_rows(v.x))
    column = " column" if 3 * w_rows + 6 <= x_rows + 2 else ""  # short W's beside a tall X: stack them
    parts.append(f"<div class='arrow' aria-hidden='true'>→<span>·W</span></div><div class='stage ws{column}'>")
    for name in ("W_q", "W_k", "W_v"):
        rows = head_rows(len(table_rows(getattr(v, name))), n_mats, h)
        note = weight_note(v, h, n_mats) if name == "W_q" else ""
        source = f"x_{name[-1]}" if v.cross else "x"  # what this W multiplies
        parts.append(grid_html(name, getattr(v, name), dt, rows=rows, note=note, n_mats=n_mats, source=source))
    parts.append("</div>")
    extra = []
    if v.use_wo:
        extra.append(grid_html("W_o", v.W_o, dt, note="<span class='sub'>mixes the heads back</span>"))
    if v.mask_kind == "custom":
        how = "<span class='sub'>✕ = hidden · click or Space flips</span>"
        extra.append(grid_html("keep", v.keep, dt, note=how))
    if extra:
        parts.append(f"<div class='stage'>{''.join(extra)}</div>")
    return f"<div class='inputs'>{''.join(parts)}</div>"


# ---- the grids' tables: browser tables <-> raw cells, weights with heads stacked vertically --------------


def cells(table: Any) -> Any:
    """Browser table -> raw cells (label column dropped). Accepts a list of rows, a dict or a DataFrame.

    Anything that is not a list of rows is passed through untouched, so the core names the field.
    """
    if table is None:
        return []
    if hasattr(table, "values") and hasattr(table, "columns"):  # pandas
        table = table.values.tolist()
    elif isinstance(table, dict):
        table = table.get("data", [])
    if not isinstance(table, list):
        return table
    return [list(r)[1:] if isinstance(r, (list, tuple)) else r for r in table]


def rows_of(m: Any) -> list[list[Any]]:
    """A raw matrix forced into a list of lists (for resizing, where junk simply makes room for fresh cells)."""
    return [r if isinstance(r, list) else [] for r in m] if isinstance(m, list) else []


def grid(table: Any) -> list[list[Any]]:
    return rows_of(cells(table))


def weight_labels(n_heads: int, n_rows: int, role: str, layout: str) -> list[str]:
    kind = "out" if layout == "linear" else "in"
    if n_heads == 1:
        return [f"{kind}{r + 1}" for r in range(n_rows)]
    return [f"h{h + 1} {role}·{kind}{r + 1}" for h in range(n_heads) for r in range(n_rows)]


def stacked_table(mats: list[list[list[Any]]], role: str, layout: str, dtype: str) -> dict[str, Any]:
    """Per-head matrices (already in ``layout``) -> one table of heads stacked top to bottom."""
    n_rows = len(mats[0]) if mats else 0
    n_cols = max((len(r) for m in mats for r in m), default=0)
    kind = "in" if layout == "linear" else "out"
    rows = [r for m in mats for r in m]
    return raw_table(
        rows, weight_labels(len(mats), n_rows, role, layout), [f"{kind}{c + 1}" for c in range(n_cols)], dtype
    )


def raw_table(m: list[list[Any]], rows: list[str], cols: list[str], dtype: str) -> dict[str, Any]:
    """An editable matrix with a read-only label column 0: numbers exact in ``dtype``, typos kept as typed."""

    def cell(c: Any) -> Any:
        small = (type(c) is int and abs(c) < 10**30) or (type(c) is float and math.isfinite(c) and abs(c) < 1e30)
        if small:
            return shortest(c, dtype)
        return c if isinstance(c, (str, type(None))) else str(c)[:30]  # kept as typed, for the message

    return {"data": [[r, *(cell(c) for c in row)] for r, row in zip(rows, m, strict=True)], "headers": ["", *cols]}


def flip(mats: list[list[list[Any]]]) -> list[list[list[Any]]]:
    """Transpose raw per-head matrices (linear <-> matmul); missing cells of ragged rows become None."""
    out = []
    for m in mats:
        n_cols = max((len(r) for r in m), default=0)
        out.append([[r[j] if j < len(r) else None for r in m] for j in range(n_cols)])
    return out


def table_to_heads(table: Any, n_heads: int) -> list[Any]:
    """Stacked table -> one raw matrix per head (:func:`split_heads` of its cells)."""
    return split_heads(cells(table), n_heads)


def split_heads(rows: Any, n_heads: int) -> list[Any]:
    """A stacked table's cells (a list of rows, or ui/values.py's ``numeric`` array) -> one matrix per head.
    Leftover rows stay with the last head so the core reports the wrong shape by name instead of this function
    guessing."""
    if not isinstance(rows, (list, np.ndarray)):
        return [rows] * n_heads
    per = max(1, len(rows) // max(1, n_heads))
    return [rows[h * per : (h + 1) * per] for h in range(n_heads - 1)] + [rows[(n_heads - 1) * per :]]
