"""Pages of the evaluation app, for researchers and admins: the leaderboard and downloads, a run's page, two runs
compared, curves, agreement, trial runs, and the plots they show."""
