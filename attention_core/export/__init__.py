"""A scenario as a runnable script or notebook: notebook.py, with the variant steps' cells from variants.py."""
