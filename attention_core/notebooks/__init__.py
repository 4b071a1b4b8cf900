"""The seed notebooks as data: presets.py (every example, with the tensors it printed; data/*.json) and tokenizer.py
(003's SimpleTokenizer)."""
