"""What protects and serves the app, below the page: nothing here imports ``ui``.

limits          the request-body bound (an ASGI middleware), with a bounded lingering read after a 413
sessions        the pages' state, keyed by session hash, bounded
export_folders  private folders for exported files, removed after a while
workers         one worker process for the real model and training steps, off the server's interpreter
api             the public API app (/compute, /model_attention, /train), its MCP tools, and the root routing
"""
