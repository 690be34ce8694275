"""RAG answers scored by nuggets: castorini/nuggetizer's four scores, support precision and recall, the RAG
leaderboard and the machine-versus-people comparison; `python -m evaluation.nuggets` scores nuggetizer's files."""
