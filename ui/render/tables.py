"""Pure conversion and rendering for playground.py: no Gradio objects, no state.

Browser tables <-> scenario dicts, tensors -> torch's own print text, exact-number tables,
each step's notebook code, and the match badge.
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch
from gradio.components.plot import PlotData
from torch import Tensor

import attention_core as ac
from attention_core import EXPLAINABLE, fill_verdicts
from attention_core import VARIANT_KEYS as MODERN_KEYS
from ui.render import printing

STEPS = ("qkv", "scores", "scaled", "masked", "weights", "output", "combine")

# each step's heading (title, formula as HTML, one plain sentence) for the current settings: :func:`step_heading`
STEP_WORDS = {
    "qkv": "Each token's encoding is multiplied by three weight matrices, giving its query (what it looks for), key "
    "(what it offers) and value (what it passes on).",
    "qkv-cross": "Each query token's encoding (x_q) is multiplied by W_q, giving its query (what it looks for); each "
    "source token's x_k and x_v by W_k and W_v, giving its key (what it offers) and value (what it passes on).",
    "scores": "Entry (i, j) is the dot product of query i with key j: how well token i's question matches token j.",
    "√d_k": "Dividing by √d_k keeps the scores' spread near 1 as d_k grows, so softmax does not saturate (seed 004's "
    "variance cell).",
    "off": "Scaling is off: the scores go on unchanged, and as d_k grows so does their spread, until softmax "
    "saturates (seed 004's variance cell). Switch the scale back on to compare.",
    "temperature": "A temperature τ divides every score: above 1 it flattens the weights, below 1 it sharpens them.",
    "softmax": "Each row becomes positive weights that sum to 1: how much token i attends to each token j.",
    "sum": "Each row is divided by its own sum (003's naive normalisation): the row sums to 1, but a negative score "
    "stays a negative weight, and a row whose sum is near 0 blows up. Choose softmax to compare.",
}
MASK_HOW = {
    "causal": "causal (look-ahead): query i sees keys 1..i; every later key is hidden",
    "padding": "padding: the padded keys ({pad}) are hidden from every query",
    "causal+padding": "causal and padding: a key is hidden when it comes after the query or is padded ({pad})",
    "custom": "custom: the pairs unticked in the mask grid are hidden",
}
WHERE = "S″<sub>ij</sub> = S′<sub>ij</sub> where allowed, {fill} where hidden"
FILL_HOW = {
    "-inf": (WHERE.format(fill="−∞"), "hidden pairs get −∞ (000's masked_fill)"),
    "-1e9": (WHERE.format(fill="−10<sup>9</sup>"), "hidden pairs get −1e9 (002)"),
    "additive": ("S″ = S′ + M, &nbsp;M<sub>ij</sub> ∈ {0, −∞}", "M (004) adds 0 where allowed and −∞ where hidden"),
}
FILL_EFFECT = {"softmax": "so softmax gives them weight 0", "sum": "and divide-by-sum takes only the visible scores"}


def step_heading(step: str, s: ac.Scenario, divisor: float | None) -> str:
    """The notebook step's heading for these settings: title, formula and sentence follow scale, normalise and
    mask (``divisor``: the trace's, None when scaling is off)."""
    title, formula, words = {
        "qkv": lambda: _qkv_heading(s),
        "scores": lambda: (TITLES["scores"], "S = Q·K<sup>T</sup>, &nbsp;S<sub>ij</sub> = q<sub>i</sub> · "
                           "k<sub>j</sub>", STEP_WORDS["scores"]),
        "scaled": lambda: _scaled_heading(s, divisor),
        "masked": lambda: _masked_heading(s),
        "weights": lambda: _weights_heading(s),
        "output": lambda: _output_heading(s),
        "combine": lambda: _combine_heading(s),
    }[step]()  # fmt: skip
    return (
        f"<div class='nb-head'><h3>{html.escape(title)}</h3><div class='nb-formula'>{formula}</div>"
        f"<p class='nb-words'>{html.escape(words)}</p></div>"
    )


def _qkv_heading(s: ac.Scenario) -> tuple[str, str, str]:
    if s.self_attention:
        formula = "Q = X·W<sub>q</sub>, &nbsp;K = X·W<sub>k</sub>, &nbsp;V = X·W<sub>v</sub>"
        return TITLES["qkv"], formula, STEP_WORDS["qkv"]
    formula = ", &nbsp;".join(f"{n} = x<sub>{r}</sub>·W<sub>{r}</sub>" for n, r in (("Q", "q"), ("K", "k"), ("V", "v")))
    return TITLES["qkv"], formula, STEP_WORDS["qkv-cross"]


def _scaled_heading(s: ac.Scenario, divisor: float | None) -> tuple[str, str, str]:
    same = (" With ÷ row sum instead of softmax, dividing every score by the same number leaves the weights as "
            "they are.") if s.normalize == "sum" else ""  # fmt: skip
    if divisor is None:
        return "3 · scaled: off", "S′ = S &nbsp;(no scaling)", STEP_WORDS["off"]
    if s.scale is True:
        d_k = round(divisor**2)
        formula = f"S′ = S ÷ √d<sub>k</sub> = S ÷ √{d_k} = S ÷ {divisor:.4g}"
        return "3 · scaled: ÷ √d_k", formula, STEP_WORDS["√d_k"] + same
    return "3 · scaled: ÷ temperature", f"S′ = S ÷ τ = S ÷ {divisor:g}", STEP_WORDS["temperature"] + same


def _masked_heading(s: ac.Scenario) -> tuple[str, str, str]:
    if s.keep is None:
        words = "No mask: every query may look at every key, so nothing changes here."
        return "4 · masked: no mask", "S″ = S′ &nbsp;(no mask)", words
    padded = [t for t, p in zip(s.tokens_k, s.padding or (), strict=False) if p]
    how = MASK_HOW[s.mask_kind].format(pad=", ".join(padded) or "none yet")
    formula, fill = FILL_HOW[s.fill]
    return f"4 · masked: {s.mask_kind}", formula, f"The mask is {how}; {fill}, {FILL_EFFECT[s.normalize]}."


def _weights_heading(s: ac.Scenario) -> tuple[str, str, str]:
    if s.normalize == "sum":
        formula = "A<sub>ij</sub> = S″<sub>ij</sub> ÷ Σ<sub>j</sub> S″<sub>ij</sub> &nbsp;row by row"
        return "5 · weights: ÷ row sum", formula, STEP_WORDS["sum"]
    formula = ("A = softmax(S″) row by row, &nbsp;A<sub>ij</sub> = e<sup>S″<sub>ij</sub></sup> ÷ "
               "Σ<sub>j</sub> e<sup>S″<sub>ij</sub></sup>")  # fmt: skip
    return TITLES["weights"], formula, STEP_WORDS["softmax"]


def _output_heading(s: ac.Scenario) -> tuple[str, str, str]:
    formula = "O = A·V, &nbsp;o<sub>i</sub> = Σ<sub>j</sub> A<sub>ij</sub> v<sub>j</sub>"
    if s.normalize == "sum":
        words = ("Each output row is a weighted sum of the value rows, using that row's weights (they sum to 1 but "
                 "may be negative, so it is not an average).")  # fmt: skip
    else:
        words = "Each output row is the weighted average of the value rows, using that row's attention weights."
    return TITLES["output"], formula, words


def _combine_heading(s: ac.Scenario) -> tuple[str, str, str]:
    w_o = s.weights.W_o is not None
    if s.head_mode == "split":
        formula = "(H, L, D/H) → transpose, reshape → (L, D)" + (" → ·W<sub>O</sub>" if w_o else "")
    else:
        formula = "MultiHead = Concat(O<sub>1</sub>, …, O<sub>h</sub>)" + (" · W<sub>O</sub>" if w_o else "")
    if s.heads == 1:
        words = "One head: its output is the result" + (", mixed by W_O." if w_o else ". Set heads to 2 to compare.")
    else:
        words = f"The {s.heads} heads' outputs sit side by side" + (
            "; W_O mixes them back to d_model." if w_o else " (W_O is off, in More settings)."
        )
    return TITLES["combine"], formula, words


TITLES = {  # numbered from 1, as the exported script numbers them (they started at "3 ·")
    "qkv": "1 · Q, K, V",
    "scores": "2 · QKᵀ (raw scores)",
    "scaled": "3 · scaled",
    "masked": "4 · masked",
    "weights": "5 · softmax weights",
    "output": "6 · output",
    "combine": "7 · heads combined",
}


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


def _buckets(t: Tensor, kind: str, lim: float) -> list[list[str]]:
    """:func:`_bucket` of every cell of (R, C) ``t`` at once (torch rounds half to even, as Python's round)."""
    finite = torch.isfinite(t).numpy()
    v = t.nan_to_num(0.0, 0.0, 0.0).numpy()
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
    finite = shown[torch.isfinite(shown)]
    lim = float(finite.abs().max()) if finite.numel() else 1.0
    lim = lim or 1.0
    values = shown.double()
    texts = values.numpy().astype(np.float32 if dtype == "float32" else np.float64).astype(str).tolist()  # = fmt
    if dtype != "float32":  # float64: long texts rounded to MAX_DIGITS, as fmt does
        texts = [[t if _digits(t) <= MAX_DIGITS else fmt(float(t), dtype) for t in row] for row in texts]
    return values.tolist() if short else [], texts, _buckets(values, kind, lim)


Mark = tuple[int | None, int | None]  # (row, col) into the full tensor; None = the whole row/column


def html_table(
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
) -> str:
    """An exact-number table whose cells are coloured by value ("prob": 0..1, "signed": ±max|v|).

    Every cell carries data-r/data-c (0-based, into the full tensor) so a click can ask for its explanation.
    An (R, C) tensor larger than the window shows a window of it: the page holding the explained cell (or the
    cells it came from), else the first rows and columns, with a note naming what is shown and, for the tables a
    click explains, buttons that reach the other rows and columns (each explains the first number it brings in).
    -inf is written out, never left blank.
    ``marks``: {"pick": [...], "used": [...]} cells outlined as the explained one and the ones it came from.
    ``title``: the caption shown above the table (default: ``name``, which is also its data-name).
    ``col0``: the full tensor's column of ``t``'s first column (a slice of a wider tensor).
    """
    n_r, n_c = t.shape
    win = window or WINDOW
    r0, c0 = (window_start(n, win, _targets(marks, axis, shift)) for n, axis, shift in ((n_r, 0, 0), (n_c, 1, col0)))
    shown = t[r0 : r0 + win, c0 : c0 + win]
    head = "".join(f"<th scope='col'>{html.escape(c)}</th>" for c in cols[c0 : c0 + win])
    listed, texts, classes = _cells(shown, dtype, kind, short)
    body = []
    marked = marks and any(marks.values())
    first = c0 + col0  # the full tensor's column of the first column shown
    cidx = [str(j + first) for j in range(shown.shape[1])]
    for i, row in enumerate(listed if short else texts):
        cls, text, r = classes[i], texts[i], i + r0
        if marked:
            cls = [f"{c}{_marked(marks, r, j + first)}" for c, j in zip(cls, range(len(row)), strict=True)]
        mid = f"' data-r='{r}' data-c='"  # one string per row, each cell's own parts joined in one f-string
        if short:  # (_short's usual case inline: this loop writes every number the workbench shows)
            nums = [f"{v:.4f}" if v == 0 or 1e-4 <= abs(v) < 1e5 else _short(v) for v in row]
            cells = zip(cls, cidx, text, nums, strict=True)
            tds = "".join([f"<td class='{c}{mid}{j}' title='{t}'>{n}</td>" for c, j, t, n in cells])
        else:
            tds = "".join([f"<td class='{c}{mid}{j}'>{t}</td>" for c, j, t in zip(cls, cidx, text, strict=True)])
        body.append(f"<tr><th scope='row'>{html.escape(rows[r])}</th>{tds}</tr>")
    caption = "" if title == "" else f"<div class='nt-name'>{html.escape(title or name)}</div>"
    table = (f"<div class='nt-wrap'>{caption}<table class='nt' data-name='{name}' data-shape='{n_r}x{n_c}' "
             f"aria-label='{html.escape(title or name)}'><tr><td></td>{head}</tr>"
             f"{''.join(body)}</table></div>")  # fmt: skip
    if n_r <= win and n_c <= win:
        return table
    return f"<div class='nt-win'>{window_note(name, (n_r, n_c), (r0, c0), win, col0)}{table}</div>"


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


def _short(v: float) -> str:
    """A number as torch prints it (4 decimals), for the compact overview; the exact value is its title."""
    if not math.isfinite(v):
        return fmt(v)
    return f"{v:.4f}" if v == 0 or 1e-4 <= abs(v) < 1e5 else f"{v:.2e}"


def _marked(marks: dict[str, list[Mark]] | None, r: int, c: int) -> str:
    for cls, spots in (marks or {}).items():
        if any((mr is None or mr == r) and (mc is None or mc == c) for mr, mc in spots):
            return f" {cls}"
    return ""


def explain_html(title: str, lines: tuple[str, ...] | list[str], error: str = "") -> str:
    """The explain panel: one cell's arithmetic, line by line, with the live numbers."""
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
        f"<div class='ex-title'>{html.escape(title)}</div>{body}</div>"
    )


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


def torch_print(t: Tensor) -> str:
    """Exactly what ``print(t)`` shows in the notebooks (torch's default print options): ``str(t)``, written
    from the values for a plain float tensor (printing.py)."""
    return printing.torch_str(t)


# ---- weights tables: heads stacked vertically ------------------------------------------------


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


def step_html(code: str, printed: str, note: str, tables: str = "", heading: str = "") -> str:
    """One notebook cell: its heading (:func:`step_heading`), the code that computes the step, torch's print of
    the live tensor, exact tables."""
    return (
        f"{heading}<div class='step'><pre class='code'>{html.escape(code)}</pre>"
        f"<pre class='tensor'>{html.escape(printed)}</pre><small>{html.escape(note)}</small>"
        f"<div class='tables'>{tables}</div></div>"
    )


# the error mark: a glyph DejaVu (the only fonts CI's Chromium has) draws, with a name for screen readers
ERROR_MARK = "<span class='mark' role='img' aria-label='error'>✖</span>"


def message_html(warnings: list[str], error: str | None = None) -> str:
    """Inline messages: an input error (views keep their last good state) and/or plain-words warnings."""
    parts = []
    if error:
        parts.append(
            f"<div class='msg-error'>{ERROR_MARK} {html.escape(error)} — the views show the last valid state; "
            "your other edits are kept.</div>"
        )
    parts += [f"<div class='msg-warn'>⚠ {html.escape(w)}</div>" for w in warnings]
    return "".join(parts)


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


# ---- code, as each notebook writes it --------------------------------------------------------


def family(preset_id: str | None) -> str:
    """The notebook whose names the code lines use: the preset's; 001's (Q, K, V split into heads, as Llama's
    projections are) for today's presets, which have no notebook; 000's in free play."""
    if not preset_id:
        return "000"
    source = ac.read_preset(preset_id).source[:3]
    return source if source in SCALED_NAMES else "001"


# each family's name for the scaled scores, and the fixed lines of the steps that do not depend on the settings
SCALED_NAMES = {"000": "scaled_sims", "002": "sims_scaled", "001": "attention_scores", "003": "scaled_attn_scores",
                "004": "scaled_dot_product"}  # fmt: skip
SCORES_CODE = {
    "000": "sims = torch.matmul(q, k.transpose(dim0=self.row_dim, dim1=self.col_dim))",
    "002": "sims = torch.matmul(q, k.transpose(self.row_dim_idx, self.col_dim_idx))",
    "001": "Q @ K.transpose(-2, -1)",
    "003": "attn_scores = query_vectors @ key_vectors.T",
    "004": "np.matmul(q, k.T)",
}
OUTPUT_CODE = {
    "000": "attention_scores = torch.matmul(attention_percents, v)",
    "002": "attention_scores = torch.matmul(attention_percents, v)",
    "001": "attention_output = attention_weights @ V",
    "003": "context_vectors = attn_weights @ value_vectors",
    "004": "attention = np.matmul(softmax(scaled_dot_product + mask), v)",
}


def code_for(step: str, fam: str, s: ac.Scenario) -> str:
    """The PyTorch line(s) for one step, in the family's names, for the current settings."""
    if step == "scores":
        return SCORES_CODE[fam]
    if step == "output":
        return OUTPUT_CODE[fam]
    return {"qkv": _qkv_code, "scaled": _scaled_code, "masked": _masked_code, "weights": _weights_code,
            "combine": _combine_code}[step](fam, s)  # fmt: skip


def _qkv_code(fam: str, s: ac.Scenario) -> str:
    lin = s.weights.layout == "linear"
    if fam in ("000", "002"):
        src = ("encodings_for_q", "encodings_for_k", "encodings_for_v")
        lines = [
            f"{v} = self.W_{v}({x})" if lin else f"{v} = {x} @ self.W_{v}" for v, x in zip("qkv", src, strict=True)
        ]
    elif fam == "003":
        lines = [
            f"{n}_vectors = self.W_{n}(x)" if lin else f"{n}_vectors = x @ self.W_{n}"
            for n in ("query", "key", "value")
        ]
    elif fam == "004":
        lines = ["q, k, v = (np.random.randn(T, d_k) for _ in range(3))  # printed values, used as given"]
    else:
        lines = [
            f"{v} = input_tensor @ W_{v.lower()}" if not lin else f"{v} = input_tensor @ W_{v.lower()}.T" for v in "QKV"
        ]
    if s.head_mode == "split":
        lines.append("Q_heads = Q.view(1, T, num_heads, head_dim).transpose(1, 2)  # and K, V alike")
    return "\n".join(lines + bias_lines(s))


def _scaled_code(fam: str, s: ac.Scenario) -> str:
    names = SCALED_NAMES[fam]
    src = {"000": "sims", "002": "sims", "001": "(Q @ K.transpose(-2, -1))", "003": "attn_scores",
           "004": "np.matmul(q, k.T)"}[fam]  # fmt: skip
    if s.scale is False:
        return f"{names} = {src}  # scaling off"
    if s.scale is True:
        root = {
            "000": "torch.tensor(k.size(self.col_dim)**0.5)",
            "002": "torch.tensor(k.size(self.col_dim_idx) ** 0.5)",
            "001": "torch.sqrt(torch.tensor(dk, dtype=torch.float32))",
            "003": "(key_vectors.shape[-1] ** 0.5)",
            "004": "math.sqrt(d_k)",
        }[fam]
        return f"{names} = {src} / {root}"
    return f"{names} = {src} / {s.scale:g}  # temperature"


def _masked_code(fam: str, s: ac.Scenario) -> str:
    names = SCALED_NAMES[fam]
    if s.keep is None:
        return "# no mask"
    return {
        "-inf": f"{names} = {names}.masked_fill(mask == 0, float('-inf'))",
        "-1e9": f"{names} = {names}.masked_fill(mask, -1e9)  # mask True = blocked; 002 writes "
        "values=-1.e9, a TypeError in every torch",
        "additive": "mask[mask == 0] = -np.inf\nmask[mask == 1] = 0\n" + f"{names} + mask",
    }[s.fill]


def _weights_code(fam: str, s: ac.Scenario) -> str:
    names = SCALED_NAMES[fam]
    if s.normalize == "sum":
        return "atwts = atscs / atscs.sum(dim=-1, keepdim=True)  # 003's naive normalisation"
    return {
        "000": f"attention_percents = F.softmax({names}, dim=self.col_dim)",
        "002": f"attention_percents = F.softmax({names}, dim=self.col_dim_idx)",
        "001": f"attention_weights = F.softmax({names}, dim=-1)",
        "003": f"attn_weights = torch.softmax({names}, dim=-1)",
        "004": f"softmax({names} + mask)",
    }[fam]


def _combine_code(fam: str, s: ac.Scenario) -> str:
    if s.head_mode == "split":
        line = "multi_head_output = attention_output_heads.transpose(1, 2).reshape(1, T, d_model)"
    else:
        line = "torch.cat([head(encodings_for_q, encodings_for_k, encodings_for_v) for head in self.heads], dim=1)"
    if s.weights.W_o is not None:
        line += "\noutput = W_o(multi_head_output)" if s.weights.layout == "linear" else "\noutput = concat @ W_o"
        if s.weights.b_o is not None:
            line += "  # W_o = nn.Linear(H·d, d_model, bias=True): + b_o"
    return line


def bias_lines(s: ac.Scenario) -> list[str]:
    """How the q/k/v step's biases enter: nn.Linear(..., bias=True) adds b after x @ W.T."""
    roles = [r for r in "qkv" if getattr(s.weights, f"b_{r}") is not None]
    if not roles:
        return []
    named = ", ".join(f"W_{r}" for r in roles)
    if s.weights.layout == "linear":
        return [f"# {named} = nn.Linear(d_model, d_out, bias=True): each adds its bias, x @ W.T + b"]
    return [f"# with bias=True: {' ; '.join(f'{r} = x @ W_{r} + b_{r}' for r in roles)}"]


# ---- figures ---------------------------------------------------------------------------------


# ---- the match badge -------------------------------------------------------------------------


def as_linear(w: Tensor | None, layout: str) -> Tensor | None:
    return w if w is None or layout == "linear" else w.transpose(-2, -1)


def same_scenario(a: ac.Scenario, b: ac.Scenario) -> list[str]:
    """Names of the fields where two parsed scenarios differ (empty = the same state)."""
    diff = []
    for name in ("x_q", "x_k", "x_v"):
        ta, tb = getattr(a, name), getattr(b, name)
        if ta.shape != tb.shape or not torch.equal(ta, tb):
            diff.append("x" if a.self_attention and b.self_attention else name)
    for name in ("b_q", "b_k", "b_v", "b_o"):
        ta, tb = getattr(a.weights, name), getattr(b.weights, name)
        if (ta is None) != (tb is None) or (ta is not None and (ta.shape != tb.shape or not torch.equal(ta, tb))):
            diff.append(name)
    for name in ("W_q", "W_k", "W_v", "W_o"):  # compared as out×in, so a layout flip alone is "layout"
        ta, tb = (
            as_linear(getattr(a.weights, name), a.weights.layout),
            as_linear(getattr(b.weights, name), b.weights.layout),
        )
        if (ta is None) != (tb is None) or (ta is not None and (ta.shape != tb.shape or not torch.equal(ta, tb))):
            diff.append(name)
    for name in ("heads", "head_mode", "fill", "dtype", "normalize"):
        if getattr(a, name) != getattr(b, name):
            diff.append(name)
    if (type(a.scale), a.scale) != (type(b.scale), b.scale):  # (a temperature of 1 == True: yet another choice)
        diff.append("scale")
    if a.weights.layout != b.weights.layout:
        diff.append("layout")
    ka, kb = a.keep, b.keep
    if (ka is None) != (kb is None) or (ka is not None and not torch.equal(ka, kb)):
        diff.append("mask")
    ma = {} if a.variants is None else a.variants.as_json()  # RoPE, ALiBi, kv heads, window, tiles, decoding
    mb = {} if b.variants is None else b.variants.as_json()
    diff += [key for key in MODERN_KEYS if ma.get(key) != mb.get(key)]
    return sorted(set(diff), key=diff.index)


# the seed notebooks by the titles they give themselves (the badge names a notebook in words, not by its file)
NOTEBOOK_NAMES = {"000": "Attention in Transformers (StatQuest, DeepLearning.AI)",
                  "001": "Understanding Attention Mechanism in Deep Learning",
                  "002": "Encoder Decoder Attention Explained", "003": "LLMs from scratch: attention mechanisms",
                  "004": "Self Attention for Transformers (numpy)"}  # fmt: skip


def notebook_words(source: str) -> str:
    """A preset's notebook in words: ``notebook 001, “Understanding Attention Mechanism in Deep Learning”``."""
    nb = source[:3]
    return f"notebook {nb}, “{NOTEBOOK_NAMES[nb]}”," if nb in NOTEBOOK_NAMES else f"notebook {nb}"


# the badge names what changed in the controls' words, not the scenario's keys
FIELD_WORDS = {"head_mode": "head mode", "normalize": "normalise", "rope_base": "RoPE base", "kv_heads": "kv heads",
               "block_rows": "tile B_r", "block_cols": "tile B_c", "decode": "KV-cache decoding", "alibi": "ALiBi",
               "layout": "weight layout", "b_q": "bias b_q", "b_k": "bias b_k", "b_v": "bias b_v",
               "b_o": "bias b_o"}  # fmt: skip


def badge(preset_id: str | None, s: ac.Scenario, result: dict[str, Any]) -> str:
    """✓ with the largest deviation per printed tensor while the state equals a preset; else what changed.
    (The preset picker shows the same preset, or nothing in free play.)"""
    if not preset_id:
        return "<div class='badge free'>Free play: no preset loaded. Pick one to compare with a notebook.</div>"
    p = ac.read_preset(preset_id)
    ref = ac.parse(p.scenario)
    changed = same_scenario(s, ref)
    decoders = p.source == "decoders"  # the decoder presets: no notebook printed them
    if changed:
        what = "its torch-checked numbers" if decoders else f"notebook {p.source[:3]}"
        return (
            f"<div class='badge left'>✎ You have left the preset <b>{html.escape(p.title)}</b> "
            f"(changed: {html.escape(', '.join(FIELD_WORDS.get(c, c) for c in changed))}). Reload it to compare with "
            f"{what}.</div>"
        )
    if decoders:
        return (
            f"<div class='badge ok'>✓ <b>{html.escape(p.title)}</b>: today's attention, from no notebook, so it "
            "printed no tensors; checked against torch's SDPA (enable_gqa) and transformers' Llama RoPE in the test "
            "suite.</div>"
        )
    if not p.printed:
        return (
            f"<div class='badge ok'>✓ <b>{html.escape(p.title)}</b>: {html.escape(notebook_words(p.source))} "
            f"printed no tensors; this preset is checked against torch in the test suite.</div>"
        )
    rows = []
    worst_ok = True
    for pr, dev in ac.check(result, p):
        ok = dev <= pr.atol
        worst_ok &= ok
        mark = "✓" if ok else "✗"
        label = html.escape(pr.label).replace(".", ".<wbr>").replace("(", "<wbr>(")  # breaks where code reads well
        rows.append(
            f"<tr><td>{mark}</td><td><code>{label}</code></td><td>{html.escape(pr.cell)}"
            f"</td><td>{dev:.1e}</td><td>≤ {pr.atol:g}</td></tr>"
        )
    head = "✓ matches" if worst_ok else "✗ does not match"
    return (
        f"<details class='badge {'ok' if worst_ok else 'bad'}'><summary>{head} <b>{html.escape(p.title)}</b>: "
        f"{len(rows)} printed tensor{'s' if len(rows) != 1 else ''} of notebook {html.escape(p.source[:3])} "
        f"<span class='more'>(details)</span></summary>"
        f"<p>Largest |ours − printed| per tensor that {html.escape(notebook_words(p.source).rstrip(','))} printed:</p>"
        f"<table><tr><th></th><th>printed</th><th>cell</th><th>max dev</th><th>tolerance</th></tr>"
        f"{''.join(rows)}</table></details>"
    )


# ---- mask lab --------------------------------------------------------------------------------

FILL_TITLES = {"-inf": "-inf (000: masked_fill(mask == 0, -inf))", "-1e9": "-1e9 (002: masked_fill(block, -1e9))",
               "additive": "additive M (004: scaled + M, M ∈ {0, -inf})"}  # fmt: skip
MASK_WORDS = {
    "padding": "padding mask: hides the padded key columns from every query",
    "causal": "causal (look-ahead) mask: query i sees keys 1..i only (the upper triangle is hidden)",
    "rows": "row mask: hides every key from the chosen query rows (builds a fully masked row on purpose)",
    "combined": "combined = causal ∧ padding ∧ rows: a key is visible only where every mask shows 1",
}


def mask_lab_html(
    masks: dict[str, Tensor], traces: dict[str, Any], tokens: list[str], tokens_k: list[str], dtype: str
) -> str:
    """Masks side by side, then the same scores under the three fills: masked, raw softmax, what the app shows."""
    parts = ["<div class='lab'><h3>The masks (1 = may look, 0 = hidden)</h3><div class='tables'>"]
    for name in ("padding", "causal", "rows", "combined"):
        t = masks[name].to(torch.float64)
        table = html_table(t, "mask", tokens, tokens_k, f"mask-{name}", "prob", title=f"{name} mask")
        parts.append(f"<div><p class='lab-note'>{html.escape(MASK_WORDS[name])}</p>{table}</div>")
    parts.append("</div><h3>The same scaled scores under each fill convention</h3><div class='lab-cols'>")
    verdicts = fill_verdicts(traces)
    for fill, tr in traces.items():
        verdict = verdicts[fill]
        parts.append(
            f"<div class='lab-col'><h4>{html.escape(FILL_TITLES[fill])}</h4>"
            f"{html_table(tr.masked, dtype, tokens, tokens_k, f'lab-masked{fill}', title='masked scores')}"
            f"<p class='lab-note'>softmax as torch returns it:</p>"
            f"{html_table(tr.weights_raw, dtype, tokens, tokens_k, f'lab-raw{fill}', 'prob', title='softmax (raw)')}"
            f"<p class='lab-note'>what the app shows: {html.escape(verdict)}</p>"
            f"{html_table(tr.weights, dtype, tokens, tokens_k, f'lab-weights{fill}', 'prob', title='weights shown')}"
            "</div>"
        )
    parts.append("</div></div>")
    return "".join(parts)


# ---- scaling lab -----------------------------------------------------------------------------


def scaling_figure(lab: Any) -> PlotData:
    """var(QKᵀ) and the softmax Jacobian norm against d_k (log axes), and one softmax row, raw vs ÷ √d_k.

    Built with plotly.graph_objects, which checks every property (a misspelt one raises); ``template="none"``
    keeps plotly.js' own look and leaves plotly's 6 KB default template out of every slider move."""
    ds = [p.d_k for p in lab.sweep]
    pt = lab.point
    keys = list(range(1, len(pt.row_raw) + 1))
    raw, scaled = "#c0392b", "#2171b5"

    def curve(y: list[float], name: str, color: str, axis: str = "", dash: str | None = None) -> go.Scatter:
        return go.Scatter(mode="lines+markers", x=ds, y=y, name=name, line={"color": color, "dash": dash},
                          xaxis=f"x{axis}", yaxis=f"y{axis}")  # fmt: skip

    traces = [
        curve([p.var_scores for p in lab.sweep], "var(QKᵀ)", raw),
        curve([p.var_scaled for p in lab.sweep], "var(QKᵀ/√d_k)", scaled),
        go.Scatter(mode="lines", x=ds, y=ds, name="d_k", line={"color": "#999", "dash": "dot"}),
        go.Bar(x=keys, y=pt.row_raw.tolist(), name="softmax row 1, raw", marker={"color": raw}, xaxis="x2",
               yaxis="y2"),
        go.Bar(x=keys, y=pt.row_scaled.tolist(), name="softmax row 1, ÷√d_k", marker={"color": scaled}, xaxis="x2",
               yaxis="y2"),
        curve([p.jac_raw for p in lab.sweep], "‖J‖ raw", raw, "3", "dash"),
        curve([p.jac_scaled for p in lab.sweep], "‖J‖ ÷√d_k", scaled, "3", "dash"),
        go.Scatter(mode="markers", x=[pt.d_k, pt.d_k], y=[pt.jac_raw, pt.jac_scaled], name=f"d_k = {pt.d_k}",
                   marker={"size": 12, "symbol": "x", "color": "#000"}, xaxis="x3", yaxis="y3"),
    ]  # fmt: skip

    def title(text: str, x: float) -> dict[str, Any]:  # two short lines: they fit over a third of a phone too
        return {"text": text, "x": x, "y": 1.0, "yanchor": "bottom", "xref": "paper", "yref": "paper",
                "showarrow": False}  # fmt: skip

    # each x axis's title sits below its tick labels (standoff), and the legend below both (the bottom margin holds
    # the tick labels, the titles and two legend rows): nothing is drawn over anything else
    below = {"standoff": 6}
    dk_ticks = {"type": "log", "tickvals": [2, 8, 32, 128, 512], "title": {"text": "d_k", **below}}  # no minor labels
    layout = {
        "template": "none", "height": 480, "font": {"size": 13}, "barmode": "group",
        "margin": {"l": 50, "r": 10, "t": 70, "b": 120},
        "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom"},  # below the axis titles
        "xaxis": {**dk_ticks, "domain": [0, 0.28]},
        "yaxis": {"type": "log", "dtick": 1},
        "xaxis2": {"domain": [0.36, 0.64], "anchor": "y2", "title": {"text": "key", **below}},
        "yaxis2": {"anchor": "x2", "range": [0, 1]},
        "xaxis3": {**dk_ticks, "domain": [0.72, 1], "anchor": "y3"},
        "yaxis3": {"type": "log", "anchor": "x3"},
        "annotations": [title("variance<br>of scores", 0.14), title(f"softmax row<br>d_k = {pt.d_k}", 0.5),
                        title("Jacobian<br>norm ‖J‖", 0.86)],
    }  # fmt: skip
    return PlotData(type="plotly", plot=go.Figure(traces, layout).to_json())


def scaling_words(lab: Any) -> str:
    """One plain sentence tying the plots to 004's variance cell, with the live numbers."""
    p = lab.point
    saturated = p.jac_raw < 0.5 * p.jac_scaled
    effect = (
        f"its Jacobian norm falls to {p.jac_raw:.1e} (saturated: little gradient reaches the scores)"
        if saturated
        else f"its Jacobian norm is still {p.jac_raw:.1e}, since at this small d_k the scores are not yet large; "
        "slide d_k up to watch it collapse"
    )
    return (
        f"At d_k = {p.d_k}, q and k have variance ≈ 1 ({p.var_q:.2f}, {p.var_k:.2f}) but each score adds up d_k "
        f"products, so var(QKᵀ) = {p.var_scores:.1f} (≈ d_k); softmax puts {float(p.row_raw.max()):.2f} of "
        f"row 1 on one key and {effect}. Dividing by √d_k = {p.d_k**0.5:.2f} brings the variance to "
        f"{p.var_scaled:.2f}, the largest weight to {float(p.row_scaled.max()):.2f} and the Jacobian norm to "
        f"{p.jac_scaled:.1e} at every d_k: the same drop 004's variance cell prints (4.09 → 0.68 at d_k = 6)."
    )


# ---- multi-head view -------------------------------------------------------------------------


def combine_note(heads: int, mode: str, head_out: tuple[int, ...], w_o: tuple[int, ...] | None, layout: str) -> str:
    """The combination step with its shapes: concat, or split heads merged back, then W_o if there is one."""
    _, length, d = head_out  # (H, L, d)
    if mode == "concat":
        text = f"{heads} head(s) × (L, d) = ({length}, {d}) each → torch.cat(dim=-1) → "
        text += f"(L, H·d) = ({length}, {heads * d})"
    else:
        text = (f"split heads (H, L, D/H) = ({heads}, {length}, {d}) → transpose(1, 2) → (L, H, D/H) → "
                f"reshape → (L, D) = ({length}, {heads * d})")  # fmt: skip
    if w_o is not None:
        out = w_o[0] if layout == "linear" else w_o[1]
        text += f" → @ W_o{'.T' if layout == 'linear' else ''} (W_o stored {w_o[0]}×{w_o[1]}) → ({length}, {out})"
    return text
