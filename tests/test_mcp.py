"""The API as agent tools, as an agent meets them: the mcp package's own streamable-HTTP client at the root's
/gradio_api/mcp/ (where Spaces' MCP integration looks) lists compute, model_attention and train with every
argument described, and every answer is JSON text that json.loads reads; compute's matches seed 000's print (as
attention_core/data/000.json holds it; tests/test_data_files.py holds that to the notebook's text).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from browser import ROOT, serve
from gradio.mcp import GradioMCPServer
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

import attention_core as ac
from serving import api as api_app

PRINTED_000 = [pr.values for p in ac.all_presets() if p.source.startswith("000") for pr in p.printed]
MASKED = {  # 000's masked self-attention: its encodings, torch.manual_seed(42)'s nn.Linear weights, the causal mask
    "x": [[1.16, 0.23], [0.57, 1.36], [4.41, -2.16]],
    "weights": {"init": "linear", "seed": 42},
    "mask": {"kind": "causal", "fill": "-inf"},
}
TRAIN = {"task": "match", "seed": 0, "steps": 4}
MODEL = {"sentence": "Hello there, agent.", "layer": 2, "head": 5}


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    with serve() as url:
        yield url


async def session_calls(endpoint: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    """List the tools at ``endpoint``, then make each call, in one MCP session of the mcp package's client."""
    async with (
        httpx.AsyncClient(timeout=httpx.Timeout(60, read=300)) as http,
        streamable_http_client(endpoint, http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = await session.list_tools()
        return tools, [await session.call_tool(name, args) for name, args in calls]


def mcp(endpoint: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    return asyncio.run(asyncio.wait_for(session_calls(endpoint, calls), timeout=240))


def printed_by_000(matrix: list[list[float]]) -> bool:
    """Whether seed 000 printed this matrix, to within half of its last printed digit (000 printed 4 decimals)."""
    return any(
        len(printed) == len(matrix)
        and all(len(p) == len(m) for p, m in zip(printed, matrix, strict=True))
        and all(abs(a - b) <= 5e-5 for p, m in zip(printed, matrix, strict=True) for a, b in zip(p, m, strict=True))
        for printed in PRINTED_000
    )


def test_the_tools_at_the_root_are_described_and_answer_json(app_url: str) -> None:
    calls = [
        ("compute", {"scenario": MASKED}),
        ("train", {"request": TRAIN}),
        ("model_attention", {"request": MODEL}),
        ("compute", {"scenario": {"x": [["abc"]]}}),
        ("train", {"request": {"task": "previous", "steps": 100_000}}),
    ]
    tools, results = mcp(app_url + "gradio_api/mcp/", calls)
    by_name = {t.name: t for t in tools.tools}
    assert sorted(by_name) == ["compute", "model_attention", "train"]
    for tool in by_name.values():
        props = tool.inputSchema["properties"]
        assert props and tool.inputSchema["required"] == list(props), tool.inputSchema
        for arg, spec in props.items():
            assert len(spec.get("description", "")) > 20, (tool.name, arg, spec)  # every argument described
    assert '"steps"' in by_name["train"].inputSchema["properties"]["request"]["description"]

    compute, trained, model, bad, too_long = results
    assert not (compute.isError or trained.isError or model.isError)
    answer = json.loads(compute.content[0].text)  # JSON, not a Python repr
    assert printed_by_000(answer["output"]) and printed_by_000(answer["heads"][0]["v"])
    assert answer == json.loads(json.dumps(ac.compute(MASKED)))
    assert answer["heads"][0]["masked"][0][1] == "-inf"  # what JSON cannot hold travels as text
    assert json.loads(trained.content[0].text) == json.loads(json.dumps(api_app.train_api(TRAIN)))
    got = json.loads(model.content[0].text)
    assert got["label"] == "L2H5" and got["tokens"][0] == "[CLS]" and got["tokens"][-1] == "[SEP]"
    assert all(abs(sum(row) - 1) < 1e-5 for row in got["heads"][0]["weights"])
    assert bad.isError and "x row 1, column 1: 'abc' is not a number" in bad.content[0].text
    assert too_long.isError and "steps" in too_long.content[0].text


def test_the_api_address_stays_an_alias_with_the_same_tools(app_url: str) -> None:
    tools, (answer,) = mcp(app_url + "api/gradio_api/mcp/", [("compute", {"scenario": MASKED})])
    assert sorted(t.name for t in tools.tools) == ["compute", "model_attention", "train"]
    assert printed_by_000(json.loads(answer.content[0].text)["output"])


def test_gradio_still_answers_tools_with_str_so_the_json_answer_is_still_needed() -> None:
    """serving/api.py replaces GradioMCPServer.postprocess_output_data (a gradio internal; gradio is pinned) because
    gradio writes each answer as ``str(output)``, a Python repr. If gradio changes that method, this fails: look
    again at serving.api.answer_as_json (drop it if gradio answers JSON itself, adapt it if the signature moved)."""
    server = GradioMCPServer.__new__(GradioMCPServer)  # the method needs no server state for plain values
    (content,) = GradioMCPServer.postprocess_output_data(server, [{"a": [1.5, None], "b": True}], "http://x")
    assert content.text == "{'a': [1.5, None], 'b': True}"  # a repr, which json.loads cannot read
    (content,) = api_app.answer_as_json([{"a": [1.5, None], "b": True}], "http://x")
    assert json.loads(content.text) == {"a": [1.5, None], "b": True}


def test_the_api_page_points_agents_at_the_root(app_url: str) -> None:
    readme = (ROOT / "docs" / "api.md").read_text()  # the API page: where the README sends an engineer
    config = json.loads(next(b for b in re.findall(r"^```json\n(.*?)^```", readme, flags=re.S | re.M) if "mcp" in b))
    url = config["mcpServers"]["attention-playground"]["url"]
    assert url == "http://127.0.0.1:7860/gradio_api/mcp/"  # the root, where this file's first test connects
    with httpx.Client(timeout=30) as http:  # a person who opens that address in a browser gets gradio's page
        r = http.get(url.replace("http://127.0.0.1:7860/", app_url))
    assert r.status_code == 200 and "mcp" in r.text.lower()


def test_the_api_page_model_example_runs_at_the_root(app_url: str) -> None:
    import subprocess
    import sys

    readme = (ROOT / "docs" / "api.md").read_text()  # the API page: where the README sends an engineer
    blocks = re.findall(r"^```python\n(.*?)^```", readme, flags=re.S | re.M)
    client = next(b for b in blocks if "gradio_client" in b)
    example = next(b for b in blocks if "/model_attention" in b)
    assert 'Client("http://127.0.0.1:7860/")' in client  # the root, as on a Space
    code = (client + example).replace("http://127.0.0.1:7860/", app_url)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    promised = re.search(r"print\(.*\)\s+# (.*)", example)
    assert promised and r.stdout.strip().splitlines()[-1] == promised.group(1).strip()
