"""Floors: cold start (imports the same packages as playground.py, serves a trivial page) and REST (``/echo``).

``/echo`` returns its input through the same queue and session settings as the app's ``/compute``: the throughput
and latency floor that benchmarks/bench.py and benchmarks/load.py compare ``/compute`` against. The app itself
serves no echo.
"""

from __future__ import annotations

import os

import gradio as gr
import pandas  # noqa: F401
import torch  # noqa: F401

os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "100000")  # as playground.py: no per-event summary
API_SESSIONS = 2  # gradio's session table, as playground.API_SESSIONS (tests/test_limits.py checks they agree)


def echo(text: str) -> str:
    """Returns its input."""
    return text


with gr.Blocks() as demo:
    gr.Markdown("trivial")
    gr.api(echo, api_name="echo")
demo.queue(max_size=64, default_concurrency_limit=2)  # as playground.py

if __name__ == "__main__":
    demo.launch(state_session_capacity=API_SESSIONS)
