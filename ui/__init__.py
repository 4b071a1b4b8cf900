"""The page: one module per section of the app, each with its own ``build_*`` function.

Sections (each builds its components inside the current Blocks and wires its own events):
    workbench   the toolbar, the editable grids, the one-screen pipeline and the notebook below it
    labs        the mask lab and the scaling lab
    sentence    sentence mode (seed 003's tokenizer and embeddings)
    real_model  all-MiniLM-L6-v2, one head at a time
    learn       quiz me, pin and compare
    train       one head learning a toy task
    present     present mode and the guided tour
    share       links, export and scenario files

Below the sections: ``render/`` (tables, grids, overview, heatmaps), the page's ``static/`` CSS and JS, and the
mechanisms every section shares. Imports run downward only: sections -> mechanisms -> render -> attention_core.
"""
