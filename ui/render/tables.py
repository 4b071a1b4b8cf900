"""The exact-number tables: numbers as each dtype shows them, a tensor as an HTML table (colour buckets, exact
values, the window a large one shows), torch's own print, the explain card and the message line.

The notebook's step cells are step_cells.py, their code lines code_lines.py, the match badge match_badge.py, the
labs' views mask_tables.py and scaling_plot.py, and the input grids' tables grids.py.
"""

from __future__ import annotations

import html
import math
import re
from decimal import Decimal
from typing import Any

import numpy as np
from torch import Tensor

from attention_core import EXPLAINABLE, NOTEBOOK_STEPS, Step
from ui.render import printing, slots
from ui.render.step_cells import formula_html

STEPS = tuple(step.key for step in NOTEBOOK_STEPS)  # the notebook views, by key (contract/steps.py)


# ---- numbers ----------------------------------------------------------------------------------


def shortest(v: float, dtype: str) -> float:
    """The shortest decimal that round-trips the value in the working dtype (exact through the browser)."""
    return float(str(np.float32(v))) if dtype == "float32" else float(v)


MAX_DIGITS = 10  # significant digits a float64 number shows at most (torch's print and the exports keep all)


def _digits(text: str) -> int:
    """Significant digits of a number's text ('-0.0012e-5' -> 2)."""
    return len(text.partition("e")[0].replace("-", "").replace(".", "").lstrip("0"))


def fmt(v: float, dtype: str = "float32") -> str:
    """One number as text; -inf/inf/nan are written out (the Dataframe would blank them). A mask ("mask"): 1 or 0.

    float32: the shortest text that round-trips in float32 (at most 9 digits, exact). float64: the shortest text
    that round-trips in float64 when it has at most MAX_DIGITS significant digits, else rounded to that many
    (0.7620960299999999 -> 0.76209603).
    """
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    if dtype == "float32":
        return str(np.float32(v))
    if dtype == "mask":  # a mask's 1 (may look) and 0 (hidden)
        return str(int(v))
    text = repr(float(v))
    return text if _digits(text) <= MAX_DIGITS else f"{v:.{MAX_DIGITS}g}"


WINDOW = 24  # number tables show at most this many rows and columns; the heatmap shows everything


def _bucket(v: float, kind: str, lim: float) -> str:
    if not math.isfinite(v):
        return "m"
    if kind == "prob":
        return f"p{min(8, max(0, round(v * 8)))}"
    return f"s{min(10, max(0, round(v / lim * 5) + 5))}"


def _buckets(values: np.ndarray, finite: np.ndarray, kind: str, lim: float) -> list[list[str]]:
    """:func:`_bucket` of every cell of (R, C) float64 ``values`` at once (``finite``: np.isfinite of them)."""
    v = np.where(finite, values, 0.0)
    # numpy rounds (half to even, as Python's round): torch's round splits a 64×64 table across its threads,
    # and with both cores busy that cost 0.3-1.5 ms a table instead of microseconds
    if kind == "prob":
        idx, prefix = np.rint(v * 8).clip(0, 8), "p"
    else:
        idx, prefix = (np.rint(v / lim * 5) + 5).clip(0, 10), "s"
    names = [f"{prefix}{k}" for k in range(11)] + ["m"]
    codes = np.where(finite, idx, 11).astype(np.int64).tolist()
    return [[names[k] for k in row] for row in codes]


SMALL_TABLE = 64  # cells up to which a table's numbers are written one by one (numpy's calls cost more)


def _cells(
    shown: Tensor, dtype: str, kind: str, short: bool
) -> tuple[list[list[float]], list[list[str]], list[list[str]]]:
    """The (R, C) ``shown`` cells' values as floats (for ``short``, else only for a small table), exact texts
    (:func:`fmt`) and colour classes (:func:`_bucket`, scaled by the largest finite |value|). A small table (most
    of the workbench's: 3×3 at the default size) goes cell by cell, where each numpy or torch call would cost more
    than the cells themselves; a larger one goes through numpy at once. Both give the same
    cells (tests/test_table_cells.py)."""
    if shown.numel() <= SMALL_TABLE:
        listed = shown.double().tolist()
        lim = max((abs(v) for row in listed for v in row if math.isfinite(v)), default=1.0) or 1.0
        texts = [[fmt(v, dtype) for v in row] for row in listed]
        return listed, texts, [[_bucket(v, kind, lim) for v in row] for row in listed]
    # (numpy, not torch: a torch call on a small table costs tens of µs, several of them a table, 18 tables an edit)
    values = shown.detach().double().numpy()
    finite = np.isfinite(values)
    lim = float(np.abs(values[finite]).max()) if finite.any() else 1.0
    lim = lim or 1.0
    texts = values.astype(np.float32 if dtype == "float32" else np.float64).astype(str).tolist()  # = fmt
    if dtype != "float32":  # float64: long texts rounded to MAX_DIGITS, as fmt does
        texts = [[t if _digits(t) <= MAX_DIGITS else fmt(float(t), dtype) for t in row] for row in texts]
    return values.tolist() if short else [], texts, _buckets(values, finite, kind, lim)


Mark = tuple[int | None, int | None]  # (row, col) into the full tensor; None = the whole row/column


def html_table(*args: Any, **kwargs: Any) -> str:
    """:func:`number_table` as a view holds it (ui/render/slots.py: its HTML, or while slots are collected its
    placeholder); the same arguments."""
    return slots.put(number_table(*args, **kwargs))


def number_table(
    t: Tensor,
    dtype: str,
    rows: list[str],
    cols: list[str],
    name: str,
    kind: str = "signed",
    col0: int = 0,
    marks: dict[str, list[Mark]] | None = None,
    title: str | None = None,
    window: int | None = None,
    short: bool = False,
    bits: bool = False,
    attrs: str = "",
) -> slots.Table:
    """An exact-number table whose cells are coloured by value ("prob": 0..1, "signed": ±max|v|; "count": as
    signed, written as whole numbers), as its parts (slots.Table): the skeleton around the cells, and the cells.

    Every cell carries data-r/data-c (0-based, into the full tensor) so a click can ask for its explanation.
    An (R, C) tensor larger than the window shows a window of it: the page holding the explained cell (or the
    cells it came from), else the first rows and columns, with a note naming what is shown and, for the tables a
    click explains, buttons that reach the other rows and columns (each explains the first number it brings in).
    -inf is written out, never left blank.
    ``marks``: {"pick": [...], "used": [...]} cells outlined as the explained one and the ones it came from.
    ``title``: the caption shown above the table (default: ``name``, which is also its data-name).
    ``col0``: the full tensor's column of ``t``'s first column (a slice of a wider tensor).
    ``bits``: a map of 1s and 0s, whose 1.0000 and 0.0000 are written 1 and 0. ``attrs``: more attributes of the
    table's tag, each followed by a space (``"data-kv='row' "``).
    """
    n_r, n_c = t.shape
    win = window or WINDOW
    r0, c0 = (window_start(n, win, _targets(marks, axis, shift)) for n, axis, shift in ((n_r, 0, 0), (n_c, 1, col0)))
    shown = t[r0 : r0 + win, c0 : c0 + win]
    head = "".join(f"<th scope='col'>{html.escape(c)}</th>" for c in cols[c0 : c0 + win])
    listed, texts, classes = _cells(shown, dtype, kind, short)
    if kind == "count":  # counts (the KV cache's size) are whole numbers: 3, not 3.0000 (issue 37)
        texts = [[fmt(v, "mask") for v in row] for row in shown.tolist()]
    elif dtype != "mask" and not short:  # the exact numbers in one format a table, as torch prints a tensor
        # (issue 37; a compact table's own format is below, its cells' titles keep each exact value as it is)
        texts = one_format(texts, printing.sci_mode(shown), DIGITS.get(dtype, 17))
    first = c0 + col0  # the full tensor's column of the first column shown
    if marks and any(marks.values()):
        classes = [[f"{c}{_marked(marks, i + r0, j + first)}" for j, c in enumerate(row)]
                   for i, row in enumerate(classes)]  # fmt: skip
    if short and kind != "count":  # (this writes every number the workbench shows: one format a table)
        # (one format method a table, mapped: -inf, inf and nan are written out by it as fmt writes them)
        write = "{:.2e}".format if sci_table(shown) else "{:.4f}".format
        nums = [list(map(write, row)) for row in listed]
    else:
        nums = texts
    if bits:
        ones = {"1.0000": "1", "0.0000": "0"}
        nums = [[ones.get(n, n) for n in row] for row in nums]
    caption = "" if title == "" else f"<div class='nt-name'>{html.escape(title or name)}</div>"
    start = (f"<div class='nt-wrap'>{caption}<table {attrs}class='nt' data-name='{name}' data-shape='{n_r}x{n_c}' "
             f"aria-label='{html.escape(title or name)}'><tr><td></td>{head}</tr>")  # fmt: skip
    end = "</table></div>"
    if n_r > win or n_c > win:
        start = f"<div class='nt-win'>{window_note(name, (n_r, n_c), (r0, c0), win, col0)}{start}"
        end += "</div>"
    heads = [f"<tr><th scope='row'>{html.escape(rows[i + r0])}</th>" for i in range(len(classes))]
    cidx = [str(j + first) for j in range(shown.shape[1])]
    return slots.Table(start, heads, r0, cidx, classes, nums, texts if short else None, end)


def window_start(n: int, win: int, targets: list[int]) -> int:
    """The first index a window of ``win`` shows along an axis of ``n``: the page (a multiple of ``win``, the last
    page ending at ``n``) holding the first target inside the axis, else 0."""
    inside = [x for x in targets if 0 <= x < n]
    return min(inside[0] // win * win, n - win) if inside and n > win else 0


def _targets(marks: dict[str, list[Mark]] | None, axis: int, shift: int) -> list[int]:
    """The indices along ``axis`` the window should show (the picked cell first, then those it came from),
    shifted into the table's own coordinates; a whole row or column (None) asks for nothing on that axis."""
    spots = [*(marks or {}).get("pick", []), *(marks or {}).get("used", [])]
    return [spot[axis] - shift for spot in spots if spot[axis] is not None]


def window_note(name: str, shape: tuple[int, int], start: tuple[int, int], win: int, col0: int = 0) -> str:
    """What a windowed table shows, and buttons that bring in the rows and columns it hides.

    A button sends the explain click of the first number it brings in (``data-goto``: row, column of the full
    tensor), so the server moves the window there; the other axis keeps its page. Only the tables a click can
    explain get buttons; the others say what they show.
    """
    (n_r, n_c), (r0, c0) = shape, start
    r1, c1 = min(n_r, r0 + win), min(n_c, c0 + win)
    parts = [f"rows {r0 + 1}–{r1} of {n_r}"] if n_r > win else []
    parts += [f"columns {col0 + c0 + 1}–{col0 + c1} of {col0 + n_c}"] if n_c > win else []
    text = f"showing {', '.join(parts)}"
    if name not in EXPLAINABLE:
        return f"<div class='win-note'>{text}</div>"
    keep_r, keep_c = r1 - 1, col0 + c1 - 1  # the last row (column) shown: picking it keeps that page
    moves = []
    if r0 > 0:
        lo = (r0 - 1) // win * win
        moves.append(("▲", f"rows {lo + 1}–{r0}", (r0 - 1, keep_c)))
    if r1 < n_r:
        moves.append(("▼", f"rows {r1 + 1}–{min(n_r, r1 + win)}", (r1, keep_c)))
    if c0 > 0:
        lo = (c0 - 1) // win * win
        moves.append(("◀", f"columns {col0 + lo + 1}–{col0 + c0}", (keep_r, col0 + c0 - 1)))
    if c1 < n_c:
        moves.append(("▶", f"columns {col0 + c1 + 1}–{col0 + min(n_c, c1 + win)}", (keep_r, col0 + c1)))
    buttons = "".join(
        f"<button type='button' class='win-go' data-goto='{r},{c}' "
        f"aria-label='show {what}' title='show {what} (explains the first number they bring in)'>{arrow} {what}"
        "</button>"
        for arrow, what, (r, c) in moves
    )
    return f"<div class='win-note'><span>{text}</span> {buttons}</div>"


def sci_table(t: Tensor) -> bool:
    """Whether a compact table writes all its numbers in scientific notation: when one nonzero finite number would
    read 0.0000 at 4 decimals, or has 6 digits before the point. One format a table (issue 37: '1.62e-05' among
    4-decimal numbers read as another kind of number); the exact value is each cell's title."""
    v = t.detach().numpy()  # (numpy: see _cells) compared in the table's own dtype, as torch compares
    a = np.abs(v[np.isfinite(v) & (v != 0)])
    small, large = v.dtype.type(1e-4), v.dtype.type(1e5)
    return bool(((a < small) | (a >= large)).any()) if a.size else False


def one_format(texts: list[list[str]], sci: bool, digits: int = 17) -> list[list[str]]:
    """Exact texts (:func:`fmt`: each value's shortest exact text) in one format for the whole table, as torch's
    print writes a tensor: the same number of decimals for every number (at least one: 3.0, as the float it is),
    or, for ``sci`` (torch's rule for the table's range, printing.sci_mode), scientific for every number with the
    same number of decimals. Only zeros are added, so each text still reads its exact value: 1.16 in a table of
    8 decimals is 1.16000000, never 1.15999997. -inf, inf and nan are written out as before.

    ``digits``: the most significant digits a text of the table can have (:data:`DIGITS`: 9 for float32's
    shortest texts): the scan for the widest stops at the first text that has them."""
    flat = [t for row in texts for t in row if t[-1].isdigit()]  # (-inf, inf and nan end in a letter)
    if not flat:
        return texts
    if sci:
        width = max(1, _most_significant(flat, digits) - 1)
        if width < 15:  # (see _sci_text) one format method for the whole table: a quarter of the cost of f-strings
            write = f"{{:.{width}e}}".format
            return [[write(float(t)) if t[-1].isdigit() else t for t in row] for row in texts]
        return [[_sci_text(t, width) if t[-1].isdigit() else t for t in row] for row in texts]
    decimals = max(1, *(_decimals(t) for t in flat))
    return [[_fixed_text(t, decimals) if t[-1].isdigit() else t for t in row] for row in texts]


DIGITS = {"float32": 9, "float64": MAX_DIGITS}  # the most significant digits fmt writes for a dtype


def _most_significant(texts: list[str], digits: int) -> int:
    """The most significant digits any of ``texts`` writes (0 for zeros only), stopping at ``digits``: at T=64 the
    first few of a table's 576 numbers usually have them."""
    most = 0
    for text in texts:
        n = _significant(text)
        if n > most:
            most = n
            if most >= digits:
                break
    return most


def _significant(text: str) -> int:
    """The significant digits a number's text writes ('0.00120' -> 2, '-1.5e-05' -> 2, '1200.0' -> 2, '0.0' -> 0),
    as Decimal's normalised digits count them, read off the text."""
    return len(text.split("e", maxsplit=1)[0].replace("-", "").replace(".", "").strip("0"))


def _decimals(text: str) -> int:
    """The decimals a number's text writes ('0.25' -> 2, '3.0' -> 1, '1e-05' -> 5)."""
    if "e" in text:
        return max(0, -int(Decimal(text).as_tuple().exponent))
    return len(text) - text.index(".") - 1 if "." in text else 0


def _fixed_text(text: str, decimals: int) -> str:
    """``text`` with ``decimals`` decimals, zeros added (``decimals`` is at least the text's own)."""
    if "e" in text or "." not in text:
        return format(Decimal(text), f".{decimals}f")
    return text + "0" * (decimals - _decimals(text))


def _sci_text(text: str, width: int) -> str:
    """``text`` in scientific notation with ``width`` decimals and a two-digit exponent, zeros added: 1.6200e-05.
    Up to 15 significant digits the float's own formatting writes the text's digits (the double nearest a decimal of
    at most 15 digits rounds back to it), a tenth of Decimal's cost: 14,700 cells a T=64, 8-head edit."""
    v = float(text)
    if v == 0 or width < 15:
        return f"{v:.{width}e}"
    out = format(Decimal(text), f".{width}e")
    return re.sub(r"e([-+])(\d)$", r"e\g<1>0\2", out)


def _marked(marks: dict[str, list[Mark]] | None, r: int, c: int) -> str:
    for cls, spots in (marks or {}).items():
        if any((mr is None or mr == r) and (mc is None or mc == c) for mr, mc in spots):
            return f" {cls}"
    return ""


def explain_html(title: str, lines: tuple[str, ...] | list[str], error: str = "", step: Step | None = None) -> str:
    """The explain panel: one cell's arithmetic, line by line, with the live numbers, under the notebook step it
    belongs to (``step``: its heading and formula, as the list of steps has them)."""
    close = "<button class='ex-close' aria-label='close the explanation' title='close'>×</button>"
    if error:
        return f"<div class='explain'>{close}<div class='msg-warn'>{html.escape(error)}</div></div>"
    if not title:
        return (
            "<div class='explain'><b>Explain a number</b><p>Click any number in a table (q, k, v, scores, "
            "weights, output…) to see the arithmetic that produced it. It follows your edits live.</p></div>"
        )
    body = "".join(f"<div class='ex-line'>{html.escape(line)}</div>" for line in lines)
    return (
        f"<div class='explain' role='region' aria-live='polite' aria-label='explanation'>{close}"
        f"<div class='ex-title'>{html.escape(title)}</div>{_step_line(step)}{body}</div>"
    )


def _step_line(step: Step | None) -> str:
    return (
        "" if step is None else f"<div class='ex-step'>{html.escape(step.heading)}: {formula_html(step.formula)}</div>"
    )


def torch_print(t: Tensor) -> str:
    """Exactly what ``print(t)`` shows in the notebooks (torch's default print options): ``str(t)``, written
    from the values for a plain float tensor (printing.py)."""
    return printing.torch_str(t)


# the error mark: a glyph DejaVu (the only fonts CI's Chromium has) draws, with a name for screen readers
ERROR_MARK = "<span class='mark' role='img' aria-label='error'>✖</span>"


KEPT = " — the views show the last valid state; your other edits are kept."  # what a workbench error leaves


def message_html(warnings: list[str], error: str | None = None, after: str = KEPT) -> str:
    """Inline messages: an input error, followed by ``after`` (the workbench's: its views keep their last good
    state and the other edits stay), and/or plain-words warnings, each announced (an alert, a status) and focusable:
    the workbench shows each one line long, whole while pointed at, focused or tapped (app.css, #message)."""
    parts = []
    if error:
        parts.append(
            f"<div class='msg-error' role='alert' tabindex='0'>{ERROR_MARK} {html.escape(error)}{html.escape(after)}"
            "</div>"
        )
    parts += [f"<div class='msg-warn' role='status' tabindex='0'>⚠ {html.escape(w)}</div>" for w in warnings]
    return "".join(parts)
