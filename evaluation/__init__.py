"""Everything derived from judgments: the stored results, and the command lines over the pure engines.

`measures` (with the agreement statistics, `measures.agreement`) imports no Django; `python -m evaluation` is a
trec_eval-compatible command line over it.
"""
