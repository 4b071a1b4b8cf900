"""Share · export: links to the exact state, scenario.json, attention.py and attention.ipynb, loading a file."""

from __future__ import annotations

import base64
import dataclasses
import json
import secrets
import threading
import zlib
from collections import OrderedDict
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import gradio as gr
import numpy as np
import pandas as pd

import attention_core as ac
from attention_core import export_title, to_notebook, to_script
from serving.export_folders import ExportFolders
from ui.live import ASKS
from ui.pipeline import current_scenario, current_text, expired_message, load_values, scenario_values
from ui.render import match_badge
from ui.render import tables as vw
from ui.values import DEFAULT_PRESET, PageValues, page_seed
from ui.wiring import COMMON, Page, bind, on

MAX_LINK = 16_000  # characters of an encoded scenario in a link (uvicorn refuses request lines past ~16 KB)


MAX_LINK_JSON = 1_000_000  # bytes of JSON after decompression


def encode_link(scenario: dict[str, Any]) -> str:
    """A scenario as the ``?scenario=`` value of a shareable link: URL-safe base64 of its zlib-compressed JSON."""
    return encode_text(json.dumps(scenario, separators=(",", ":")))


def encode_text(text: str) -> str:
    """:func:`encode_link` of a scenario already written as compact JSON."""
    return base64.urlsafe_b64encode(zlib.compress(text.encode(), 9)).decode().rstrip("=")


def decode_link(text: str, limit: int = MAX_LINK) -> dict[str, Any]:
    """The inverse of encode_link; JSON only, size-capped before (``limit`` characters: a link's, or a short link's
    state kept here) and after decompression, errors name 'link'."""
    if len(text) > limit:
        raise ac.ScenarioError("link", f"the encoded scenario has {len(text)} characters; at most {limit}")
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


class ShortLinks:
    """Short ids for the links' state part (``preset=…`` or ``scenario=…``), kept in this server process: at most
    ``size`` ids and ``chars`` characters in all, the oldest dropped first, all lost when the server restarts
    (docs/projector.md says so). Thread-safe: gradio's workers share it."""

    def __init__(self, size: int = 10_000, chars: int = 8_000_000) -> None:
        self.size, self.chars, self.total = size, chars, 0
        self.links: OrderedDict[str, str] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, state: str) -> str:
        """A new id (8 URL-safe characters, 48 random bits) for ``state``."""
        key = secrets.token_urlsafe(6)
        with self.lock:
            self.links[key] = state
            self.total += len(state)
            while len(self.links) > self.size or self.total > self.chars:
                self.total -= len(self.links.popitem(last=False)[1])
        return key

    def get(self, key: str) -> str:
        with self.lock:
            state = self.links.get(key)
        if state is None:
            raise ac.ScenarioError(
                "link", f"the short link {key[:20]!r} is not known to this server (short links last until it "
                f"restarts or {self.size} newer ones are made); ask for the full link"
            )  # fmt: skip
        return state


SHORT = ShortLinks()
# the view's part of a link (static/address.js)
VIEW_KEYS = ("tab", "d_k", "lab_seed", "causal", "pad", "rows", "present", "t")


def view_query(page_url: str | None) -> str:
    """The view's part of the page's address (``&tab=…&d_k=…&present=…``), to carry into a link made from it."""
    query = dict(parse_qsl(urlsplit(page_url or "").query))
    kept = {k: query[k][:40] for k in VIEW_KEYS if query.get(k)}
    return f"&{urlencode(kept)}" if kept else ""


def link_values(
    query: dict[str, str], limit: int = MAX_LINK
) -> tuple[str | None, dict[str, Any], PageValues, dict[str, Any]]:
    """Open ``?preset=<id>`` (``&head_shown=<n>``: on that head), ``?scenario=<encoded>`` or ``?s=<short id>``, and
    ``&seed=<n>``, the seed box's (what a resize or an init button draws new weights from: :func:`seed_query`),
    beside the state or inside a short id's; a bad link falls back to the default preset, and a bad seed to the
    state's own, each named in the message. ``limit``: the encoded scenario's characters at most (a short id's state,
    kept here, may be past a link's: the address of a large state, :func:`state_query`)."""
    preset_id, new_shape, nv, got, problems = state_of_link(query, limit)
    seed = query.get("seed", problems.pop("seed", None))
    if seed is not None:
        try:
            nv = dataclasses.replace(nv, seed=page_seed(seed[:40]))  # (the box shows it: what it holds exactly)
        except ac.ScenarioError as e:
            problems["seed"] = f"{e}; the seed box keeps {nv.seed}"
    if problems:
        got["message"] = vw.message_html([], error="; ".join(problems.values()))
    return preset_id, new_shape, nv, got


def own_seed(query: dict[str, str]) -> int:
    """The seed a state's part of a link opens with when it names none: a preset's as it is (none named: the default
    preset's), else 42 (a scenario's weights are explicit: scenario_values)."""
    preset = query.get("preset", DEFAULT_PRESET if not query else None)
    return int(ac.get_preset(preset).scenario.get("weights", {}).get("seed", 42)) if preset in ac.preset_ids() else 42


def seed_query(query: dict[str, str], v: PageValues) -> dict[str, str]:
    """``query`` (a state's part of a link) with ``seed`` when the seed box's is not the one that state opens with
    (a learner who set seed 99 and reloads sees 99, and a resize draws 99's rows, as before the reload)."""
    return query if v.seed == own_seed(query) else {**query, "seed": str(v.seed)}


def state_of_link(
    query: dict[str, str], limit: int = MAX_LINK
) -> tuple[str | None, dict[str, Any], PageValues, dict[str, Any], dict[str, str]]:
    """:func:`link_values`' state before its seed, and what to say: ``{"link": its problem}`` when it fell back to
    the default preset; ``{"seed": n}`` is a short id's own seed (a share link's: ``preset=…&seed=…``)."""
    try:
        if "s" in query:
            kept = dict(parse_qsl(SHORT.get(query["s"])))
            *state, problems = state_of_link(kept, limit=MAX_LINK_JSON)
            return (*state, {**problems, "seed": kept["seed"]} if "seed" in kept else problems)
        if "scenario" in query:
            return (*scenario_values(decode_link(query["scenario"], limit)), {})
        if "preset" in query:
            if query["preset"] not in ac.preset_ids():
                raise ac.ScenarioError("preset", f"{query['preset'][:40]!r} is not a preset id")
            if "head_shown" in query:  # the preset as it is, shown on another head
                return (*scenario_values({**ac.scenario_of(query["preset"]), "head_shown": query["head_shown"]}), {})
            return (query["preset"], *load_values(query["preset"]), {})
    except ac.ScenarioError as e:
        return (DEFAULT_PRESET, *load_values(DEFAULT_PRESET), {"link": f"{e}; showing the default preset instead"})
    return (DEFAULT_PRESET, *load_values(DEFAULT_PRESET), {})


EXPORTS = ExportFolders(ttl_s=600)  # a private mkdtemp per export; this process's older than 10 min go at the next


def preset_query(preset_id: str | None, s: ac.Scenario, head: int) -> dict[str, str] | None:
    """``{"preset": id}`` (and ``head_shown`` past head 1: ``head``, 1-based) while the preset ``s`` came from is
    untouched, else None."""
    if preset_id and not match_badge.same_scenario(s, match_badge.preset_scenario(preset_id)):
        return {"preset": preset_id, **({"head_shown": str(head)} if head > 1 else {})}
    return None


def share_link(preset_id: str | None, v: PageValues, page_url: str | None) -> str:
    """A link that opens exactly this state, on the head shown: ``?preset=<id>`` (``&head_shown=<n>`` past head 1)
    while the preset is untouched, else the scenario (which names the head shown itself); ``&seed=<n>`` when the
    seed box's is not the state's own (:func:`seed_query`)."""
    base = (page_url or "").split("?", 1)[0].split("#", 1)[0] or "/"
    s, sc = current_scenario(preset_id, v)
    if as_preset := preset_query(preset_id, s, sc.get("head_shown", 1)):
        return f"{base}?{urlencode(seed_query(as_preset, v))}"
    code = encode_link(sc)
    if len(code) > MAX_LINK:
        problem = f"this state needs {len(code)} characters, more than a link holds ({MAX_LINK}); save a file"
        raise ac.ScenarioError("link", problem)
    return f"{base}?{urlencode(seed_query({'scenario': code}, v))}"


def state_query(preset_id: str | None, v: PageValues) -> dict[str, str] | None:
    """The state's part of the page's address, which static/address.js writes there after each answer, so a reload
    or the address copied opens this state: none for the default preset as it is, ``preset`` (and ``head_shown``)
    for a preset as it is, else ``scenario`` (as :func:`share_link`); a state past a link's size, a short link's
    ``s`` (kept by this server, :class:`ShortLinks`); None past what a short link holds either (``MAX_LINK_JSON``
    bytes of JSON, such as 64 tokens of 64 dims with 8 heads' own weights: only a file holds it). Each with ``seed``
    when the seed box's is not the state's own (:func:`seed_query`). The JSON's size is known before it is
    compressed, so such a state costs no compression (a 1.2 MB state: ~0.1 s instead of ~0.4 s), and its weights'
    text is written once for their bytes (pipeline.current_text): after an x edit of that state, 10 ms, not 250."""
    s, head, text = current_text(preset_id, v)
    if as_preset := preset_query(preset_id, s, head):
        return seed_query({} if as_preset == {"preset": DEFAULT_PRESET} else as_preset, v)
    if len(text) > MAX_LINK_JSON:
        return None
    code = encode_text(text)
    return seed_query({"s": SHORT.add(f"scenario={code}")} if len(code) > MAX_LINK else {"scenario": code}, v)


def address_answer(entry: dict[str, Any]) -> dict[str, Any]:
    """The grid's ``{"kind": "address"}`` ask (ui/live.py ASKS): ``{"address": state_query}`` of the page's stored
    state (None: no address holds it, the address keeps none), or ``{}`` when the server holds none. The answer is
    kept beside the state it is for: asked again for the same state (a tab changed, a stage), nothing is computed."""
    vals = entry.get("vals")
    if vals is None:
        return {}
    kept = entry.get("address")
    if kept is not None and kept[0] is vals and kept[1] == entry.get("preset"):
        return {"address": kept[2]}
    query = state_query(entry.get("preset"), vals)
    entry["address"] = (vals, entry.get("preset"), query)
    return {"address": query}


ASKS["address"] = address_answer


def export_files(preset_id: str | None, v: PageValues) -> list[str]:
    """scenario.json, attention.py and attention.ipynb for the on-screen state, in a fresh folder."""
    s, sc = current_scenario(preset_id, v)
    title = title_of(preset_id, s)
    folder = EXPORTS.new()
    files = {
        "scenario.json": json.dumps(sc, indent=1),
        "attention.py": to_script(s, title),
        "attention.ipynb": to_notebook(s, title),
    }
    for name, text in files.items():
        (folder / name).write_text(text)
    return [str(folder / name) for name in files]


def title_of(preset_id: str | None, s: ac.Scenario) -> str:
    """The exports' title: the preset's, with ", edited (changed: …)" once the state is no longer that preset."""
    if not preset_id:
        return export_title(None)
    p = ac.get_preset(preset_id)
    return export_title(p.title, match_badge.same_scenario(s, ac.parse(p.scenario)))


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


def on_open(page: Page, request: gr.Request) -> dict[Any, Any]:
    """The page's load: the state its link names (the picker shows its preset, or none for a state of its own)."""
    query = dict(request.query_params) if request else {}
    preset_id, new_shape, nv, got = link_values(query)
    out = page.answer(preset_id, new_shape, nv, got)
    if preset_id == DEFAULT_PRESET and not {"scenario", "head_shown", "s"} & set(query):
        # the state the page was built with: the picker, the controls and the grids are left as they are, with any
        # number or control the learner has already changed (the page holds those edits until this answer has come,
        # static/grid.js, and the controls' events wait for them); but the seed box, when the link names a seed
        for c in (page.preset, *page.controls.values(), page.inputs):
            if c is not page.controls.get("seed") or nv.seed == own_seed({}):
                out[c] = gr.skip()
    return out


def on_file(page: Page, path: str | None) -> dict[Any, Any]:
    try:
        preset_id, new_shape, nv, got = scenario_values(read_scenario_file(path))
    except ac.ScenarioError as e:
        problem = str(e) if e.field == "scenario file" else f"scenario file: {e}"
        gr.Warning(problem)
        return {page.views["message"]: vw.message_html([], error=problem)}
    return page.answer(preset_id, new_shape, nv, got)


def short_link(link: str) -> str:
    """The short form of a link share_link made: its state part kept here under an id, its view part as it is."""
    base, state = link.split("?", 1)
    return f"{base}?s={SHORT.add(state)}"


def on_link(preset_id: str | None, vals: PageValues | None, request: gr.Request) -> list[Any]:
    if vals is None:
        return [gr.skip(), gr.skip(), expired_message()]
    page = request.headers.get("referer") if request else None
    try:
        link = share_link(preset_id, vals, page)
    except ac.ScenarioError as e:
        gr.Warning(str(e))
        return ["", "", vw.message_html([], error=str(e))]
    view = view_query(page)
    return [link + view, short_link(link) + view, gr.skip()]


def on_export(preset_id: str | None, vals: PageValues | None) -> list[Any]:
    if vals is None:
        return [gr.skip(), expired_message()]
    try:
        return [export_files(preset_id, vals), gr.skip()]
    except ac.ScenarioError as e:
        gr.Warning(str(e))
        return [gr.skip(), vw.message_html([], error=str(e))]


def build_share() -> dict[str, Any]:
    with gr.Accordion("Share · export", open=False, elem_id="share"):
        with gr.Row():
            link_btn = gr.Button("Make a link to this exact state", elem_id="link-btn")
            export_btn = gr.Button("Export scenario.json, attention.py, attention.ipynb", elem_id="export-btn")
            tables_btn = gr.Button("Download every table (CSV)", elem_id="tables-btn")
            upload_btn = gr.UploadButton(
                "Load a scenario file (.json)", file_types=[".json"], type="filepath", elem_id="upload-btn"
            )
        link_box = gr.Textbox(label="link (opens this exact state)", buttons=["copy"], elem_id="link")
        short_box = gr.Textbox(
            label="short link (kept by this server until it restarts; the link above never expires)",
            buttons=["copy"],
            elem_id="short-link",
        )
        downloads = gr.File(
            label="downloads (run attention.py with torch alone)",
            file_count="multiple",
            interactive=False,
            elem_id="downloads",
        )
    return {"link": link_btn, "export": export_btn, "tables": tables_btn, "upload": upload_btn, "link_box": link_box,
            "short_box": short_box, "files": downloads}  # fmt: skip


def wire_share(page: Page, share: dict[str, Any]) -> None:
    st = [page.preset_state, page.vals_state]
    outs = [share["link_box"], share["short_box"], page.views["message"]]
    # (each reads the state once the events that left before it are stored: a box typed in and the button clicked
    # at once made the link of the state before the box's value, under a page that showed it)
    on(share["link"].click, on_link, st, outs, reads=True, **COMMON)
    on(share["export"].click, on_export, st, [share["files"], page.views["message"]], reads=True, **COMMON)
    on(share["tables"].click, on_tables, st, [share["files"], page.views["message"]], reads=True, **COMMON)
    on(share["upload"].upload, bind(on_file, page), [share["upload"]], page.everything(), writes=True, **COMMON)


# ---- every table of the on-screen state as one CSV (pandas) ----------------------------------------------------


def tables_frame(sc: dict[str, Any], result: dict[str, Any]) -> pd.DataFrame:
    """Every table of a state in long form, one row per number: table, head (1-based; blank for the inputs, W_o, the
    heads combined and split mode's shared weights), row and col (the labels on screen: tokens, d1, d2, ...; out1,
    in1, ... for weights), i and j (0-based), value (the number as the screen writes it: float32's or
    float64's shortest text, "-inf" where masked). ``frame.pivot(index="i", columns="j", values="value")`` of one
    table and head gives back its matrix.

    ``sc`` is the explicit scenario JSON, ``result`` its ``attention_core.compute`` answer."""
    rows: list[dict[str, Any]] = []
    dtype = np.float32 if result["dtype"] == "float32" else np.float64
    tokens, tokens_k = result["tokens"], result["tokens_k"]
    used = result["weights_used"]
    w_rows, w_cols = ("out", "in") if used["layout"] == "linear" else ("in", "out")  # as the weight tables say

    def add(name: str, head: int | None, m: list[list[Any]], row_labels: list[str] | str, col: str = "d") -> None:
        texts = np.array([[float(v) for v in r] for r in m], dtype=np.float64).astype(dtype).astype(str)
        for i, line in enumerate(texts.tolist()):
            row = row_labels[i] if isinstance(row_labels, list) else f"{row_labels}{i + 1}"
            for j, text in enumerate(line):
                cl = tokens_k[j] if col == "key" else f"{col}{j + 1}"
                rows.append({"table": name, "head": head, "row": row, "col": cl, "i": i, "j": j, "value": text})

    for name in ("x", "x_q", "x_k", "x_v"):
        if name in sc:
            add(name, None, sc[name], tokens if name in ("x", "x_q") else tokens_k)
    per_head = len(used["W_q"]) == len(result["heads"])  # concat: one per head; split: one for all the heads
    kv_of = result.get("head_map") or list(range(len(result["heads"])))  # grouped-query: a group shares W_k, W_v
    for h, head in enumerate(result["heads"], start=1):
        for name in ("W_q", "W_k", "W_v"):
            if per_head or h == 1:
                m = used[name][h - 1 if name == "W_q" or not per_head else kv_of[h - 1]]
                add(name, h if per_head else None, m, w_rows, w_cols)
        for name in ("q", "k", "v"):
            add(name, h, head[name], tokens if name == "q" else tokens_k)
        for name in ("scores", "scaled", "masked", "weights"):
            add(name, h, head[name], tokens, "key")
        add("output", h, head["output"], tokens)
    if used.get("W_o") is not None:
        add("W_o", None, used["W_o"], w_rows, w_cols)
    if len(result["heads"]) > 1 or used.get("W_o") is not None:
        add("combined", None, result["output"], tokens)
    return pd.DataFrame(rows, columns=["table", "head", "row", "col", "i", "j", "value"]).astype({"head": "Int64"})


def tables_csv(preset_id: str | None, v: PageValues) -> list[str]:
    """tables.csv (:func:`tables_frame`) for the on-screen state, in a fresh export folder."""
    _, sc = current_scenario(preset_id, v)
    path = EXPORTS.new() / "tables.csv"
    tables_frame(sc, ac.compute(sc)).to_csv(path, index=False)
    return [str(path)]


def on_tables(preset_id: str | None, vals: PageValues | None) -> list[Any]:
    if vals is None:
        return [gr.skip(), expired_message()]
    try:
        return [tables_csv(preset_id, vals), gr.skip()]
    except ac.ScenarioError as e:
        gr.Warning(str(e))
        return [gr.skip(), vw.message_html([], error=str(e))]
