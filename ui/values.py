"""The page's editable values and the scenario they stand for, both ways.

``PageValues`` holds what a workbench page shows, a frozen dataclass with a field for each grid (raw cells, typos
included) and each control (``FIELDS``, in the order the handlers receive them); handlers read fields and make new
values with ``dataclasses.replace``. ``scenario_from`` turns them into a scenario for ``attention_core``,
``values_from_scenario`` goes the other way, and ``reshape_values`` applies a structural change, keeping every raw
cell that still fits.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
import threading
from collections import OrderedDict
from operator import is_
from typing import Any

import gradio as gr
import numpy as np
import torch

import attention_core as ac
from attention_core import LAYOUTS, MAX_D, MAX_HEADS, MAX_SEED, MAX_T, MODES, ROPE_BASE, parse_choice, parse_int
from ui.render import grids

DEFAULT_PRESET = "statquest-self"


SCALE_MODES = ("√d_k", "off", "temperature")


# today's attention (attention_core/contract/variants.py): a number box at 0 (window, B_r, B_c) is off
VARIANT_FIELDS = ("positions", "rope_base", "alibi", "kv_heads", "window", "block_rows", "block_cols", "decode")
OFF_AT_ZERO = ("window", "block_rows", "block_cols")


Table = dict[str, Any] | list[list[Any]]  # a grid: {"data": [[label, cell, …], …], "headers": […]}, or its rows
Num = Any  # a number box's value as it came (int, float, None, or text from a file or link): parsed by name later


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class PageValues:
    """The values one workbench page holds: the grids as raw cells (typos included) and every control, in the
    order the handlers receive them (``FIELDS``), then what no control edits (``biases``, ``pick``).

    Never changed in place: an edit makes new values with :func:`dataclasses.replace`, which refuses a field that
    is not here (as constructing does), so a misspelt name fails loudly rather than being stored beside the others.
    """

    tokens: str
    tokens_k: str
    cross: bool
    x: Table
    x_k: Table
    x_v: Table
    T: Num
    S: Num
    d_in: Num
    d_out: Num
    heads: Num
    head_mode: str
    layout: str
    W_q: Table
    W_k: Table
    W_v: Table
    use_wo: bool
    W_o: Table
    mask_kind: str
    fill: str
    padding: str
    keep: Table
    scale_mode: str
    temperature: Num
    dtype: str
    normalize: str
    seed: Num
    view_head: Num
    positions: str
    rope_base: Num
    alibi: bool
    kv_heads: Num
    window: Num
    block_rows: Num
    block_cols: Num
    decode: bool
    biases: dict[str, list[Any]] | None = None  # loaded from a scenario file or the Real model tab, never edited
    pick: dict[str, Any] | None = None  # the cell explained: {name, row, col}

    def as_dict(self) -> dict[str, Any]:
        """Field name -> value (the same objects, not copies)."""
        return {f: getattr(self, f) for f in NAMES}


NAMES = tuple(f.name for f in dataclasses.fields(PageValues))
# the editable values, in the order the handlers receive them
FIELDS = NAMES[: NAMES.index("decode") + 1]


TABLE_FIELDS = ("x", "x_k", "x_v", "W_q", "W_k", "W_v", "W_o", "keep")


def split_tokens(text: str | None) -> list[str]:
    return [t.strip() for t in str(text or "").split(",") if t.strip()]


def cut(text: str, most: int = 24) -> str:
    """``text`` as a message writes it: cut at ``most`` characters with "…" (a 5,000-character paste is not written
    out whole in the message line)."""
    return text if len(text) <= most else text[: most - 1] + "…"


def quoted(text: str, most: int = 24) -> str:
    """``text`` as a message quotes it: the repr of :func:`cut`'s."""
    return repr(cut(text, most))


def padding_flags(text: str | None, n_keys: int) -> list[bool]:
    """'2, 3' (1-based key positions) -> flags per key; bad text raises ScenarioError('padding')."""
    flags = [False] * n_keys
    for part in str(text or "").replace(" ", ",").split(","):
        if not part:
            continue
        if not re.fullmatch(r"[0-9]{1,3}", part) or not 1 <= int(part) <= n_keys:
            raise ac.ScenarioError("padding", f"{quoted(part)} is not a key position 1..{n_keys}")
        flags[int(part) - 1] = True
    return flags


def in_layout(mats: list[list[list[Any]]], layout: str) -> list[list[list[Any]]]:
    """Raw per-head matrices between linear (out×in) and ``layout``: the same transpose both ways."""
    return mats if layout == "linear" else grids.flip(mats)


def scenario_from(v: PageValues) -> dict[str, Any]:
    """Everything on screen -> a scenario for attention_core (cells passed raw: the core names bad ones)."""
    heads, mode = parse_int(v.heads, "heads", 1, MAX_HEADS), v.head_mode
    n_mats = heads if mode == "concat" else 1
    sc: dict[str, Any] = {
        "heads": heads,
        "head_mode": mode,
        "layout": v.layout,
        "dtype": v.dtype,
        "normalize": v.normalize,
        "weights": {name: grids.split_heads(numeric(getattr(v, name)), n_mats) for name in ("W_q", "W_k", "W_v")},
    }
    sc["weights"]["W_o"] = numeric(v.W_o) if v.use_wo else None
    for name, b in (v.biases or {}).items():  # from a scenario file or the Real model tab; not edited here
        if name != "b_o" or v.use_wo:
            sc["weights"][name] = b
    tokens = split_tokens(v.tokens)
    if v.cross:
        sc.update(x_q=grids.cells(v.x), x_k=grids.cells(v.x_k), x_v=grids.cells(v.x_v), tokens=tokens,
                  tokens_k=split_tokens(v.tokens_k))  # fmt: skip
    else:
        sc.update(x=grids.cells(v.x), tokens=tokens)
    n_k = len(grids.grid(v.x_k if v.cross else v.x))
    kind = v.mask_kind
    mask: dict[str, Any] = {"kind": kind, "fill": v.fill}
    if "padding" in kind:
        mask["padding"] = padding_flags(v.padding, n_k)
    if kind == "custom":
        mask["keep"] = grids.cells(v.keep)
    sc["mask"] = mask
    sc["scale"] = {"√d_k": True, "off": False}.get(v.scale_mode, v.temperature)
    return sc | variant_keys(v, heads)


# ---- weight tables read once -------------------------------------------------------------------
#
# Every edit parses the whole scenario, and an edit of X leaves the weights as they were: at T=64, d=64 with 8 heads
# they are 135,168 cells, ~10 ms of a 35 ms edit to read again. A table the page holds is never changed in place (an
# edit makes a new one, ui/render/grids.py), so its numbers are kept here by the table's list of rows, which the
# entry holds (its id cannot be reused meanwhile) along with each row: a row replaced, added or taken away is a miss
# (a cell written into a row in place would not be seen: nothing does that). A miss costs what reading did before.
NUMERIC_TABLES = 64  # tables kept, the least recently used dropped: 17 MB of arrays at most, all at the largest
# size (the rows they hold are a session's own values while it lives); past ~16 large pages editing in turn, misses
NUMERIC_CELLS = 256  # smaller tables are read as they are (cheaper than the lookup's bookkeeping)
_numeric: OrderedDict[int, tuple[list[Any], list[Any], np.ndarray]] = OrderedDict()
_numeric_lock = threading.Lock()


def numeric(table: Any) -> Any:
    """A stored table's cells (label column dropped) as an (R, C) float64 array when every cell is a float, as the
    core takes them (its parse_array); else its raw cells (:func:`grids.cells`), typos included,
    for the core to name."""
    data = table.get("data") if isinstance(table, dict) else None
    first = data[0] if isinstance(data, list) and data else None
    if not isinstance(first, list) or len(data) * len(first) < NUMERIC_CELLS:
        return grids.cells(table)
    with _numeric_lock:
        kept = _numeric.get(id(data))
        if kept is not None and kept[0] is data and len(data) == len(kept[1]) and all(map(is_, data, kept[1])):
            _numeric.move_to_end(id(data))
            return kept[2]
    rows = grids.cells(table)
    if not all(isinstance(r, list) and len(r) == len(rows[0]) for r in rows):  # (ragged: the core names the row)
        return rows
    if set(map(type, itertools.chain.from_iterable(rows))) != {float}:  # as the core's _fast_matrix reads fastest
        return rows
    got = np.array(rows, dtype=np.float64)
    got.setflags(write=False)  # (shared by every parse of this table: never written)
    with _numeric_lock:
        _numeric[id(data)] = (data, list(data), got)
        while len(_numeric) > NUMERIC_TABLES:
            _numeric.popitem(last=False)
    return got


def variant_keys(v: PageValues, heads: int) -> dict[str, Any]:
    """The variant controls (positions, ALiBi, kv heads, window, tiles, decoding) as scenario keys, only those that
    are on (raw: the core names a bad one)."""
    out: dict[str, Any] = {}
    positions = v.positions or "none"
    if positions != "none":
        out["positions"] = positions
    if positions == "rope" and v.rope_base not in (None, "", ROPE_BASE):
        out["rope_base"] = v.rope_base
    if v.kv_heads not in (None, "", heads):
        out["kv_heads"] = v.kv_heads
    for key in OFF_AT_ZERO:
        if getattr(v, key) not in (None, "", 0):
            out[key] = getattr(v, key)
    for key in ("alibi", "decode"):
        if getattr(v, key):
            out[key] = getattr(v, key)
    return out


def variant_values(s: ac.Scenario) -> dict[str, Any]:
    """The variant controls showing a parsed scenario (every one off for a scenario without variant keys)."""
    m = s.variants or ac.Variants()
    if m.kv_heads is not None and s.head_mode == "concat":
        raise ac.ScenarioError(
            "kv_heads", "the workbench shows grouped K and V in head mode split (Llama's layout); compute() takes both"
        )
    return {
        "positions": m.positions, "rope_base": m.rope_base, "alibi": m.alibi,
        "kv_heads": s.heads if m.kv_heads is None else m.kv_heads, "window": m.window or 0,
        "block_rows": m.block_rows or 0, "block_cols": m.block_cols or 0, "decode": m.decode,
    }  # fmt: skip


def shown_head(view_head: Any, heads: int) -> int:
    """The 0-based head shown in detail: the "head shown" box, clipped to the heads there are."""
    return min(parse_int(view_head or 1, "head shown", 1, MAX_HEADS), heads) - 1


def values_from_scenario(s: ac.Scenario, view_head: int = 1, seed: Num = 42) -> PageValues:
    """Editable values that show a parsed scenario (weights always explicit, exact in its dtype); ``seed``: what the
    init buttons and a resize draw new cells from."""
    w, dt = s.weights, s.dtype
    d_in = s.x_q.shape[-1]
    n_mats = w.W_q.shape[0]
    d_out = (w.W_q.shape[1] if w.layout == "linear" else w.W_q.shape[2]) if s.head_mode == "concat" else d_in
    keep = s.keep if s.keep is not None else torch.ones(len(s.tokens), len(s.tokens_k), dtype=torch.bool)
    pad = ", ".join(str(j + 1) for j, padded in enumerate(s.padding or ()) if padded)
    x_cols = [f"d{j + 1}" for j in range(d_in)]
    wo = w.W_o if w.W_o is not None else torch.eye(d_in, n_mats * d_out).to(w.W_q.dtype)
    if w.W_o is None and w.layout == "matmul":
        wo = wo.T
    return PageValues(
        tokens=", ".join(s.tokens),
        tokens_k=", ".join(s.tokens_k),
        cross=not s.self_attention,
        x=grids.raw_table(s.x_q.tolist(), s.tokens, x_cols, dt),
        x_k=grids.raw_table(s.x_k.tolist(), s.tokens_k, x_cols, dt),
        x_v=grids.raw_table(s.x_v.tolist(), s.tokens_k, x_cols, dt),
        T=len(s.tokens),
        S=len(s.tokens_k),
        d_in=d_in,
        d_out=d_out,
        heads=s.heads,
        head_mode=s.head_mode,
        layout=w.layout,
        W_q=grids.stacked_table(w.W_q.tolist(), "q", w.layout, dt),
        W_k=grids.stacked_table(w.W_k.tolist(), "k", w.layout, dt),
        W_v=grids.stacked_table(w.W_v.tolist(), "v", w.layout, dt),
        use_wo=w.W_o is not None,
        W_o=grids.stacked_table([wo.tolist()], "o", w.layout, dt),
        mask_kind=s.mask_kind,
        fill=s.fill,
        padding=pad,
        keep=grids.raw_table(keep.int().tolist(), s.tokens, s.tokens_k, "float64"),
        scale_mode="√d_k" if s.scale is True else "off" if s.scale is False else "temperature",
        temperature=s.scale if not isinstance(s.scale, bool) else 1.0,
        dtype=s.dtype,
        normalize=s.normalize,
        view_head=min(view_head, s.heads),
        biases={n: getattr(w, n).tolist() for n in ac.BIASES if getattr(w, n) is not None} or None,
        **variant_values(s),
        seed=seed,
    )


def resized(raw: list[list[Any]], rows: int, cols: int, fresh: list[list[float]]) -> list[list[Any]]:
    """Keep every raw cell that still fits (typos included); new cells come from ``fresh``."""
    return [[raw[i][j] if i < len(raw) and j < len(raw[i]) else fresh[i][j] for j in range(cols)] for i in range(rows)]


def reshape_values(v: PageValues, shape: dict[str, Any], recipe: str | None) -> PageValues:
    """Apply new sizes/heads/mode/layout (or a fresh ``recipe`` draw) to the on-screen values.

    ``shape`` describes the tables as they are now on screen; raw cells are kept where they fit.
    """
    # sizes are checked before any tensor is built
    seed = parse_int(v.seed or 0, "seed", 0, MAX_SEED)
    T, d_in = parse_int(v.T, "T", 1, MAX_T), parse_int(v.d_in, "d_model", 1, MAX_D)
    S = parse_int(v.S, "S", 1, MAX_T) if v.cross else T
    heads = parse_int(v.heads, "heads", 1, MAX_HEADS)
    mode = parse_choice(v.head_mode, "head_mode", MODES)
    layout = parse_choice(v.layout, "layout", LAYOUTS)
    if mode == "split" and d_in % heads:
        raise ac.ScenarioError("heads", f"heads={heads} does not divide d_model={d_in} in split mode")
    d_out = parse_int(v.d_out, "d_out", 1, MAX_D) if mode == "concat" else d_in
    n_mats = heads if mode == "concat" else 1
    kv = kv_heads_for(v, heads, mode, int(shape["heads"]), int(shape.get("kv_heads") or shape["heads"]))
    g = torch.Generator().manual_seed(seed)
    fresh_x = (torch.randn(T, d_in, generator=g) * 2).round(decimals=2).tolist()
    fresh_kv = (torch.randn(S, d_in, generator=g) * 2).round(decimals=2).tolist()
    recipe_now = recipe or shape.get("recipe", "linear")
    new_w = ac.init_weights(recipe_now, seed, d_in, d_out, heads, mode, "linear", True, kv_heads=kv)
    keep_raw = [[1 if c in (1, "1", 1.0, "1.0") else 0 for c in r] for r in grids.grid(v.keep)]
    tokens = split_tokens(v.tokens)
    tokens = (tokens + [f"t{i + 1}" for i in range(len(tokens), T)])[:T]
    tokens_k = split_tokens(v.tokens_k) if v.cross else tokens
    tokens_k = (tokens_k + [f"s{i + 1}" for i in range(len(tokens_k), S)])[:S]
    old_n = shape["heads"] if shape["head_mode"] == "concat" else 1
    mats: dict[str, list[list[list[Any]]]] = {}
    old_kv = int(shape.get("kv_heads") or shape["heads"])  # the kv heads the W_k, W_v tables on screen have
    for name in ("W_q", "W_k", "W_v"):
        fresh = getattr(new_w, name).tolist()
        same = shape["head_mode"] == mode and (name == "W_q" or old_kv == (kv or heads))
        old = (
            []
            if recipe
            else in_layout([grids.rows_of(m) for m in grids.table_to_heads(getattr(v, name), old_n)], shape["layout"])
        )
        rows = d_out if name == "W_q" or kv is None else len(fresh[0])  # split with kv heads: G·D/H rows
        mats[name] = [resized(old[h] if same and h < len(old) else [], rows, d_in, fresh[h]) for h in range(len(fresh))]
    wo_old = [] if recipe else in_layout([grids.grid(v.W_o)], shape["layout"])[0]
    wo = resized(wo_old if shape["head_mode"] == mode else [], d_in, n_mats * d_out, new_w.W_o.tolist())
    x = resized(grids.grid(v.x), T, d_in, fresh_x)
    out: dict[str, Any] = {"tokens": ", ".join(tokens), "tokens_k": ", ".join(tokens_k), "S": S, "d_out": d_out}
    out["biases"] = None  # a new structure: the loaded biases no longer fit it
    x_cols = [f"d{j + 1}" for j in range(d_in)]
    out["x"] = grids.raw_table(x, tokens, x_cols, v.dtype)
    was_cross = shape.get("cross", v.cross)
    for name in ("x_k", "x_v"):  # turning cross on starts both sources from x
        src = grids.grid(getattr(v, name)) if v.cross and was_cross else x
        out[name] = grids.raw_table(resized(src, S, d_in, fresh_kv), tokens_k, x_cols, v.dtype)

    for name, role in (("W_q", "q"), ("W_k", "k"), ("W_v", "v")):
        out[name] = grids.stacked_table(in_layout(mats[name], layout), role, layout, v.dtype)
    out["W_o"] = grids.stacked_table(in_layout([wo], layout), "o", layout, v.dtype)
    default_keep = torch.ones(T, S, dtype=torch.int64).tril().tolist()
    out["keep"] = grids.raw_table(resized(keep_raw, T, S, default_keep), tokens, tokens_k, "float64")
    out["view_head"] = min(parse_int(v.view_head or 1, "head shown", 1, MAX_HEADS), heads)
    out["kv_heads"] = kv or heads
    chosen_now = "padding" in v.mask_kind and "padding" not in shape.get("mask_kind", "")
    if chosen_now and not str(v.padding or "").strip():  # padding chosen with no key named: the last key, so
        out["padding"] = str(S)  # that it visibly does something
    return dataclasses.replace(v, **out)


def kv_heads_for(v: PageValues, heads: int, mode: str, old_heads: int, old_kv: int) -> int | None:
    """The kv heads the new tables get (None: every head its own K and V). While every head had its own (``old_kv``
    = ``old_heads``) they keep having their own as the heads change; a new number of heads that grouped kv heads no
    longer divide goes back to one K and V per head. Grouped K and V are shown in split mode only (Llama's)."""
    raw = v.kv_heads
    kv = heads if raw in (None, "") else parse_int(raw, "kv_heads", 1, MAX_HEADS)
    if heads != old_heads and (kv == old_kv == old_heads or heads % kv):
        return None
    if heads % kv:
        raise ac.ScenarioError("kv_heads", f"kv_heads={kv} does not divide heads={heads}")
    if kv == heads:
        return None
    if mode == "concat":
        raise ac.ScenarioError(
            "kv_heads",
            f"grouped K and V are shown in head mode split (Llama's layout): set head mode to split, or kv heads "
            f"back to {heads}",
        )
    return kv


def labelled(v: PageValues) -> PageValues:
    """The values with their input tables' row labels (and the custom mask's columns) taken from the token boxes,
    where the counts agree: the X grid said t1, t2, t3 while Q, K and V said I, am, here (issue 37)."""
    tokens = split_tokens(v.tokens)
    tokens_k = split_tokens(v.tokens_k) if v.cross else tokens

    def relabel(table: Any, rows: list[str], cols: list[str] | None = None) -> Any:
        if not isinstance(table, dict) or len(table.get("data", ())) != len(rows):
            return table
        headers = table.get("headers", [])
        if cols is not None and len(headers) == len(cols) + 1:
            headers = ["", *cols]
        data = [[r, *row[1:]] for r, row in zip(rows, table["data"], strict=True)]
        return {**table, "data": data, "headers": headers}

    return dataclasses.replace(v, x=relabel(v.x, tokens), x_k=relabel(v.x_k, tokens_k), x_v=relabel(v.x_v, tokens_k),
                               keep=relabel(v.keep, tokens, tokens_k))  # fmt: skip


def shape_of(v: PageValues, recipe: str) -> dict[str, Any]:
    """What the weight tables on screen look like, so the next structural change can read them."""
    return {"heads": int(v.heads), "head_mode": v.head_mode, "layout": v.layout, "recipe": recipe,
            "mask_kind": v.mask_kind, "cross": bool(v.cross),
            "kv_heads": int(v.kv_heads or v.heads)}  # fmt: skip


def current_keep(v: PageValues, kind: str) -> list[list[Any]]:
    """The grid of the mask that was on before switching to 'custom', so the user edits from there."""
    try:
        s = ac.parse(scenario_from(dataclasses.replace(v, mask_kind=kind)))
    except ac.ScenarioError:
        return grids.cells(v.keep)
    keep = s.keep if s.keep is not None else torch.ones(len(s.tokens), len(s.tokens_k), dtype=torch.bool)
    return [["", *r] for r in keep.int().tolist()]


def visibility(nv: PageValues) -> dict[str, bool]:
    """Whether each control that applies only sometimes shows for the values ``nv`` (cross, W_o, the mask grid,
    the padded keys, RoPE's base, the temperature): the one rule for every answer that shows or hides them."""
    return {
        "x_k": nv.cross, "x_v": nv.cross, "tokens_k": nv.cross, "S": nv.cross, "W_o": nv.use_wo,
        "keep": nv.mask_kind == "custom", "padding": "padding" in nv.mask_kind,
        "d_out": nv.head_mode == "concat", "rope_base": nv.positions == "rope",
        "temperature": nv.scale_mode == "temperature",
    }  # fmt: skip


def shown(nv: PageValues) -> list[Any]:
    """Editable values as updates, hiding the controls that do not apply (:func:`visibility`)."""
    visible = visibility(nv)
    values = [getattr(nv, f) for f in FIELDS]
    return [gr.update(value=x, visible=visible[f]) if f in visible else x for f, x in zip(FIELDS, values, strict=True)]


# The largest seed a page's seed box holds exactly. The browser keeps a number box's value as a double, whose whole
# numbers are exact up to 2⁵³ − 1: 9007199254740993 typed was sent, drawn from and linked as 9007199254740992 while
# the box still showed what was typed, and the core's own limit, 2⁶³ − 1, came back refused as 2⁶³. (The core and its
# API take seeds up to 2⁶³ − 1, exactly: attention_core MAX_SEED.)
PAGE_MAX_SEED = 2**53 - 1


def _past_page_seed(value: Any, label: str) -> ac.ScenarioError | None:
    """The refusal of a whole number (or an infinity) past :data:`PAGE_MAX_SEED`, in words, without the value the box
    rounded it to (which is not what was typed); None for anything else."""
    try:
        n = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None
    if n > PAGE_MAX_SEED and (math.isinf(n) or n == int(n)):
        return ac.ScenarioError(label, f"a number past {PAGE_MAX_SEED}, the largest whole number the box holds exactly")
    return None


def page_seed(value: Any, label: str = "seed") -> int:
    """A page's seed as :func:`parse_int` takes it, in 0..:data:`PAGE_MAX_SEED` (:func:`_past_page_seed` past it)."""
    try:
        return parse_int(value, label, 0, PAGE_MAX_SEED)
    except ac.ScenarioError as e:
        raise (_past_page_seed(value, label) or e) from None


def parse_seed(value: Any, label: str = "seed") -> int:
    """A seed box's value as a seed (:func:`page_seed`), or a ScenarioError naming the box in words (not "out of
    range 0..9223372036854775807": issue 37, sentence mode's seed −5)."""
    try:
        return parse_int(value, label, 0, PAGE_MAX_SEED)
    except ac.ScenarioError:
        pass
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ac.ScenarioError(label, "the box is empty; a seed is a whole number, 0 or more") from None
    past = _past_page_seed(value, label)
    if past:
        raise past from None
    try:
        n = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        n = math.nan
    if math.isfinite(n) and n == int(n) and n < 0:
        raise ac.ScenarioError(label, f"{int(n)} is below 0; a seed is a whole number, 0 or more") from None
    raise ac.ScenarioError(label, f"{str(value)[:20]} is not a whole number; a seed is 0 or more") from None


def slider_value(value: Any, label: str, lo: int, hi: int, kept: int) -> tuple[int, str | None]:
    """A slider's typed box on Enter or leaving it: (the value to use, a message or None). A whole number past an
    end is set to that end, as the slider itself clamps it on leaving the box, and the message says so (it was
    clamped with no word: sentence mode's d 20 showed 16); anything else keeps ``kept``, named by ``label``."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return kept, f"{label}: the box is empty; it keeps {kept}"
    try:
        return parse_int(value, label, lo, hi), None
    except ac.ScenarioError as e:
        problem = e.problem
    n = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
    if math.isfinite(n) and n == int(n):
        end, side = (hi, "largest") if n > hi else (lo, "smallest")
        return end, f"{label}: {int(n)} is past the slider's end; set to {end}, the {side} it takes ({lo} to {hi})"
    return kept, f"{label}: {problem}; it keeps {kept}"
