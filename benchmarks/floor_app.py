"""Gradio's floor for the benchmark: a Dataframe edit updates one Textbox (same packages, same launch)."""

from __future__ import annotations

import gradio as gr


def echo(table: list[list[object]]) -> str:
    return repr(table)


with gr.Blocks() as demo:
    df = gr.Dataframe(value=[["t1", 1.16, 0.23], ["t2", 0.57, 1.36], ["t3", 4.41, -2.16]], headers=["", "d1", "d2"],
                      interactive=True, type="array", static_columns=[0], elem_id="x-input")  # fmt: skip
    out = gr.Textbox(elem_id="floor-out")
    df.input(echo, df, out, trigger_mode="always_last", show_progress="hidden")

if __name__ == "__main__":
    demo.launch()
