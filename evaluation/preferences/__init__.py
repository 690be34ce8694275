"""Results of preference judging: the prefs file trec_eval reads, graded qrels from the tournament, and their exports
(selectors)."""
