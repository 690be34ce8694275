"""Online evaluation from search logs (UBI JSON lines, AOL TSV): the logs read into a columnar store, the online
measures (CTR, abandonment, session success, zero results, traffic), A/B comparisons, click models and topics
sampled from traffic. Pure: no Django; DuckDB does the reading and the aggregation."""
