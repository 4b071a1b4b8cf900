"""The attention layer assembled from the steps (layer.py), and its execution strategies: FlashAttention's tiled
online softmax (tiled.py) and decoding token by token with a KV cache (kv_cache.py)."""
