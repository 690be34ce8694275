"""Quality of people's labels: checks (gold and repeated items mixed unmarked into queues), pauses of an assessor who
drifts, and the statistics behind both (core.py, pure). `python -m judging.quality` reads labels from a file."""
