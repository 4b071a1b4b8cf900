"""Attention Playground: the seed notebooks' attention, live, number by number.

Run ``python playground.py`` (127.0.0.1:7860; GRADIO_SERVER_NAME / GRADIO_SERVER_PORT change it).
Module level only builds ``demo``; tests import it without launching. Each page's workbench state lives in
``STORE`` (sessions.py), keyed by the page's session hash and reached through ``Slot``s that ``on`` wires, not in
gradio's session table; every handler is a pure function of its inputs, so Enter's double event is harmless.
"""

from __future__ import annotations

import base64
import functools
import html
import inspect
import json
import logging
import os
import re
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import gradio as gr
import torch
import uvicorn
from fastapi import FastAPI

import attention_core as ac
from attention_core import real_model
from attention_core.explain import NAMES as EXPLAINABLE
from attention_core.explain import explain, sources
from attention_core.export import scenario_json, to_notebook, to_script
from attention_core.multihead import LAYOUTS, MODES
from attention_core.presets import EMBEDDINGS_003, SENTENCE
from attention_core.scaling import MAX_DK, MIN_DK, scaling_lab
from attention_core.scenario import MAX_D, MAX_HEADS, MAX_SEED, MAX_T, parse_choice, parse_int
from attention_core.sdpa import compare_fills, compose_keep
from attention_core.tokenizer import MAX_SENTENCE, embedding_table, shown_token
from serving import limits
from serving.export_folders import ExportFolders
from serving.sessions import SessionStore
from ui import learn as learn_ui
from ui import present
from ui import real_model as real_model_ui
from ui import train as train_ui
from ui.render import grids, heat
from ui.render import overview as ov
from ui.render import tables as vw

log = logging.getLogger("playground")
# gradio's queue rebuilds a pandas summary of its last 10,000 events after every event, for a monitoring page this
# app does not enable: about 8% of the server's time under load. Once per 100,000 events is enough.
os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "100000")

DEFAULT_PRESET = "statquest-self"
SCALE_MODES = ("√d_k", "off", "temperature")
# the editable values, in the order the handlers receive them
FIELDS = (
    "tokens",
    "tokens_k",
    "cross",
    "x",
    "x_k",
    "x_v",
    "T",
    "S",
    "d_in",
    "d_out",
    "heads",
    "head_mode",
    "layout",
    "W_q",
    "W_k",
    "W_v",
    "use_wo",
    "W_o",
    "mask_kind",
    "fill",
    "padding",
    "keep",
    "scale_mode",
    "temperature",
    "dtype",
    "normalize",
    "seed",
    "view_head",
)


# ---- UI values <-> scenario ------------------------------------------------------------------


def split_tokens(text: str | None) -> list[str]:
    return [t.strip() for t in str(text or "").split(",") if t.strip()]


def padding_flags(text: str | None, n_keys: int) -> list[bool]:
    """'2, 3' (1-based key positions) -> flags per key; bad text raises ScenarioError('padding')."""
    flags = [False] * n_keys
    for part in str(text or "").replace(" ", ",").split(","):
        if not part:
            continue
        if not re.fullmatch(r"[0-9]{1,3}", part) or not 1 <= int(part) <= n_keys:
            raise ac.ScenarioError("padding", f"{part!r} is not a key position 1..{n_keys}")
        flags[int(part) - 1] = True
    return flags


def in_layout(mats: list[list[list[Any]]], layout: str) -> list[list[list[Any]]]:
    """Raw per-head matrices between linear (out×in) and ``layout``: the same transpose both ways."""
    return mats if layout == "linear" else vw.flip(mats)


def scenario_from(v: dict[str, Any]) -> dict[str, Any]:
    """Everything on screen -> a scenario for attention_core (cells passed raw: the core names bad ones)."""
    heads, mode = parse_int(v["heads"], "heads", 1, MAX_HEADS), v["head_mode"]
    n_mats = heads if mode == "concat" else 1
    sc: dict[str, Any] = {
        "heads": heads,
        "head_mode": mode,
        "layout": v["layout"],
        "dtype": v["dtype"],
        "normalize": v["normalize"],
        "weights": {name: vw.table_to_heads(v[name], n_mats) for name in ("W_q", "W_k", "W_v")},
    }
    sc["weights"]["W_o"] = vw.cells(v["W_o"]) if v["use_wo"] else None
    for name, b in (v.get("biases") or {}).items():  # from a scenario file or the Real model tab; not edited here
        if name != "b_o" or v["use_wo"]:
            sc["weights"][name] = b
    tokens = split_tokens(v["tokens"])
    if v["cross"]:
        sc.update(x_q=vw.cells(v["x"]), x_k=vw.cells(v["x_k"]), x_v=vw.cells(v["x_v"]), tokens=tokens,
                  tokens_k=split_tokens(v["tokens_k"]))  # fmt: skip
    else:
        sc.update(x=vw.cells(v["x"]), tokens=tokens)
    n_k = len(vw.grid(v["x_k"] if v["cross"] else v["x"]))
    kind = v["mask_kind"]
    mask: dict[str, Any] = {"kind": kind, "fill": v["fill"]}
    if "padding" in kind:
        mask["padding"] = padding_flags(v["padding"], n_k)
    if kind == "custom":
        mask["keep"] = vw.cells(v["keep"])
    sc["mask"] = mask
    sc["scale"] = {"√d_k": True, "off": False}.get(v["scale_mode"], v["temperature"])
    return sc


# ---- rendering -------------------------------------------------------------------------------


def shown_head(view_head: Any, heads: int) -> int:
    """The 0-based head shown in detail: the "head shown" box, clipped to the heads there are."""
    return min(parse_int(view_head or 1, "head shown", 1, MAX_HEADS), heads) - 1


def render(
    preset_id: str | None, s: ac.Scenario, tr: ac.MultiHeadTrace, view_head: int, pick: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Every view for one parsed scenario and its trace (one head shown in detail, ``pick`` explained)."""
    h = shown_head(view_head, s.heads)
    part = tr.head(h)
    explained, valid = explain_pick(s, tr, h, pick)
    out: dict[str, Any] = {"explain": explained}
    used = sources(pick["name"], pick["row"], pick["col"]) if pick and valid else {}

    def marks(name: str) -> dict[str, list[tuple[int | None, int | None]]]:
        picked = [(pick["row"], pick["col"])] if pick and valid and pick["name"] == name else []
        return {"pick": picked, "used": used.get(name, [])}

    fam = vw.family(preset_id)
    dt = s.dtype
    d_cols = [f"d{j + 1}" for j in range(part["q"].shape[-1])]
    v_cols = [f"d{j + 1}" for j in range(part["v"].shape[-1])]
    tables = {
        "qkv": vw.html_table(part["q"], dt, s.tokens, d_cols, "q", marks=marks("q"))
        + vw.html_table(part["k"], dt, s.tokens_k, d_cols, "k", marks=marks("k"))
        + vw.html_table(part["v"], dt, s.tokens_k, v_cols, "v", marks=marks("v")),
        "output": vw.html_table(part["output"], dt, s.tokens, v_cols, "output", marks=marks("output")),
        "combine": combine_table(tr, h, dt, s.tokens, marks("combine")),
        "weights": vw.html_table(part["weights"], dt, s.tokens, s.tokens_k, "weights", "prob", marks=marks("weights")),
    }
    for name in ("scores", "scaled", "masked"):
        tables[name] = vw.html_table(part[name], dt, s.tokens, s.tokens_k, name, marks=marks(name))
    head_note = f"head {h + 1} of {s.heads}" if s.heads > 1 else ""
    prints = {
        "qkv": "\n".join(f"{n} = {vw.torch_print(part[n])}" for n in ("q", "k", "v")),
        **{n: vw.torch_print(part[n]) for n in ("scores", "scaled", "masked", "weights", "output")},
        "combine": vw.torch_print(tr.output),
    }
    w_o = tr.weights.W_o
    combine_shapes = vw.combine_note(
        s.heads,
        s.head_mode,
        tuple(tr.attention.output.shape),
        None if w_o is None else tuple(w_o.shape),
        s.weights.layout,
    )
    for step in vw.STEPS:
        note = head_note if step != "combine" else combine_shapes
        out[f"html_{step}"] = vw.step_html(vw.code_for(step, fam, s), prints[step], note, tables[step])
    compact = combine_table(tr, h, dt, s.tokens, marks("combine"), window=ov.WINDOW, short=True)
    out["overview"] = ov.overview_html(s, tr, h, marks, compact, head_note)
    # one head: the weights heatmap below already shows it, so the side-by-side figure hides (one Plotly render less)
    heads_fig = heat.every_head(tr.attention.weights, s.tokens, s.tokens_k) if s.heads > 1 else None
    out["heads_fig"] = gr.update(value=heads_fig, visible=True) if heads_fig else gr.update(visible=False)
    out["fig"] = heat.pair(part["masked"], part["weights"], s.tokens, s.tokens_k, f"head {h + 1}")
    return out


def combine_table(
    tr: ac.MultiHeadTrace,
    h: int,
    dtype: str,
    tokens: list[str],
    marks: dict[str, Any] | None = None,
    window: int = vw.WINDOW,
    short: bool = False,
) -> str:
    """The combined output; when wider than the table window, starting at the shown head's block."""
    width = tr.output.shape[-1]
    lo = h * (width // tr.heads) if width > window and tr.weights.W_o is None else 0
    cols = [f"o{j + 1}" for j in range(lo, width)]
    return vw.html_table(
        tr.output[..., lo:], dtype, tokens, cols, "combine", col0=lo, marks=marks, window=window, short=short,
        title="" if short else None,
    )  # fmt: skip


def explain_pick(s: ac.Scenario, tr: ac.MultiHeadTrace, h: int, pick: dict[str, Any] | None) -> tuple[str, bool]:
    """The explain panel for the picked cell of head ``h`` (0-based), recomputed from the live trace,
    and whether the pick is a cell of this state (so it can be outlined)."""
    if not pick:
        return vw.explain_html("", ()), False
    try:
        e = explain(tr, h, pick["name"], pick["row"], pick["col"], {"q": s.x_q, "k": s.x_k, "v": s.x_v})
    except (IndexError, KeyError):  # the picked cell left the tensor (a resize): say so, do not guess
        where = f"{pick.get('name')}[{pick.get('row', 0) + 1}, {pick.get('col', 0) + 1}]"
        return vw.explain_html("", (), error=f"{where} is no longer in the tensor; click another number."), False
    i, j, name = pick["row"], pick["col"], pick["name"]
    rows = s.tokens_k if name in ("k", "v") else s.tokens
    who = f"row {i + 1} is token '{rows[i]}'"
    if name in ("scores", "scaled", "masked", "weights"):
        who = f"query {i + 1} is '{s.tokens[i]}', key {j + 1} is '{s.tokens_k[j]}'"
    return vw.explain_html(e.title, (who, *e.lines)), True


def parse_pick(data: Any) -> dict[str, Any] | None:
    """A click from a table (``{name, row, col}`` as the browser sent it) -> a pick, or None when malformed."""
    if not isinstance(data, dict) or data.get("name") not in EXPLAINABLE:
        return None
    r, c = data.get("row"), data.get("col")
    if not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < MAX_T * MAX_HEADS * 8 for n in (r, c)):
        return None
    return {"name": data["name"], "row": r, "col": c}


VIEW_KEYS = ("badge", "message", "overview", *(f"html_{s}" for s in vw.STEPS), "fig", "heads_fig", "explain")


def compute_views(preset_id: str | None, v: dict[str, Any]) -> dict[str, Any]:
    """All views for the on-screen values, or the message plus gr.skip() for everything else."""
    try:
        s = ac.parse(scenario_from(v))
        tr = ac.evaluate(s)
        out = render(preset_id, s, tr, v["view_head"], v.get("pick"))
        result = ac.result_json(s, tr) if preset_id else {}
        out["badge"] = vw.badge(preset_id, s, result)
        out["message"] = vw.message_html(list(tr.attention.warnings))
        return out
    except ac.ScenarioError as e:
        gr.Warning(str(e))
        return refused(str(e))
    except Exception:  # never a traceback in the browser; the server log keeps it
        log.exception("render failed")
        return refused("Something went wrong while computing this state; your edits are kept. Please report it.")


def refused(problem: str) -> dict[str, Any]:
    """Views for a state that was refused: only the message changes; ``"refused"`` tells handlers not to store it."""
    return {k: gr.skip() for k in VIEW_KEYS} | {"message": vw.message_html([], error=problem), "refused": True}


# ---- structural changes: presets, sizes, heads, layout, init ---------------------------------


def values_from_scenario(s: ac.Scenario, view_head: int = 1) -> dict[str, Any]:
    """Editable values that show a parsed scenario (weights always explicit, exact in its dtype)."""
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
    return {
        "tokens": ", ".join(s.tokens),
        "tokens_k": ", ".join(s.tokens_k),
        "cross": not s.self_attention,
        "x": vw.raw_table(s.x_q.tolist(), s.tokens, x_cols, dt),
        "x_k": vw.raw_table(s.x_k.tolist(), s.tokens_k, x_cols, dt),
        "x_v": vw.raw_table(s.x_v.tolist(), s.tokens_k, x_cols, dt),
        "T": len(s.tokens),
        "S": len(s.tokens_k),
        "d_in": d_in,
        "d_out": d_out,
        "heads": s.heads,
        "head_mode": s.head_mode,
        "layout": w.layout,
        "W_q": vw.stacked_table(w.W_q.tolist(), "q", w.layout, dt),
        "W_k": vw.stacked_table(w.W_k.tolist(), "k", w.layout, dt),
        "W_v": vw.stacked_table(w.W_v.tolist(), "v", w.layout, dt),
        "use_wo": w.W_o is not None,
        "W_o": vw.stacked_table([wo.tolist()], "o", w.layout, dt),
        "mask_kind": s.mask_kind,
        "fill": s.fill,
        "padding": pad,
        "keep": vw.raw_table(keep.int().tolist(), s.tokens, s.tokens_k, "float64"),
        "scale_mode": "√d_k" if s.scale is True else "off" if s.scale is False else "temperature",
        "temperature": s.scale if not isinstance(s.scale, bool) else 1.0,
        "dtype": s.dtype,
        "normalize": s.normalize,
        "view_head": min(view_head, s.heads),
        "biases": {n: getattr(w, n).tolist() for n in ac.scenario.BIASES if getattr(w, n) is not None} or None,
    }


def resized(raw: list[list[Any]], rows: int, cols: int, fresh: list[list[float]]) -> list[list[Any]]:
    """Keep every raw cell that still fits (typos included); new cells come from ``fresh``."""
    return [[raw[i][j] if i < len(raw) and j < len(raw[i]) else fresh[i][j] for j in range(cols)] for i in range(rows)]


def reshape_values(v: dict[str, Any], shape: dict[str, Any], recipe: str | None) -> dict[str, Any]:
    """Apply new sizes/heads/mode/layout (or a fresh ``recipe`` draw) to the on-screen values.

    ``shape`` describes the tables as they are now on screen; raw cells are kept where they fit.
    """
    # sizes are checked before any tensor is built
    seed = parse_int(v["seed"] or 0, "seed", 0, MAX_SEED)
    T, d_in = parse_int(v["T"], "T", 1, MAX_T), parse_int(v["d_in"], "d_model", 1, MAX_D)
    S = parse_int(v["S"], "S", 1, MAX_T) if v["cross"] else T
    heads = parse_int(v["heads"], "heads", 1, MAX_HEADS)
    mode = parse_choice(v["head_mode"], "head_mode", MODES)
    layout = parse_choice(v["layout"], "layout", LAYOUTS)
    if mode == "split" and d_in % heads:
        raise ac.ScenarioError("heads", f"heads={heads} does not divide d_model={d_in} in split mode")
    d_out = parse_int(v["d_out"], "d_out", 1, MAX_D) if mode == "concat" else d_in
    n_mats = heads if mode == "concat" else 1
    g = torch.Generator().manual_seed(seed)
    fresh_x = (torch.randn(T, d_in, generator=g) * 2).round(decimals=2).tolist()
    fresh_kv = (torch.randn(S, d_in, generator=g) * 2).round(decimals=2).tolist()
    new_w = ac.init_weights(recipe or shape.get("recipe", "linear"), seed, d_in, d_out, heads, mode, "linear", True)
    keep_raw = [[1 if c in (1, "1", 1.0, "1.0") else 0 for c in r] for r in vw.grid(v["keep"])]
    tokens = split_tokens(v["tokens"])
    tokens = (tokens + [f"t{i + 1}" for i in range(len(tokens), T)])[:T]
    tokens_k = split_tokens(v["tokens_k"]) if v["cross"] else tokens
    tokens_k = (tokens_k + [f"s{i + 1}" for i in range(len(tokens_k), S)])[:S]
    old_n = shape["heads"] if shape["head_mode"] == "concat" else 1
    mats: dict[str, list[list[list[Any]]]] = {}
    for name in ("W_q", "W_k", "W_v"):
        fresh = getattr(new_w, name).tolist()
        old = [] if recipe else in_layout([vw.rows_of(m) for m in vw.table_to_heads(v[name], old_n)], shape["layout"])
        same_mode = shape["head_mode"] == mode
        mats[name] = [
            resized(old[h] if same_mode and h < len(old) else [], d_out, d_in, fresh[h]) for h in range(n_mats)
        ]
    wo_old = [] if recipe else in_layout([vw.grid(v["W_o"])], shape["layout"])[0]
    wo = resized(wo_old if shape["head_mode"] == mode else [], d_in, n_mats * d_out, new_w.W_o.tolist())
    x = resized(vw.grid(v["x"]), T, d_in, fresh_x)
    out = {**v, "tokens": ", ".join(tokens), "tokens_k": ", ".join(tokens_k), "S": S, "d_out": d_out}
    out["biases"] = None  # a new structure: the loaded biases no longer fit it
    x_cols = [f"d{j + 1}" for j in range(d_in)]
    out["x"] = vw.raw_table(x, tokens, x_cols, v["dtype"])
    was_cross = shape.get("cross", v["cross"])
    for name in ("x_k", "x_v"):  # turning cross on starts both sources from x
        src = vw.grid(v[name]) if v["cross"] and was_cross else x
        out[name] = vw.raw_table(resized(src, S, d_in, fresh_kv), tokens_k, x_cols, v["dtype"])

    for name, role in (("W_q", "q"), ("W_k", "k"), ("W_v", "v")):
        out[name] = vw.stacked_table(in_layout(mats[name], layout), role, layout, v["dtype"])
    out["W_o"] = vw.stacked_table(in_layout([wo], layout), "o", layout, v["dtype"])
    default_keep = torch.ones(T, S, dtype=torch.int64).tril().tolist()
    out["keep"] = vw.raw_table(resized(keep_raw, T, S, default_keep), tokens, tokens_k, "float64")
    out["view_head"] = min(parse_int(v["view_head"] or 1, "head shown", 1, MAX_HEADS), heads)
    return out


def toggled(keep: Any, index: Any, key_tokens: list[str]) -> dict[str, Any]:
    """The custom mask grid with one cell flipped 0 <-> 1 (clicks on the label column do nothing)."""
    rows = [list(r) for r in (keep.get("data", []) if isinstance(keep, dict) else keep or [])]
    i, j = (index if isinstance(index, (list, tuple)) else (-1, -1))[:2]
    if 1 <= j and 0 <= i < len(rows) and j < len(rows[i]):
        rows[i][j] = 0 if str(rows[i][j]).strip() in ("1", "1.0") else 1
    return {"data": rows, "headers": ["", *key_tokens][: max((len(r) for r in rows), default=1)]}


def shape_of(v: dict[str, Any], recipe: str) -> dict[str, Any]:
    """What the weight tables on screen look like, so the next structural change can read them."""
    return {"heads": int(v["heads"]), "head_mode": v["head_mode"], "layout": v["layout"], "recipe": recipe,
            "mask_kind": v["mask_kind"], "cross": bool(v["cross"])}  # fmt: skip


def restructure_values(
    action: str, preset_id: str | None, shape: dict[str, Any], v: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any]]:
    """A structural edit (sizes, heads, mode, layout, cross, W_o, mask kind, or an init button).

    Returns (new shape, new editable values or None when refused, views).
    """
    try:
        recipe = {"init_linear": "linear", "init_rand": "rand"}.get(action)
        if v["mask_kind"] == "custom" and shape.get("mask_kind", "custom") != "custom":
            v = {**v, "keep": current_keep(v, shape["mask_kind"])}
        nv = reshape_values(v, shape, recipe)
    except ac.ScenarioError as e:
        gr.Warning(str(e))
        return shape, None, refused(str(e))
    return shape_of(nv, recipe or shape.get("recipe", "linear")), nv, compute_views(preset_id, nv)


def current_keep(v: dict[str, Any], kind: str) -> list[list[Any]]:
    """The grid of the mask that was on before switching to 'custom', so the user edits from there."""
    try:
        s = ac.parse(scenario_from({**v, "mask_kind": kind}))
    except ac.ScenarioError:
        return vw.cells(v["keep"])
    keep = s.keep if s.keep is not None else torch.ones(len(s.tokens), len(s.tokens_k), dtype=torch.bool)
    return [["", *r] for r in keep.int().tolist()]


def load_values(preset_id: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Everything on screen for one preset: its exact tensors in its own layout and names."""
    p = ac.get_preset(preset_id)
    nv = values_from_scenario(ac.parse(p.scenario))
    init = p.scenario.get("weights", {})
    nv["seed"] = init.get("seed", 42)
    recipe = init.get("init", "linear") if init.get("init") in ("linear", "rand") else "linear"
    return shape_of(nv, recipe), nv, compute_views(preset_id, nv)


MAX_LINK = 16_000  # characters of an encoded scenario in a link (uvicorn refuses request lines past ~16 KB)
MAX_LINK_JSON = 1_000_000  # bytes of JSON after decompression


def encode_link(scenario: dict[str, Any]) -> str:
    """A scenario as the ``?scenario=`` value of a shareable link: URL-safe base64 of its zlib-compressed JSON."""
    raw = zlib.compress(json.dumps(scenario, separators=(",", ":")).encode(), 9)
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_link(text: str) -> dict[str, Any]:
    """The inverse of encode_link; JSON only, size-capped before and after decompression, errors name 'link'."""
    if len(text) > MAX_LINK:
        raise ac.ScenarioError("link", f"the encoded scenario has {len(text)} characters; at most {MAX_LINK}")
    try:
        packed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        unpacker = zlib.decompressobj()
        raw = unpacker.decompress(packed, MAX_LINK_JSON)
        too_big = bool(unpacker.unconsumed_tail)
        sc = None if too_big else json.loads(raw)
    except (ValueError, UnicodeDecodeError, zlib.error):
        raise ac.ScenarioError("link", "the scenario in this link is not a valid encoded JSON scenario") from None
    if too_big:
        raise ac.ScenarioError("link", f"the scenario in this link is larger than {MAX_LINK_JSON} bytes")
    if not isinstance(sc, dict):
        raise ac.ScenarioError("link", "the scenario in this link is not a JSON object")
    return sc


def link_values(query: dict[str, str]) -> tuple[str | None, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Open ``?preset=<id>`` or ``?scenario=<encoded>``; a bad link falls back to the default preset, with a message."""
    error = None
    try:
        if "scenario" in query:
            return scenario_values(decode_link(query["scenario"]))
        if "preset" in query:
            if query["preset"] not in ac.preset_ids():
                raise ac.ScenarioError("preset", f"{query['preset'][:40]!r} is not a preset id")
            return (query["preset"], *load_values(query["preset"]))
    except ac.ScenarioError as e:
        error = str(e)
    new_shape, nv, got = load_values(DEFAULT_PRESET)
    if error:
        got["message"] = vw.message_html([], error=f"{error}; showing the default preset instead")
    return DEFAULT_PRESET, new_shape, nv, got


# ---- share and export: links, scenario files, .py and .ipynb --------------------------------

EXPORTS = ExportFolders(ttl_s=600)  # a private mkdtemp per export; this process's older than 10 min go at the next


def current_scenario(preset_id: str | None, v: dict[str, Any]) -> tuple[ac.Scenario, dict[str, Any]]:
    """The on-screen state as a parsed scenario and its explicit JSON (raises ScenarioError naming the field)."""
    s = ac.parse(scenario_from(v))
    return s, scenario_json(s, preset_id)


def share_link(preset_id: str | None, v: dict[str, Any], page_url: str | None) -> str:
    """A link that opens exactly this state: ``?preset=<id>`` while the preset is untouched, else the scenario."""
    base = (page_url or "").split("?", 1)[0].split("#", 1)[0] or "/"
    s, sc = current_scenario(preset_id, v)
    if preset_id and not vw.same_scenario(s, ac.parse(ac.get_preset(preset_id).scenario)):
        return f"{base}?preset={preset_id}"
    code = encode_link(sc)
    if len(code) > MAX_LINK:
        problem = f"this state needs {len(code)} characters, more than a link holds ({MAX_LINK}); save a file"
        raise ac.ScenarioError("link", problem)
    return f"{base}?scenario={code}"


def export_files(preset_id: str | None, v: dict[str, Any]) -> list[str]:
    """scenario.json, attention.py and attention.ipynb for the on-screen state, in a fresh folder."""
    s, sc = current_scenario(preset_id, v)
    title = ac.get_preset(preset_id).title if preset_id else "Attention Playground: custom state"
    folder = EXPORTS.new()
    files = {
        "scenario.json": json.dumps(sc, indent=1),
        "attention.py": to_script(s, title),
        "attention.ipynb": to_notebook(s, title),
    }
    for name, text in files.items():
        (folder / name).write_text(text)
    return [str(folder / name) for name in files]


def read_scenario_file(path: str | None) -> dict[str, Any]:
    """An uploaded scenario file (the path gradio gave its upload): JSON only, size-capped, errors name the file."""
    if not path:
        raise ac.ScenarioError("scenario file", "no file was uploaded")
    size = Path(path).stat().st_size
    if size > MAX_LINK_JSON:
        raise ac.ScenarioError("scenario file", f"{size} bytes; at most {MAX_LINK_JSON}")
    try:
        sc = json.loads(Path(path).read_bytes())
    except UnicodeDecodeError:
        raise ac.ScenarioError("scenario file", "is not text (a JSON scenario is expected)") from None
    except ValueError as e:
        raise ac.ScenarioError("scenario file", f"is not valid JSON ({str(e)[:80]})") from None
    if not isinstance(sc, dict):
        raise ac.ScenarioError("scenario file", "is JSON but not an object ({...}) as compute() takes")
    return sc


def scenario_values(sc: dict[str, Any]) -> tuple[str | None, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A scenario dict (file or link) -> (preset id it names, shape, editable values, views)."""
    s = ac.parse(sc)
    preset_id = sc.get("preset") if sc.get("preset") in ac.preset_ids() else None
    nv = values_from_scenario(s)
    w = sc.get("weights") if isinstance(sc.get("weights"), dict) else {}
    nv["seed"] = w.get("seed", 42)
    recipe = w.get("init") if w.get("init") in ("linear", "rand") else "linear"  # what a resize draws new cells from
    return preset_id, shape_of(nv, recipe), nv, compute_views(preset_id, nv)


# ---- labs: masks and scaling -----------------------------------------------------------------


def mask_lab_views(v: dict[str, Any], causal: bool, padding: Any, rows: Any) -> str:
    """The mask lab for the shown head of the on-screen state: masks labelled, then the three fills."""
    try:
        s = ac.parse(scenario_from(v))
        tr = ac.evaluate(s)
        h = shown_head(v["view_head"], s.heads)
        n_q, n_k = len(s.tokens), len(s.tokens_k)
        try:
            pad = padding_flags(padding, n_k)
        except ac.ScenarioError as e:
            raise ac.ScenarioError("mask lab padding", e.problem) from None
        try:
            hidden = [i - 1 for i, f in enumerate(padding_flags(rows, n_q), start=1) if f]
        except ac.ScenarioError as e:
            raise ac.ScenarioError("mask lab rows", e.problem.replace("key", "query")) from None
        masks = compose_keep(n_q, n_k, bool(causal), pad, hidden)
        part = tr.head(h)
        traces = compare_fills(part["q"], part["k"], part["v"], masks["combined"], s.scale, s.normalize)
    except ac.ScenarioError as e:
        return vw.message_html([], error=str(e))
    return vw.mask_lab_html(masks, traces, s.tokens, s.tokens_k, s.dtype)


def scaling_views(d_k: Any, seed: Any) -> tuple[Any, str]:
    """The scaling lab's figure and its sentence; a bad field gets a message naming it."""
    try:
        lab = scaling_lab(parse_int(d_k, "d_k", MIN_DK, MAX_DK), parse_int(seed or 0, "lab seed", 0, MAX_SEED))
    except ac.ScenarioError as e:
        return gr.skip(), vw.message_html([], error=str(e))
    return vw.scaling_figure(lab), f"<p class='lab-words'>{html.escape(vw.scaling_words(lab))}</p>"


# ---- sentence mode (seed 003) ----------------------------------------------------------------

SENTENCE_NOTE = (
    "Seeded rows are drawn exactly as nn.Embedding(vocab, d) draws them after torch.manual_seed(seed), on this "
    "machine. That normal_ fill is platform-dependent: with seed 69, only 9 of the 21 values 003 printed come back "
    "here, which is why the 003 presets carry the printed numbers (button: 003's printed embeddings)."
)


def sentence_tokens(sentence: Any) -> tuple[ac.SimpleTokenizer, list[str]]:
    """A sentence -> its tokenizer and tokens; errors name 'sentence'."""
    text = sentence if isinstance(sentence, str) else ""
    if len(text) > MAX_SENTENCE:
        raise ac.ScenarioError("sentence", f"{len(text)} characters; at most {MAX_SENTENCE}")
    toks = ac.SimpleTokenizer.tokenize(text)
    if not toks:
        raise ac.ScenarioError("sentence", "is empty; type a few words")
    if len(toks) > MAX_T:
        raise ac.ScenarioError("sentence", f"{len(toks)} tokens (spaces count); at most {MAX_T}")
    return ac.SimpleTokenizer(text), toks


def embedding_rows(action: str, tok: ac.SimpleTokenizer, d: int, seed: int, table: Any) -> list[list[Any]]:
    """The vocabulary's embedding rows: kept by token from the table on screen, new tokens drawn from the seed."""
    drawn = embedding_table(tok.vocab_size, d, seed).tolist()
    if action == "printed":
        if tok.vocab != ac.SimpleTokenizer(SENTENCE).vocab or d != 3:
            raise ac.ScenarioError("embeddings", f"003 printed rows for its own sentence ({SENTENCE!r}) and d = 3")
        ids = ac.SimpleTokenizer(SENTENCE).encode(SENTENCE)
        return [EMBEDDINGS_003[ids.index(i)] for i in range(tok.vocab_size)]
    if action == "draw":
        return drawn
    data = table.get("data") if isinstance(table, dict) else table
    data = data.values.tolist() if hasattr(data, "columns") else data  # pandas, as some clients send it
    old = {str(r[0]): list(r[1:]) for r in data if isinstance(r, (list, tuple)) and r} if isinstance(data, list) else {}
    return [old[shown_token(t)] if len(old.get(shown_token(t), [])) == d else drawn[i] for i, t in enumerate(tok.vocab)]


def sentence_input(
    action: str, sentence: Any, d: Any, seed: Any, table: Any
) -> tuple[ac.SimpleTokenizer, list[str], list[list[Any]], list[list[float]], int]:
    """Sentence mode's inputs, checked: (tokenizer, tokens, raw rows as shown, rows as floats, seed).

    Errors name the field: sentence, embedding width d, seed, or embeddings row r, column c.
    """
    tok, toks = sentence_tokens(sentence)
    d_i = parse_int(d, "embedding width d", 1, 16)
    seed_i = parse_int(seed or 0, "seed", 0, MAX_SEED)
    rows = embedding_rows(action, tok, d_i, seed_i, table)
    return tok, toks, rows, ac.scenario.parse_matrix(rows, "embeddings", tok.vocab_size, d_i), seed_i


def sentence_views(action: str, sentence: Any, d: Any, seed: Any, table: Any) -> dict[str, Any]:
    """Sentence mode: tokens and ids, the embedding table, weightless attention with both normalisations.

    ``action``: "text" (keep rows by token), "edit", "draw" (seeded nn.Embedding), "printed" (003's numbers).
    Returns {"table", "tokens", "simplified", "message"}; on bad input the message and gr.skip() elsewhere.
    """
    try:
        tok, toks, rows, vocab, _ = sentence_input(action, sentence, d, seed, table)
        labels = [shown_token(t) for t in tok.vocab]
        cols = [f"d{j + 1}" for j in range(len(rows[0]))]
        ids = tok.encode(sentence)
        x = torch.tensor(vocab, dtype=torch.float32)[ids]  # (T, d): one row per token, spaces included (003 In [4])
        tr = ac.simplified_attention(x)
    except ac.ScenarioError as e:
        gr.Warning(str(e))
        return {"table": gr.skip(), "tokens": gr.skip(), "simplified": gr.skip(),
                "message": vw.message_html([], error=str(e))}  # fmt: skip
    shown_toks = [f"{i + 1}:{shown_token(t)}" for i, t in enumerate(toks)]
    token_table = "".join(f"<tr><th>{i + 1}</th><td>{html.escape(shown_token(t))}</td><td>{n}</td></tr>"
                          for i, (t, n) in enumerate(zip(toks, ids, strict=True)))  # fmt: skip
    tokens_html = (f"<p>{len(toks)} tokens, vocabulary of {tok.vocab_size} (sorted): "
                   f"{html.escape(', '.join(f'{shown_token(t)}={i}' for i, t in enumerate(tok.vocab)))}</p>"
                   f"<table class='nt'><tr><th>#</th><th>token</th><th>id</th></tr>{token_table}</table>")  # fmt: skip
    warn = []
    if not bool(torch.isfinite(tr.weights_sum).all()) or bool((tr.weights_sum < 0).any()):
        warn.append("divide-by-sum gives negative (or undefined) weights here: dot products can be negative, "
                    "which is why 003 moves on to softmax")  # fmt: skip

    def box(title: str, t: torch.Tensor, cols_: list[str], name: str, kind: str = "signed") -> str:
        return vw.html_table(t, "float32", shown_toks, cols_, name, kind, title=title)

    simplified = (
        "<div class='lab-cols'>"
        f"<div class='lab-col'>{box('scores = X Xᵀ', tr.scores, shown_toks, 'sent-scores')}</div>"
        f"<div class='lab-col'>{box('÷ row sum (003 cell 9)', tr.weights_sum, shown_toks, 'sent-sum', 'prob')}"
        f"{box('context = weights @ X', tr.context_sum, cols, 'sent-ctx-sum')}</div>"
        f"<div class='lab-col'>{box('softmax (003 cell 12)', tr.weights_softmax, shown_toks, 'sent-softmax', 'prob')}"
        f"{box('context = weights @ X', tr.context_softmax, cols, 'sent-ctx-softmax')}</div></div>"
    )
    return {"table": vw.raw_table(rows, labels, cols, "float32"), "tokens": tokens_html, "simplified": simplified,
            "message": vw.message_html(warn)}  # fmt: skip


def sentence_scenario(sentence: Any, d: Any, d_out: Any, seed: Any, table: Any) -> dict[str, Any]:
    """Trainable attention on the sentence: its embeddings as x, 003's torch.rand(d_in, d_out) weights (seed),
    matmul layout (003's Parameter class)."""
    tok, toks, _, vocab, seed_i = sentence_input("text", sentence, d, seed, table)
    d_o = parse_int(d_out, "d_out", 1, MAX_D)
    x = [vocab[i] for i in tok.encode(sentence)]
    labels = [shown_token(t).replace(",", "‚") for t in toks]  # the token box is comma-separated
    return {"x": x, "tokens": labels, "layout": "matmul", "d_out": d_o,
            "weights": {"init": "rand", "seed": seed_i}}  # fmt: skip


def shown(nv: dict[str, Any]) -> list[Any]:
    """Editable values as updates, hiding the controls that do not apply (cross, W_o, mask grid)."""
    visible = {
        "x_k": nv["cross"], "x_v": nv["cross"], "tokens_k": nv["cross"], "S": nv["cross"], "W_o": nv["use_wo"],
        "keep": nv["mask_kind"] == "custom", "padding": "padding" in nv["mask_kind"],
        "d_out": nv["head_mode"] == "concat",
    }  # fmt: skip
    return [gr.update(value=nv[f], visible=visible[f]) if f in visible else nv[f] for f in FIELDS]


# ---- the app: one builder per section, handlers at module level -----------------------------

STATIC = Path(__file__).resolve().parent / "ui" / "static"
CSS = (STATIC / "app.css").read_text() + present.CSS + learn_ui.CSS
GRID_JS = (STATIC / "grid.js").read_text()
LIVE_JS = (STATIC / "live.js").read_text()  # views a live edit updates (see live_edit)
WATCH_JS = LIVE_JS + (STATIC / "watch.js").read_text()
HEAT_JS = LIVE_JS + (STATIC / "heat.js").read_text()
PLAIN_JS = LIVE_JS + "liveView();"  # the badge and the message
EXPLAIN_JS = (
    LIVE_JS
    + """liveView();
element.addEventListener('click', (e) => {
  if (e.target.closest('.ex-close')) document.getElementById('explain').classList.add('closed');
});"""
)
TABLE_FIELDS = ("x", "x_k", "x_v", "W_q", "W_k", "W_v", "W_o", "keep")
CONTROLS = tuple(f for f in FIELDS if f not in TABLE_FIELDS)
# controls whose change also redraws the input grids (labels, the shown head's weights, exactness)
REDRAW = ("tokens", "tokens_k", "view_head", "dtype")
LIVE = ("tokens", "tokens_k", "fill", "padding", "scale_mode", "temperature", "dtype", "normalize", "view_head")
STRUCTURAL = ("T", "S", "d_in", "d_out", "heads", "head_mode", "layout", "cross", "use_wo", "mask_kind")
COMMON = {"trigger_mode": "always_last", "show_progress": "hidden", "api_visibility": "private"}


def bind(fn: Callable[..., Any], *bound: Any) -> Callable[..., Any]:
    """``functools.partial`` that Gradio can read: the remaining parameters keep their names and annotations,
    so ``gr.Request`` and ``gr.EventData`` are still recognised."""

    @functools.wraps(fn)
    def handler(*args: Any) -> Any:
        return fn(*bound, *args)

    params = list(inspect.signature(fn).parameters.values())[len(bound) :]
    handler.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return handler


@dataclass(frozen=True)
class Slot:
    """A per-session value held in ``STORE`` (not a gradio component): "preset", "shape" or "vals".

    Handlers read and write Slots as if they were components; ``on`` fills them from this session's entry and
    stores what the handler returns for them, so gradio neither sees nor keeps them.
    """

    name: str


STORE = SessionStore()  # the server's table of pages' state: one entry per session hash (see sessions.py)


# before a queued event leaves the page: the grid's live edits still on their way go first (grid.js), so a control
# changed right after an edit applies to the edited values, as the edit was made first
AFTER_LIVE_EDITS = "(...args) => (window.apLiveIdle ? window.apLiveIdle().then(() => args) : args)"


def on(trigger: Callable[..., Any], fn: Callable[..., Any], inputs: list[Any], outputs: list[Any], **kw: Any) -> None:
    """``trigger(fn, inputs, outputs)`` where Slots in ``inputs``/``outputs`` live in this session's STORE entry.

    ``fn``'s parameters are ``inputs`` in order, then any gr.EventData / gr.Request it asks for. ``kw`` may hold
    ``loads=True`` (the page's load event: its entry does not count as used, see sessions.py) and gradio's own
    event options.
    """
    loads = kw.pop("loads", False)
    shown_in = [c for c in inputs if not isinstance(c, Slot)]
    shown_out = [c for c in outputs if not isinstance(c, Slot)]
    params = list(inspect.signature(fn).parameters.values())
    extra = params[len(inputs) :]  # gradio fills these by annotation (EventData, Request)

    def handler(*args: Any) -> Any:
        *given, request = args
        key = getattr(request, "session_hash", None)
        with STORE.lock(key):  # (live edits of the same page wait, see live_edit)
            entry = STORE.get(key) or {}
            it = iter(given[: len(shown_in)])
            full = [entry.get(c.name) if isinstance(c, Slot) else next(it) for c in inputs]
            out = fn(*full, *given[len(shown_in) :])
            writes, rest = split_slots(out, outputs)
            if writes:
                STORE.put(key, writes, used=not loads)
        return rest

    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    sig = inspect.Signature(
        [inspect.Parameter(f"in{i}", positional) for i in range(len(shown_in))]
        + [p.replace(annotation=gr.EventData if "EventData" in str(p.annotation) else gr.Request) for p in extra]
        + [inspect.Parameter("session_request", positional, annotation=gr.Request)]
    )
    handler.__signature__ = sig  # type: ignore[attr-defined]
    handler.__annotations__ = {p.name: p.annotation for p in sig.parameters.values() if p.annotation is not p.empty}
    handler.__name__ = getattr(fn, "__name__", "handler")
    handler.reads = tuple(c.name for c in inputs if isinstance(c, Slot))  # type: ignore[attr-defined]
    trigger(handler, shown_in, shown_out, js=AFTER_LIVE_EDITS, **kw)


def split_slots(out: Any, outputs: list[Any]) -> tuple[dict[str, Any], Any]:
    """A handler's answer split into (Slot name -> value to store, what gradio gets for the real outputs)."""
    skip = gr.skip()
    if isinstance(out, dict) and "__type__" not in out:  # {component: value}
        writes = {c.name: v for c, v in out.items() if isinstance(c, Slot) and v != skip}
        rest = {c: v for c, v in out.items() if not isinstance(c, Slot)}
        if not rest and any(not isinstance(c, Slot) for c in outputs):
            # gradio takes an empty dict as the value of a lone output (and refuses it for several): show nothing
            return writes, skip
        return writes, rest
    values = list(out) if len(outputs) > 1 else [out]
    writes = {c.name: v for c, v in zip(outputs, values, strict=True) if isinstance(c, Slot) and v != skip}
    rest = [v for c, v in zip(outputs, values, strict=True) if not isinstance(c, Slot)]
    return writes, (rest[0] if len(rest) == 1 else rest or None)


@dataclass
class Page:
    """Every component a handler reads or writes, so handlers can answer with {component: value}."""

    preset: Any
    preset_state: Slot
    shape_state: Slot
    vals_state: Slot
    controls: dict[str, Any]
    inputs: Any
    views: dict[str, Any]  # VIEW_KEYS -> component

    def view_updates(self, got: dict[str, Any]) -> dict[Any, Any]:
        return {self.views[k]: got[k] for k in VIEW_KEYS if k in got}

    def edited(self, nv: dict[str, Any] | None, got: dict[str, Any], grid: str | None) -> dict[Any, Any]:
        """:func:`edit_result` as component updates (the values stored only when the edit was taken)."""
        out = self.view_updates(got)
        if nv is not None:
            out[self.vals_state] = nv
        if grid is not None:
            out[self.inputs] = grid
        return out

    def value_updates(self, nv: dict[str, Any]) -> dict[Any, Any]:
        """The controls and the input grids showing ``nv`` (controls that do not apply hidden)."""
        out = {self.controls[f]: u for f, u in zip(FIELDS, shown(nv), strict=True) if f in self.controls}
        out[self.inputs] = grids.inputs_html(nv, shown_head(nv["view_head"], int(nv["heads"])))
        return out

    def everything(self) -> list[Any]:
        return [
            self.preset,
            self.preset_state,
            self.shape_state,
            self.vals_state,
            *self.controls.values(),
            self.inputs,
            *self.views.values(),
        ]

    def answer(self, preset_id: str | None, shape: Any, nv: dict[str, Any], got: dict[str, Any]) -> dict[Any, Any]:
        """A whole new state: preset, states, controls, grids and views."""
        return {
            self.preset: preset_id or gr.skip(),
            self.preset_state: preset_id,
            self.shape_state: shape,
            self.vals_state: nv,
            **self.value_updates(nv),
            **self.view_updates(got),
        }


def expired(page: Page) -> dict[Any, Any]:
    return page.view_updates(expired_got())


def expired_got() -> dict[str, Any]:
    """:func:`expired_views` by view key, as :func:`compute_views` answers."""
    return dict(zip(VIEW_KEYS, expired_views(), strict=True))


def on_cell(page: Page, preset_id: str | None, vals: dict[str, Any] | None, evt: gr.EventData) -> dict[Any, Any]:
    """One grid cell committed: ``{table, row, col, value}``. A refused value changes nothing and is named.

    (The page sends its edits by :func:`live_edit`; this queued event is its fallback and the handlers' tests.)
    """
    return page.edited(*edit_result("cell", preset_id, vals, getattr(evt, "_data", None)))


def on_paste(page: Page, preset_id: str | None, vals: dict[str, Any] | None, evt: gr.EventData) -> dict[Any, Any]:
    """A block pasted into a grid (spreadsheet cells, a nested list, or torch's print), checked whole."""
    return page.edited(*edit_result("paste", preset_id, vals, getattr(evt, "_data", None)))


def edit_result(
    kind: str, preset_id: str | None, vals: dict[str, Any] | None, data: Any
) -> tuple[dict[str, Any] | None, dict[str, Any], str | None]:
    """A cell ("cell": ``{table, row, col, value}``) or a pasted block ("paste": ``{table, row, col, text}``)
    applied to ``vals``: (the values to store, or None when refused; the views; the new grids after a paste)."""
    if vals is None:
        return None, expired_got(), None
    try:
        table, rows, n_mats = grid_of(vals, data)
        r, c = data.get("row"), data.get("col")
        if kind == "cell":
            x = grids.checked_cell(table, rows, r, c, data.get("value"), n_mats)
            nv = {**vals, table: grids.with_cell(vals[table], r, c, x)}
        else:
            grids.checked_cell(table, rows, r, c, 0, n_mats)  # the anchor cell exists
            block = grids.pasted_block(table, rows, r, c, data.get("text"), n_mats)
            nv = {**vals, table: grids.with_block(vals[table], r, c, block)}
    except ac.ScenarioError as e:
        return None, {"message": vw.message_html([], error=str(e))}, None
    got = compute_views(preset_id, nv)
    if got.get("refused"):
        return None, got, None
    grid = grids.inputs_html(nv, shown_head(nv["view_head"], int(nv["heads"]))) if kind == "paste" else None
    return nv, got, grid


# the views a live edit answers with, by the elem_id of the component that shows each (static/live.js finds them)
VIEW_IDS = {"badge": "badge", "message": "message", "overview": "overview",
            **{f"html_{s}": f"html-{s}" for s in vw.STEPS}, "fig": "weights-fig", "heads_fig": "heads-fig",
            "explain": "explain"}  # fmt: skip
# live edits computing at once (two cores); the others wait without holding a thread, at most LIVE_WAITING of
# them: past that the page is told to send its edit through the bounded queue instead
LIVE_SLOTS = anyio.CapacityLimiter(2)
LIVE_WAITING = 64


async def live_edit(data: Any, request: gr.Request) -> dict[str, Any]:
    """A grid edit sent straight from the page (``server.live_edit`` in grid.js; gradio's component_server route).

    Not a queued event: gradio's frontend then copies every output component's value several times per event
    (its loading-status bookkeeping), about a third of an edit at T=64. ``data``: ``{"kind": "cell", table, row,
    col, value}`` or ``{"kind": "paste", table, row, col, text}``. Answers ``{"views": {elem_id: {"value"?,
    "visible"?}}, "grid": html | None}``; the session's values are stored only when the edit was taken.
    """
    try:
        body = await request.json()  # (already read and kept by the route) the page's session hash
    except Exception:
        body = None
    key = body.get("session_hash") if isinstance(body, dict) else None
    if not isinstance(key, str) or STORE.get(key) is None:  # checked before any waiting: nothing to compute
        return {"views": live_views(expired_got())}
    if LIVE_SLOTS.statistics().tasks_waiting >= LIVE_WAITING:
        return {"busy": True}  # grid.js sends this edit, and the next ones, as queued events
    return await anyio.to_thread.run_sync(functools.partial(live_answer, key, data), limiter=LIVE_SLOTS)


def live_answer(key: str | None, data: Any) -> dict[str, Any]:
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind not in ("cell", "paste"):
        return {"views": live_views({"message": vw.message_html([], error="edit: not a cell edit or a paste")})}
    with STORE.lock(key):
        entry = STORE.get(key) or {}
        nv, got, grid = edit_result(kind, entry.get("preset"), entry.get("vals"), data)
        if nv is not None:
            STORE.put(key, {"vals": nv}, used=True)
    return {"views": live_views(got), "grid": grid}


def live_views(got: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Views as ``{elem_id: {"value": html, "visible": bool}}``, leaving out those that do not change."""
    out, skip = {}, gr.skip()
    for k, v in got.items():
        if k not in VIEW_IDS or v == skip:
            continue
        upd = {n: v[n] for n in ("value", "visible") if n in v} if isinstance(v, dict) else {"value": v}
        out[VIEW_IDS[k]] = upd
    return out


def grid_of(vals: dict[str, Any], data: Any) -> tuple[str, list[list[Any]], int]:
    """The grid an edit names: (table, its stored rows, weight matrices stacked in it)."""
    table = data.get("table") if isinstance(data, dict) else None
    if table not in TABLE_FIELDS:
        raise ac.ScenarioError("edit", f"{str(table)[:20]!r} is not an input table")
    n_mats = int(vals["heads"]) if vals["head_mode"] == "concat" and table in ("W_q", "W_k", "W_v") else 1
    return table, grids.table_rows(vals[table]), n_mats


def on_control(
    page: Page, field: str, value: Any, preset_id: str | None, vals: dict[str, Any] | None
) -> dict[Any, Any]:
    """A live control (fill, scale, dtype, tokens, head shown…): recompute every view."""
    if vals is None:
        return expired(page)
    vals = {**vals, field: value}
    problem = control_problem(field, value)
    got = refused(problem) if problem else compute_views(preset_id, vals)
    if got.get("refused"):  # the server keeps what it had; the control keeps the text so it can be fixed
        return page.view_updates(got)
    out = {page.vals_state: vals, **page.view_updates(got)}
    if field in REDRAW:
        try:
            h = shown_head(vals["view_head"], int(vals["heads"]))
            out[page.inputs] = grids.inputs_html(vals, h)
        except ac.ScenarioError:
            pass  # the message already names the field; the grids stay as they are
    return out


MAX_TEXT = 2_000  # characters in a token-label or padding box


def control_problem(field: str, value: Any) -> str | None:
    """A live control's own value checked even while it does not apply, so a bad one is never stored."""
    try:
        if field == "temperature":
            if ac.scenario.parse_number(value, "temperature") <= 0:
                raise ac.ScenarioError("temperature", f"{value}: a temperature must be positive")
        elif field == "view_head":
            parse_int(value, "head shown", 1, MAX_HEADS)
        elif not isinstance(value, str) or len(value) > MAX_TEXT:
            raise ac.ScenarioError(field, f"expected text of at most {MAX_TEXT} characters")
    except ac.ScenarioError as e:
        return str(e)
    return None


def on_structure(page: Page, action: str, field: str | None, *args: Any) -> dict[Any, Any]:
    """Sizes, heads, mode, layout, cross, W_o, mask kind, or an init button: new grids and views."""
    value, (preset_id, shape, vals) = (args[0], args[1:]) if field else (None, args)
    if vals is None or shape is None:
        return expired(page)
    vals = {**vals, field: value} if field else vals
    new_shape, nv, got = restructure_values(action, preset_id, shape, vals)
    if nv is None or got.get("refused"):  # the server keeps what it had; the control keeps the text to fix
        return page.view_updates(got)
    return page.answer(preset_id, new_shape, nv, got) | {page.preset: gr.skip()}


def on_load_preset(page: Page, preset_id: str) -> dict[Any, Any]:
    new_shape, nv, got = load_values(preset_id)
    return page.answer(preset_id, new_shape, nv, got)


def on_open(page: Page, request: gr.Request) -> dict[Any, Any]:
    preset_id, new_shape, nv, got = link_values(dict(request.query_params) if request else {})
    return page.answer(preset_id, new_shape, nv, got) | {page.preset: preset_id or DEFAULT_PRESET}


def on_pick(page: Page, preset_id: str | None, vals: dict[str, Any] | None, evt: gr.EventData) -> dict[Any, Any]:
    if vals is None:
        return expired(page)
    chosen = parse_pick(getattr(evt, "_data", None))
    if chosen is None or chosen == vals.get("pick"):  # a click between cells, or a double event
        return {}
    vals = {**vals, "pick": chosen}
    got = compute_views(preset_id, vals)
    return page.view_updates(got) if got.get("refused") else {page.vals_state: vals, **page.view_updates(got)}


def on_file(page: Page, path: str | None) -> dict[Any, Any]:
    try:
        preset_id, new_shape, nv, got = scenario_values(read_scenario_file(path))
    except ac.ScenarioError as e:
        problem = str(e) if e.field == "scenario file" else f"scenario file: {e}"
        gr.Warning(problem)
        return {page.views["message"]: vw.message_html([], error=problem)}
    return page.answer(preset_id, new_shape, nv, got)


def on_store(field: str, value: Any, vals: dict[str, Any] | None) -> Any:
    """The seed box: stored once it is a seed (the init buttons name a bad one when they use it)."""
    try:
        ok = vals is not None and parse_int(value, "seed", 0, MAX_SEED) is not None
    except ac.ScenarioError:
        ok = False
    return {**vals, field: value} if ok and vals is not None else gr.skip()


def on_link(preset_id: str | None, vals: dict[str, Any] | None, request: gr.Request) -> list[Any]:
    if vals is None:
        return [gr.skip(), expired_message()]
    try:
        return [share_link(preset_id, vals, request.headers.get("referer") if request else None), gr.skip()]
    except ac.ScenarioError as e:
        gr.Warning(str(e))
        return ["", vw.message_html([], error=str(e))]


def on_export(preset_id: str | None, vals: dict[str, Any] | None) -> list[Any]:
    if vals is None:
        return [gr.skip(), expired_message()]
    try:
        return [export_files(preset_id, vals), gr.skip()]
    except ac.ScenarioError as e:
        gr.Warning(str(e))
        return [gr.skip(), vw.message_html([], error=str(e))]


def build_topbar() -> tuple[Any, Any, Any]:
    """Title, preset picker (and its reload button) and the one-line match badge."""
    with gr.Row(elem_id="topbar"):
        gr.HTML("<h1>Attention Playground</h1>", elem_id="title", min_width=200, scale=0, apply_default_css=False)
        preset = gr.Dropdown(
            [(p.title, p.id) for p in ac.all_presets()],
            value=DEFAULT_PRESET,
            label="Preset (notebook example)",
            elem_id="preset",
            scale=1,
            min_width=280,
        )
        load_btn = gr.Button("Reload", size="sm", scale=0, min_width=70, elem_id="reload")
        badge = gr.HTML(elem_id="badge", js_on_load=PLAIN_JS, apply_default_css=False, scale=2, min_width=300)
        present.build_teach()
    return preset, badge, load_btn


def build_toolbar(first: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The controls used most in one compact row, the rest in drawers: (controls, init buttons, share)."""
    c: dict[str, Any] = {}
    drop = {"container": True, "min_width": 96}
    with gr.Row(elem_id="toolbar"):
        c["mask_kind"] = gr.Dropdown(list(ac.scenario.MASK_KINDS), value=first["mask_kind"], label="mask", **drop)
        c["fill"] = gr.Dropdown(
            [("-inf (000)", "-inf"), ("-1e9 (002)", "-1e9"), ("additive M (004)", "additive")],
            value=first["fill"],
            label="fill",
            **drop,
        )
        c["heads"] = gr.Number(first["heads"], precision=0, minimum=1, maximum=MAX_HEADS, label="heads", **drop)
        c["view_head"] = gr.Number(1, precision=0, minimum=1, maximum=MAX_HEADS, label="head shown", **drop)
        c["scale_mode"] = gr.Dropdown(list(SCALE_MODES), value=first["scale_mode"], label="scale", **drop)
        c["normalize"] = gr.Dropdown(["softmax", "sum"], value=first["normalize"], label="normalise", **drop)
        c["dtype"] = gr.Dropdown(["float32", "float64"], value=first["dtype"], label="dtype", **drop)
        with gr.Accordion("More settings", open=False, elem_id="more"):
            buttons = build_drawer(c, first)
        share = build_share()
    return c, buttons, share


def build_drawer(c: dict[str, Any], first: dict[str, Any]) -> dict[str, Any]:
    """The settings used less often (inside the toolbar's drawer)."""
    with gr.Row():
        c["T"] = gr.Number(first["T"], precision=0, minimum=1, maximum=MAX_T, label="T (query tokens)")
        c["d_in"] = gr.Number(first["d_in"], precision=0, minimum=1, maximum=MAX_D, label="d_model")
        c["S"] = gr.Number(
            first["S"], precision=0, minimum=1, maximum=MAX_T, label="S (key tokens)", visible=first["cross"]
        )
        c["d_out"] = gr.Number(first["d_out"], precision=0, minimum=1, maximum=MAX_D, label="d_out per head")
        c["head_mode"] = gr.Radio(["concat", "split"], value=first["head_mode"], label="head mode")
        c["layout"] = gr.Radio(
            [("Linear out×in (x @ W.T)", "linear"), ("matmul in×out (x @ W)", "matmul")],
            value=first["layout"],
            label="weight layout",
        )
        c["temperature"] = gr.Number(first["temperature"], label="temperature (divide by)")
    with gr.Row():
        c["cross"] = gr.Checkbox(first["cross"], label="cross-attention (separate K/V source)")
        c["use_wo"] = gr.Checkbox(first["use_wo"], label="output projection W_o")
        c["padding"] = gr.Textbox(first["padding"], label="padded key positions (e.g. 3 or 2, 3)", visible=False)
        c["seed"] = gr.Number(42, precision=0, label="seed", minimum=0)
        init_linear = gr.Button("Init weights: nn.Linear (seed)")
        init_rand = gr.Button("Init weights: torch.rand (seed)")
    with gr.Row():
        c["tokens"] = gr.Textbox(first["tokens"], label="token labels (comma-separated)")
        c["tokens_k"] = gr.Textbox(first["tokens_k"], label="key/value token labels", visible=first["cross"])
    return {"init_linear": init_linear, "init_rand": init_rand}


def build_share() -> dict[str, Any]:
    with gr.Accordion("Share · export", open=False, elem_id="share"):
        with gr.Row():
            link_btn = gr.Button("Make a link to this exact state", elem_id="link-btn")
            export_btn = gr.Button("Export scenario.json, attention.py, attention.ipynb", elem_id="export-btn")
            upload_btn = gr.UploadButton(
                "Load a scenario file (.json)", file_types=[".json"], type="filepath", elem_id="upload-btn"
            )
        link_box = gr.Textbox(label="link (opens this exact state)", buttons=["copy"], elem_id="link")
        downloads = gr.File(
            label="downloads (run attention.py with torch alone)",
            file_count="multiple",
            interactive=False,
            elem_id="downloads",
        )
    return {"link": link_btn, "export": export_btn, "upload": upload_btn, "link_box": link_box, "files": downloads}


def build_bench(first_inputs: str) -> tuple[Any, Any]:
    """The pipeline on one screen: editable X and W grids, then Q, K, V → scores → weights → output."""
    with gr.Row(elem_id="bench", equal_height=False):
        inputs = gr.HTML(
            first_inputs, elem_id="inputs", js_on_load=GRID_JS, min_width=0, apply_default_css=False,
            server_functions=[live_edit],
        )  # fmt: skip
        overview = gr.HTML(elem_id="overview", js_on_load=WATCH_JS, min_width=0, apply_default_css=False)
    return inputs, overview


def build_notebook() -> dict[str, Any]:
    """Below the overview, each step keeps its notebook cell: formula, words, code, torch's print, tables."""
    o: dict[str, Any] = {}
    gr.Markdown("## The notebook, step by step\nEvery step of the overview above, as the notebooks write it.")
    for step in vw.STEPS:
        formula, words = vw.FORMULAS[step]
        gr.Markdown(
            f"### {vw.TITLES[step]}\n$${formula}$$\n{words}",
            elem_id=f"step-{step}",
            latex_delimiters=[{"left": "$$", "right": "$$", "display": True}],
        )
        o[f"html_{step}"] = gr.HTML(
            elem_id=f"html-{step}", elem_classes=["nb-view"], js_on_load=WATCH_JS, apply_default_css=False
        )
        if step == "combine":
            o["heads_fig"] = gr.HTML(elem_id="heads-fig", visible=False, js_on_load=HEAT_JS, apply_default_css=False)
        if step == "weights":
            o["fig"] = gr.HTML(elem_id="weights-fig", js_on_load=HEAT_JS, apply_default_css=False)
    return o


def build_mask_lab(vals_state: Any) -> Any:
    with gr.Tab("Mask lab", id="mask-lab") as tab:
        gr.Markdown(
            "The same scaled scores (head shown, from the workbench's state) under the three fill conventions. "
            "Build masks here: padding hides key columns, causal hides the future, and a row mask hides every key "
            "from a query, so you can watch -inf give NaN where -1e9 gives uniform weights."
        )
        with gr.Row():
            causal = gr.Checkbox(True, label="causal mask")
            pad = gr.Textbox("", label="padded key positions (e.g. 3)")
            rows = gr.Textbox("1", label="hide every key from query rows (e.g. 1)")
        out = gr.HTML(elem_id="mask-lab-out")
    lab_in = [vals_state, causal, pad, rows]
    # .change, not .input: deleting characters in a Textbox fires no input event in gradio 6.31
    for trigger in (tab.select, causal.input, pad.change, rows.change):
        on(trigger, mask_lab, lab_in, [out], **COMMON)
    return tab


def mask_lab(vals: dict[str, Any] | None, causal: bool, pad: Any, rows: Any) -> str:
    return expired_message() if vals is None else mask_lab_views(vals, causal, pad, rows)


def build_scaling_lab() -> Any:
    with gr.Tab("Scaling lab", id="scaling-lab") as tab:
        gr.Markdown("Why 004 divides by √d_k: q and k are N(0, 1) draws (32 × d_k, float64) from the seed below.")
        with gr.Row():
            d_k = gr.Slider(MIN_DK, MAX_DK, value=64, step=1, label="d_k", elem_id="lab-dk")
            seed = gr.Number(0, precision=0, minimum=0, label="seed")
        fig = gr.Plot(elem_id="scaling-fig", label="scaling")
        words = gr.HTML(elem_id="scaling-words")
    for trigger in (tab.select, d_k.input, seed.input):
        trigger(scaling_views, [d_k, seed], [fig, words], **COMMON)
    return tab


def build_sentence(page: Page, tabs: Any) -> None:
    with gr.Tab("Sentence mode", id="sentence") as tab:
        gr.Markdown(
            "Seed 003's path: a sentence, SimpleTokenizer's tokens and ids (every space is a token), an embedding "
            "per vocabulary entry, then attention with no weights (both normalisations), then trainable attention "
            f"in the workbench. {SENTENCE_NOTE}"
        )
        with gr.Row():
            text = gr.Textbox(SENTENCE, label="sentence", scale=3, elem_id="sentence-text")
            d = gr.Slider(1, 16, value=3, step=1, label="embedding width d")
            seed = gr.Number(69, precision=0, minimum=0, label="seed")
            d_out = gr.Slider(1, 16, value=2, step=1, label="d_out for trainable attention (003: 2)")
        with gr.Row():
            draw = gr.Button("Draw embeddings: nn.Embedding (seed)")
            printed = gr.Button("003's printed embeddings")
            go = gr.Button("Trainable attention on this sentence →", variant="primary", elem_id="sent-go")
        msg = gr.HTML(elem_id="sentence-message")
        with gr.Row():
            tokens = gr.HTML(elem_id="sentence-tokens")
            table = gr.Dataframe(
                value={"data": [["", 0.0]], "headers": ["", "d1"]},
                interactive=True,
                type="array",
                label="embeddings (one row per vocabulary entry; edit any cell)",
                static_columns=[0],
                max_height=300,
                wrap=False,
                elem_id="sentence-emb",
            )
        out = gr.HTML(elem_id="sentence-out")
    ins, outs = [text, d, seed, table, d_out], [table, tokens, out, msg]
    for trigger, action in (
        (tab.select, "text"),
        (text.change, "text"),
        (d.input, "text"),
        (table.input, "edit"),
        (draw.click, "draw"),
        (printed.click, "printed"),
    ):
        trigger(bind(sentence, action), ins, outs, **COMMON)
    on(go.click, bind(on_sentence_go, page, tabs, msg), ins, [tabs, msg, *page.everything()], **COMMON)


def sentence(action: str, text: Any, d: Any, seed: Any, tbl: Any, _d_out: Any) -> list[Any]:
    got = sentence_views(action, text, d, seed, tbl)
    return [got["table"], got["tokens"], got["simplified"], got["message"]]


def on_sentence_go(
    page: Page, tabs: Any, msg: Any, text: Any, d: Any, seed: Any, tbl: Any, d_out: Any
) -> dict[Any, Any]:
    try:
        preset_id, new_shape, nv, got = scenario_values(sentence_scenario(text, d, d_out, seed, tbl))
    except ac.ScenarioError as e:
        gr.Warning(str(e))
        return {msg: vw.message_html([], error=str(e))}
    return {tabs: gr.Tabs(selected="bench"), **page.answer(preset_id, new_shape, nv, got)}


def wire_workbench(page: Page, buttons: dict[str, Any], load_btn: Any) -> None:
    """Every workbench event. Edits send only what changed; every other value lives in the session's state."""
    c, st = page.controls, [page.preset_state, page.vals_state]
    outs = page.everything()
    # an edit lists only what it can change: Gradio's frontend snapshots every listed output per status update
    views = [page.vals_state, *page.views.values()]
    for f in LIVE:  # text boxes use .change: deleting characters fires no .input in gradio 6.31
        trigger = c[f].change if f in ("tokens", "tokens_k", "padding") else c[f].input
        on(trigger, bind(on_control, page, f), [c[f], *st], [*views, page.inputs], **COMMON)
    for f in STRUCTURAL:
        three = [c[f], page.preset_state, page.shape_state, page.vals_state]
        on(c[f].input, bind(on_structure, page, "resize", f), three, outs, **COMMON)
    on(c["seed"].input, bind(on_store, "seed"), [c["seed"], page.vals_state], [page.vals_state], **COMMON)
    for action, btn in buttons.items():
        three = [page.preset_state, page.shape_state, page.vals_state]
        on(btn.click, bind(on_structure, page, action, None), three, outs, **COMMON)
    on(page.preset.input, bind(on_load_preset, page), [page.preset], outs, **COMMON)
    on(load_btn.click, bind(on_load_preset, page), [page.preset], outs, **COMMON)
    on(page.inputs.edit, bind(on_cell, page), st, views, **COMMON)
    on(page.inputs.submit, bind(on_paste, page), st, [*views, page.inputs], **COMMON)
    for k in ("overview", *(f"html_{s}" for s in vw.STEPS)):
        on(page.views[k].click, bind(on_pick, page), st, views, **COMMON)


def wire_share(page: Page, share: dict[str, Any]) -> None:
    st = [page.preset_state, page.vals_state]
    on(share["link"].click, on_link, st, [share["link_box"], page.views["message"]], **COMMON)
    on(share["export"].click, on_export, st, [share["files"], page.views["message"]], **COMMON)
    on(share["upload"].upload, bind(on_file, page), [share["upload"]], page.everything(), **COMMON)


def build() -> gr.Blocks:
    first = values_from_scenario(ac.parse(ac.get_preset(DEFAULT_PRESET).scenario))
    first["seed"] = 42
    # delete_cache: gradio's copies of exported files are removed after an hour
    with gr.Blocks(title="Attention Playground", delete_cache=(600, 3600)) as demo:
        # empty until the page's load event fills them; empty again if STORE dropped this session (sessions.py)
        states = [Slot("preset"), Slot("shape"), Slot("vals")]
        preset, badge, load_btn = build_topbar()
        with gr.Tabs(elem_id="tabs") as tabs:
            with gr.Tab("Workbench", id="bench"):
                controls, buttons, share = build_toolbar(first)
                message = gr.HTML(elem_id="message", js_on_load=PLAIN_JS)
                inputs, overview = build_bench(grids.inputs_html(first, 0))
                explain_panel = gr.HTML(
                    vw.explain_html("", ()), elem_id="explain", js_on_load=EXPLAIN_JS, apply_default_css=False
                )
                learn = learn_ui.build_learn(HEAT_JS)  # "Quiz me" and "Pin and compare" (issue 14)
                notebook = build_notebook()
            views = {"badge": badge, "message": message, "overview": overview, "explain": explain_panel, **notebook}
            page = Page(preset, *states, controls, inputs, {k: views[k] for k in VIEW_KEYS})
            build_mask_lab(page.vals_state)
            build_scaling_lab()
            build_sentence(page, tabs)
            real_model_ui.build(render, bind, {"watch": WATCH_JS, "heat": HEAT_JS}, COMMON)
            train_ui.build_train(sys.modules[__name__], page, tabs)
        wire_workbench(page, buttons, load_btn)
        wire_share(page, share)
        learn_ui.wire_learn(sys.modules[__name__], page, learn)
        demo.unload(bind(train_ui.on_unload, sys.modules[__name__]))
        on(demo.load, bind(on_open, page), [], page.everything(), loads=True, **COMMON)
    return demo


def build_api() -> gr.Blocks:
    """The public API on a Blocks of its own, served under /api (see ``make_app``).

    Its calls get gradio sessions of their own: cheap to make (a couple of blocks, not the page's hundred) and
    few (API_SESSIONS), so a script's calls neither cost a page's session rebuild nor hold its large answers.
    """
    with gr.Blocks(title="Attention Playground API") as api:
        gr.api(compute_api, api_name="compute")
        gr.api(model_attention_api, api_name="model_attention")
        gr.api(train_ui.train_api, api_name="train")
    return api


GRADIO_SESSIONS = 8
"""The page app's gradio session table (``state_session_capacity``), which holds nothing the pages need.

gradio keeps, per session hash, a copy of every block's config with the last value each event took in and gave
out (~130 KB, plus a few MB for a large state), and a script can make any number of session hashes. The pages'
state lives in STORE, so this table can be small: memory stays bounded, and a dropped gradio session costs only
its rebuild (~17 ms) on that page's next event.
"""
API_SESSIONS = 2
"""The API app's gradio session table: each holds the last request and answer (~20 MB for the largest), and every
call without a session hash is a new session; rebuilding one costs well under a millisecond."""


def expired_views() -> list[Any]:
    """Views for an edit whose session the server no longer holds: say so, keep everything on screen."""
    problem = (
        "session: the server holds no state for this page (it was never loaded here, or the server restarted or "
        "dropped it). Reload the page, or open your copy link, to go on; nothing was changed."
    )
    gr.Warning(problem)
    return [vw.message_html([], error=problem) if k == "message" else gr.skip() for k in VIEW_KEYS]


def expired_message() -> str:
    """Just the message of :func:`expired_views`, for handlers that answer in one panel."""
    return expired_views()[VIEW_KEYS.index("message")]


def compute_api(scenario: dict) -> dict:
    """Scaled dot-product attention with every intermediate (attention_core.compute over HTTP and MCP).

    The scenario's keys: "x" (token rows, self-attention) or "x_q", "x_k", "x_v" (cross-attention); "tokens";
    "heads" (1..8); "head_mode" ("concat" | "split"); "layout" ("linear": nn.Linear out x in | "matmul");
    "weights" ({"init": "linear"|"rand"|"randn"|"identity", "seed": int, "w_o": bool} or explicit "W_q", "W_k",
    "W_v" (one matrix per head), "W_o", optional biases "b_q", "b_k", "b_v" (one vector per head) and "b_o");
    "d_out"; "mask" ({"kind": "none"|"causal"|"padding"|"causal+padding"|"custom", "padding": [flags],
    "keep": 0/1 matrix, "fill": "-inf"|"-1e9"|"additive"}); "scale" (true = divide by sqrt(d_k), false, or a
    temperature); "dtype" ("float32" | "float64"); "normalize" ("softmax" | "sum"). At most 64 tokens and width 64.

    Args:
        scenario: the JSON scenario described above; only "x" is required (README: "The compute contract").

    Returns:
        "heads" (per head: q, k, v, scores, scaled, masked, weights, output), "concat", "output", "warnings",
        "weights_used", "tokens". A bad scenario is an error whose message names the field.
    """
    try:
        return ac.compute(scenario)
    except ac.ScenarioError as e:
        raise gr.Error(str(e)) from None


def make_app() -> FastAPI:
    """The server: the API app under /api, the page at /, every request body capped before parsing (limits.py)."""
    app = FastAPI(**limits.app_kwargs())
    demo.state_session_capacity, api.state_session_capacity = GRADIO_SESSIONS, API_SESSIONS  # what launch() sets
    shared = {"enable_monitoring": False, "max_file_size": "1mb", "footer_links": []}
    gr.mount_gradio_app(app, api, path="/api", mcp_server=True, **shared)  # MCP tools at /api/gradio_api/mcp/
    gr.mount_gradio_app(app, demo, path="", css=CSS, **shared)
    return app


compute_api.__name__ = "compute"  # the MCP tool's name


def model_attention_api(request: dict) -> dict:
    """One head of a real model (sentence-transformers/all-MiniLM-L6-v2, 6 layers x 12 heads) step by step.

    The head is recomputed from the hidden state entering its layer with its own weights and biases:
    q = x W_q^T + b_q (and k, v alike), scores = q k^T, scaled = scores / sqrt(32), masked (hidden tokens as
    padding), weights = softmax, output = weights v. It equals the model's own attention weights within 1e-5.

    The request's keys: "sentence" (text, at most 300 characters and 32 WordPiece tokens with [CLS] and [SEP]),
    "layer" (whole number 1..6), "head" (whole number 1..12) and optionally "hide" (a list of 1-based token
    positions hidden from every query in every layer, as padding; 1 is [CLS]).

    Args:
        request: {"sentence": text, "layer": 1..6, "head": 1..12, "hide": [positions]}, "hide" optional.

    Returns:
        the compute result for that head: "heads"[0] with q, k, v, scores, scaled, masked, weights and output
        (rows = tokens), plus "tokens" (WordPiece, [CLS] ... [SEP]), "layer", "head", "label" (L{layer}H{head})
        and "model".
    """
    try:
        return real_model.attention_json(request)
    except ac.ScenarioError as e:
        raise gr.Error(str(e)) from None
    except Exception:  # never a traceback for the client; the server log keeps it
        log.exception("model_attention failed")
        raise gr.Error("model: the model could not be run; the server log says why") from None


model_attention_api.__name__ = "model_attention"  # the MCP tool's name


demo = build()
demo.queue(max_size=64, default_concurrency_limit=2)
api = build_api()
api.queue(max_size=64, default_concurrency_limit=2)

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    torch.set_num_threads(1)  # two queue workers share two cores: one thread each (threads fighting cost 1.6×)
    host = os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1")
    port = int(os.environ.get("GRADIO_SERVER_PORT", "7860"))
    print(f"Attention Playground on http://{host}:{port}/  (API: http://{host}:{port}/api/)", flush=True)
    uvicorn.run(make_app(), host=host, port=port, log_level="warning")
