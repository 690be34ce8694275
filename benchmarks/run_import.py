"""Importing a 1M-line TREC run into PostgreSQL (target: 250,000 lines a second), beside ranx reading the same file.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/workbench_bench REDIS_URL=redis://127.0.0.1:6379/4 \
        .venv/bin/python benchmarks/run_import.py

1,000 topics x depth 1,000 over 10,000 documents, scores with ties. Ours: `runs_import` (parse, validate every
line, order in trec_eval order, store, mark topics stale), the same service the web upload and `import_runs` use.
A plain file takes the import's fast path (pyarrow reads it, every distinct value is checked once); a file with a
problem goes through the careful reader, which names the line. Peer: ranx's `Run.from_file` (parse only, nothing
validated or stored), measured in the same process. With a broker, as in production, the 1,000 topic recomputes
the import enqueues run on the workers afterwards and are not counted (they are purged here); in the embedded mode
(no broker) they run inline and the import waits for them.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# A deployment's settings (DEBUG off with a DATABASE_URL, as production runs), with a throwaway key of its own: the
# command in the docstring runs as written.
os.environ.setdefault("SECRET_KEY", __import__("secrets").token_urlsafe(50))


def main():
    if "postgres" not in os.environ.get("DATABASE_URL", "") or not os.environ.get("REDIS_URL"):
        sys.exit("set DATABASE_URL (PostgreSQL) and REDIS_URL; see the docstring")
    import django

    django.setup()
    from django.core.management import call_command

    from judging import services
    from judging.imports.services import runs_import
    from judging.models import Collection

    call_command("migrate", verbosity=0)
    Collection.objects.filter(name="run-import").delete()
    collection = services.collection_create(name="run-import")
    topics, depth, documents = 1000, 1000, 10_000
    services.topics_create(collection=collection, topics=[{"number": str(t), "title": "t"} for t in range(topics)])
    services.documents_create(collection=collection, documents=({"docno": f"D{d}"} for d in range(documents)))
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.run"
        with open(path, "w") as out:
            for t in range(topics):
                docs = rng.choice(documents, depth, replace=False)
                scores = np.round(rng.random(depth) * 50, 2)
                out.writelines(f"{t} Q0 D{d} {r} {s} big\n" for r, (d, s) in enumerate(zip(docs, scores, strict=True)))
        began = time.perf_counter()
        report = runs_import(collection=collection, paths=[path])
        ours = time.perf_counter() - began
        from config.celery import app

        app.control.purge()
        rate = 1_000_000 / ours
        print(f"1,000,000-line run imported into PostgreSQL: {ours:.2f} s, {rate:,.0f} lines/s ({report}); "
              "target >= 250,000 lines/s")  # fmt: skip
        try:
            from ranx import Run

            began = time.perf_counter()
            Run.from_file(str(path), kind="trec")
            peer = time.perf_counter() - began
            print(f"  ranx Run.from_file, parse only: {peer:.2f} s; ratio {peer / ours:.2f}x")
        except ImportError:
            print("  ranx not installed (pip install -e '.[bench]')")


if __name__ == "__main__":
    main()
