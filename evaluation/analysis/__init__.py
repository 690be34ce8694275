"""Analysis of results: a run's per-topic values, runs compared with significance tests, curves and plots (core/,
pure), measures estimated from sampled pools, and trial runs scored without pooling."""
