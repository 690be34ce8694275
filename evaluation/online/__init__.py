"""Online evaluation from search logs (UBI JSON lines, AOL TSV): core/ (pure; DuckDB does the reading and the
aggregation) holds the online measures (CTR, abandonment, session success, zero results, traffic), A/B comparisons,
click models and topics sampled from traffic; services import and delete logs; views, forms and the demo's log serve
the online page; `python -m evaluation.online` runs it on files."""
