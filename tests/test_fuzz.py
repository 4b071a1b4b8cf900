"""Fuzzing with hypothesis: compute(), the UI handlers and the running app's /compute over HTTP.

Bad input must end in a ScenarioError whose message names a field, never in another exception.
CI runs a bounded set (FUZZ_EXAMPLES, default 200 per target: over 500 cases in all);
`FUZZ_EXAMPLES=2500 python -m pytest -n 0 tests/test_fuzz.py --hypothesis-show-statistics` runs 14,687 on demand.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import gradio as gr
import httpx
import pytest
import torch
from browser import serve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attention_core as ac
from attention_core.contract.scenario import KNOWN_KEYS
from attention_core.teaching import real_model
from attention_core.teaching.explain import NAMES as EXPLAINABLE
from serving import api as api_app
from ui import labs, pipeline, sentence, share, values
from ui import real_model as real_model_ui

N = int(os.environ.get("FUZZ_EXAMPLES", "200"))
FUZZ = settings(max_examples=N, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
FIELDS = set(KNOWN_KEYS) | {
    "scenario",
    "W_q",
    "W_k",
    "W_v",
    "W_o",
    "link",
    "padding",
    "T",
    "S",
    "d_model",
    "head shown",
    "seed",
    "sentence",
    "embeddings",
    "embedding width d",
    "mask lab padding",
    "mask lab rows",
    "d_k",
    "lab seed",
    "scenario file",
    "request",  # /model_attention
    "layer",
    "head",
    "hide",
}

junk_cell = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", " ", "abc", "nan", "-inf", "1e308", "1,5", "0x10", "½", "１", "--1", None, True, [], {}]),
    st.integers(-(10**400), 10**400),
    st.text(max_size=8),
)
cell = st.one_of(st.floats(-5, 5, allow_nan=False), st.integers(-3, 3), junk_cell)
small = st.integers(0, 4)


def lab_page(v: values.PageValues | None, causal: bool, padding: Any, rows: Any) -> str:
    """What the mask lab's handler puts on the page: its tables, or (for a bad box) the message naming it."""
    tables, message = labs.mask_lab(v, causal, padding, rows)
    return tables if isinstance(tables, str) else message


@st.composite
def matrix(draw: st.DrawFn, cells: st.SearchStrategy = cell) -> Any:
    kind = draw(st.sampled_from(["ok", "ragged", "empty", "scalar", "flat", "huge_rows", "huge_cols"]))
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    if kind == "ragged":
        return [[draw(cells) for _ in range(draw(small))] for _ in range(rows)]
    if kind == "empty":
        return draw(st.sampled_from([[], [[]], [[], []]]))
    if kind == "scalar":
        return draw(cells)
    if kind == "flat":
        return [draw(cells) for _ in range(cols)]
    if kind == "huge_rows":
        return [[0.0] * cols] * 1_000_000  # 10^6 rows: refused before any cell is read
    if kind == "huge_cols":
        return [[0.0] * 1_000_000]
    return [[draw(cells) for _ in range(cols)] for _ in range(rows)]


@st.composite
def scenarios(draw: st.DrawFn) -> Any:
    sc: dict[str, Any] = {}
    if draw(st.booleans()):
        sc["x"] = draw(matrix())
    else:
        for key in draw(st.sets(st.sampled_from(["x_q", "x_k", "x_v"]))):
            sc[key] = draw(matrix())
    optional = {
        "heads": st.one_of(st.integers(-2, 12), st.text(max_size=3), st.floats(), st.none()),
        "head_mode": st.sampled_from(["concat", "split", "SPLIT", 3]),
        "layout": st.sampled_from(["linear", "matmul", "T", None]),
        "d_out": st.one_of(st.integers(-1, 100), st.text(max_size=3)),
        "dtype": st.sampled_from(["float32", "float64", "float16", 1]),
        "scale": st.one_of(st.booleans(), st.floats(), st.text(max_size=3), st.integers(-2, 3)),
        "normalize": st.sampled_from(["softmax", "sum", "max"]),
        "tokens": st.one_of(st.lists(st.text(max_size=4), max_size=5), st.text(max_size=4)),
        "mask": st.one_of(
            st.none(),
            st.text(max_size=4),
            st.fixed_dictionaries(
                {"kind": st.sampled_from(["none", "causal", "padding", "causal+padding", "custom", "x"])},
                optional={
                    "fill": st.sampled_from(["-inf", "-1e9", "additive", "0"]),
                    "keep": matrix(),
                    "padding": st.lists(junk_cell | st.booleans(), max_size=5),
                    "extra": st.just(1),
                },
            ),
        ),
        "weights": st.one_of(
            st.fixed_dictionaries(
                {"init": st.sampled_from(["linear", "rand", "randn", "identity", "xavier"])},
                optional={"seed": st.one_of(st.integers(-5, 2**70), st.text(max_size=3)), "w_o": st.booleans()},
            ),
            st.fixed_dictionaries(
                {},
                optional={
                    "W_q": st.lists(matrix(), max_size=3),
                    "W_k": st.lists(matrix(), max_size=3),
                    "W_v": st.lists(matrix(), max_size=3),
                    "W_o": matrix(),
                },
            ),
            st.integers(),
            st.text(max_size=3),
        ),
        "unknown_key": st.integers(),
    }
    for key in draw(st.sets(st.sampled_from(sorted(optional)), max_size=6)):
        sc[key] = draw(optional[key])
    return sc


def names_a_field(message: str, fields: set[str] = FIELDS) -> bool:
    head = message.split(":", maxsplit=1)[0]
    known = any(head == f or head.startswith((f + " ", f + ".")) for f in fields)
    unknown_key = message.split(":", maxsplit=1)[-1].startswith(" unknown key;")  # the message names the key itself
    return known or unknown_key


def assert_clean_result(r: dict[str, Any]) -> None:
    json.dumps(r, allow_nan=False)  # no bare NaN/inf ever leaves the core
    for head in r["heads"]:
        assert all(not isinstance(v, str) for row in head["weights"] for v in row), "weights are always numbers"


@FUZZ
@given(sc=scenarios())
def test_compute_raises_only_named_scenario_errors(sc: Any) -> None:
    try:
        r = ac.compute(sc)
    except ac.ScenarioError as e:
        assert names_a_field(str(e)), str(e)
        return
    assert_clean_result(r)


@FUZZ
@given(sc=st.one_of(scenarios(), st.none(), st.integers(), st.lists(st.integers()), st.text(max_size=5)))
def test_compute_rejects_non_objects_and_junk(sc: Any) -> None:
    try:
        r = ac.compute(sc)
    except ac.ScenarioError as e:
        assert names_a_field(str(e)), str(e)
        return
    assert isinstance(sc, dict)  # only an object can succeed
    assert_clean_result(r)


BASE_SHAPE, BASE_VALS, _ = pipeline.load_values(values.DEFAULT_PRESET)
EDITABLE = ["x", "W_q", "W_k", "W_v", "W_o", "keep", "x_k", "x_v"]


@st.composite
def ui_values(draw: st.DrawFn) -> values.PageValues:
    v = json.loads(json.dumps(BASE_VALS.as_dict()))
    for f in draw(st.sets(st.sampled_from(EDITABLE), max_size=3)):
        m = draw(matrix())
        v[f] = [["lbl", *r] if isinstance(r, list) else r for r in m] if isinstance(m, list) else m
    edits = {
        "tokens": st.one_of(st.text(max_size=10), st.integers()),
        "padding": st.text(max_size=6),
        "mask_kind": st.sampled_from(["none", "causal", "padding", "causal+padding", "custom"]),
        "fill": st.sampled_from(["-inf", "-1e9", "additive"]),
        "cross": st.booleans(),
        "use_wo": st.booleans(),
        "scale_mode": st.sampled_from(["√d_k", "off", "temperature"]),
        "temperature": junk_cell,
        "heads": st.one_of(st.integers(-1, 10), st.text(max_size=2)),
        "head_mode": st.sampled_from(["concat", "split"]),
        "view_head": st.one_of(st.integers(-1, 10), st.none(), st.text(max_size=2)),
        "T": st.one_of(st.integers(0, 70), st.sampled_from([10**6, "abc", None])),
        "d_in": st.integers(0, 70),
        "seed": st.one_of(st.integers(-1, 2**64), st.text(max_size=3), st.none()),
    }
    for key in draw(st.sets(st.sampled_from(sorted(edits)), max_size=4)):
        v[key] = draw(edits[key])
    return values.PageValues(**v)


UI = settings(max_examples=max(20, N // 4), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


@UI
@given(v=ui_values(), action=st.sampled_from(["refresh", "resize", "init_linear", "init_rand"]))
def test_ui_handlers_answer_every_input_with_views_or_a_named_message(v: values.PageValues, action: str) -> None:
    if action == "refresh":
        got = pipeline.compute_views(values.DEFAULT_PRESET, v)
    else:
        _, _, got = pipeline.restructure_values(action, values.DEFAULT_PRESET, BASE_SHAPE, v)
    assert set(got) - {"refused"} == set(pipeline.VIEW_KEYS)
    assert got.get("refused", False) == ("msg-error" in got["message"])  # a refused state is never stored
    assert "Something went wrong" not in got["message"], got["message"]  # no unexpected exception path
    if "msg-error" in got["message"]:
        text = html.unescape(got["message"]).split("✖</span> ")[1]
        assert names_a_field(text, FIELDS | set(pipeline.LABELS.values())), text  # the page names its controls' labels
    for k in pipeline.VIEW_KEYS:
        if isinstance(got[k], str):
            assert "Traceback" not in got[k]
            if k.startswith("html_"):  # no NaN in any table cell or tensor print
                assert not re.search(r">nan<|\bnan[,\]]", got[k]), got[k]


pick = st.one_of(
    st.none(),
    st.fixed_dictionaries({"name": st.sampled_from([*EXPLAINABLE, "W_q", "x"]), "row": st.integers(-2, 70),
                           "col": st.one_of(st.integers(-2, 70), st.text(max_size=2), st.none())}),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=3),
    st.text(max_size=5),
)  # fmt: skip


@UI
@given(v=ui_values(), click=pick)
def test_explain_any_click_on_any_state_answers_or_says_why(v: values.PageValues, click: Any) -> None:
    chosen = pipeline.parse_pick(click)
    got = pipeline.compute_views(values.DEFAULT_PRESET, replace(v, pick=chosen))
    assert "Something went wrong" not in got["message"], got["message"]
    if isinstance(got["explain"], str):
        assert "Traceback" not in got["explain"] and not re.search(r"\bnan\b", got["explain"]), got["explain"]


def assert_named(message: str) -> None:
    if "msg-error" in message:
        text = html.unescape(message).split("✖</span> ")[1]
        assert names_a_field(text), text
    assert "Traceback" not in message


@FUZZ
@given(
    text=st.one_of(st.text(max_size=80), st.text(max_size=500), st.integers(), st.none(), st.just("a " * 40)),
    d=st.one_of(st.integers(-2, 20), st.text(max_size=3), st.none(), st.floats()),
    seed=st.one_of(st.integers(-1, 2**64), st.text(max_size=3), st.none()),
    table=st.one_of(matrix(), st.none(), st.text(max_size=4)),
    action=st.sampled_from(["text", "edit", "draw", "printed"]),
)
def test_sentence_mode_answers_or_names_the_field(text: Any, d: Any, seed: Any, table: Any, action: str) -> None:
    got = sentence.sentence_views(action, text, d, seed, table)
    assert_named(got["message"])
    try:
        sc = sentence.sentence_scenario(text, d, 2, seed, table)
    except ac.ScenarioError as e:
        assert names_a_field(str(e)), str(e)
        return
    r = ac.compute(sc)  # a scenario the sentence gave must compute, cleanly, with one row per token
    assert_clean_result(r)
    assert len(r["output"]) == len(r["tokens"]) == len(sc["x"])


@settings(max_examples=max(20, N // 8), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(v=ui_values(), causal=st.booleans(), pad=st.one_of(st.text(max_size=6), st.none(), st.integers()),
       rows=st.one_of(st.text(max_size=6), st.none()), d_k=st.one_of(st.integers(-5, 700), st.text(max_size=4)),
       seed=st.one_of(st.integers(-1, 2**64), st.none(), st.text(max_size=2)))  # fmt: skip
def test_labs_answer_or_name_the_field(
    v: dict[str, Any], causal: bool, pad: Any, rows: Any, d_k: Any, seed: Any
) -> None:
    page = lab_page(v, causal, pad, rows)
    assert_named(page)
    _, words = labs.scaling_views(d_k, seed)
    assert_named(words)


@FUZZ
@given(content=st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode),
                         st.builds(lambda d: json.dumps(d).encode(), st.dictionaries(st.text(max_size=5),
                                   st.one_of(st.integers(), st.text(max_size=5), matrix()), max_size=4))))  # fmt: skip
def test_scenario_files_load_or_name_the_problem(content: bytes) -> None:
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        f.write(content)
        f.flush()
        try:
            sc = share.read_scenario_file(f.name)
            _, _, values, views = pipeline.scenario_values(sc)
        except ac.ScenarioError as e:
            assert names_a_field(str(e)), str(e)
            return
    assert set(views) == set(pipeline.VIEW_KEYS) and "msg-error" not in views["message"]
    assert values.T == len(ac.parse(sc).tokens)  # the loaded file is what is shown


@FUZZ
@given(text=st.one_of(st.text(max_size=50), st.binary(max_size=50).map(lambda b: base64.urlsafe_b64encode(b).decode())))
def test_links_never_crash(text: str) -> None:
    preset_id, _, _, got = share.link_values({"scenario": text})
    assert preset_id is not None and set(got) == set(pipeline.VIEW_KEYS)


def test_oversize_is_refused_before_any_tensor_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_tensors(*a: Any, **k: Any) -> None:
        raise AssertionError("a tensor was built for an oversize request")

    monkeypatch.setattr(torch, "tensor", no_tensors)
    for sc in ({"x": [[0.0] * 8] * 1_000_000}, {"x": [[0.0] * 1_000_000]}, {"x_q": [[0.0]] * 10**6, "x_k": [[0.0]]}):
        with pytest.raises(ac.ScenarioError, match="at most"):
            ac.compute(sc)
    monkeypatch.undo()
    big_w = {"W_q": [[[0.0] * 1_000_000]], "W_k": [[[1.0]]], "W_v": [[[1.0]]]}
    with pytest.raises(ac.ScenarioError, match="W_q head 1 row 1: has 1000000 values; expected 1"):
        ac.compute({"x": [[1.0]], "weights": big_w})


MODEL_REQUESTS = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=3),
    st.fixed_dictionaries(
        {},
        optional={
            "sentence": st.one_of(st.text(max_size=40), st.just("word " * 40), st.just("x" * 301), st.none(),
                                  st.integers(), st.just("   "), st.just("The cat sat.")),
            "layer": st.one_of(st.integers(-2, 8), st.floats(), st.text(max_size=3), st.none(), st.booleans()),
            "head": st.one_of(st.integers(-2, 14), st.floats(), st.text(max_size=3), st.none(), st.booleans()),
            "hide": st.one_of(st.none(), st.lists(st.one_of(st.integers(-1, 40), st.text(max_size=2)), max_size=4),
                              st.text(max_size=3), st.just(list(range(1, 40)))),
            "extra": st.integers(),
        },
    ),
)  # fmt: skip


@settings(max_examples=max(40, N // 2), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(request=MODEL_REQUESTS)
def test_model_attention_answers_or_names_the_field(request: Any) -> None:
    try:
        r = api_app.model_attention_api(request)
    except gr.Error as e:
        assert names_a_field(e.message), e.message
        return
    assert_clean_result(r)
    assert len(r["heads"]) == 1 and len(r["tokens"]) == len(r["heads"][0]["weights"])
    assert r["label"] == f"L{r['layer']}H{r['head']}"


@settings(max_examples=max(20, N // 8), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(
    sentence=st.one_of(st.text(max_size=30), st.just("word " * 40), st.none(), st.integers(), st.just("A cat.")),
    layer=st.one_of(st.integers(-1, 8), st.text(max_size=2), st.none(), st.floats()),
    head=st.one_of(st.integers(-1, 14), st.text(max_size=2), st.none()),
    hide=st.one_of(st.none(), st.lists(st.one_of(st.integers(-2, 40), st.text(max_size=2), st.booleans()), max_size=5)),
)
def test_real_model_tab_answers_or_names_the_field(sentence: Any, layer: Any, head: Any, hide: Any) -> None:
    got = real_model_ui.views(pipeline.render, sentence, layer, head, hide)
    assert_named(got["message"])
    assert ("msg-error" in got["message"]) != ("tokens" in got and "L" in got["title"]), got["message"]


# ---- the running app over HTTP ----------------------------------------------------------------


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    with serve() as url:
        yield url


def call(client: httpx.Client, api: str, payload: Any) -> tuple[str, str]:
    """Gradio's REST call: POST the data, then read the event stream; returns (event, data)."""
    body = json.dumps({"data": [payload]})  # NaN/Infinity go out as JavaScript writes them
    path = f"api/gradio_api/call/{api}"  # the API app is mounted under /api (playground.make_app)
    r = client.post(path, content=body, headers={"content-type": "application/json"})
    assert r.status_code == 200, r.text
    body = client.get(f"{path}/{r.json()['event_id']}").text
    event = body.split("event: ")[-1].split("\n")[0]
    data = body.split("data: ")[-1].strip()
    return event, data


def shrink(x: Any) -> Any:
    """Lists of 10^6 cut to 1,000 items (still far over every cap) so a request body stays small."""
    if isinstance(x, list):
        return [shrink(v) for v in x[:1000]]
    if isinstance(x, dict):
        return {k: shrink(v) for k, v in x.items()}
    return x


HTTP = settings(max_examples=max(20, N // 4), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


@HTTP
@given(sc=scenarios())
def test_http_compute_answers_every_scenario(app_url: str, sc: Any) -> None:
    sc = json.loads(json.dumps(shrink(sc), default=str))
    with httpx.Client(base_url=app_url, timeout=60) as client:
        event, data = call(client, "compute", sc)
    assert event in ("complete", "error"), event
    try:  # the same scenario, computed here: the server must answer exactly what compute() answers
        local: dict[str, Any] | None = json.loads(json.dumps(ac.compute(sc)))
    except ac.ScenarioError as e:
        local, problem = None, str(e)
    if event == "complete":
        assert local is not None and json.loads(data)[0] == local
        return
    assert local is None, "the server refused a scenario compute() answers"
    msg = json.loads(data) if data not in ("null", "") else None
    assert msg is not None and msg["error"] == problem, (msg, problem)
    assert "Traceback" not in data


def test_http_model_attention_answers_or_names_the_field(app_url: str) -> None:
    bad = [
        ({"sentence": "", "layer": 1, "head": 1}, "sentence: is empty"),
        ({"sentence": "word " * 40, "layer": 1, "head": 1}, "sentence: is 42 WordPiece tokens"),
        ({"sentence": "x" * 400, "layer": 1, "head": 1}, "sentence: has 400 characters; at most 300"),
        ({"sentence": "hi", "layer": 7, "head": 1}, "layer: 7 is out of range 1..6"),
        ({"sentence": "hi", "layer": 1, "head": "x"}, "head: 'x' is not a whole number"),
        ({"sentence": "hi", "layer": 1, "head": 0}, "head: 0 is out of range 1..12"),
        ({"sentence": ["hi"], "layer": 1, "head": 1}, "sentence: must be text"),
        ("hi", "request: must be a JSON object"),
    ]
    with httpx.Client(base_url=app_url, timeout=120) as client:
        for payload, problem in bad:
            event, data = call(client, "model_attention", payload)
            assert event == "error" and problem in json.loads(data)["error"], (payload, data)
            assert "Traceback" not in data
        event, data = call(client, "model_attention", {"sentence": "Attention is all you need!", "layer": 4,
                                                        "head": 9})  # fmt: skip
    assert event == "complete", data
    got = json.loads(data)[0]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the server's worker runs it (serving/workers.py): two threads round differently
    try:
        want = real_model.attention_json({"sentence": "Attention is all you need!", "layer": 4, "head": 9})
    finally:
        torch.set_num_threads(threads)
    assert got == json.loads(json.dumps(want)) and got["label"] == "L4H9"


def test_http_malformed_requests_get_4xx_and_the_server_keeps_answering(app_url: str) -> None:
    with httpx.Client(base_url=app_url, timeout=30) as client:
        requests = [
            ("POST", "api/gradio_api/call/compute", b"{not json", "application/json"),
            ("POST", "api/gradio_api/call/compute", b"x=1", "text/plain"),
            ("POST", "api/gradio_api/call/compute", b'{"nodata": 1}', "application/json"),
            ("POST", "api/gradio_api/call/compute", b"[1, 2]", "application/json"),
            ("POST", "gradio_api/call/nope", b'{"data": [1]}', "application/json"),
            ("GET", "api/gradio_api/call/compute/not-an-event", b"", "text/plain"),
        ]
        dropped = []
        for method, path, body, ctype in requests:
            try:
                r = client.request(method, path, content=body, headers={"content-type": ctype}, timeout=10)
            except httpx.TransportError as e:  # named below: a request the server is known to drop
                dropped.append((path, body, type(e).__name__))
                continue
            if "nope" not in path:  # gradio itself answers an unknown endpoint with a bare 500
                assert r.status_code < 500, (path, r.status_code, r.text[:200])
            assert "Traceback" not in r.text
        # gradio resets the stream of an unknown event id instead of answering it; that is the only request
        # allowed to go unanswered, and the server must still answer the next call
        assert dropped == [("api/gradio_api/call/compute/not-an-event", b"", "ReadError")], dropped
        event, data = call(client, "compute", ac.scenario_of("statquest-self"))
        assert event == "complete"
        out = json.loads(data)[0]["output"]
        torch.testing.assert_close(
            torch.tensor(out), torch.tensor([[1.0100, 1.0641], [0.2040, 0.7057], [3.4989, 2.2427]]), atol=5e-5, rtol=0
        )
        event, data = call(client, "compute", {"x": [["abc"]]})
        assert event == "error" and "x row 1, column 1: 'abc' is not a number" in data
