"""Writes of the RAG feature: answers and support (answers), nuggets (nuggets), nugget assignments (assignments),
and a machine judge's work on them (machine)."""
