"""Pages of agreement: the kappa heatmap with its confusion tables, and the per-assessor reliability table."""
