"""Floors: cold start (imports the same packages as playground.py, serves a trivial page) and REST (``/echo``).

``/echo`` returns its input through the same queue settings as the app's ``/compute``: the throughput and latency
floor that benchmarks/bench.py and benchmarks/load.py compare ``/compute`` against. The app itself serves no echo.
"""

from __future__ import annotations

import gradio as gr
import pandas  # noqa: F401
import torch  # noqa: F401


def echo(text: str) -> str:
    """Returns its input."""
    return text


with gr.Blocks() as demo:
    gr.Markdown("trivial")
    gr.api(echo, api_name="echo")
demo.queue(max_size=64, default_concurrency_limit=2)  # as playground.py

if __name__ == "__main__":
    demo.launch()
