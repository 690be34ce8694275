"""Reads of the RAG feature: answers and their labels (answers), nuggets and their assignments (nuggets)."""
