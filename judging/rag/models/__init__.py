"""The RAG feature's tables: answers and the support of their citations (answers), nuggets and their assignments
(nuggets). Imported by the judging app's config (`judging.apps`), so they are its models and its migrations'."""
