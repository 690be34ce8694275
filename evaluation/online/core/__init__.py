"""Pure (no Django): search logs read into a columnar store (DuckDB), the online measures, A/B comparisons, click
models, traffic sampling and simulated logs."""
