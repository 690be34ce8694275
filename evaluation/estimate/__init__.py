"""Leaderboards that say how sure they are: a run's value estimated from a machine judge's labels on every topic,
corrected by people's labels on a random sample of topics (prediction-powered inference), with its interval; the
differences between runs with theirs, and how many more topics people would need to judge to separate them."""
