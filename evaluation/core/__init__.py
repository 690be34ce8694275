"""Pure (no Django) engines shared by evaluation's results: consensus qrels by a named method."""
