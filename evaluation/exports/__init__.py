"""Exports of a collection: qrels (`qrels.py`) and results (`results.py`), in the formats trec_eval and the field
read."""
