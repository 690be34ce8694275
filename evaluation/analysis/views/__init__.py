"""Pages of analysis: a run, two runs compared, plots as files, a trial run."""
