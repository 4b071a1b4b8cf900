"""The steps of attention as small pure functions: projections.py (weights, project, split and merge heads),
positions.py (sinusoidal, RoPE, ALiBi), kv_heads.py (grouped-query sharing), masks.py (causal, padding, window) and
sdpa.py (score, scale, mask, normalise, mix, every intermediate kept)."""
