"""The public API on a gradio app of its own: /compute, /model_attention and /train, also as MCP tools."""

from __future__ import annotations

import logging

import gradio as gr

import attention_core as ac
from attention_core import real_model, train
from attention_core.scenario import parse_int

log = logging.getLogger("playground")


def build_api() -> gr.Blocks:
    """The public API on a Blocks of its own, served under /api (see ``make_app``).

    Its calls get gradio sessions of their own: cheap to make (a couple of blocks, not the page's hundred) and
    few (API_SESSIONS), so a script's calls neither cost a page's session rebuild nor hold its large answers.
    """
    with gr.Blocks(title="Attention Playground API") as api:
        gr.api(compute_api, api_name="compute")
        gr.api(model_attention_api, api_name="model_attention")
        gr.api(train_api, api_name="train")
    return api


API_SESSIONS = 2
"""The API app's gradio session table: each holds the last request and answer (~20 MB for the largest), and every
call without a session hash is a new session; rebuilding one costs well under a millisecond."""


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


def train_api(request: dict) -> dict:
    """Training over HTTP, bounded: {"task", "seed", "steps" (≤ MAX_STEPS_PER_CALL)} -> the run's losses and the
    head's final weights matrix. Pure: the same request gives the same answer, bit for bit."""
    try:
        if not isinstance(request, dict):
            raise train.TrainError("request", "expected a JSON object {task, seed, steps}")
        st = train.start(*train.choose(request.get("task"), request.get("seed", 0)))
        st = train.train_steps(st, parse_int(request.get("steps", 1), "steps", 0, train.MAX_STEPS_PER_CALL))
    except ac.ScenarioError as e:
        raise gr.Error(str(e)) from None
    return {"task": st.task.id, "seed": st.seed, "step": st.step, "losses": list(st.losses),
            "weights": train.weights_matrix(st).tolist()}  # fmt: skip
