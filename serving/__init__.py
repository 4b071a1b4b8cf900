"""What protects and serves the app, below the page: nothing here imports ``ui``.

limits          the request-body bound (an ASGI middleware)
sessions        the pages' state, keyed by session hash, bounded
export_folders  private folders for exported files, removed after a while
"""
