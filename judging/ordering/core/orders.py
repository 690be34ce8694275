"""Adaptive judging orders, pure (no Django): which pooled document of a topic to judge next, given the judgments
so far. The judging queue and `python -m judging.ordering` use the same classes.

An order sees one topic: the runs' rankings, the pool (its documents in the static priority order of the pool
build) and the labels as they arrive (`observe`). `choose` names the next document; `upcoming` the next few without
changing anything. Only pooled documents are ever proposed; a run's ranking is read as its pooled documents in rank
order. A label is evidence about the runs whose next unlabelled document it was (for MTF and the bandits), so a
replay of the same labels in the same order always rebuilds the same state, whoever judged them and in whatever
order they were proposed.

Strategies (REGISTRY: each order's class with the label admins choose it by; a new order is a class and one
`register` call, and the collection form, the model's choices, `python -m judging.ordering` and the benchmarks
list it):
- best_rank: the static order (pool priority: best rank over the runs, then run precedence).
- mtf: Move-to-Front as Losada, Parapar and Barreiro (2016) adapt Cormack et al. (1998): every run has a priority,
  lowered by one for each non-relevant document it gives; the next document is the next unlabelled one of the
  highest-priority run, the run last served keeping its turn on ties (so a run stays at the front while its
  documents are relevant), then the run served least recently.
- bandit: Thompson sampling over runs (Losada et al. 2016, 2017): a Beta(1 + relevant, 1 + non-relevant) posterior
  per run over the documents it gave; the run with the largest draw gives its next document.
- bandit_ns: the non-stationary variant: the same posterior with older evidence discounted by GAMMA per newer
  observation of the run (discounted Thompson sampling), since a run's precision falls as it is read deeper.
- cal: continuous active learning (as HiCAL, Abualsaud et al. 2018): a logistic regression on the documents'
  features (the runs' reciprocal ranks and, when texts are given, their TF-IDF terms) learnt from the labels so far,
  refitted after every batch of labels (batches grow by 10%, as in BMI); before it has both classes, reciprocal rank
  fusion orders.
- impact: the document whose label would move the runs' AP the most in expectation: its probability of relevance
  (the mean posterior precision of the runs that retrieved it) times the sum of its AP-prior weights over the runs
  (Aslam, Pavlu and Savell 2003: rank r of N weighs (1 + H_N - H_r) / 2N).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

GAMMA = 0.9  # bandit_ns: weight of a run's evidence per newer observation of that run
RRF_K = 60


def is_relevant(grade: int | None, relevance_level: int) -> bool:
    """A label counts as relevant at or above the relevance level; 'cannot judge' (None) does not."""
    return grade is not None and grade >= relevance_level


class JudgingOrder:
    """The static best-rank order; the base of the adaptive ones (which override `_pick` and `_feedback`)."""

    name = "best_rank"

    def __init__(
        self,
        rankings: Mapping[str, Sequence[int]],
        pool: Sequence[int],
        *,
        relevance_level: int = 1,
        seed: int = 0,
        texts: Mapping[int, str] | None = None,
    ):
        self.pool = [int(d) for d in pool]
        self.rank_of_pool = {d: i for i, d in enumerate(self.pool)}
        self.relevance_level = relevance_level
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.texts = texts
        self.tags = sorted(rankings)
        pooled = set(self.rank_of_pool)
        self.lists = [[int(d) for d in rankings[tag] if int(d) in pooled] for tag in self.tags]
        self.depths = [max(len(rankings[tag]), 1) for tag in self.tags]
        self.ranks = np.zeros((len(self.tags), len(self.pool)))  # each run's rank of each pooled document; 0: none
        for run, tag in enumerate(self.tags):
            for rank, document in enumerate(rankings[tag], start=1):
                index = self.rank_of_pool.get(int(document))
                if index is not None:
                    self.ranks[run, index] = rank
        self.cursors = [0] * len(self.tags)
        self.labels: dict[int, int | None] = {}
        self._static = 0

    # --- state ------------------------------------------------------------------------------------------------
    def observe(self, document: int, grade: int | None) -> None:
        """A label arrived for `document` (None: the assessor could not judge it). Repeats are ignored: the first
        label is the evidence, as a later change of mind does not undo which documents were read."""
        document = int(document)
        if document in self.labels or document not in self.rank_of_pool:
            return
        relevant = is_relevant(grade, self.relevance_level)
        at_front = [i for i in range(len(self.tags)) if self._cursor_document(i) == document]
        self.labels[document] = grade
        self._feedback(document, relevant, at_front)

    def _cursor_document(self, run: int, skip: set[int] | frozenset = frozenset()) -> int | None:
        """The run's next pooled document nobody has labelled (nor in `skip`); moves the cursor past labelled ones."""
        ranking, cursor = self.lists[run], self.cursors[run]
        while cursor < len(ranking) and ranking[cursor] in self.labels:
            cursor += 1
        self.cursors[run] = cursor
        while cursor < len(ranking) and (ranking[cursor] in skip or ranking[cursor] in self.labels):
            cursor += 1
        return ranking[cursor] if cursor < len(ranking) else None

    def _feedback(self, document: int, relevant: bool, runs: list[int]) -> None:
        """Updates the strategy's state after a label; `runs` had the document as their next one."""

    # --- choosing -----------------------------------------------------------------------------------------------
    def choose(self) -> int | None:
        """The next document to judge (None when every pooled document is labelled)."""
        picks = self.upcoming(1)
        return picks[0] if picks else None

    def upcoming(self, limit: int) -> list[int]:
        """The next `limit` documents in the order the strategy would propose them if none of them were judged
        relevant (documents proposed are set aside, not labelled); does not change the state."""
        picks: list[int] = []
        pending: set[int] = set()
        while len(picks) < limit:
            document = self._pick(pending)
            if document is None:
                break
            picks.append(document)
            pending.add(document)
        return picks

    def _pick(self, pending: set[int]) -> int | None:
        while self._static < len(self.pool) and self.pool[self._static] in self.labels:
            self._static += 1
        for document in self.pool[self._static :]:
            if document not in self.labels and document not in pending:
                return document
        return None

    def remaining(self) -> int:
        return len(self.pool) - len(self.labels)


class MoveToFront(JudgingOrder):
    name = "mtf"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.priority = [0] * len(self.tags)
        self.served = [0] * len(self.tags)  # when each run last gave a document (0: never)
        self.current: int | None = None  # the run at the front while its documents are relevant
        self.clock = 0

    def _key(self, run: int, priority: list[int], served: list[int], current: int | None):
        return (-priority[run], run != current, served[run], run)

    def _feedback(self, document, relevant, runs):
        if not runs:
            return
        front = min(runs, key=lambda r: self._key(r, self.priority, self.served, self.current))
        self.clock += 1
        for run in runs:
            self.served[run] = self.clock
            self.priority[run] -= not relevant
        self.current = front if relevant else None

    def upcoming(self, limit):
        # Documents proposed but not judged yet count as not relevant for their run's place (as mtf_pool does).
        priority, served, current, clock = list(self.priority), list(self.served), self.current, self.clock
        picks: list[int] = []
        pending: set[int] = set()
        while len(picks) < limit:
            alive = [r for r in range(len(self.tags)) if self._cursor_document(r, pending) is not None]
            if not alive:
                break
            run = min(alive, key=lambda r: self._key(r, priority, served, current))
            document = self._cursor_document(run, pending)
            picks.append(document)
            pending.add(document)
            clock += 1
            priority[run], served[run], current = priority[run] - 1, clock, None
        return picks


class ThompsonBandit(JudgingOrder):
    name = "bandit"
    discount = 1.0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.relevant = np.zeros(len(self.tags))
        self.nonrelevant = np.zeros(len(self.tags))

    def _feedback(self, document, relevant, runs):
        for run in runs:
            self.relevant[run] = self.discount * self.relevant[run] + relevant
            self.nonrelevant[run] = self.discount * self.nonrelevant[run] + (not relevant)

    def upcoming(self, limit):
        # Draws depend only on the seed and how many labels there are, so a reload shows the same order.
        self.rng = np.random.default_rng([self.seed, len(self.labels)])
        return super().upcoming(limit)

    def _pick(self, pending):
        alive = np.array([self._cursor_document(r, pending) is not None for r in range(len(self.tags))], dtype=bool)
        if not alive.any():
            return None
        draws = self.rng.beta(1.0 + self.relevant, 1.0 + self.nonrelevant)
        draws[~alive] = -1.0
        return self._cursor_document(int(np.argmax(draws)), pending)


class DiscountedThompsonBandit(ThompsonBandit):
    name = "bandit_ns"
    discount = GAMMA


def _reciprocal(ranks: np.ndarray, offset: float = 0.0) -> np.ndarray:
    """1 / (offset + rank) where the run retrieved the document, 0 where it did not."""
    return np.divide(1.0, offset + ranks, out=np.zeros_like(ranks), where=ranks > 0)


def _fused_scores(order: JudgingOrder) -> np.ndarray:
    """Reciprocal rank fusion of the pool's documents over all runs' rankings."""
    return _reciprocal(order.ranks, RRF_K).sum(axis=0)


class _ScoredOrder(JudgingOrder):
    """Orders whose every document has a score: the unlabelled document with the highest score is next."""

    def _scores(self) -> np.ndarray:
        raise NotImplementedError

    def upcoming(self, limit):
        scores = self._scores()
        unlabelled = [i for i, d in enumerate(self.pool) if d not in self.labels]
        # Ties go to the static order (the pool's priority), so the order is fully determined.
        chosen = sorted(unlabelled, key=lambda i: (-scores[i], i))[:limit]
        return [self.pool[i] for i in chosen]


class ContinuousActiveLearning(_ScoredOrder):
    name = "cal"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.features = self._features()
        self.fused = _fused_scores(self)
        self._fitted_at = 0
        self._scores_cache: np.ndarray | None = None

    def _features(self):
        columns = _reciprocal(self.ranks).T
        if not self.texts:
            return columns
        from scipy.sparse import csr_matrix, hstack
        from sklearn.feature_extraction.text import TfidfVectorizer

        terms = TfidfVectorizer(sublinear_tf=True, min_df=1).fit_transform([self.texts.get(d, "") for d in self.pool])
        return hstack([terms, csr_matrix(columns)]).tocsr()

    def _scores(self):
        labelled = len(self.labels)
        if self._scores_cache is not None and labelled < self._fitted_at + max(1, self._fitted_at // 10):
            return self._scores_cache
        index = [self.rank_of_pool[d] for d in self.labels]
        target = np.array([is_relevant(g, self.relevance_level) for g in self.labels.values()], dtype=int)
        if len(set(target.tolist())) < 2:
            scores = self.fused
        else:
            from sklearn.linear_model import LogisticRegression

            model = LogisticRegression(C=1.0, max_iter=200)
            model.fit(self.features[index], target)
            scores = model.decision_function(self.features)
        self._fitted_at, self._scores_cache = labelled, scores
        return scores


class ImpactOrder(_ScoredOrder):
    name = "impact"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.retrieved = self.ranks > 0
        self.weights = np.zeros_like(self.ranks)
        for run, depth in enumerate(self.depths):
            harmonic = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, depth + 1))))
            ranks = self.ranks[run, self.retrieved[run]].astype(int)
            self.weights[run, self.retrieved[run]] = (1.0 + harmonic[depth] - harmonic[ranks]) / (2.0 * depth)
        self.relevant = np.zeros(len(self.tags))
        self.nonrelevant = np.zeros(len(self.tags))

    def _feedback(self, document, relevant, runs):
        index = self.rank_of_pool[document]
        # Every run that retrieved the document learns from it (not only the runs that had it next).
        self.relevant += self.retrieved[:, index] * relevant
        self.nonrelevant += self.retrieved[:, index] * (not relevant)

    def _scores(self):
        precision = (1.0 + self.relevant) / (2.0 + self.relevant + self.nonrelevant)
        counts = self.retrieved.sum(axis=0)
        probability = (precision @ self.retrieved) / np.maximum(counts, 1)
        return probability * self.weights.sum(axis=0)


@dataclass(frozen=True)
class OrderSpec:
    name: str
    label: str
    order: type[JudgingOrder]

    @property
    def adaptive(self) -> bool:
        """Whether the order learns from the labels as they come (its next document is decided after each save),
        rather than following the pool's static order."""
        return self.order is not JudgingOrder


REGISTRY: dict[str, OrderSpec] = {}
ORDERS = REGISTRY.keys()  # a live view: an order registered later is in it


def register(order: type[JudgingOrder], label: str) -> type[JudgingOrder]:
    REGISTRY[order.name] = OrderSpec(order.name, label, order)
    return order


def is_adaptive(name: str) -> bool:
    """Whether the named order is adaptive (`OrderSpec.adaptive`); an unknown name is the static order's."""
    spec = REGISTRY.get(name)
    return spec is not None and spec.adaptive


def order_choices() -> list[tuple[str, str]]:
    """(name, label) of every order: the collection field's and the form's choices (a callable, so a new order
    needs no migration)."""
    return [(spec.name, spec.label) for spec in REGISTRY.values()]


register(JudgingOrder, "Best rank first (static pool order)")
register(MoveToFront, "Move-to-Front (adaptive: follows runs that keep finding relevant documents)")
register(ThompsonBandit, "Bandit over runs (Thompson sampling)")
register(DiscountedThompsonBandit, "Bandit over runs, non-stationary (recent evidence weighs more)")
register(ContinuousActiveLearning, "Continuous active learning (learns from judged documents' text and the runs)")
register(ImpactOrder, "Impact (documents whose label moves the runs' AP most)")


def judging_order(
    name: str,
    rankings: Mapping[str, Sequence[int]],
    pool: Sequence[int],
    *,
    relevance_level: int = 1,
    seed: int = 0,
    texts: Mapping[int, str] | None = None,
) -> JudgingOrder:
    """The named strategy's order for one topic (see the module's docstring); ValueError for an unknown name."""
    if name not in REGISTRY:
        raise ValueError(f"unknown judging order {name!r}; one of {', '.join(REGISTRY)}")
    return REGISTRY[name].order(rankings, pool, relevance_level=relevance_level, seed=seed, texts=texts)
