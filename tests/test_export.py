"""Export and share: the .py and .ipynb print the app's tensors; scenario files and links round-trip."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest
import torch
from nbclient import NotebookClient
from reference import reference
from torch import nn

import attention_core as ac
from attention_core.export.notebook import plain, scenario_json, scenario_text, to_notebook, to_script
from ui import pipeline, share, values
from ui.render import tables as vw

STEP_OF = {"q": "qkv", "k": "qkv", "v": "qkv"}
NAMES = ("q", "k", "v", "scores", "scaled", "masked", "weights", "output")

VARIED = {  # states no preset has: every fill, divide-by-sum, temperature, float64, split with W_o, padding
    "split-wo-matmul-additive": {"x": [[0.5, -1, 2, 0.25], [1, 0, -0.5, 3], [2, 1, 0, -1]], "heads": 2,
                                 "head_mode": "split", "layout": "matmul",
                                 "weights": {"init": "randn", "seed": 3, "w_o": True},
                                 "mask": {"kind": "causal", "fill": "additive"}},
    "fully-masked-inf": {"x": [[1, 2], [3, 4], [0.5, -1]], "weights": {"init": "linear", "seed": 5},
                         "mask": {"kind": "custom", "keep": [[0, 0, 0], [1, 1, 0], [1, 1, 1]], "fill": "-inf"}},
    "fully-masked-1e9-temp": {"x": [[1, 2], [3, 4]], "weights": {"init": "linear", "seed": 5}, "scale": 0.5,
                              "mask": {"kind": "custom", "keep": [[0, 0], [1, 1]], "fill": "-1e9"}},
    "sum-float64-padding": {"x": [[0.2, 0.9, 0.4], [0.5, 0.1, 0.8], [0.3, 0.3, 0.3]], "dtype": "float64",
                            "normalize": "sum", "scale": False, "weights": {"init": "rand", "seed": 69},
                            "mask": {"kind": "causal+padding", "padding": [False, False, True], "fill": "-inf"}},
    "cross-3-heads": {"x_q": [[1, 0], [0, 1]], "x_k": [[1, 1], [2, 0], [0, 3]], "x_v": [[1, 2], [3, 4], [5, 6]],
                      "heads": 3, "weights": {"init": "linear", "seed": 9}},
}  # fmt: skip


def printed(stdout: str) -> dict[str, str]:
    """'## head 1 q' / '## combined' blocks of an export's output -> their tensor text."""
    parts = re.split(r"^## (.*)$", stdout, flags=re.M)[1:]
    return {parts[i].strip(): parts[i + 1].strip() for i in range(0, len(parts), 2)}


def app_prints(s: ac.Scenario) -> dict[str, str]:
    tr = ac.evaluate(s)
    want = {f"head {h + 1} {n}": vw.torch_print(tr.head(h)[n]) for h in range(tr.heads) for n in NAMES}
    return want | {"combined": vw.torch_print(tr.output)}


def shown_by_app(preset: str) -> dict[str, str]:
    """What the app itself shows for head 1 (the text in each step's print box)."""
    _, _, views = pipeline.load_values(preset)
    boxes = {step: html.unescape(views[f"html_{step}"].split("<pre class='tensor'>")[1].split("</pre>")[0])
             for step in vw.STEPS}  # fmt: skip
    out = {f"head 1 {n}": boxes[n] for n in ("scores", "scaled", "masked", "weights", "output")}
    for n in ("q", "k", "v"):
        out[f"head 1 {n}"] = boxes["qkv"].split(f"{n} = ")[1].split("\n" + {"q": "k", "k": "v", "v": "@"}[n])[0]
    return out | {"combined": boxes["combine"]}


def run_script(src: str, tmp_path: Path) -> str:
    path = tmp_path / "attention.py"
    path.write_text(src)
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


@pytest.mark.parametrize("preset", ac.preset_ids())
def test_exported_script_prints_what_the_app_shows(preset: str, tmp_path: Path) -> None:
    s = ac.parse(ac.get_preset(preset).scenario)
    got = printed(run_script(to_script(s, preset), tmp_path))
    want = app_prints(s)
    assert got.keys() == want.keys()
    for name, text in want.items():
        assert got[name] == text, name
    for name, text in shown_by_app(preset).items():  # and the boxes on the page, character for character
        assert got[name] == text, name


@pytest.mark.parametrize("case", VARIED)
def test_exported_script_matches_states_no_preset_covers(case: str, tmp_path: Path) -> None:
    s = ac.parse(VARIED[case])
    got = printed(run_script(to_script(s, case), tmp_path))
    assert got == app_prints(s)
    if s.keep is not None and not bool(s.keep.any(dim=-1).all()):
        assert "nan" not in " ".join(got.values())  # fully masked rows: defined like the app, never NaN


@pytest.mark.parametrize("preset", ["statquest-mha2", "qkv-masked", "numpy-masked"])
def test_exported_notebook_executes_and_prints_the_same(preset: str, tmp_path: Path) -> None:
    s = ac.parse(ac.get_preset(preset).scenario)
    nb = nbformat.reads(to_notebook(s, preset), as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    stdout = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert printed(stdout) == app_prints(s)
    assert [c.cell_type for c in nb.cells][:2] == ["markdown", "code"] and len(nb.cells) == 16


@pytest.mark.parametrize("preset", ac.preset_ids())
def test_scenario_json_round_trips_through_compute(preset: str) -> None:
    sc = ac.get_preset(preset).scenario
    explicit = json.loads(json.dumps(scenario_json(ac.parse(sc), preset)))
    assert explicit["preset"] == preset and "init" not in explicit["weights"]  # every number written out
    assert ac.compute(explicit) == ac.compute(sc)


TEXT_CASES = {  # large float32 tensors (kept texts) beside small ones, cross-attention, biases, odd tokens
    "large": {
        "x": torch.randn(48, 40, generator=torch.Generator().manual_seed(5)).tolist(),
        "heads": 4,
        "d_out": 40,
        "weights": {"init": "linear", "seed": 1},
        "tokens": [f't{i}\u0000"é😀' for i in range(48)],
    },
    "cross": {
        "x_q": torch.randn(2, 32).tolist(),
        "x_k": torch.randn(40, 32).tolist(),
        "x_v": torch.randn(40, 32).tolist(),
        "heads": 1,
        "d_out": 48,
        "weights": {"init": "linear", "seed": 2},
    },
    "float64": {
        "x": torch.randn(40, 40, dtype=torch.float64).tolist(),
        "dtype": "float64",
        "weights": {"init": "linear", "seed": 3},
    },
}


@pytest.mark.parametrize("case", [*ac.preset_ids()[:4], *TEXT_CASES])
def test_scenario_text_is_the_json_of_the_scenario_character_for_character(case: str) -> None:
    """attention_core scenario_text, the page's address (ui/share.py state_query), writes each large float32
    tensor's text once for its bytes: it is json.dumps of scenario_json, twice running (the second from the kept
    texts), the head shown included; and a kept tensor's lists, changed by whoever got them, change nothing kept."""
    sc = TEXT_CASES.get(case) or ac.get_preset(case).scenario
    s = ac.parse(sc)
    want = json.dumps(scenario_json(s, None, 2), separators=(",", ":"))
    assert scenario_text(s, None, 2) == want
    assert scenario_text(s, None, 2) == want  # (from the kept texts)
    big = next((t for t in (s.x_k, s.weights.W_q) if t.dtype == torch.float32 and t.numel() >= 1024), None)
    if big is not None:
        got = plain(big)
        got[0][0] = "changed"
        assert plain(big)[0][0] != "changed"
        assert torch.equal(torch.tensor(plain(big), dtype=torch.float32).view(torch.int32), big.view(torch.int32))


def state(preset: str) -> values.PageValues:
    return pipeline.load_values(preset)[1]


def test_export_files_then_load_the_scenario_file_back(tmp_path: Path) -> None:
    v = state("encdec-mha2")
    v = replace(v, x=[[r[0], *r[1:]] for r in v.x["data"]])
    v.x[1][2] = "0.125"  # an edit, so this is no longer the preset's state
    paths = [Path(p) for p in share.export_files("encdec-mha2", v)]
    assert [p.name for p in paths] == ["scenario.json", "attention.py", "attention.ipynb"]
    preset_id, _, _, views = pipeline.scenario_values(share.read_scenario_file(str(paths[0])))
    assert preset_id == "encdec-mha2" and "left the preset" in views["badge"] and "x_q" in views["badge"]
    assert views["html_combine"] == pipeline.compute_views("encdec-mha2", v)["html_combine"]
    got = printed(run_script(paths[1].read_text(), tmp_path))
    assert got["combined"] == vw.torch_print(ac.evaluate(ac.parse(values.scenario_from(v))).output)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{not json", "is not valid JSON"),
        (b"[1, 2]", "not an object"),
        (b"\xff\xfe\x00binary", "is not text"),
        (b"{" + b" " * 1_000_001 + b"}", "at most 1000000"),
        (b'{"x": [[1, "abc"]]}', "x row 1, column 2: 'abc' is not a number"),
        (b'{"x": [[1, 2, 3]], "heads": 2, "head_mode": "split", "weights": {"init": "linear"}}', "heads"),
    ],
)
def test_a_bad_scenario_file_gets_a_message_naming_the_problem(content: bytes, problem: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(ac.ScenarioError) as e:
        pipeline.scenario_values(share.read_scenario_file(str(path)))
    assert problem in str(e.value)


def test_links_name_the_preset_until_an_edit_then_carry_the_scenario() -> None:
    v = state("statquest-masked")
    assert (
        share.share_link("statquest-masked", v, "http://host/app/?preset=x#top")
        == "http://host/app/?preset=statquest-masked"
    )
    v = replace(v, x=[[r[0], *r[1:]] for r in v.x["data"]])
    v.x[0][1] = "9"
    link = share.share_link("statquest-masked", v, "http://host/")
    assert link.startswith("http://host/?scenario=")
    preset_id, _, _, views = share.link_values({"scenario": link.split("=", 1)[1]})
    assert (
        preset_id == "statquest-masked" and views["html_output"] == pipeline.compute_views(preset_id, v)["html_output"]
    )


def test_a_state_too_big_for_a_link_says_to_save_a_file() -> None:
    v = state("statquest-self")
    v = replace(v, T=64, d_in=64, d_out=64, heads=8)
    _, nv, _ = pipeline.restructure_values("resize", None, values.shape_of(state("statquest-self"), "linear"), v)
    with pytest.raises(ac.ScenarioError, match=r"link: .* save a file"):
        share.share_link(None, nv, "http://host/")


# ---- the export against the independent reference (tests/reference.py) and nn.MultiheadAttention ----------

TOKEN = re.compile(r"-?(?:inf|nan|\d+\.?\d*(?:e[-+]?\d+)?)")
AGAINST_REFERENCE = {**VARIED,
    "sum-1e9-causal": {"x": [[1, 2], [3, 4]], "weights": {"init": "identity"}, "normalize": "sum",
                       "mask": {"kind": "causal", "fill": "-1e9"}},
    "wide-w-o": {"x": [[0.5, -1], [1, 2]], "heads": 2, "d_out": 33, "weights": {"init": "linear", "seed": 4,
                 "w_o": True}},
    "cross-causal-padding-L<S": {"x_q": [[1, 0], [0, 1]], "x_k": [[1, 1], [2, 0], [0, 3], [1, 2]],
                                 "heads": 2, "head_mode": "split", "normalize": "sum", "dtype": "float64",
                                 "mask": {"kind": "causal+padding", "padding": [True, False, False, False],
                                          "fill": "additive"}},
}  # fmt: skip


def assert_prints(text: str, want: torch.Tensor, what: str) -> None:
    """A torch print shows ``want``: every printed number is the reference's at the print's own precision."""
    body = text.split("tensor(", 1)[1].split("dtype=", maxsplit=1)[0]
    tokens = TOKEN.findall(body)
    values = want.flatten().tolist()
    assert len(tokens) == len(values), (what, text)
    for token, v in zip(tokens, values, strict=True):
        mantissa, _, exp = token.partition("e")
        half = 0.5 * 10.0 ** (int(exp or 0) - len(mantissa.partition(".")[2]))
        assert abs(float(token) - v) <= half * (1 + 1e-6) + 1e-6 * abs(v), (what, token, v)


@pytest.mark.parametrize("case", AGAINST_REFERENCE)
def test_exported_script_prints_the_reference_numbers(case: str, tmp_path: Path) -> None:
    sc = AGAINST_REFERENCE[case]
    got = printed(run_script(to_script(ac.parse(sc), case), tmp_path))
    ref = reference(sc)
    for h, (w, out) in enumerate(zip(ref["weights"], ref["outputs"], strict=True)):
        assert_prints(got[f"head {h + 1} weights"], w, f"head {h + 1} weights")
        assert_prints(got[f"head {h + 1} output"], out, f"head {h + 1} output")
    assert_prints(got["combined"], ref["combined"], "combined")


@pytest.mark.parametrize("masked", [False, True])
def test_exported_split_script_with_w_o_prints_what_nn_multihead_attention_computes(
    masked: bool, tmp_path: Path
) -> None:
    mask = {"kind": "causal" if masked else "none"}
    sc = {"x": [[0.5, -1, 2, 0.25], [1, 0, -0.5, 3], [2, 1, 0, -1]], "heads": 2, "head_mode": "split",
          "weights": {"init": "linear", "seed": 3, "w_o": True}, "mask": mask}  # fmt: skip
    got = printed(run_script(to_script(ac.parse(sc), "mha"), tmp_path))
    W = reference(sc)["W"]  # the seed's nn.Linear draws, as apply-matrices (x @ W)
    mha = nn.MultiheadAttention(4, 2, bias=False, batch_first=True)
    with torch.no_grad():  # in_proj is [W_q; W_k; W_v] stacked out×in; out_proj out×in
        mha.in_proj_weight.copy_(torch.cat([W["W_q"][0].T, W["W_k"][0].T, W["W_v"][0].T]))
        mha.out_proj.weight.copy_(W["W_o"].T)
    x = torch.tensor(sc["x"])[None]
    attn_mask = torch.ones(3, 3, dtype=torch.bool).triu(1) if masked else None  # True = not allowed
    out, attn = mha(x, x, x, attn_mask=attn_mask, average_attn_weights=False)
    assert_prints(got["combined"], out[0].detach(), "combined")
    for h in range(2):
        assert_prints(got[f"head {h + 1} weights"], attn[0, h].detach(), f"head {h + 1} weights")


def test_exported_values_are_written_as_the_page_shows_them_and_read_back_bit_for_bit(tmp_path: Path) -> None:
    """Issue 37: a float32 1.16 is exported as 1.16, not 1.159999966621399 (the float64 nearest to the float32),
    in the script, the notebook and the scenario file; each reads back as the same float32, and the script still
    prints what the app shows."""
    s = ac.parse({"x": [[1.16, -0.43], [0.57, 1.36], [4.34, -1.22]], "d_out": 2,
                  "weights": {"init": "linear", "seed": 42}})  # fmt: skip
    src = to_script(s, "typed")
    assert "[1.16, -0.43]" in src and "1.159999966621399" not in src
    assert json.dumps(scenario_json(s)["x"]) == "[[1.16, -0.43], [0.57, 1.36], [4.34, -1.22]]"
    assert printed(run_script(src, tmp_path)) == app_prints(s)
    g = torch.Generator().manual_seed(3)
    odd = torch.cat([torch.randn(500, generator=g) * 10.0 ** torch.randint(-40, 38, (500,), generator=g),
                     torch.tensor([1e-45, -1e-45, 3.4028235e38, 1.17549435e-38, 0.1, 1 / 3, -0.0])])  # fmt: skip
    back = torch.tensor(plain(odd), dtype=torch.float32)
    assert torch.equal(back.view(torch.int32), odd.view(torch.int32))  # every bit, the sign of -0.0 too
    wide = odd.double() / 3
    assert torch.equal(torch.tensor(plain(wide), dtype=torch.float64), wide)  # float64: Python's shortest repr
