"""Today's attention in the app, without a browser: the two presets, links, scenario.json, the exported .py and
.ipynb print the app's numbers; each modern control travels and a bad value in it is named; explain follows RoPE,
ALiBi, the window and the shared K."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import nbformat
import pytest
import torch
import torch.nn.functional as F
from nbclient import NotebookClient
from test_variants import hf_rope

import attention_core as ac
from attention_core.export.notebook import scenario_json, to_notebook, to_script
from attention_core.teaching.explain import explain
from ui import pipeline, share, values
from ui.render import tables as vw
from ui.workbench import control_problem

NAMES = ("q", "k", "v", "scores", "scaled", "masked", "weights", "output")
X = [[1.16, 0.23, -0.5, 0.8], [0.57, 1.36, 0.3, -1.1], [4.41, -2.16, 0.9, 0.2], [-0.7, 0.4, 1.5, 0.6],
     [0.1, -0.9, -1.3, 2.0]]  # fmt: skip
EXPORTED = {  # every modern key, in both head modes and layouts, with and without masks and cross-attention
    "everything-concat": {"x": X, "heads": 4, "kv_heads": 2, "d_out": 2, "positions": "rope", "alibi": True,
                          "window": 3, "block_rows": 2, "block_cols": 2, "decode": True,
                          "mask": {"kind": "causal+padding", "padding": [False, False, True, False, False]},
                          "weights": {"init": "linear", "seed": 42}},
    "split-sinusoidal-matmul": {"x": X, "heads": 2, "kv_heads": 1, "head_mode": "split", "layout": "matmul",
                                "positions": "sinusoidal", "window": 2, "weights": {"init": "randn", "seed": 1}},
    "cross-rope-tiles-temperature": {"x_q": X[:3], "x_k": X, "heads": 2, "kv_heads": 1, "block_cols": 2,
                                     "scale": 0.7, "positions": "rope", "rope_base": 500,
                                     "weights": {"init": "linear", "seed": 3}},
    "float64-alibi-decode": {"x": X, "dtype": "float64", "alibi": True, "decode": True, "mask": {"kind": "causal"},
                             "weights": {"init": "linear", "seed": 5}},
}  # fmt: skip


def printed(stdout: str) -> dict[str, str]:
    parts = re.split(r"^## (.*)$", stdout, flags=re.M)[1:]
    return {parts[i].strip(): parts[i + 1].strip() for i in range(0, len(parts), 2)}


def app_prints(s: ac.Scenario) -> dict[str, str]:
    """What the app shows: every head's tables, the heads combined, the tiles' and the decoded output."""
    tr = ac.evaluate(s)
    want = {f"head {h + 1} {n}": vw.torch_print(tr.head(h)[n]) for h in range(tr.heads) for n in NAMES}
    want["combined"] = vw.torch_print(tr.output)
    if tr.tiled is not None:
        want["tiles output"] = vw.torch_print(tr.tiled.output)
    if tr.decoding is not None:
        want["decoded output"] = vw.torch_print(tr.decoding.output)
    return want


def run_script(src: str, tmp_path: Path) -> str:
    path = tmp_path / "attention.py"
    path.write_text(src)
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


@pytest.mark.parametrize("case", EXPORTED)
def test_exported_script_prints_the_apps_modern_numbers(case: str, tmp_path: Path) -> None:
    s = ac.parse(EXPORTED[case])
    got = printed(run_script(to_script(s, case), tmp_path))
    want = app_prints(s)
    for name, text in want.items():  # character for character, as the app prints them
        assert got.get(name) == text, name


def test_exported_script_matches_llama_rope_and_sdpa(tmp_path: Path) -> None:
    """The exported script's numbers against references that share no code with it or the core."""
    sc = {"x": X, "heads": 4, "kv_heads": 2, "d_out": 2, "positions": "rope", "dtype": "float64",
          "mask": {"kind": "causal"}, "weights": {"init": "linear", "seed": 42}}  # fmt: skip
    s = ac.parse(sc)
    src = to_script(s, "llama") + "\nimport json\nprint('## json'); print(json.dumps(output.tolist()))\n"
    got = torch.tensor(json.loads(printed(run_script(src, tmp_path))["json"]), dtype=torch.float64)
    x = torch.tensor(X, dtype=torch.float64)
    q, k, v = (torch.stack([x @ m.T for m in getattr(s.weights, n)]).unsqueeze(0) for n in ("W_q", "W_k", "W_v"))
    q, k = hf_rope(q, k, 10000.0, torch.arange(len(X)))
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)[0]  # (H, T, d)
    torch.testing.assert_close(got, ref, atol=1e-6, rtol=1e-6)  # transformers' RoPE cos, sin are float32


def test_exported_notebook_runs_and_prints_the_same(tmp_path: Path) -> None:
    s = ac.parse(EXPORTED["everything-concat"])
    nb = nbformat.reads(to_notebook(s, "everything"), as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    stdout = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    got = printed(stdout)
    assert all(got.get(n) == t for n, t in app_prints(s).items())
    assert len(nb.cells) == 20  # the 8 usual steps, the tiles and the decoding, each a markdown and a code cell


@pytest.mark.parametrize("case", EXPORTED)
def test_scenario_json_and_links_round_trip_the_modern_keys(case: str) -> None:
    sc = EXPORTED[case]
    explicit = json.loads(json.dumps(scenario_json(ac.parse(sc))))
    assert ac.compute(explicit) == ac.compute(sc)
    back = share.decode_link(share.encode_link(explicit))
    assert ac.compute(back) == ac.compute(sc)


@pytest.mark.parametrize("preset", ["llama-style", "mistral-style"])
def test_todays_presets_load_round_trip_and_link_by_id(preset: str) -> None:
    _, nv, views = pipeline.load_values(preset)
    assert not views.get("refused") and "today's attention" in html.unescape(views["badge"])
    assert ac.compute(values.scenario_from(nv)) == ac.compute(ac.get_preset(preset).scenario)
    assert share.share_link(preset, nv, "http://host/") == f"http://host/?preset={preset}"
    edited = replace(nv, window=2)
    link = share.share_link(preset, edited, "http://host/")
    assert "?scenario=" in link
    query = dict(parse_qsl(urlsplit(link).query))
    _, _, nv2, views2 = share.link_values(query)
    assert nv2.window == 2 and views2["html_masked"] == pipeline.compute_views(preset, edited)["html_masked"]
    assert nv2.seed == nv.seed  # the preset's own (mistral-style's is 7): the link carries it beside the scenario
    assert "left the preset" in views2["badge"] and "window" in views2["badge"]


def test_llama_preset_shows_rotated_q_and_shared_k() -> None:
    _, nv, views = pipeline.load_values("llama-style")
    s = ac.parse(ac.get_preset("llama-style").scenario)
    tr = ac.evaluate(s)
    assert "q after RoPE" in views["html_qkv"] and "q before RoPE" in views["overview"]
    assert "kv head 1, shared" in views["overview"]
    q_after = vw.torch_print(tr.rope.q_rot[0])
    assert html.escape(f"q_after = {q_after}") in views["html_qkv"]
    two = pipeline.compute_views("llama-style", replace(nv, view_head=2))  # head 2 reads the same kv head
    assert "kv head 1, shared" in two["overview"] and "K of kv head 1" in two["html_qkv"]
    assert "(head 2 of 2)" in two["overview"]


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("window", -1, "window: -1 is out of range 0..64 (0 is off)"),
        ("block_rows", 9, "tile B_r: 9 is out of range 1..5"),
        ("block_cols", 2.5, "tile B_c: 2.5 is not a whole number"),
        ("rope_base", 0, "RoPE base: 0 must be above 0"),
        ("positions", "sideways", "positions: 'sideways' is not one of"),
        ("decode", "yes", "KV-cache decoding: must be on or off"),
    ],
)
def test_a_bad_value_in_a_modern_control_is_named_and_the_views_stay(field: str, value: Any, named: str) -> None:
    _, nv, _ = pipeline.load_values("llama-style")
    problem = pipeline.compute_views("llama-style", replace(nv, **{field: value}))

    said = pipeline.worded(control_problem(field, value) or "") or html.unescape(problem["message"])  # (as refused)
    assert named in said
    if not control_problem(field, value):
        assert problem["refused"] and all(problem[k] != "" for k in ("overview", "html_qkv"))


def test_kv_heads_is_structural_and_named_when_it_does_not_divide() -> None:
    shape, nv, _ = pipeline.load_values("llama-style")
    _, two, views = pipeline.restructure_values("resize", "llama-style", shape, replace(nv, kv_heads=2))
    assert two is not None and len(two.W_k["data"]) == 4 and "shared" not in views["overview"]  # one per head
    assert "changed: W_k, W_v, kv heads" in views["badge"]  # the preset was left, named in words
    _, none, refused = pipeline.restructure_values("resize", "llama-style", shape, replace(nv, kv_heads=3))
    assert none is None and "kv heads: kv heads 3 does not divide heads 2" in html.unescape(refused["message"])
    concat = replace(pipeline.load_values("statquest-mha2")[1], kv_heads=1)
    cshape = values.shape_of(pipeline.load_values("statquest-mha2")[1], "linear")
    _, none, refused = pipeline.restructure_values("resize", None, cshape, concat)
    said = html.unescape(refused["message"])
    assert none is None and "kv heads: grouped K and V are shown in head mode split" in said


def test_every_modern_view_appears_only_when_on() -> None:
    _, nv, plain = pipeline.load_values("statquest-masked")
    assert "md-step" not in "".join(plain[f"html_{s}"] for s in vw.STEPS) and "md-card" not in plain["overview"]
    on = replace(nv, alibi=True, window=2, block_rows=1, block_cols=2, decode=True)
    views = pipeline.compute_views("statquest-masked", on)
    assert "ALiBi bias" in views["html_scaled"] and "sliding window: 2" in views["html_masked"]
    assert "online softmax" in views["html_weights"] and "KV-cache decoding" in views["html_output"]
    assert "+ window 2 + ALiBi" in views["overview"] and "KV cache size" in views["overview"]


def test_explain_writes_out_the_rotation_the_bias_and_the_window() -> None:
    s = ac.parse({**ac.get_preset("llama-style").scenario, "alibi": True, "window": 2})
    tr = ac.evaluate(s)
    x = {"q": s.x_q, "k": s.x_k, "v": s.x_v}
    q = explain(tr, 1, "q", 2, 0, x)
    assert "RoPE turns dims 1 and 2" in " ".join(q.lines) and q.value == pytest.approx(float(tr.head(1)["q"][2, 0]))
    last = q.lines[-2]  # q′ = a × cos − b × sin = … : the number it ends on is the cell's
    assert float(last.rsplit("= ", 1)[1]) == pytest.approx(q.value, abs=1e-4)
    k = explain(tr, 1, "k", 3, 1, x)
    assert "of kv head 1, shared by its group" in k.lines[0]
    masked = explain(tr, 1, "masked", 3, 0, x)
    text = " ".join(masked.lines)
    assert "ALiBi bias −m_2·|4 − 1|" in text and "outside the sliding window of 2" in text


def test_tables_csv_gives_each_head_its_groups_w_k() -> None:
    sc = EXPORTED["everything-concat"]
    frame = share.tables_frame(sc, ac.compute(sc))
    w_k = frame[frame.table == "W_k"]
    assert sorted(w_k["head"].unique().tolist()) == [1, 2, 3, 4]
    one, two = (w_k[w_k["head"] == h]["value"].tolist() for h in (1, 2))
    assert one == two  # heads 1 and 2 share kv head 1's W_k


def test_explain_a_tiles_m_and_l_and_an_alibi_term() -> None:
    s = ac.parse({**ac.get_preset("llama-style").scenario, "alibi": True, "block_rows": 2, "block_cols": 2})
    tr = ac.evaluate(s)
    x = {"q": s.x_q, "k": s.x_k, "v": s.x_v}
    masked = tr.head(1)["masked"][3].double()  # row 4 of head 2, the whole row at once
    m = explain(tr, 1, "tiles", 3, 0, x)
    l = explain(tr, 1, "tiles", 3, 1, x)
    assert m.value == pytest.approx(float(masked.max()), abs=1e-6)
    assert l.value == pytest.approx(float(torch.exp(masked - masked.max()).sum()), rel=1e-5)
    assert [ln.split(":")[0] for ln in l.lines[1::2][:3]] == ["keys 1–2", "keys 3–4", "key 5"]
    b = explain(tr, 1, "alibi_bias", 3, 1, x)
    assert b.value == pytest.approx(-(2**-8) * 2) and "−0.0039 × 2" in b.lines[1]  # 2 heads: m_2 = 2^-8
