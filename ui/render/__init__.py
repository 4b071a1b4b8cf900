"""Renderers: pure functions from tensors and values to the page's HTML (no gradio events, no state).

tables    exact-number tables, torch's print, the notebook's code lines, badges, messages
grids     the editable input grids: their HTML, one checked cell edit, a checked pasted block
overview  the one-screen pipeline of the shown head
heat      heatmaps as one byte per cell for a ``<canvas>``
"""
