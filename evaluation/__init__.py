"""Everything derived from judgments: the pure measures and agreement engines, and the stored results.

`measures` and `evaluation.agreement` import no Django; `python -m evaluation` is a trec_eval-compatible
command line over them.
"""
