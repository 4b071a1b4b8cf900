"""Cold-start floor: imports the same packages as playground.py and serves a trivial page."""

from __future__ import annotations

import gradio as gr
import pandas  # noqa: F401
import torch  # noqa: F401

with gr.Blocks() as demo:
    gr.Markdown("trivial")

if __name__ == "__main__":
    demo.launch()
