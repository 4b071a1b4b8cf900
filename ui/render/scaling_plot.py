"""The scaling lab's plotly figure and its sentence."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from gradio.components.plot import PlotData


def scaling_figure(lab: Any) -> PlotData:
    """var(QKᵀ) and the softmax Jacobian norm against d_k (log axes), and one softmax row, raw vs ÷ √d_k.

    Built with plotly.graph_objects, which checks every property (a misspelt one raises); ``template="none"``
    keeps plotly.js' own look and leaves plotly's 6 KB default template out of every slider move."""
    ds = [p.d_k for p in lab.sweep]
    pt = lab.point
    keys = list(range(1, len(pt.row_raw) + 1))
    raw, scaled = "#c0392b", "#2171b5"

    def curve(y: list[float], name: str, color: str, axis: str = "", dash: str | None = None) -> go.Scatter:
        return go.Scatter(mode="lines+markers", x=ds, y=y, name=name, line={"color": color, "dash": dash},
                          xaxis=f"x{axis}", yaxis=f"y{axis}")  # fmt: skip

    traces = [
        curve([p.var_scores for p in lab.sweep], "var(QKᵀ)", raw),
        curve([p.var_scaled for p in lab.sweep], "var(QKᵀ/√d_k)", scaled),
        go.Scatter(mode="lines", x=ds, y=ds, name="d_k", line={"color": "#999", "dash": "dot"}),
        go.Bar(x=keys, y=pt.row_raw.tolist(), name="softmax row 1, raw", marker={"color": raw}, xaxis="x2",
               yaxis="y2"),
        go.Bar(x=keys, y=pt.row_scaled.tolist(), name="softmax row 1, ÷√d_k", marker={"color": scaled}, xaxis="x2",
               yaxis="y2"),
        curve([p.jac_raw for p in lab.sweep], "‖J‖ raw", raw, "3", "dash"),
        curve([p.jac_scaled for p in lab.sweep], "‖J‖ ÷√d_k", scaled, "3", "dash"),
        go.Scatter(mode="markers", x=[pt.d_k, pt.d_k], y=[pt.jac_raw, pt.jac_scaled], name=f"d_k = {pt.d_k}",
                   marker={"size": 12, "symbol": "x", "color": "#000"}, xaxis="x3", yaxis="y3"),
    ]  # fmt: skip

    def title(text: str, x: float) -> dict[str, Any]:  # two short lines: they fit over a third of a phone too
        return {"text": text, "x": x, "y": 1.0, "yanchor": "bottom", "xref": "paper", "yref": "paper",
                "showarrow": False}  # fmt: skip

    # each x axis's title sits below its tick labels (standoff), and the legend below both (the bottom margin holds
    # the tick labels, the titles and two legend rows): nothing is drawn over anything else
    below = {"standoff": 6}
    dk_ticks = {"type": "log", "tickvals": [2, 8, 32, 128, 512], "title": {"text": "d_k", **below}}  # no minor labels
    layout = {
        "template": "none", "height": 480, "font": {"size": 13}, "barmode": "group",
        "margin": {"l": 50, "r": 10, "t": 70, "b": 120},
        "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom"},  # below the axis titles
        "xaxis": {**dk_ticks, "domain": [0, 0.28]},
        "yaxis": {"type": "log", "dtick": 1},
        "xaxis2": {"domain": [0.36, 0.64], "anchor": "y2", "title": {"text": "key", **below}},
        "yaxis2": {"anchor": "x2", "range": [0, 1]},
        "xaxis3": {**dk_ticks, "domain": [0.72, 1], "anchor": "y3"},
        "yaxis3": {"type": "log", "anchor": "x3"},
        "annotations": [title("variance<br>of scores", 0.14), title(f"softmax row<br>d_k = {pt.d_k}", 0.5),
                        title("Jacobian<br>norm ‖J‖", 0.86)],
    }  # fmt: skip
    return PlotData(type="plotly", plot=go.Figure(traces, layout).to_json())


def plain(x: float) -> str:
    """A small positive number in prose, as a decimal with 2 significant digits (0.081, not 8.1e-02)."""
    return f"{x:.2g}" if x >= 0.001 else "less than 0.001"


def scaling_words(lab: Any) -> str:
    """One plain sentence tying the plots to 004's variance cell, with the live numbers. (It said "softmax puts 0.99
    of row 1 on one key … since at this small d_k the scores are not yet large" at d_k 64, seed 64: row 1 is one
    row, the Jacobian norm is over every row.)"""
    p = lab.point
    saturated = p.jac_raw < 0.5 * p.jac_scaled
    one_hot = float(p.row_raw.max()) >= 0.9
    why = "the scores are not yet large enough to saturate it"
    if one_hot:
        why = f"row 1 is nearly one-hot already, but over every row {why}"
    effect = (
        f"its Jacobian norm falls to {plain(p.jac_raw)} (saturated: little gradient reaches the scores)"
        if saturated
        else f"its Jacobian norm is still {plain(p.jac_raw)}: {why}; slide d_k up to watch it collapse"
    )
    return (
        f"At d_k = {p.d_k}, q and k have variance ≈ 1 ({p.var_q:.2f}, {p.var_k:.2f}) but each score adds up d_k "
        f"products, so var(QKᵀ) = {p.var_scores:.1f} (≈ d_k); softmax puts {float(p.row_raw.max()):.2f} of "
        f"row 1 on one key and {effect}. Dividing by √d_k = {p.d_k**0.5:.2f} brings the variance to "
        f"{p.var_scaled:.2f}, the largest weight to {float(p.row_scaled.max()):.2f} and the Jacobian norm to "
        f"{plain(p.jac_scaled)} at every d_k: the same drop 004's variance cell prints (4.09 → 0.68 at d_k = 6)."
    )
