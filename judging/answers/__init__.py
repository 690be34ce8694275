"""RAG answers: runs of answers with citations (TREC RAG 2024 and 2025 formats), and the support of each cited
segment judged per sentence."""
