"""Pure (numpy, matplotlib; no Django): significance tests, curves, plots, estimates from sampled pools."""
