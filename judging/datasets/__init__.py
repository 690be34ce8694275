"""Standard collections by id: an ir_datasets dataset's topics, qrels (an imported source) and documents (all, or
only those the pools need), read offline from IR_DATASETS_HOME unless the operator allows downloads."""
