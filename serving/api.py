"""The public API on a gradio app of its own: /compute, /model_attention and /train, also as MCP tools.

Where clients look for it: ``gradio_client.Client(<root URL>)`` (and, on Hugging Face Spaces, ``Client("owner/space")``
and the page's "Use via API") read the root, and Spaces' MCP integration the root's ``/gradio_api/mcp/``. The calls
must still run on the API app, whose few cheap sessions keep a script's traffic out of the page app's gradio session
table. So the page declares the same endpoints (:func:`declare_api`: its "Use via API" and MCP list them) and
:class:`RootApi` sends the root's API traffic to the API app mounted under ``/api`` (which stays an address of its
own). MCP answers are JSON text (:func:`answer_as_json`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import gradio as gr
from starlette.middleware import Middleware
from starlette.responses import JSONResponse

import attention_core as ac
from attention_core import parse_int, real_model, train
from serving import workers

log = logging.getLogger("playground")

API_NAMES = ("compute", "model_attention", "train")
"""The public endpoints, by their api_name: on the API app, and declared on the page too (``declare_api``)."""

API_MOUNT = "/api"
"""Where ``playground.make_app`` mounts the API app."""


def declare_api() -> None:
    """Declare the public endpoints in the Blocks being built (the API app's, and the page's for its docs and MCP)."""
    gr.api(compute_api, api_name="compute")
    gr.api(model_attention_api, api_name="model_attention")
    gr.api(train_api, api_name="train")


def build_api() -> gr.Blocks:
    """The public API on a Blocks of its own, served under /api (see ``make_app``).

    Its calls get gradio sessions of their own: cheap to make (a couple of blocks, not the page's hundred) and
    few (API_SESSIONS), so a script's calls neither cost a page's session rebuild nor hold its large answers.
    """
    with gr.Blocks(title="Attention Playground API") as api:
        declare_api()
    return api


API_SESSIONS = 2
"""The API app's gradio session table: each holds the last request and answer (~20 MB for the largest), and every
call without a session hash is a new session; rebuilding one costs well under a millisecond."""


def compute_api(scenario: dict) -> dict:
    """Scaled dot-product attention with every intermediate (attention_core.compute over HTTP and MCP).

    The scenario's keys: "x" (token rows, self-attention) or "x_q", "x_k", "x_v" (cross-attention); "tokens",
    "tokens_k" (row labels); "heads" (1..8); "head_mode" ("concat" | "split"); "layout" ("linear": nn.Linear out x
    in | "matmul"); "weights" ({"init": "linear"|"rand"|"randn"|"identity", "seed": int, "w_o": bool} or explicit
    "W_q", "W_k", "W_v" (one matrix per head), "W_o", optional biases "b_q", "b_k", "b_v" (one vector per head)
    and "b_o");
    "d_out"; "mask" ({"kind": "none"|"causal"|"padding"|"causal+padding"|"custom", "padding": [flags],
    "keep": 0/1 matrix, "fill": "-inf"|"-1e9"|"additive"}); "scale" (true = divide by sqrt(d_k), false, or a
    temperature); "dtype" ("float32" | "float64"); "normalize" ("softmax" | "sum"). At most 64 tokens and width 64.
    Optional variant keys: "positions" ("none" | "sinusoidal" | "rope"), "rope_base", "alibi" (bool), "kv_heads"
    (grouped-query, divides heads), "window" (sliding window), "block_rows"/"block_cols" (tiled online softmax),
    "decode" (bool: KV-cache decoding, causal self-attention).

    Args:
        scenario: the JSON scenario described above; only "x" is required (every key: docs/contract.md).

    Returns:
        "heads" (per head: q, k, v, scores, scaled, masked, weights, output), "concat", "output", "warnings",
        "weights_used", "tokens"; with a variant key on also "variants" (the variant keys that are on), "rope",
        "alibi", "kv", "head_map", "window", "tiles", "decode". A bad scenario is an error whose message names the
        field.
    """
    try:
        return ac.compute(scenario)
    except ac.ScenarioError as e:
        raise gr.Error(str(e)) from None


compute_api.__name__ = "compute"  # the MCP tool's name


def model_attention_api(request: dict) -> dict:
    """One head of a real model (sentence-transformers/all-MiniLM-L6-v2, 6 layers x 12 heads) step by step.

    The head is recomputed from the hidden state entering its layer with its own weights and biases:
    q = x W_q^T + b_q (and k, v alike), scores = q k^T, scaled = scores / sqrt(32), masked (hidden tokens as
    padding), weights = softmax, output = weights v. It equals the model's own attention weights within 1e-5.

    The request's keys: "sentence" (text, at most 300 characters and 32 WordPiece tokens with [CLS] and [SEP]),
    "layer" (whole number 1..6), "head" (whole number 1..12) and optionally "hide" (a list of 1-based token
    positions hidden from every query in every layer, as padding; 1 is [CLS]) and "weights" (true to add the head's
    W_q, W_k, W_v and biases as "weights_used": about 800 KB more).

    Args:
        request: {"sentence": text, "layer": 1..6, "head": 1..12, "hide": [positions], "weights": false}.

    Returns:
        the compute result for that head: "heads"[0] with q, k, v, scores, scaled, masked, weights and output
        (rows = tokens), plus "tokens" (WordPiece, [CLS] ... [SEP]), "layer", "head", "label" (L{layer}H{head})
        and "model"; "weights_used" too when "weights" is true.
    """
    try:
        return workers.call(real_model.attention_json, request)  # in the worker process (workers.py)
    except ac.ScenarioError as e:
        raise gr.Error(str(e)) from None
    except Exception:  # never a traceback for the client; the server log keeps it
        log.exception("model_attention failed")
        raise gr.Error("model: the model could not be run; the server log says why") from None


model_attention_api.__name__ = "model_attention"  # the MCP tool's name


def train_api(request: dict) -> dict:
    """Train one attention head on a toy task with autograd and Adam, a bounded number of steps (pure: the same
    request gives the same answer, bit for bit). Tasks: "previous" (attend to the previous token, under a causal
    mask) and "match" (attend to the matching token).

    Args:
        request: {"task": "previous" | "match", "seed": integer (default 0), "steps": integer 0..500 (default 1)}.

    Returns:
        "task", "seed", "step", "losses" (the loss before each step and after the last) and "weights" (the head's
        attention weights after training, rows = queries).
    """
    try:
        if not isinstance(request, dict):
            raise train.TrainError("request", "expected a JSON object {task, seed, steps}")
        st = train.start(*train.choose(request.get("task"), request.get("seed", 0)))
        st = workers.call(
            train.train_steps, st, parse_int(request.get("steps", 1), "steps", 0, train.MAX_STEPS_PER_CALL)
        )
    except ac.ScenarioError as e:
        raise gr.Error(str(e)) from None
    return {"task": st.task.id, "seed": st.seed, "step": st.step, "losses": list(st.losses),
            "weights": train.weights_matrix(st).tolist()}  # fmt: skip


train_api.__name__ = "train"  # the MCP tool's name


# ---- the root's API traffic goes to the API app --------------------------------------------------------------------

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class RootApi:
    """ASGI middleware: the root answers API clients with the API app, so its calls never make page sessions.

    * ``GET /config`` is what gradio_client (and @gradio/client) read first. It gets the API app's config with
      ``api_prefix`` pointing under ``/api``, so every later request of that client (info, queue, heartbeat, the
      calls) goes to the API app. The page never asks for it: its HTML carries its own config (a browser test
      checks); ``/config?deep_link=`` or ``?page=`` (questions about the page) still reach the page.
    * ``/gradio_api/{call,run,api}/<name>[/...]`` and ``/gradio_api/call/v2/<name>`` for the public names (plain
      REST, curl) are forwarded under ``/api``. Everything else (the page, its queue, uploads, live edits, MCP at
      ``/gradio_api/mcp/``, whose tool calls loop back through a Client at the root) passes unchanged.
    """

    def __init__(self, app: ASGIApp, api: gr.Blocks, mount: str = API_MOUNT) -> None:
        self.app, self.api, self.mount = app, api, mount

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = scope["path"]
            if path in ("/config", "/config/") and scope["method"] == "GET" and not page_query(scope["query_string"]):
                config = dict(self.api.config, api_prefix=self.mount + self.api.config["api_prefix"])
                await JSONResponse(config)(scope, receive, send)
                return
            if is_api_call(path):
                routed = self.mount + path
                scope = dict(scope, path=routed, raw_path=routed.encode())
        await self.app(scope, receive, send)


def page_query(query: bytes) -> bool:
    """Whether a ``/config`` request asks about the page (a deep link, a page of a multipage app)."""
    return any(part.split(b"=", 1)[0] in (b"deep_link", b"page") for part in query.split(b"&"))


def is_api_call(path: str) -> bool:
    """Whether a root path is a REST call of a public endpoint, e.g. ``/gradio_api/call/compute/<event id>``."""
    p = path.split("/")  # ["", "gradio_api", "call", "compute", ...]
    if len(p) < 4 or p[1] != "gradio_api" or p[2] not in ("call", "run", "api"):
        return False
    return p[3] in API_NAMES or (p[2:4] == ["call", "v2"] and len(p) > 4 and p[4] in API_NAMES)


def root_api(api: gr.Blocks) -> Middleware:
    """``FastAPI(middleware=[..., root_api(api)])``: :class:`RootApi` for this API app."""
    return Middleware(RootApi, api=api)


# ---- MCP answers as JSON -------------------------------------------------------------------------------------------


def answer_as_json(data: list[Any], root_url: str) -> list[Any]:
    """Each output as one MCP text content holding its JSON (strict: non-finite numbers already travel as text).

    gradio 6.31's ``GradioMCPServer.postprocess_output_data`` writes ``str(output)``, a Python repr that
    ``json.loads`` cannot read (single quotes, True, None). The outputs here are JSON objects, never files, so
    nothing of what gradio's version does for files is lost. tests/test_mcp.py fails if gradio changes it.
    """
    from mcp import types  # noqa: PLC0415 (the gradio[mcp] extra; its import takes ~3.5 s, paid only by MCP clients)

    return [types.TextContent(type="text", text=json.dumps(d, allow_nan=False)) for d in data]


def answer_mcp_as_json(blocks: gr.Blocks) -> None:
    """After ``gr.mount_gradio_app(..., mcp_server=True)``: its MCP server answers JSON (a gradio internal, in this one
    place; gradio is pinned in requirements.txt)."""
    server = blocks.mcp_server_obj
    if server is None:
        raise RuntimeError(f"{blocks.title}: no MCP server ({getattr(blocks, 'mcp_error', 'not mounted with one')})")
    server.postprocess_output_data = answer_as_json
