"""Pure (no Django): the file parsers of imports, each problem named by file, line and field."""
