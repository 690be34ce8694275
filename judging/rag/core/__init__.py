"""The RAG feature's pure parts, no Django: reading answer files (answers), machine nugget prompts and replies
(nuggets)."""
