"""The trec_eval-compatible command line (`python -m evaluation`): its input modes (qrels, judgment groups,
preferences), its output and its errors. Pure: no Django."""
