"""RAG answers judged by nuggets, as TREC's RAG track does: answers with their citations, the nuggets of each topic,
who assigned which nugget to which answer, whether each citation supports its sentence; by people and by machines."""
