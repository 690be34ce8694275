"""Judging less: pool strategies, adaptive judging orders and the stop signal (core/, pure), a topic's frontier
(selectors), and `python -m judging.ordering`, a campaign replayed from qrels."""
