"""Agreement speed beside the reference libraries, in the same process on the same data.

    .venv/bin/pip install -e '.[test]' && .venv/bin/python benchmarks/agreement.py

One topic: 5 assessors x 2,000 items (target < 50 ms for the full report); a collection: 500 such topics with
200 items each (target < 10 s). Peers: krippendorff.alpha and statsmodels' fleiss_kappa on pre-built arrays.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from evaluation import agreement


def topic_items(rng, items=2000, assessors=5, scale=4):
    truth = rng.integers(0, scale, items)
    noise = rng.integers(-1, 2, (assessors, items)) * (rng.random((assessors, items)) < 0.3)
    grades = np.clip(truth + noise, 0, scale - 1)
    return [{a: int(grades[a, i]) for a in range(assessors)} for i in range(items)], grades


def timed(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    import krippendorff
    from statsmodels.stats.inter_rater import fleiss_kappa

    rng = np.random.default_rng(0)
    items, grades = topic_items(rng)
    table = np.stack([(grades == c).sum(axis=0) for c in range(4)], axis=1)
    print("one topic, 5 assessors x 2,000 items")
    labels = agreement.Labels.of(items)
    built = timed(lambda: agreement.Labels.of(items))
    print(f"  building the items x assessors matrix from mappings: {built * 1000:.1f} ms (in 'ours' below)")
    ours_alpha = timed(lambda: agreement.krippendorff_alpha(items, "ordinal"))
    peer_alpha = timed(
        lambda: krippendorff.alpha(reliability_data=grades.astype(float), level_of_measurement="ordinal")
    )
    print(
        f"  Krippendorff alpha (ordinal)  ours {ours_alpha * 1000:7.1f} ms   krippendorff {peer_alpha * 1000:7.1f} ms"
        f"   ratio {peer_alpha / ours_alpha:5.2f}x"
    )
    ours_fleiss = timed(lambda: agreement.fleiss_kappa(items, range(4)))
    peer_fleiss = timed(lambda: fleiss_kappa(table))
    print(
        f"  Fleiss kappa                  ours {ours_fleiss * 1000:7.1f} ms   statsmodels  {peer_fleiss * 1000:7.1f} ms"
        f"   ratio {peer_fleiss / ours_fleiss:5.2f}x (statsmodels gets a ready count table)"
    )
    prebuilt = timed(lambda: agreement.krippendorff_alpha(labels, "ordinal"))
    print(f"  Krippendorff alpha on a prebuilt matrix: {prebuilt * 1000:.1f} ms")
    reference = grades[0].tolist()
    report = timed(lambda: agreement.agreement_report(items, categories=range(4), threshold=2, reference=reference))
    print(
        f"  full report (every statistic, graded and binary, pairwise and against consensus, from mappings): "
        f"{report * 1000:.1f} ms  (target < 50 ms)"
    )
    topics = [topic_items(rng, items=200)[0] for _ in range(500)]
    start = time.perf_counter()
    for topic in topics:
        agreement.agreement_report(topic, categories=range(4), threshold=2)
    print(f"500 topics x 200 items, full report each: {time.perf_counter() - start:.2f} s  (target < 10 s)")


if __name__ == "__main__":
    main()
