"""The JSON contract: scenario.py parses a scenario and writes its result, variants.py its optional variant keys,
record.py the parsed record both share."""
