"""Renderers: pure functions from tensors and values to the page's HTML (no gradio events, no state).

tables        exact-number tables (numbers as each dtype shows them, colour buckets, windows), torch's print,
              the explain card and the message line
step_cells    the notebook's step cells: numbered titles, headings (formula and words), the cell's frame
code_lines    each step's code line as each notebook writes it
match_badge   whether the state is a preset's own, and what changed since
mask_tables   the mask lab's masks and its three fills
scaling_plot  the scaling lab's figure and sentence
grids         the editable input grids: their HTML, their tables (browser rows <-> raw cells, heads stacked), one
              checked cell edit, a checked pasted block
overview      the one-screen pipeline of the shown head
variants      the variant steps' cells and cards (RoPE, kv heads, ALiBi, window, tiles, KV cache), each only while on
printing      torch's print, written from the values by torch's own rules
heat          heatmaps as one byte per cell for a ``<canvas>``
"""
