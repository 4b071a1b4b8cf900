"""The API as agent tools: the running app's MCP endpoint lists compute and model_attention, with every argument
described, and answers a compute call with exactly what attention_core.compute answers."""

from __future__ import annotations

import ast
import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from browser import serve
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

import attention_core as ac

SCENARIO = {"x": [[1, 2], [3, 4], [0.5, -1]], "heads": 2, "weights": {"init": "linear", "seed": 42}}


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    with serve() as url:
        yield url


async def session_calls(url: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    async with (
        streamablehttp_client(url + "api/gradio_api/mcp/") as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = await session.list_tools()
        return tools, [await session.call_tool(name, args) for name, args in calls]


def test_mcp_lists_both_tools_and_compute_answers_as_the_core(app_url: str) -> None:
    calls = [
        ("compute", {"scenario": SCENARIO}),
        ("compute", {"scenario": {"x": [["abc"]]}}),
        ("model_attention", {"request": {"sentence": "Hello there, agent.", "layer": 2, "head": 5}}),
        ("model_attention", {"request": {"sentence": "hi", "layer": 9, "head": 5}}),
    ]
    tools, results = asyncio.run(asyncio.wait_for(session_calls(app_url, calls), timeout=240))
    by_name = {t.name: t for t in tools.tools}
    assert {"compute", "model_attention"} <= set(by_name), sorted(by_name)
    for name, arg in (("compute", "scenario"), ("model_attention", "request")):
        schema = by_name[name].inputSchema
        assert schema["required"] == [arg] and len(schema["properties"][arg]["description"]) > 20, schema
    assert '"layer"' in by_name["model_attention"].inputSchema["properties"]["request"]["description"]
    assert "b_q" in by_name["compute"].description and "sentence" in by_name["model_attention"].description

    ok, bad, model, model_bad = results
    assert not ok.isError
    got = ast.literal_eval(ok.content[0].text)
    assert got == json.loads(json.dumps(ac.compute(SCENARIO)))
    assert bad.isError and "x row 1, column 1: 'abc' is not a number" in bad.content[0].text
    assert not model.isError
    answer = ast.literal_eval(model.content[0].text)
    assert answer["label"] == "L2H5" and answer["tokens"][0] == "[CLS]" and answer["tokens"][-1] == "[SEP]"
    assert all(abs(sum(row) - 1) < 1e-5 for row in answer["heads"][0]["weights"])
    assert model_bad.isError and "layer: 9 is out of range 1..6" in model_bad.content[0].text


def test_the_readme_shows_this_endpoint_and_its_model_example_runs(app_url: str) -> None:
    import re
    import subprocess
    import sys

    from browser import ROOT

    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", readme, flags=re.S | re.M)
    client = next(b for b in blocks if "gradio_client" in b)
    example = next(b for b in blocks if "/model_attention" in b)
    code = (client + example).replace("http://127.0.0.1:7860/", app_url)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    promised = re.search(r"print\(.*\)\s+# (.*)", example)
    assert promised and r.stdout.strip().splitlines()[-1] == promised.group(1).strip()
    config = json.loads(next(b for b in re.findall(r"^```json\n(.*?)^```", readme, flags=re.S | re.M) if "mcp" in b))
    url = config["mcpServers"]["attention-playground"]["url"]
    assert url.endswith("/api/gradio_api/mcp/")  # the path this file's MCP test connects to
