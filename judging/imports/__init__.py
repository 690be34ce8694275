"""Imports of topics, documents, runs and qrels: file parsers that report every problem by file, line and field
(`problems`, `formats`), and the atomic services that write what they parse (`services`)."""
