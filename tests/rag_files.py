"""RAG answer lines in TREC's 2024 and 2025 formats, for the tests."""

from __future__ import annotations

import json


def rag24(run: str, topic: str, references: list[str], sentences: list[tuple[str, list[int]]], **extra) -> str:
    record = {
        "run_id": run, "topic_id": topic, "topic": f"topic {topic}", "references": references,
        "response_length": sum(len(text.split()) for text, _ in sentences),
        "answer": [{"text": text, "citations": cited} for text, cited in sentences],
    }  # fmt: skip
    record.update(extra)
    return json.dumps(record)


def rag25(run: str, topic: str, references: list[str], sentences: list[tuple[str, list]], **metadata) -> str:
    return json.dumps({
        "metadata": {"team_id": "team", "run_id": run, "narrative_id": topic, "type": "automatic",
                     "narrative": f"narrative {topic}", **metadata},
        "references": references,
        "answer": [{"text": text, "citations": cited} for text, cited in sentences],
    })  # fmt: skip
