"""The assessors' world: collections, topics, documents, runs, pools, assignments and judgments."""
