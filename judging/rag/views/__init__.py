"""The RAG feature's pages: answers (answers) and a topic's nuggets (nuggets)."""
