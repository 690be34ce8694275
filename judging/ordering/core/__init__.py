"""Pure (no Django): pooling strategies, adaptive judging orders, where a campaign stands and when to stop."""
