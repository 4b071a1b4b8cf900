"""The bottom layer: the one error type (errors.py) and the field parsers every layer above shares (fields.py)."""
