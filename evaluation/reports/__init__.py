"""A track's per-run evaluation reports, as TREC's appendix gives them: each topic's value beside the best, median
and worst over every submitted run, the run's means, the plot and the `trec_eval -q` file."""
